import Foundation
import PubNubCrypto

/// Message encryption: what the crypto module adds (key schedule, random IV, header, copies) on
/// top of the platform's AES-256-CBC alone, on the same 1 MiB buffer.
enum CryptoBenchmarks {
    static func run() async throws -> [BenchRow] {
        let size = Bench.scale(1 << 20, smoke: 1 << 14)
        let label = size >= 1 << 20 ? "\(size >> 20) MiB" : "\(size >> 10) KiB"
        let megabytes = Double(size) / 1_000_000
        let plaintext = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        let module = try CryptoModule.aesCbcCryptoModule(cipherKey: "benchmark key")
        let legacy = try CryptoModule.legacyCryptoModule(cipherKey: "benchmark key")
        let key = try CryptoPrimitives.sha256(Array("benchmark key".utf8))
        let iv = try CryptoPrimitives.randomBytes(CryptoPrimitives.blockSize)
        var output = [UInt8](repeating: 0, count: size + 2 * CryptoPrimitives.blockSize)
        var rows: [BenchRow] = []

        // Baseline: one EVP (or CommonCrypto) call into a buffer allocated once.
        func rawThroughput(encrypting: Bool, iv: [UInt8], input: [UInt8], writes expected: Int) throws -> Double {
            try Bench.throughput {
                let written = try input.withUnsafeBytes { input in
                    try output.withUnsafeMutableBytes { buffer in
                        try CryptoPrimitives.aes256CBC(
                            encrypting: encrypting, key: key, iv: iv, input: input, output: buffer)
                    }
                }
                precondition(written == expected)
            }
        }
        func againstRaw(_ scenario: String, ours: Double, raw: Double) -> BenchRow {
            BenchRow(
                scenario: scenario, unit: "MB/s", ours: ours * megabytes, baselineName: "raw AES-256-CBC primitive",
                baseline: raw * megabytes)
        }

        let rawEncrypt = try rawThroughput(
            encrypting: true, iv: iv, input: plaintext, writes: size + CryptoPrimitives.blockSize)
        let encrypt = try Bench.throughput { _ = try module.encrypt(plaintext) }
        rows.append(againstRaw("encrypt \(label), AES-CBC cryptor (ACRH module)", ours: encrypt, raw: rawEncrypt))
        let legacyEncrypt = try Bench.throughput { _ = try legacy.encrypt(plaintext) }
        rows.append(againstRaw("encrypt \(label), legacy cryptor (random IV)", ours: legacyEncrypt, raw: rawEncrypt))

        let sealed = try module.encrypt(plaintext)
        let rawDecrypt = try rawThroughput(
            encrypting: false, iv: Array(sealed[10..<26]), input: Array(sealed[26...]), writes: size)
        let decrypt = try Bench.throughput { _ = try module.decrypt(sealed) }
        rows.append(againstRaw("decrypt \(label), AES-CBC cryptor (ACRH module)", ours: decrypt, raw: rawDecrypt))

        let wire = try module.encryptBase64(plaintext)
        let roundTrip = try Bench.throughput { _ = try module.decryptBase64(module.encryptBase64(plaintext)) }
        rows.append(
            BenchRow(
                scenario: "base64 wire round trip \(label) (encrypt+decrypt)", unit: "MB/s",
                ours: roundTrip * megabytes,
                baselineName: "raw encrypt+decrypt", baseline: 1 / (1 / rawEncrypt + 1 / rawDecrypt) * megabytes))
        let decoded = try module.decryptBase64(wire)
        precondition(decoded == plaintext)

        // The module's own strict base64 (the same on every platform) against Foundation's.
        let data = Data(sealed)
        let text = Base64.encode(sealed)
        rows.append(
            Bench.compare(
                "base64 encode \(label)", unit: "MB/s", scale: megabytes, ours: { _ = Base64.encode(sealed) },
                baselineName: "Foundation base64EncodedString", baseline: { _ = data.base64EncodedString() }))
        rows.append(
            Bench.compare(
                "base64 decode \(label) (strict)", unit: "MB/s", scale: megabytes, ours: { _ = Base64.decode(text) },
                baselineName: "Foundation Data(base64Encoded:)", baseline: { _ = Data(base64Encoded: text) }))
        return rows
    }
}
