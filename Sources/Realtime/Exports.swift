// What `import Realtime` brings along: the client it extends (PubNubCore, whole: `PubNub`,
// `PubNubConfiguration`, `Timetoken`, `PubNubStatus`, and by name the Transport and Auth types of the
// configuration), `JSONValue` / `JSONCodable`, which message payloads and presence state use, and
// the DataSync models its DataSync events carry.
// Named, so a type added to JSONCore later does not silently join this module's surface.

@_exported public import PubNubCore

@_exported public import struct DataSyncModels.PubNubDataSyncChannel
@_exported public import struct DataSyncModels.PubNubDataSyncClassLevel
@_exported public import struct DataSyncModels.PubNubDataSyncEntity
@_exported public import struct DataSyncModels.PubNubDataSyncMembership
@_exported public import protocol DataSyncModels.PubNubDataSyncObject
@_exported public import struct DataSyncModels.PubNubDataSyncRelationship
@_exported public import struct DataSyncModels.PubNubDataSyncUser
@_exported public import protocol JSONCore.JSONCodable
@_exported public import struct JSONCore.JSONObject
@_exported public import enum JSONCore.JSONValue
