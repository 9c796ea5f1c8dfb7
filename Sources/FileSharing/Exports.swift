// What `import FileSharing` brings along: the client (PubNubCore, whole: `PubNub`, its
// configuration, `PubNubError`, `Timetoken`) and the JSON type file messages are made of. Named
// one by one, so a type added to those modules later does not silently join this module's surface.

@_exported public import PubNubCore

@_exported public import enum JSONCore.JSONValue
