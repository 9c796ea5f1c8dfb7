import JSONCore
package import PubNubCrypto

/// Decrypts the envelopes of a subscribe answer with the configured crypto module before they are
/// delivered (issue 17).
///
/// What is decrypted:
/// - messages (`e` absent or 0, not on a `-pnpres` channel): a string payload is a ciphertext; an
///   object with a string `pn_other` is a message whose push sections were merged after
///   encryption (`Documentation/Messaging.md`), so `pn_other` is decrypted and the message put
///   back the way the publisher would have sent it unencrypted (an object's keys beside the push
///   sections, anything else under `pn_other`);
/// - file events (`e: 4`) whose whole payload is a string.
///
/// Never: signals (`e: 1`, never encrypted), presence, App Context, message actions and
/// DataSync events (`e: 5`), which the service writes itself.
///
/// A message that cannot be decrypted (not a ciphertext, wrong key, corrupt) is delivered as it
/// arrived, and reported once with a `decryptionError` status.
package enum SubscribeDecryption {
    /// The outcome for one answer: the envelopes to deliver, in order, and one status per failure.
    package struct Outcome: Sendable {
        package var envelopes: [SubscribeEnvelope]
        package var statuses: [PubNubStatus]
    }

    package static func decrypt(
        _ envelopes: [SubscribeEnvelope], with module: CryptoModule?, channels: [String], groups: [String]
    ) -> Outcome {
        guard let module else { return Outcome(envelopes: envelopes, statuses: []) }
        var result = envelopes
        var statuses: [PubNubStatus] = []
        for index in result.indices {
            let envelope = result[index]
            switch decrypt(envelope, with: module) {
            case .unchanged:
                continue
            case .decrypted(let payload):
                result[index].payload = payload
            case .failed(let reason):
                statuses.append(
                    PubNubStatus(
                        category: .decryptionError, operation: .subscribe, isError: true,
                        currentTimetoken: envelope.published.timetoken, subscribedChannels: channels,
                        subscribedChannelGroups: groups,
                        errorData: PubNubStatus.ErrorData(
                            channels: [envelope.channel],
                            information:
                                "the message at \(envelope.published.timetoken) on \(envelope.channel) was delivered undecrypted: \(reason)"
                        )))
            }
        }
        return Outcome(envelopes: result, statuses: statuses)
    }

    private enum Step {
        case unchanged
        case decrypted(JSONValue)
        case failed(String)
    }

    private static func decrypt(_ envelope: SubscribeEnvelope, with module: CryptoModule) -> Step {
        switch envelope.type {
        case .none, .some(0):
            guard !ChannelName(envelope.channel).isPresence else { return .unchanged }
            return decryptMessage(envelope.payload, with: module)
        case .some(4):
            guard case .string(let text) = envelope.payload else { return .unchanged }
            return decryptText(text, with: module)
        default:
            return .unchanged
        }
    }

    private static func decryptMessage(_ payload: JSONValue, with module: CryptoModule) -> Step {
        switch payload {
        case .string(let text):
            return decryptText(text, with: module)
        case .object(var object):
            guard case .string(let text)? = object["pn_other"] else {
                return .failed("the crypto module is set but the message is not encrypted")
            }
            let inner: JSONValue
            switch decryptText(text, with: module) {
            case .decrypted(let value): inner = value
            case .failed(let reason): return .failed(reason)
            case .unchanged: return .unchanged
            }
            if case .object(let fields) = inner {
                object["pn_other"] = nil
                object.merge(fields) { push, _ in push }
            } else {
                object["pn_other"] = inner
            }
            return .decrypted(.object(object))
        default:
            return .failed("the crypto module is set but the message is not encrypted")
        }
    }

    private static func decryptText(_ text: String, with module: CryptoModule) -> Step {
        do {
            return .decrypted(try module.decryptMessage(text))
        } catch {
            return .failed("\(error.code)")
        }
    }
}
