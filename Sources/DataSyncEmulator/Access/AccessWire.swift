import EmulatorHTTP
import JSONCore

/// The exact bodies Access Manager answers with (documented in `Documentation/Emulator.md`,
/// "Access control").
enum AccessWire {
    static let service = "Access Manager"

    /// The classic object: `{"status":403,"message":"Forbidden","error":true,"service":"Access Manager"}`,
    /// with `payload` when given.
    static func classic(_ status: Int, _ message: String, payload: JSONValue? = nil) -> ServerResponse {
        var body: [String: JSONValue] = [
            "status": .int(Int64(status)), "message": .string(message), "error": true, "service": .string(service),
        ]
        if let payload { body["payload"] = payload }
        return PubSubWire.json(status, .object(body))
    }

    /// A 403 naming what was denied: `payload.channels` and `payload.channel-groups` (group
    /// names with a leading `:`, as the service writes them).
    static func forbidden(channels: [String] = [], groups: [String] = []) -> ServerResponse {
        classic(
            403, "Forbidden",
            payload: [
                "channels": .array(channels.map(JSONValue.string)),
                "channel-groups": .array(groups.map { .string(":" + $0) }),
            ])
    }

    static let expiredMessage = "Token is expired."
    static let revokedMessage = "Token is revoked."

    /// The v3 error object (grant, revoke, signatures):
    /// `{"status":…,"error":{"message":…,"source":…,"details":[{"message","location","locationType"}]},"service":"Access Manager"}`.
    static func v3Error(
        _ status: Int, _ message: String, source: String, detail: String, location: String, locationType: String
    ) -> ServerResponse {
        PubSubWire.json(
            status,
            [
                "status": .int(Int64(status)),
                "error": [
                    "message": .string(message), "source": .string(source),
                    "details": [
                        [
                            "message": .string(detail), "location": .string(location),
                            "locationType": .string(locationType),
                        ]
                    ],
                ],
                "service": .string(service),
            ])
    }

    static func signatureFailure(_ failure: RequestSignature.Failure?) -> ServerResponse {
        switch failure {
        case nil:
            return v3Error(
                403, "Invalid signature", source: "authz", detail: "The request carries no signature.",
                location: "signature", locationType: "query")
        case .mismatch?:
            return v3Error(
                403, "Invalid signature", source: "authz",
                detail: "Client and server produced different signatures for the same inputs.", location: "signature",
                locationType: "query")
        case .missingTimestamp?:
            return v3Error(
                403, "Invalid timestamp", source: "authz", detail: "A signed request needs an integer timestamp.",
                location: "timestamp", locationType: "query")
        case .staleTimestamp?:
            return v3Error(
                403, "Request timestamp is out of range", source: "authz",
                detail:
                    "The timestamp must be within \(RequestSignature.timestampTolerance) seconds of the server time.",
                location: "timestamp", locationType: "query")
        }
    }

    /// DataSync's 401 for a request with neither token nor signature.
    static func dataSyncUnauthorized() -> ServerResponse {
        DataSyncResponse.error(
            APIError(
                status: 401, code: Self.unauthenticated,
                message: "the request has no credential: pass a token in 'auth' or sign it with the secret key"))
    }

    /// DataSync's 403 for a token naming a projection the class does not define.
    static func dataSyncInvalidAuth(_ message: String) -> ServerResponse {
        DataSyncResponse.error(APIError(status: 403, code: Self.invalidAuth, message: message))
    }

    static let unauthenticated = APIError.Code(rawValue: "DS-0203")
    static let invalidAuth = APIError.Code(rawValue: "DS-0202")
}
