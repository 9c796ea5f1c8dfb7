import EmulatorHTTP
import Foundation
import PubNubBase
public import Transport

/// What every `HTTPClient` must do for the SDK to work on it, as a suite you can run
/// against a transport of your own.
///
/// The SDK's two backends (libcurl and URLSession) pass every case; the SDK's retry, deadline,
/// subscribe long-poll and error reporting rely on what the cases check: methods, bodies and
/// headers arrive intact, query text is sent exactly as encoded, gzip and chunked answers are
/// decoded, a lost connection is `connectionLost` (never
/// a truncated success), HTTPS to a plain server is a `tls` failure, a non-HTTP reply is
/// `invalidResponse`, timeouts and cancellation end a request promptly, a request's own timeout
/// outlasts the client's default, no error text carries the request URL (it holds the token),
/// and connections are kept alive.
///
/// Each case starts its own ``HTTPTestServer`` on loopback. Run the cases one after another: the
/// cancellation case measures how fast a held request ends and the 10 MB cases load the machine.
///
/// ```swift
/// import DataSyncTestSupport
/// import Testing
///
/// @Test(arguments: HTTPClientConformance.cases)
/// func myTransportConforms(_ check: HTTPClientConformance.Case) async throws {
///     try await HTTPClientConformance.run(check) { configuration in
///         try MyHTTPClient(configuration: configuration)
///     }
/// }
/// ```
public enum HTTPClientConformance {
    /// Makes the client under test, with the configuration a case asks for.
    public typealias MakeClient = @Sendable (HTTPClientConfiguration) throws -> any HTTPClient

    /// One behaviour the suite checks.
    public struct Case: Sendable, Hashable, Identifiable, CustomStringConvertible {
        /// A stable identifier, such as `"query-encoding"`.
        public let id: String
        /// What the case checks, in one sentence.
        public let summary: String
        let body: @Sendable (Context) async throws -> Void

        init(_ id: String, _ summary: String, _ body: @escaping @Sendable (Context) async throws -> Void) {
            self.id = id
            self.summary = summary
            self.body = body
        }

        /// The identifier and summary.
        public var description: String { "\(id): \(summary)" }

        /// Cases are equal when their identifiers are.
        public static func == (lhs: Case, rhs: Case) -> Bool { lhs.id == rhs.id }

        /// Hashes the identifier.
        public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    }

    /// Every case, in the order they are best run.
    public static let cases: [Case] = transferCases + failureCases + concurrencyCases

    /// Runs one case against clients made by `makeClient`.
    ///
    /// - Throws: ``HTTPClientConformanceFailure`` listing every expectation the client missed, or
    ///   the error that stopped the case (a server that could not start, a request that should
    ///   have succeeded).
    public static func run(_ testCase: Case, makeClient: @escaping MakeClient) async throws {
        let context = Context(makeClient: makeClient)
        try await testCase.body(context)
        let problems = context.problems
        if !problems.isEmpty {
            throw HTTPClientConformanceFailure(caseID: testCase.id, problems: problems)
        }
    }

    /// Runs every case, one after another, and reports all failures together.
    ///
    /// - Throws: ``HTTPClientConformanceFailure`` for the first failing case, with the other
    ///   failing cases' problems appended; nothing when every case passes.
    public static func runAll(makeClient: @escaping MakeClient) async throws {
        var failures: [String] = []
        for testCase in cases {
            do {
                try await run(testCase, makeClient: makeClient)
            } catch let failure as HTTPClientConformanceFailure {
                failures += failure.problems.map { "\(testCase.id): \($0)" }
            } catch {
                failures.append("\(testCase.id): stopped by \(error)")
            }
        }
        if !failures.isEmpty { throw HTTPClientConformanceFailure(caseID: "all", problems: failures) }
    }

    /// What a case runs with: the client factory and the list of missed expectations.
    final class Context: Sendable {
        let makeClient: MakeClient
        private let recorded = Locked<[String]>([])

        init(makeClient: @escaping MakeClient) { self.makeClient = makeClient }

        var problems: [String] { recorded.withLock { $0 } }

        func client(_ configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws -> any HTTPClient {
            try makeClient(configuration)
        }

        /// Records `message` when `condition` is false.
        func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
            if !condition {
                let message = message()
                recorded.withLock { $0.append(message) }
            }
        }

        /// Runs `body`, which must fail with a transport error, and returns that error.
        func transportError(_ label: String, _ body: () async throws -> HTTPResponse) async -> TransportError? {
            do {
                let response = try await body()
                expect(false, "\(label): expected a TransportError, got status \(response.status)")
            } catch let error as TransportError {
                return error
            } catch {
                expect(false, "\(label): expected a TransportError, got \(error)")
            }
            return nil
        }

        /// Checks that `error` has `code`.
        func expectCode(_ error: TransportError?, _ code: TransportError.Code, _ label: String) {
            expect(error?.code == code, "\(label): expected \(code), got \(error.map { "\($0)" } ?? "no error")")
        }
    }
}

/// The expectations one ``HTTPClientConformance`` case found unmet.
public struct HTTPClientConformanceFailure: Error, CustomStringConvertible {
    /// The ``HTTPClientConformance/Case/id`` of the case, or `all` from ``HTTPClientConformance/runAll(makeClient:)``.
    public let caseID: String
    /// One line per missed expectation.
    public let problems: [String]

    /// The case and every problem, one per line.
    public var description: String {
        (["HTTPClient conformance case \(caseID) failed:"] + problems.map { "  - \($0)" }).joined(separator: "\n")
    }
}
