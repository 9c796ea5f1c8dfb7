/// The one error type of the SDK: every DataSync, Realtime and Messaging call fails with it.
///
/// ``reason-swift.property`` says what went wrong in a form you can match on; it follows the HTTP
/// status for service answers (`.preconditionFailed` for a stale `If-Match`, `.conflict` for a
/// failed `test` operation or a duplicate id, …) and names local failures
/// (`.missingRequiredParameter`) and transport failures (`.requestTimedOut`, …). Reasons can grow:
/// keep a default branch when you switch over them.
///
/// ``details`` keeps every item the service reported, with its `errorCode` and `path`.
///
/// ```swift
/// do {
///     _ = try await pubnub.dataSync.setUser(id: "u1", classVersion: 1, ifMatchesEtag: eTag)
/// } catch let error where error.pubNubError?.reason == .preconditionFailed {
///     // someone else changed the user: fetch it again and retry
/// }
/// ```
public struct PubNubError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in a form you can match on.
    public struct Reason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The reason's stable name.
        public let rawValue: String
        /// Creates a reason from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The reason's name.
        public var description: String { rawValue }

        /// HTTP 400: the service rejected the request (validation, unknown filter field, …).
        public static let badRequest = Reason(rawValue: "badRequest")
        /// HTTP 401: the request carried no valid credential.
        public static let unauthorized = Reason(rawValue: "unauthorized")
        /// HTTP 403: the credential does not permit the operation (Access Manager or DataSync).
        public static let forbidden = Reason(rawValue: "forbidden")
        /// HTTP 404: the object or class does not exist.
        public static let resourceNotFound = Reason(rawValue: "resourceNotFound")
        /// HTTP 405: the service does not allow this method here.
        public static let methodNotAllowed = Reason(rawValue: "methodNotAllowed")
        /// HTTP 406: the service cannot produce an acceptable representation.
        public static let notAcceptable = Reason(rawValue: "notAcceptable")
        /// HTTP 409: a duplicate id or pair, a failed `test` operation, or a cardinality rule.
        public static let conflict = Reason(rawValue: "conflict")
        /// HTTP 412: the `If-Match` eTag is stale; the object was left untouched.
        public static let preconditionFailed = Reason(rawValue: "preconditionFailed")
        /// HTTP 413: the request body is too large.
        public static let payloadTooLarge = Reason(rawValue: "payloadTooLarge")
        /// HTTP 415: the service does not accept the request's media type.
        public static let unsupportedMediaType = Reason(rawValue: "unsupportedMediaType")
        /// HTTP 429: too many requests.
        public static let tooManyRequests = Reason(rawValue: "tooManyRequests")
        /// HTTP 500: the service failed.
        public static let internalServiceError = Reason(rawValue: "internalServiceError")
        /// HTTP 502: a gateway in front of the service failed.
        public static let badGateway = Reason(rawValue: "badGateway")
        /// HTTP 503: the service is unavailable.
        public static let serviceUnavailable = Reason(rawValue: "serviceUnavailable")
        /// HTTP 504: a gateway in front of the service timed out.
        public static let gatewayTimeout = Reason(rawValue: "gatewayTimeout")
        /// Any other status outside 200...299; see ``PubNubError/statusCode``.
        public static let unrecognizedStatusCode = Reason(rawValue: "unrecognizedStatusCode")

        /// A required argument was empty; nothing was sent.
        public static let missingRequiredParameter = Reason(rawValue: "missingRequiredParameter")
        /// A filter or sort failed local validation (only when local validation is switched on);
        /// nothing was sent.
        public static let invalidFilterExpression = Reason(rawValue: "invalidFilterExpression")
        /// An argument could not be encoded (for example a payload whose `encode(to:)` throws);
        /// nothing was sent.
        public static let invalidArguments = Reason(rawValue: "invalidArguments")
        /// The client configuration cannot produce a request (for example an origin with a
        /// malformed port, or no usable transport); nothing was sent.
        public static let invalidConfiguration = Reason(rawValue: "invalidConfiguration")

        /// A successful status came with a body that is not the expected JSON shape.
        public static let malformedResponse = Reason(rawValue: "malformedResponse")

        /// The request timed out before a complete response arrived.
        public static let requestTimedOut = Reason(rawValue: "requestTimedOut")
        /// No connection could be made or kept (refused, unresolvable host, TLS, lost mid-way).
        public static let connectionFailure = Reason(rawValue: "connectionFailure")
        /// The calling task was cancelled.
        public static let requestCancelled = Reason(rawValue: "requestCancelled")
        /// Any other failure to exchange the request; see ``PubNubError/underlying``.
        public static let transportFailure = Reason(rawValue: "transportFailure")

        /// The reason for an HTTP status outside 200...299.
        public static func forStatusCode(_ status: Int) -> Reason {
            switch status {
            case 400: return .badRequest
            case 401: return .unauthorized
            case 403: return .forbidden
            case 404: return .resourceNotFound
            case 405: return .methodNotAllowed
            case 406: return .notAcceptable
            case 409: return .conflict
            case 412: return .preconditionFailed
            case 413: return .payloadTooLarge
            case 415: return .unsupportedMediaType
            case 429: return .tooManyRequests
            case 500: return .internalServiceError
            case 502: return .badGateway
            case 503: return .serviceUnavailable
            case 504: return .gatewayTimeout
            default: return .unrecognizedStatusCode
            }
        }
    }

    /// One message reported by the service.
    public struct Detail: Hashable, Sendable, CustomStringConvertible {
        /// The service's code, such as `DS-0100` or `SYN-0004`, when it sent one.
        public var errorCode: String?
        /// The service's message.
        public var message: String
        /// Where the problem is: an RFC 6901 pointer into the request body (`/data/id`) or a
        /// query parameter name (`channelId`), when the service sent one.
        public var path: String?

        /// Creates a detail, as the error mapping does for each item of an error answer; tests use it
        /// to build the error they expect.
        public init(errorCode: String? = nil, message: String, path: String? = nil) {
            self.errorCode = errorCode
            self.message = message
            self.path = path
        }

        /// `code: message (at path)`.
        public var description: String {
            var text = errorCode.map { "\($0): " } ?? ""
            text += message
            if let path { text += " (at \(path))" }
            return text
        }
    }

    /// What went wrong, in a form you can match on.
    public var reason: Reason
    /// A sentence for people.
    public var message: String
    /// The HTTP status of the service's answer, when there was one.
    public var statusCode: Int?
    /// The service's code of the first detail (`DS-0300`, …), when it sent one.
    public var errorCode: String?
    /// Every message the service reported, in order.
    public var details: [Detail]
    /// The service that produced the answer when it named itself (`Access Manager`).
    public var service: String?
    /// The error this one wraps (a transport error, a decoding error), if any.
    public var underlying: (any Error)?

    /// Creates an error. `errorCode` defaults to the first detail's code.
    public init(
        reason: Reason, message: String, statusCode: Int? = nil, errorCode: String? = nil, details: [Detail] = [],
        service: String? = nil, underlying: (any Error)? = nil
    ) {
        self.reason = reason
        self.message = message
        self.statusCode = statusCode
        self.errorCode = errorCode ?? details.lazy.compactMap(\.errorCode).first
        self.details = details
        self.service = service
        self.underlying = underlying
    }

    /// The reason, the status, the service's code and the message.
    public var description: String {
        var text = "PubNubError(\(reason)"
        if let statusCode { text += ", HTTP \(statusCode)" }
        if let errorCode { text += ", \(errorCode)" }
        return text + "): " + message
    }
}

/// An error that carries a ``PubNubError`` inside it (a failed publish's `PubNubPublishError`,
/// which adds the publish status), so ``Swift/Error/pubNubError`` finds the one inside.
package protocol PubNubErrorWrapper: Error {
    /// The error inside.
    var wrappedPubNubError: PubNubError { get }
}

extension Error {
    /// This error as a ``PubNubError``; for an error that wraps one (a failed publish's
    /// `PubNubPublishError`), the one it wraps; `nil` for any other error.
    public var pubNubError: PubNubError? {
        if let error = self as? PubNubError { return error }
        return (self as? any PubNubErrorWrapper)?.wrappedPubNubError
    }
}
