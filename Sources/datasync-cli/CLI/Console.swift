import ArgumentParsing
import Foundation
import Messaging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension ExitStatus {
    /// The service (or the network to it) refused or failed the request.
    static let serviceError = failure
}

/// Where the CLI writes: results to standard output, everything else (errors, progress, status,
/// `--verbose`) to standard error with every secret (the token) replaced by `REDACTED`.
///
/// Writes go straight to the file descriptors, a whole line at a time, so piped output is live
/// and lines from several threads never interleave.
final class Console: @unchecked Sendable {
    // @unchecked Sendable: the two flags are constants; every other stored property is only read
    // or written under `lock`, which is also held across each write(2) so lines never interleave
    // (a write to a pipe or terminal does not suspend). NSLock rather than the SDK's `Locked`:
    // this executable uses public API only.
    /// The text that replaces a secret.
    static let redacted = "REDACTED"

    let stdoutIsTerminal: Bool
    let stderrIsTerminal: Bool
    private let lock = NSLock()
    private var secrets: [String] = []
    /// Whether a progress line (terminal only) is waiting to be cleared.
    private var progressPending = false

    init() {
        stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
        stderrIsTerminal = isatty(STDERR_FILENO) == 1
    }

    /// Never shows `secret` on standard error from now on.
    func addSecret(_ secret: String) {
        guard !secret.isEmpty else { return }
        lock.withLock { secrets.append(secret) }
    }

    /// `text` with every secret replaced.
    func redact(_ text: String) -> String {
        let known = lock.withLock { secrets }
        var text = text
        for secret in known { text = text.replacingOccurrences(of: secret, with: Self.redacted) }
        return text
    }

    /// One line of results on standard output.
    func out(_ line: String) {
        lock.withLock {
            clearProgressLocked()
            Self.write(STDOUT_FILENO, line + "\n")
        }
    }

    /// One line of diagnostics on standard error, redacted.
    func err(_ line: String) {
        let line = redact(line)
        lock.withLock {
            clearProgressLocked()
            Self.write(STDERR_FILENO, line + "\n")
        }
    }

    /// Progress on standard error: rewritten in place on a terminal, one line each otherwise.
    func progress(_ text: String) {
        let text = redact(text)
        lock.withLock {
            if stderrIsTerminal {
                Self.write(STDERR_FILENO, "\r\u{1B}[K" + text)
                progressPending = true
            } else {
                Self.write(STDERR_FILENO, text + "\n")
            }
        }
    }

    /// Ends a progress line left on the terminal.
    func endProgress() {
        lock.withLock { clearProgressLocked() }
    }

    private func clearProgressLocked() {
        guard progressPending else { return }
        Self.write(STDERR_FILENO, "\r\u{1B}[K")
        progressPending = false
    }

    /// Writes all of `text`; a reader that went away (`datasync … | head`) ends the process quietly.
    private static func write(_ descriptor: Int32, _ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { buffer in
                #if canImport(Darwin)
                    Darwin.write(descriptor, buffer.baseAddress, buffer.count)
                #elseif canImport(Glibc)
                    Glibc.write(descriptor, buffer.baseAddress, buffer.count)
                #else
                    Musl.write(descriptor, buffer.baseAddress, buffer.count)
                #endif
            }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EPIPE { exit(ExitStatus.ok) }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }
}

/// JSON text for output.
enum JSONText {
    /// One line, keys sorted.
    static func compact(_ value: JSONValue) -> String {
        (try? value.jsonString(sortedKeys: true)) ?? "null"
    }

    /// Indented by two spaces per level, keys sorted.
    static func pretty(_ value: JSONValue, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case .array(let items):
            guard !items.isEmpty else { return "[]" }
            return "[\n" + items.map { inner + pretty($0, indent: inner) }.joined(separator: ",\n") + "\n" + indent
                + "]"
        case .object(let members):
            guard !members.isEmpty else { return "{}" }
            let lines = members.keys.sorted().map { key in
                inner + compact(.string(key)) + ": " + pretty(members[key] ?? .null, indent: inner)
            }
            return "{\n" + lines.joined(separator: ",\n") + "\n" + indent + "}"
        default:
            return compact(value)
        }
    }
}
