extension EmulatorOptions {
    /// Whether ``host`` is a loopback address (`127.0.0.1`, any `127.x.y.z`, `::1`, `localhost`):
    /// only this machine can connect. `0.0.0.0`, `::` and any other address can be reached from
    /// the network.
    public var listensOnLoopbackOnly: Bool { AdminAccess.isLoopback(host) }

    /// The keysets whose requests need no credentials with these options: the main keyset unless
    /// ``mainKeysetProtected``, the ``extraKeysets`` unless ``accessControl``.
    public var unprotectedSubscribeKeys: [String] {
        (mainKeysetProtected ? [] : [subscribeKey]) + (accessControl ? [] : extraKeysets.map(\.subscribeKey))
    }

    /// What an emulator started with these options should print on standard error before it
    /// serves, one warning per element, each starting `WARNING: `; empty on loopback.
    ///
    /// Beyond loopback anyone who can reach the address can use the emulator, so the warnings
    /// name what is open to them: keysets without access control (every object, message and
    /// presence readable, writable and deletable), DataSync under any other subscribe key (never
    /// checked), and a secret key left at the documented default `demo-secret` (anyone can sign
    /// with it).
    public var securityWarnings: [String] {
        guard !listensOnLoopbackOnly else { return [] }
        var warnings: [String] = []
        let unprotected = unprotectedSubscribeKeys
        if !unprotected.isEmpty {
            warnings.append(
                "WARNING: listening on \(host), beyond loopback, with access control OFF for keyset"
                    + "\(unprotected.count == 1 ? "" : "s") \(unprotected.joined(separator: ", ")): anyone who can "
                    + "reach this address can read, change and delete every object, message and presence there. "
                    + "Pass --access-control (or --secret-key K for the main keyset), or listen on 127.0.0.1.")
        }
        warnings.append(
            "WARNING: listening on \(host), beyond loopback: DataSync answers any other subscribe key without "
                + "credentials; use only the configured keysets for anything that matters.")
        let defaultSecret = PubSubKeyset.demo.secretKey
        var defaulted = mainKeysetProtected && secretKey == defaultSecret ? [subscribeKey] : []
        if accessControl { defaulted += extraKeysets.filter { $0.secretKey == defaultSecret }.map(\.subscribeKey) }
        if !defaulted.isEmpty {
            warnings.append(
                "WARNING: keyset\(defaulted.count == 1 ? "" : "s") \(defaulted.joined(separator: ", ")) use the "
                    + "documented default secret key \(defaultSecret): anyone can sign grants and requests with it. "
                    + "Pass --secret-key K (and a secret in each --keyset).")
        }
        return warnings
    }

    /// The banner's `secret key: …` line: the main keyset's secret key on loopback; beyond
    /// loopback it is not printed (a terminal log or a CI transcript would carry it to anyone who
    /// reads them), only where it came from.
    public var secretKeyLine: String {
        if listensOnLoopbackOnly { return "secret key: \(secretKey)" }
        return "secret key: (not shown when listening beyond loopback; "
            + (secretKeyGiven ? "the one given with --secret-key)" : "the default, \(PubSubKeyset.demo.secretKey))")
    }
}
