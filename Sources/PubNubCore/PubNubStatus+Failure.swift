import Auth
import JSONCore
package import PubNubBase
import Transport

extension PubNubStatus.Category {
    /// The category of a REST call that failed with `error`, following the status model of the
    /// subscribe loop:
    ///
    /// | failure | category |
    /// |---|---|
    /// | HTTP 401, 403; no token and the token provider failed | ``accessDenied`` |
    /// | HTTP 414 | ``requestURITooLong`` |
    /// | HTTP 481 | ``malformedFilterExpression`` |
    /// | HTTP 429, 5xx | ``networkIssues`` |
    /// | any other HTTP 4xx, or an error array in a 2xx answer | ``badRequest`` |
    /// | a 2xx answer that cannot be read | ``malformedResponse`` |
    /// | timed out | ``timeout`` |
    /// | TLS failure | ``tlsConnectionFailed`` |
    /// | refused, unresolvable, lost connection, other transport failure | ``networkIssues`` |
    /// | task cancelled | ``cancelled`` |
    /// | refused before sending (missing argument, size limit, configuration) | ``badRequest`` |
    package static func forFailure(_ error: PubNubError) -> PubNubStatus.Category {
        if error.reason == .malformedResponse { return .malformedResponse }
        if let status = error.statusCode {
            switch status {
            case 401, 403: return .accessDenied
            case 414: return .requestURITooLong
            case 481: return .malformedFilterExpression
            case 429, 500...599: return .networkIssues
            case 200...299, 400...499: return .badRequest
            default: return .malformedResponse
            }
        }
        switch error.reason {
        case .requestTimedOut: return .timeout
        case .requestCancelled: return .cancelled
        case .connectionFailure:
            return (error.underlying as? TransportError)?.code == .tls ? .tlsConnectionFailed : .networkIssues
        case .transportFailure:
            return error.underlying is AuthError ? .accessDenied : .networkIssues
        default:
            return .badRequest
        }
    }
}

extension PubNubStatus {
    /// The status of a REST call of `operation` that failed with `error`.
    ///
    /// `body` is the service's answer when there was one: the channels and channel groups a 403
    /// names in its `payload` become ``ErrorData/channels`` and ``ErrorData/channelGroups``
    /// (groups without their leading `:`). The information is the service's or the SDK's
    /// message; for a failure to exchange it names the reason only, since a transport's message
    /// may quote the URL, which carries the token.
    package static func failure(_ error: PubNubError, operation: Operation, body: [UInt8]? = nil) -> PubNubStatus {
        let category = Category.forFailure(error)
        let isExchangeFailure =
            error.statusCode == nil
            && ([.requestTimedOut, .connectionFailure, .transportFailure, .requestCancelled] as [PubNubError.Reason])
                .contains(error.reason)
        let information = isExchangeFailure ? "the request failed (\(error.reason))" : error.message
        var channels: [String] = []
        var groups: [String] = []
        if let body, let payload = (try? JSONValue(parsing: body))?["payload"] {
            channels = payload["channels"]?.arrayValue?.compactMap(\.stringValue) ?? []
            groups =
                payload["channel-groups"]?.arrayValue?.compactMap(\.stringValue).map { name in
                    name.hasPrefix(":") ? String(name.dropFirst()) : name
                } ?? []
        }
        return PubNubStatus(
            category: category, operation: operation, isError: true, statusCode: error.statusCode,
            errorData: ErrorData(channels: channels, channelGroups: groups, information: information))
    }
}
