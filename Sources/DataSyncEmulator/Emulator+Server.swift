public import Foundation

extension Emulator {
    /// Serves this emulator over HTTP on `host` (default loopback) and `port` (default 0: an
    /// ephemeral port chosen by the system), and returns the base URL, e.g.
    /// `http://127.0.0.1:49152`. Calling it again while running returns the same URL.
    ///
    /// - Throws: ``EmulatorError`` with ``EmulatorError/Code-swift.struct/serverStart`` when the
    ///   address cannot be bound.
    public func start(host: String = "127.0.0.1", port: UInt16 = 0) async throws(EmulatorError) -> URL {
        if let running = server, let url = running.url { return url }
        let server = HTTPServer(configuration: HTTPServer.Configuration(host: host, port: port), handler: handler)
        do {
            try await server.start()
        } catch {
            throw EmulatorError(code: .serverStart, message: "cannot serve on \(host):\(port): \(error)")
        }
        guard let bound = server.port,
            let url = URL(string: "http://\(host.contains(":") ? "[\(host)]" : host):\(bound)")
        else {
            await server.stop()
            throw EmulatorError(code: .serverStart, message: "the server reported no port")
        }
        self.server = RunningServer(server: server, url: url)
        return url
    }

    /// Stops serving (held requests are cancelled). The emulator's state stays, so it can be
    /// started again.
    public func stop() async {
        guard let running = server else { return }
        server = nil
        await running.server.stop()
    }

    /// The base URL while serving, nil otherwise.
    public var baseURL: URL? { server?.url }
}

/// A started server and its base URL.
struct RunningServer: Sendable {
    let server: HTTPServer
    let url: URL?
}
