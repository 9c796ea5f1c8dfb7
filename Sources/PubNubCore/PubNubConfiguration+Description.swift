import Auth
import PubNubCrypto
import Transport

// A configuration is printed in logs, crash reports and bug reports. None of those may carry the
// token or a cipher key: the token is shortened by `TokenRedaction`, the crypto module prints its
// cryptors' identifiers only, and values whose types the SDK does not know (a transport, a token
// provider, middlewares, the clock) are shown by type name, since they may hold secrets of their own.
extension PubNubConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The identity, the origin and what is set, with the token shortened and keys never shown:
    /// `PubNubConfiguration(subscribeKey: demo, publishKey: demo, userId: me, authToken: qEF2Ak…(320 chars), origin: https://ps.pndsn.com, cryptoModule: CryptoModule(…))`.
    public var description: String {
        var parts = [
            "subscribeKey: \(subscribeKey)",
            "publishKey: \(publishKey ?? "none")",
            "userId: \(userId)",
            "authToken: \(authToken.map(TokenRedaction.redact) ?? "none")",
            "origin: \(useSecureConnections ? "https" : "http")://\(origin)",
        ]
        if let cryptoModule { parts.append("cryptoModule: \(cryptoModule)") }
        if let tokenProvider { parts.append("tokenProvider: \(Self.typeName(tokenProvider))") }
        if let transport { parts.append("transport: \(Self.typeName(transport))") }
        return "PubNubConfiguration(" + parts.joined(separator: ", ") + ")"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// Every setting, with the token shortened, the crypto module reduced to its cryptors'
    /// identifiers, and injected values (transport, token provider, middlewares, clock, warning
    /// handler) shown by type name only.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "publishKey": publishKey as Any,
                "subscribeKey": subscribeKey,
                "userId": userId,
                "authToken": authToken.map(TokenRedaction.redact) as Any,
                "origin": origin,
                "useSecureConnections": useSecureConnections,
                "transport": transport.map(Self.typeName) as Any,
                "retryPolicy": retryPolicy,
                "clock": Self.typeName(clock),
                "middlewares": middlewares.map(Self.typeName),
                "requestTimeout": requestTimeout as Any,
                "deadline": deadline as Any,
                "completionContext": completionContext,
                "tokenProvider": tokenProvider.map(Self.typeName) as Any,
                "validatesFiltersLocally": validatesFiltersLocally,
                "cryptoModule": cryptoModule.map { "\($0)" } as Any,
                "warningHandler": warningHandler == nil ? "none" : "set",
                "logger": logger.map { "\(type(of: $0)) from \($0.minimumLevel)" } ?? "none",
                "subscribeReconnectionPolicy": subscribeReconnectionPolicy,
                "restore": restore,
                "presenceTimeout": presenceTimeout,
                "heartbeatInterval": heartbeatInterval as Any,
                "suppressLeaveEvents": suppressLeaveEvents,
                "filterExpression": filterExpression as Any,
                "maintainPresenceState": maintainPresenceState,
                "requestMessageCountThreshold": requestMessageCountThreshold,
                "handshakeTimeout": handshakeTimeout,
                "reconnectionProbeInterval": reconnectionProbeInterval as Any,
                "networkPathMonitor": networkPathMonitor.map(Self.typeName) as Any,
                "subscribeTimeout": subscribeTimeout,
            ],
            displayStyle: .struct)
    }

    private static func typeName(_ value: Any) -> String { String(describing: type(of: value)) }
}

extension PubNub: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The client's identity and origin: `PubNub(userId: me, subscribeKey: demo, origin: …)`;
    /// the token and keys are never shown (see ``PubNubConfiguration/description``).
    public var description: String {
        let scheme = configuration.useSecureConnections ? "https" : "http"
        return "PubNub(userId: \(configuration.userId), subscribeKey: \(configuration.subscribeKey), "
            + "origin: \(scheme)://\(configuration.origin))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The configuration only (redacted as its own mirror is), so `dump` never walks into the
    /// token store, the pipeline or the transport.
    public var customMirror: Mirror {
        Mirror(self, children: ["configuration": configuration], displayStyle: .class)
    }
}
