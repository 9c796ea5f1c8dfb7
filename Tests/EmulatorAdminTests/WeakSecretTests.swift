import DataSyncEmulator
import DataSyncTestSupport
import Foundation
import Testing

/// Issue 35, item 10: an empty secret key is refused everywhere a keyset is configured, and
/// listening beyond loopback without access control is said loudly.
@Suite("Weak secrets and non-loopback warnings")
struct WeakSecretTests {
    private func parseError(_ arguments: [String]) -> EmulatorOptionsError? {
        do {
            _ = try EmulatorOptions.parse(arguments)
            return nil
        } catch {
            return error
        }
    }

    private func options(_ arguments: [String]) throws -> EmulatorOptions {
        guard case .run(let options) = try EmulatorOptions.parse(arguments) else {
            throw EmulatorOptionsError(code: .invalidValue, option: "", message: "expected options, got help")
        }
        return options
    }

    @Test("--keyset p2:s2: (an empty secret) and --secret-key '' are refused with a clear message")
    func emptySecretOptions() {
        let keyset = parseError(["--keyset", "p2:s2:"])
        #expect(keyset?.code == .invalidValue)
        #expect(keyset?.option == "--keyset")
        #expect(keyset?.message.contains("empty secret key") == true, "\(keyset?.message ?? "")")
        #expect(keyset?.message.contains("p2:s2") == true)
        let secret = parseError(["--secret-key", ""])
        #expect(secret?.message == "--secret-key takes a non-empty secret key")
    }

    @Test("a configuration with an empty secret key is refused in process")
    func emptySecretConfiguration() {
        let keysets = [
            PubSubKeyset.demo, PubSubKeyset(publishKey: "p2", subscribeKey: "s2", secretKey: "", accessControl: true),
        ]
        let error = #expect(throws: EmulatorError.self) {
            _ = try Emulator(configuration: EmulatorConfiguration(pubSub: PubSubConfiguration(keysets: keysets)))
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("pubSub.keysets[1] (subscribe key s2) has an empty secret key") == true)
    }

    @Test("on 0.0.0.0 without access control the warnings say so and the secret key is not printed")
    func nonLoopbackWarning() throws {
        let open = try options(["--host", "0.0.0.0", "--keyset", "p2:s2:k2", "--secret-key", "hush"])
        #expect(!open.listensOnLoopbackOnly)
        let warnings = open.securityWarnings
        let first = try #require(warnings.first)
        #expect(
            first.hasPrefix("WARNING: listening on 0.0.0.0, beyond loopback, with access control OFF for keyset s2"))
        #expect(first.contains("--access-control"))
        #expect(warnings.contains { $0.contains("DataSync answers any other subscribe key without credentials") })
        #expect(
            open.secretKeyLine
                == "secret key: (not shown when listening beyond loopback; the one given with --secret-key)")
        #expect(!open.secretKeyLine.contains("hush"))

        let everyKeysetOpen = try options(["--host", "::"])
        #expect(everyKeysetOpen.securityWarnings.first?.contains("access control OFF for keyset demo:") == true)
        // Access control on, but with the documented default secret: said too.
        let defaulted = try options(["--host", "0.0.0.0", "--access-control"])
        #expect(!defaulted.securityWarnings.contains { $0.contains("access control OFF") })
        #expect(defaulted.securityWarnings.contains { $0.contains("documented default secret key demo-secret") })
    }

    @Test("on loopback: no warning, and the secret key is printed as before")
    func loopbackIsQuiet() throws {
        for host in ["127.0.0.1", "localhost", "::1", "127.0.0.2"] {
            let options = try options(["--host", host, "--secret-key", "hush"])
            #expect(options.listensOnLoopbackOnly, "\(host)")
            #expect(options.securityWarnings.isEmpty, "\(host)")
            #expect(options.secretKeyLine == "secret key: hush")
        }
    }

    @Test(
        "datasync-emulator --keyset p2:s2: exits with status 2 and says why",
        .enabled(if: SeedSummaryTests.binary != nil, "the datasync-emulator binary is not built next to the tests"))
    func executableExitStatus() async throws {
        let binary = try #require(SeedSummaryTests.binary)
        let result = try await ChildProcess(executable: binary.path, arguments: ["--keyset", "p2:s2:"]).finish()
        #expect(result.status == 2)
        #expect(result.standardError.contains("empty secret key"), "\(result.standardError)")
    }
}
