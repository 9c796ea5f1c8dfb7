// What `import PubNubCore` brings along: the types that appear in the signatures of the client
// and its configuration, named one by one so that a type added to Transport, Auth or PubNubBase
// later does not silently become part of this module's surface.
//
// - `PubNubError` is the error every call throws; `Timetoken` is what publish returns and
//   subscribe starts from. Both live in the internal base module PubNubBase, which is not a
//   product: users reach them through this module and the feature modules that re-export it.
// - The logging types (`PubNubLogger` and its records, levels and categories, the two loggers
//   shipped) live in PubNubBase too, so the emulator logs through the same ones; the
//   configuration's `logger` takes them.
// - The configuration takes a transport (`HTTPClient`), middlewares (`HTTPMiddleware`, whose
//   method takes an `HTTPRequest` and returns an `HTTPResponse`; `LoggingMiddleware` and its
//   sinks are the one middleware most apps add), a `RetryPolicy` and a `TokenProvider` (asked
//   with a `TokenRefreshReason`).
// - `PubNub.RequestConfiguration` takes query items and headers.
// - The configuration's `cryptoModule` is a `CryptoModule` (made with its factories, which throw
//   `CryptoError`).
// - `TransportError` and `AuthError` are what `PubNubError.underlying` holds for transport and
//   token failures, so callers can inspect them without another import.

@_exported public import struct Auth.AuthError
@_exported public import struct Auth.ClosureTokenProvider
@_exported public import protocol Auth.TokenProvider
@_exported public import struct Auth.TokenRefreshReason
@_exported public import struct PubNubBase.ClosureLogger
@_exported public import struct PubNubBase.PubNubError
@_exported public import struct PubNubBase.PubNubLogCategory
@_exported public import enum PubNubBase.PubNubLogLevel
@_exported public import struct PubNubBase.PubNubLogRecord
@_exported public import protocol PubNubBase.PubNubLogger
@_exported public import struct PubNubBase.StandardErrorLogger
@_exported public import typealias PubNubBase.Timetoken
@_exported public import struct PubNubCrypto.CryptoError
@_exported public import struct PubNubCrypto.CryptoModule
@_exported public import struct Transport.ClosureLogSink
@_exported public import protocol Transport.HTTPClient
@_exported public import struct Transport.HTTPHeaders
@_exported public import struct Transport.HTTPLogRecord
@_exported public import protocol Transport.HTTPLogSink
@_exported public import struct Transport.HTTPMethod
@_exported public import protocol Transport.HTTPMiddleware
@_exported public import struct Transport.HTTPQueryItem
@_exported public import struct Transport.HTTPRequest
@_exported public import struct Transport.HTTPResponse
@_exported public import struct Transport.LoggingMiddleware
@_exported public import struct Transport.RetryPolicy
@_exported public import struct Transport.TransportError
