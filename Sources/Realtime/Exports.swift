// What `import Realtime` brings along: the client it extends (PubNubCore, whole: `PubNub`,
// `PubNubConfiguration`, `Timetoken`, and by name the Transport and Auth types of the
// configuration), and `JSONValue` / `JSONCodable`, which message payloads and presence state use.
// Named, so a type added to JSONCore later does not silently join this module's surface.

@_exported public import PubNubCore
@_exported public import protocol JSONCore.JSONCodable
@_exported public import enum JSONCore.JSONValue
