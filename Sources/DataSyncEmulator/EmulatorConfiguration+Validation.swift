extension EmulatorConfiguration {
    /// Refuses a configuration that would run with forgeable credentials or an unreachable
    /// keyset, before anything starts: a pub/sub keyset with an empty secret key (grants and
    /// request signatures made with it would verify for anyone), or with a subscribe key that
    /// ``KeysetName`` refuses (empty, `.` or `..`).
    ///
    /// - Throws: ``EmulatorError`` with ``EmulatorError/Code-swift.struct/invalidConfiguration``
    ///   naming the keyset.
    func validate() throws(EmulatorError) {
        for (index, keyset) in pubSub.keysets.enumerated() {
            if let refusal = KeysetName.refusal(keyset.subscribeKey) {
                throw EmulatorError(code: .invalidConfiguration, message: "pubSub.keysets[\(index)]: \(refusal)")
            }
            guard !keyset.secretKey.isEmpty else {
                throw EmulatorError(
                    code: .invalidConfiguration,
                    message: "pubSub.keysets[\(index)] (subscribe key \(keyset.subscribeKey)) has an empty secret key: "
                        + "grants and request signatures made with it would verify for anyone; give it a secret")
            }
        }
    }
}
