package import JSONCore
package import PubNubCore
import Transport

/// The request descriptions of the subscribe loop and its presence calls (Documentation/Realtime.md).
package enum RealtimeCalls {
    /// A channel list as one path segment: each name percent-encoded, joined with a literal `,`;
    /// `,` alone for an empty list.
    package static func channelSegment(_ channels: [String]) -> String {
        channels.isEmpty ? "," : channels.map(HTTPRequest.encodePathSegment).joined(separator: ",")
    }

    /// `GET /v2/subscribe/{sub}/{channels}/0`: a handshake (`tt=0`) when `cursor` is `nil`,
    /// otherwise a long-poll with `tt` and `tr`.
    package static func subscribe(
        subscribeKey: String, channels: [String], groups: [String], cursor: SubscribeCursor?,
        presenceTimeout: Duration, state: [String: JSONValue], filterExpression: String?
    ) -> ServicePipeline.Call {
        var query: [HTTPQueryItem] = [HTTPQueryItem(name: "tt", value: String(cursor?.timetoken ?? 0))]
        if let cursor { query.append(HTTPQueryItem(name: "tr", value: String(cursor.region))) }
        if !groups.isEmpty { query.append(HTTPQueryItem(name: "channel-group", value: groups.joined(separator: ","))) }
        query.append(HTTPQueryItem(name: "heartbeat", value: String(presenceTimeout.components.seconds)))
        if cursor == nil, let encoded = encodeState(state) {
            query.append(HTTPQueryItem(name: "state", value: encoded))
        }
        if let filterExpression, !filterExpression.isEmpty {
            query.append(HTTPQueryItem(name: "filter-expr", value: filterExpression))
        }
        return ServicePipeline.Call(
            method: .get,
            path: "/v2/subscribe/\(HTTPRequest.encodePathSegment(subscribeKey))/\(channelSegment(channels))/0",
            query: query)
    }

    /// `GET /time/0`: the cheapest request the origin answers, sent to learn that it can be
    /// reached again while the loop waits to reconnect.
    package static let probe = ServicePipeline.Call(method: .get, path: "/time/0")

    /// `GET /v2/presence/sub-key/{sub}/channel/{channels}/heartbeat`.
    package static func heartbeat(
        subscribeKey: String, channels: [String], groups: [String], presenceTimeout: Duration,
        state: [String: JSONValue]
    ) -> ServicePipeline.Call {
        var query = [HTTPQueryItem(name: "heartbeat", value: String(presenceTimeout.components.seconds))]
        if !groups.isEmpty { query.append(HTTPQueryItem(name: "channel-group", value: groups.joined(separator: ","))) }
        if let encoded = encodeState(state) { query.append(HTTPQueryItem(name: "state", value: encoded)) }
        return ServicePipeline.Call(
            method: .get, path: presencePath(subscribeKey, channels) + "/heartbeat", query: query)
    }

    /// `GET /v2/presence/sub-key/{sub}/channel/{channels}/leave`.
    package static func leave(subscribeKey: String, channels: [String], groups: [String]) -> ServicePipeline.Call {
        var query: [HTTPQueryItem] = []
        if !groups.isEmpty { query.append(HTTPQueryItem(name: "channel-group", value: groups.joined(separator: ","))) }
        return ServicePipeline.Call(method: .get, path: presencePath(subscribeKey, channels) + "/leave", query: query)
    }

    private static func presencePath(_ subscribeKey: String, _ channels: [String]) -> String {
        "/v2/presence/sub-key/\(HTTPRequest.encodePathSegment(subscribeKey))/channel/\(channelSegment(channels))"
    }

    private static func encodeState(_ state: [String: JSONValue]) -> String? {
        guard !state.isEmpty else { return nil }
        return try? JSONValue.object(state).jsonString(sortedKeys: true)
    }
}
