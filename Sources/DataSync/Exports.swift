// What `import DataSync` brings along: every module whose types appear in the DataSync API —
// the models, the JSON value type payloads use, the patch operations `update*` take, the transport
// types of the configuration (`HTTPClient`, `RetryPolicy`, middlewares) and the token provider.
// FilterExpression stays a separate import: the API takes filters as strings.

@_exported public import Auth
@_exported public import DataSyncModels
@_exported public import JSONCore
@_exported public import JSONPatch
@_exported public import Transport
