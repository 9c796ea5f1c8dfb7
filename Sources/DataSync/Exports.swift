// What `import DataSync` brings along: the model types, the JSON value type that payloads use,
// and the patch operations `update*` take. Transport and Auth stay separate imports; only code
// that plugs in a transport or a token provider needs them.

@_exported public import DataSyncModels
@_exported public import JSONCore
@_exported public import JSONPatch
