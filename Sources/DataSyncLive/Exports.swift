// What `import DataSyncLive` brings along: the client it extends (PubNubCore, whole, with
// `PubNubError` and the retry policy type of the options), the DataSync models its views hold and
// `JSONValue` for their payloads. The REST API (`pubnub.dataSync`) and subscribing stay with
// `import DataSync` and `import Realtime`; named imports keep the surface deliberate.

@_exported public import PubNubCore

@_exported public import struct DataSyncModels.PubNubDataSyncChannel
@_exported public import struct DataSyncModels.PubNubDataSyncEntity
@_exported public import struct DataSyncModels.PubNubDataSyncMembership
@_exported public import protocol DataSyncModels.PubNubDataSyncObject
@_exported public import struct DataSyncModels.PubNubDataSyncRelationship
@_exported public import struct DataSyncModels.PubNubDataSyncUser
@_exported public import struct JSONCore.JSONObject
@_exported public import enum JSONCore.JSONValue
