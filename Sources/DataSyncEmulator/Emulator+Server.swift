import EmulatorHTTP
public import Foundation

extension Emulator {
    /// Serves this emulator over HTTP on `host` (default loopback) and `port` (default 0: an
    /// ephemeral port chosen by the system), and returns the base URL, e.g.
    /// `http://127.0.0.1:49152`. Calling it again while running returns the same URL.
    ///
    /// While serving, objects whose `expiresAt` passes on the emulator's clock are removed about
    /// once a second of that clock even when no request arrives, so their delete changes reach
    /// the change feed (with a manual clock: whenever it is moved a second or more).
    ///
    /// - Parameters:
    ///   - host: the address to listen on: an IPv4 or IPv6 literal, or `localhost`.
    ///   - port: the port to listen on; 0 lets the system choose a free one.
    ///   - requestLog: called with one line per answered request
    ///     (`GET /v1/… -> 200 (0.4 ms)`), or nil for no log.
    /// - Throws: ``EmulatorError`` with ``EmulatorError/Code-swift.struct/serverStart`` when the
    ///   address cannot be bound.
    public func start(
        host: String = "127.0.0.1", port: UInt16 = 0, requestLog: (@Sendable (String) -> Void)? = nil
    ) async throws(EmulatorError) -> URL {
        if let running = server { return running.url }
        // Anywhere but loopback, the admin API needs the admin secret from now on.
        admin.access.serving(onHost: host)
        let handler: any ServerHandler =
            requestLog.map { LoggingHandler(inner: self.handler, log: $0) } ?? self.handler
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
        // Another start may have finished while this one was suspended: keep the first.
        if let running = self.server {
            await server.stop()
            return running.url
        }
        self.server = RunningServer(server: server, url: url)
        await dataSync.startSweeping()
        return url
    }

    /// Stops serving (held requests are cancelled). The emulator's state stays, so it can be
    /// started again.
    public func stop() async {
        guard let running = server else { return }
        server = nil
        await dataSync.stopSweeping()
        await running.server.stop()
    }

    /// The base URL while serving, nil otherwise.
    public var baseURL: URL? { server?.url }
}

/// A started server and its base URL.
struct RunningServer: Sendable {
    let server: HTTPServer
    let url: URL
}

/// Logs one line per request, then answers it from the wrapped handler.
struct LoggingHandler: ServerHandler {
    let inner: any ServerHandler
    let log: @Sendable (String) -> Void

    func handle(_ request: ServerRequest) async -> ServerResponse {
        let clock = ContinuousClock()
        let start = clock.now
        let response = await inner.handle(request)
        let elapsed = start.duration(to: clock.now)
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        log("\(request.method) \(request.target) -> \(response.status) (\(String(format: "%.1f", milliseconds)) ms)")
        return response
    }
}
