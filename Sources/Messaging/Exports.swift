// What `import Messaging` brings along: the client (PubNubCore, whole: `PubNub`, its
// configuration, `PubNubError`, `Timetoken`, `PubNubStatus`), the JSON types messages are made of, and the crypto
// module the messaging configuration takes. Named one by one, so a type added to those modules
// later does not silently join this module's surface.

@_exported public import PubNubCore

@_exported public import protocol JSONCore.JSONCodable
@_exported public import struct JSONCore.JSONObject
@_exported public import enum JSONCore.JSONValue
@_exported public import struct PubNubCrypto.CryptoModule
