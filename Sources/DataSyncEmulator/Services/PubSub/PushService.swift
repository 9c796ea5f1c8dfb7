import EmulatorHTTP
import JSONCore

/// Mobile push device registrations (Documentation/MobilePush.md), as PubNub's push service
/// takes them:
///
/// - `GET /v1/push/sub-key/{sub}/devices/{token}?type=apns|gcm|fcm|mpns`: with `add` and/or
///   `remove` (comma lists of channels) changes the device's channels and answers
///   `[1,"Modified Channels"]`; with neither, lists them as a JSON array of names;
/// - `GET /v1/push/sub-key/{sub}/devices/{token}/remove?type=…`: forgets the device
///   (`[1,"Removed Device"]`);
/// - the same under `/v2/push/sub-key/{sub}/devices-apns2/{token}` for APNs2, where `topic` is
///   required and `environment` is `development` (the default) or `production`; `type` is not
///   needed there, and ignored.
///
/// Only registrations are kept: the emulator never contacts APNs or FCM, so a publish carrying
/// `pn_apns`/`pn_fcm` sections is delivered to subscribers like any message and notifies no
/// device. Errors use the push service's bare form, `{"error":"<text>"}`, with status 400.
struct PushService: EmulatorService {
    let bus: PubSubBus

    /// The gateways of the `/v1/push` routes.
    static let legacyTypes: Set<String> = ["apns", "gcm", "fcm", "mpns"]
    /// The most channels one registration holds.
    static let channelLimit = 1_000
    /// The longest device token taken (FCM tokens run to a few hundred characters).
    static let tokenLimit = 1_024
    /// The longest APNs topic (a bundle id) taken.
    static let topicLimit = 256

    func claims(_ request: ServerRequest) -> Bool {
        request.rawPath.hasPrefix("/v1/push/") || request.rawPath.hasPrefix("/v2/push/")
    }

    func respond(to request: ServerRequest) async -> ServerResponse {
        if let tooLong = PubSubWire.uriTooLong(request) { return tooLong }
        let raw = PubSubWire.rawSegments(request.rawPath)
        // {v1|v2} push sub-key {sub} {devices|devices-apns2} {token} [remove]
        guard raw.count == 6 || (raw.count == 7 && raw[6] == "remove"), raw[2] == "sub-key",
            (raw[0] == "v1" && raw[4] == "devices") || (raw[0] == "v2" && raw[4] == "devices-apns2")
        else { return Self.error(404, "Not Found") }
        guard request.method.uppercased() == "GET" else { return Self.error(405, "Method Not Allowed") }
        guard let subscribeKey = PercentDecoding.decode(raw[3]) else { return Self.error(400, "Invalid Arguments") }
        guard bus.knows(subscribeKey: subscribeKey) else { return PubSubWire.invalidSubscribeKey() }
        let query = PubSubWire.query(request.rawQuery)
        let device: PushDevice
        switch Self.device(token: raw[5], apns2: raw[0] == "v2", query: query) {
        case .success(let found): device = found
        case .failure(let refusal): return refusal.response
        }
        if raw.count == 7 {
            return Self.saved(await bus.removePushDevice(subscribeKey: subscribeKey, device: device), "Removed Device")
        }
        guard query.has("add") || query.has("remove") else {
            var channels = await bus.pushChannels(subscribeKey: subscribeKey, device: device)
            // `count` (as the JavaScript SDK sends it) caps the list; a registration holds at
            // most `channelLimit` anyway, which is the service's largest page.
            if let count = PubSubWire.clampedInteger(query["count"], in: 1...Self.channelLimit) {
                channels = Array(channels.prefix(count))
            }
            return PubSubWire.json(200, .array(channels.map(JSONValue.string)))
        }
        let added = query.list("add")
        let removed = query.list("remove")
        guard !added.isEmpty || !removed.isEmpty else { return Self.error(400, "Missing channels") }
        let failure = await bus.changePushChannels(
            subscribeKey: subscribeKey, device: device, adding: added, removing: removed,
            channelLimit: Self.channelLimit)
        return Self.saved(failure, "Modified Channels")
    }

    // MARK: Reading the request

    private struct Refusal: Error {
        let response: ServerResponse
    }

    /// The device a request names, or the 400 refusing it.
    private static func device(token rawToken: Substring, apns2: Bool, query: PubSubWire.Query) -> Result<
        PushDevice, Refusal
    > {
        func refuse(_ text: String) -> Result<PushDevice, Refusal> { .failure(Refusal(response: error(400, text))) }
        guard let token = PercentDecoding.decode(rawToken), isToken(token) else {
            return refuse(
                "Invalid device token: 1 to \(tokenLimit) characters of letters, digits and - _ : . ~ =")
        }
        guard apns2 else {
            guard let type = query["type"], !type.isEmpty else {
                return refuse("Missing type: give type=apns, gcm, fcm or mpns")
            }
            guard legacyTypes.contains(type) else {
                return refuse("Invalid type \(type): give apns, gcm, fcm or mpns (APNs2 devices use /v2/push)")
            }
            return .success(PushDevice(type: type, token: token))
        }
        guard let topic = query["topic"], !topic.isEmpty else { return refuse("Missing topic") }
        guard topic.utf8.count <= topicLimit, !topic.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "," })
        else {
            return refuse("Invalid topic: at most \(topicLimit) bytes, no control character or comma")
        }
        let environment = query["environment"] ?? "development"
        guard environment == "development" || environment == "production" else {
            return refuse("Invalid environment \(environment): give development or production")
        }
        return .success(PushDevice(type: "apns2", token: token, topic: topic, environment: environment))
    }

    /// One registration of an export document (`{"type","token","topic"?,"environment"?,
    /// "channels"}`, as the admin route shows it), checked by the rules the routes apply; the
    /// reason when it is refused.
    static func exportedRegistration(_ value: JSONValue) -> Result<(PushDevice, [String]), PushImportRefusal> {
        guard let type = value["type"]?.stringValue, let token = value["token"]?.stringValue else {
            return .failure(PushImportRefusal(reason: "needs \"type\" and \"token\" strings"))
        }
        var query: [(String, String)] = []
        if type == "apns2" {
            if let topic = value["topic"]?.stringValue { query.append(("topic", topic)) }
            if let environment = value["environment"]?.stringValue { query.append(("environment", environment)) }
        } else {
            query.append(("type", type))
        }
        guard let channels = value["channels"]?.arrayValue, !channels.isEmpty, channels.count <= channelLimit else {
            return .failure(PushImportRefusal(reason: "needs \"channels\": 1 to \(channelLimit) channel names"))
        }
        let names = channels.compactMap(\.stringValue)
        guard names.count == channels.count, names.allSatisfy({ !$0.isEmpty }) else {
            return .failure(PushImportRefusal(reason: "\"channels\" holds something other than channel names"))
        }
        // The route reads its token percent-encoded; a valid token has nothing to decode.
        guard !token.contains("%") else { return .failure(PushImportRefusal(reason: "Invalid device token \(token)")) }
        switch device(token: Substring(token), apns2: type == "apns2", query: PubSubWire.Query(items: query, raw: "")) {
        case .success(let device): return .success((device, names))
        case .failure(let refusal):
            let body = try? JSONValue(parsing: refusal.response.body)
            return .failure(PushImportRefusal(reason: body?["error"]?.stringValue ?? "refused"))
        }
    }

    /// Tokens travel in the path unescaped by several SDKs, so only characters that never need
    /// escaping there are taken (hexadecimal APNs tokens and FCM's registration ids both fit).
    private static func isToken(_ token: String) -> Bool {
        guard !token.isEmpty, token.utf8.count <= tokenLimit else { return false }
        return token.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ":"),
                UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: "="):
                return true
            default:
                return false
            }
        }
    }

    // MARK: Answers

    private static func saved(_ failure: PubSubBus.PushFailure?, _ text: String) -> ServerResponse {
        switch failure {
        case nil:
            return PubSubWire.json(200, [1, .string(text)])
        case .tooManyChannels(let limit)?:
            return error(400, "Too many channels: a device is registered on at most \(limit)")
        case .tooManyDevices(let limit)?:
            return error(400, "Too many devices: this keyset holds at most \(limit) push registrations")
        case .notSaved?:
            return error(500, "Internal Server Error: the state file could not record the change")
        }
    }

    /// The push service's error body: `{"error":"<text>"}`.
    static func error(_ status: Int, _ text: String) -> ServerResponse {
        PubSubWire.json(status, ["error": .string(text)])
    }
}

/// Why a registration of an import document was refused.
struct PushImportRefusal: Error, Sendable {
    var reason: String
}
