// What `import DataSync` brings along, and why:
//
// - PubNubCore, whole: it is the client itself (`PubNub`, `PubNubConfiguration`, `PubNubOrigin`)
//   and, by name, the Transport and Auth types of the configuration (see its Exports.swift).
// - The DataSync models and the sort and class-level values the operations take and return,
//   named one by one.
// - From JSONCore, `JSONValue` and `JSONCodable` (payloads); from JSONPatch, the operations
//   `update*` take and the builder that makes them.
//
// Named imports keep the surface deliberate: a type added to one of these modules later does not
// become part of `import DataSync` until it is listed here. From FilterExpression, the builder
// types the list calls take besides strings (`Filter`, and the typed filters and sort keys that
// `datasync-codegen` generates); the parser, validator and evaluator stay a separate import.

@_exported public import PubNubCore

@_exported public import struct DataSyncModels.PubNubDataSyncChannel
@_exported public import struct DataSyncModels.PubNubDataSyncClassLevel
@_exported public import struct DataSyncModels.PubNubDataSyncEntity
@_exported public import struct DataSyncModels.PubNubDataSyncMembership
@_exported public import protocol DataSyncModels.PubNubDataSyncObject
@_exported public import struct DataSyncModels.PubNubDataSyncPage
@_exported public import typealias DataSyncModels.PubNubDataSyncPatchOperation
@_exported public import struct DataSyncModels.PubNubDataSyncRelationship
@_exported public import struct DataSyncModels.PubNubDataSyncSortField
@_exported public import struct DataSyncModels.PubNubDataSyncUser
@_exported public import struct FilterExpression.Filter
@_exported public import protocol FilterExpression.FilterClassVersion
@_exported public import struct FilterExpression.FilterProperty
@_exported public import struct FilterExpression.FilterTier
@_exported public import struct FilterExpression.TypedFilter
@_exported public import struct FilterExpression.TypedFilterProperty
@_exported public import struct FilterExpression.TypedSortField
@_exported public import protocol JSONCore.JSONCodable
@_exported public import struct JSONCore.JSONObject
@_exported public import enum JSONCore.JSONValue
@_exported public import struct JSONPatch.JSONPointer
@_exported public import struct JSONPatch.PatchBuilder
@_exported public import enum JSONPatch.PatchOperation
