import JSONCore
package import PubNubCore
package import Transport

/// The requests of the push registration calls and the reading of their answers: paths and
/// queries as the service (and PubNub's Python SDK 10.8.0) uses them.
///
/// `/v1/push/sub-key/{sub}/devices/{token}` with `type=` for every gateway but APNs2, and
/// `/v2/push/sub-key/{sub}/devices-apns2/{token}` with `topic=` and `environment=` for APNs2;
/// `add=`/`remove=` (comma-joined channels) change a registration, neither lists it, and a
/// `/remove` suffix removes the device.
package enum PushCall {
    package enum Action: Sendable {
        case add([String])
        case remove([String])
        case list
        case removeDevice
    }

    /// The request of `action` on `device`.
    ///
    /// - Throws: `PubNubError`: `.missingRequiredParameter` for an empty token, an APNs2 device
    ///   without a topic, or an empty channel list; `.invalidArguments` for an empty channel
    ///   name or one holding a comma (nothing is sent).
    package static func call(
        _ action: Action, device: PubNubPushDevice, subscribeKey: String
    ) throws(PubNubError) -> ServicePipeline.Call {
        if device.token.isEmpty { throw PubNubError.missingRequiredParameter("token") }
        var query: [HTTPQueryItem] = []
        var path: String
        if device.pushType == .apns2 {
            guard let topic = device.topic, !topic.isEmpty else {
                throw PubNubError.missingRequiredParameter("topic")
            }
            path = "/v2/push/sub-key/" + HTTPRequest.encodePathSegment(subscribeKey) + "/devices-apns2/"
            query.append(HTTPQueryItem(name: "topic", value: topic))
            query.append(
                HTTPQueryItem(name: "environment", value: (device.environment ?? .development).rawValue))
        } else {
            path = "/v1/push/sub-key/" + HTTPRequest.encodePathSegment(subscribeKey) + "/devices/"
            query.append(HTTPQueryItem(name: "type", value: device.pushType.rawValue))
        }
        path += HTTPRequest.encodePathSegment(device.token)
        switch action {
        case .add(let channels):
            query.append(HTTPQueryItem(name: "add", value: try list(channels)))
        case .remove(let channels):
            query.append(HTTPQueryItem(name: "remove", value: try list(channels)))
        case .list:
            break
        case .removeDevice:
            path += "/remove"
        }
        return ServicePipeline.Call(method: .get, path: path, query: query)
    }

    private static func list(_ channels: [String]) throws(PubNubError) -> String {
        if channels.isEmpty { throw PubNubError.missingRequiredParameter("channels") }
        for channel in channels where channel.isEmpty || channel.contains(",") {
            throw PubNubError(
                reason: .invalidArguments, message: "a channel name is empty or holds a comma; nothing was sent",
                details: [PubNubError.Detail(message: "empty or holds ','", path: "channels")])
        }
        return channels.joined(separator: ",")
    }

    /// Checks the answer of a change or a device removal: `[1,"Modified Channels"]` or
    /// `[1,"Removed Device"]`.
    ///
    /// - Throws: `PubNubError`: built from the status and body (`{"error":"…"}` becomes the
    ///   message) for a status outside 200...299 or an `error` body; `.malformedResponse` for
    ///   anything else that is not an array.
    package static func acknowledged(_ response: HTTPResponse) throws(PubNubError) {
        _ = try answerArray(response)
    }

    /// The channels of a list answer, a JSON array of names.
    ///
    /// - Throws: as ``acknowledged(_:)``; `.malformedResponse` when an element is not a string.
    package static func channels(_ response: HTTPResponse) throws(PubNubError) -> [String] {
        let items = try answerArray(response)
        var channels: [String] = []
        for item in items {
            guard let name = item.stringValue else {
                throw PubNubError.malformedResponse(
                    "a push channel list holds something other than a name", statusCode: response.status)
            }
            channels.append(name)
        }
        return channels
    }

    private static func answerArray(_ response: HTTPResponse) throws(PubNubError) -> [JSONValue] {
        let json = try? JSONValue(parsing: response.body)
        guard response.isSuccess, json?["error"] == nil else {
            // A 200 carrying an error object is the service refusing, too.
            throw PubNubError(statusCode: response.isSuccess ? 400 : response.status, body: response.body)
        }
        guard let items = json?.arrayValue else {
            throw PubNubError.malformedResponse("a push answer is not a JSON array", statusCode: response.status)
        }
        return items
    }
}
