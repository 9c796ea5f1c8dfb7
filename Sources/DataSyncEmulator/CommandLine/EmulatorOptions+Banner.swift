package import Foundation

extension EmulatorOptions {
    /// The lines a standalone emulator prints once it listens, the same for `datasync-emulator`
    /// and `datasync emulator`: the origin, the keys, access control, the console's URL (with the
    /// admin secret in its fragment when one is required), the state file and the seed summary.
    ///
    /// Scripts read the `origin: `, `publish key: ` and `subscribe key: ` lines; keep their form.
    ///
    /// - Parameters:
    ///   - url: what ``Emulator/start(host:port:requestLog:)`` returned.
    ///   - emulator: the running emulator.
    ///   - configFile: the config file the options were read from, if any.
    package func bannerLines(url: URL, emulator: Emulator, configFile: String? = nil) -> [String] {
        let origin = url.absoluteString
        var lines = [
            "DataSync emulator listening on \(origin)", "origin: \(origin)", "publish key: \(publishKey)",
            "subscribe key: \(subscribeKey)", secretKeyLine, "access control: \(mainKeysetProtected ? "on" : "off")",
        ]
        for extra in extraKeysets {
            lines.append(
                "also keyset: publish key \(extra.publishKey), subscribe key \(extra.subscribeKey), access control "
                    + (accessControl ? "on" : "off"))
        }
        lines.append(
            "DataSync accepts any subscribe key (each is its own keyset); pub/sub and presence only the keys above.")
        if mainKeysetProtected {
            lines.append(
                "Credentials: protected keysets need a token (POST /v3/pam/{sub}/grant) or a request signature.")
        } else {
            lines.append(
                "Credentials: none are checked; any auth token is accepted (pass --secret-key to turn access control on)."
            )
        }
        if let configFile { lines.append("config file: \(configFile)") }
        if let stateFile { lines.append("State file: \(stateFile)") }
        if let summary = emulator.seedSummary { lines.append(summary.description) }
        let console = origin + Emulator.adminPathPrefix + "/console/"
        if emulator.adminSecretRequired {
            lines.append("console: \(console)#secret=\(emulator.adminSecret)")
            lines.append("admin secret: \(emulator.adminSecret) (admin calls send Authorization: Bearer <secret>)")
        } else {
            lines.append("console: \(console)")
        }
        lines.append(
            mainKeysetProtected
                ? "try: curl -s \(origin)/time/0"
                : "try: curl -s '\(origin)/v1/datasync/subkeys/\(subscribeKey)/users?limit=5'")
        return lines
    }

    /// A hint for a failure to listen on a port chosen by default or by the user: `--port 0`
    /// takes any free one.
    package var portHint: String {
        port == 0 ? "" : " (is another emulator on port \(port)? pass --port N, or --port 0 for a free port)"
    }
}
