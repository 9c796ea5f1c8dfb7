// The emulator's public API speaks in the HTTP server's request and response types:
// `Emulator.respond(to:)` takes a `ServerRequest` and returns a `ServerResponse`, `Emulator.handler`
// is a `ServerHandler`, and `EmulatorService` is written in both. Re-exporting exactly these three
// (by name, not the whole module) lets `import DataSyncEmulator` keep compiling for everyone who
// answers requests in process, while the server itself (`HTTPServer`, `HTTPTestingHandler`, fault
// injection) stays behind an explicit `import EmulatorHTTP` for the code that really hosts one.
@_exported public import protocol EmulatorHTTP.ServerHandler
@_exported public import struct EmulatorHTTP.ServerRequest
@_exported public import struct EmulatorHTTP.ServerResponse
// The emulator logs through the SDK's logging types (EmulatorConfiguration.logger), so one logger
// type serves an app's client and its test emulator.
@_exported public import struct PubNubBase.ClosureLogger
@_exported public import struct PubNubBase.PubNubLogCategory
@_exported public import enum PubNubBase.PubNubLogLevel
@_exported public import struct PubNubBase.PubNubLogRecord
@_exported public import protocol PubNubBase.PubNubLogger
@_exported public import struct PubNubBase.StandardErrorLogger
