public import JSONPatch

/// One JSON Patch operation sent by the DataSync `update*` methods: the `JSONPatch` module's
/// `PatchOperation`, so patches built, checked or diffed with that module can be sent as they are.
///
/// Paths address stored property names (`/status`, `/payload/price`, `/entityClassVersion`) and
/// are sent exactly as written.
///
/// ```swift
/// let operations: [PubNubDataSyncPatchOperation] = [
///     .test(path: "/status", value: "active"),
///     .replace(path: "/payload/price", value: 79.99),
/// ]
/// ```
public typealias PubNubDataSyncPatchOperation = PatchOperation
