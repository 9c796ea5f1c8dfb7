internal import CCurl
import Foundation

/// Runs libcurl's multi interface with `curl_multi_socket_action`, driven by whichever thread
/// has work for it, and hands results back to suspended tasks.
///
/// Threads: the multi handle, every easy handle in it and every ``CurlTransfer`` are touched only
/// while holding `lock`. A task that sends a request adds its easy handle and lets libcurl write
/// the request right away on its own thread (non-blocking sockets, so this never waits on the
/// network); the engine's thread sleeps in `ccurl_driver_wait` (epoll or kqueue, without the
/// lock) and wakes only when a socket is ready or libcurl's timer expires, since libcurl's socket
/// and timer callbacks register new sockets and re-arm the timer on that same poll set directly.
/// So a request costs no wake-up of the engine thread to start it, only the one for its answer.
/// Cancellation removes the transfer on the cancelling thread. That is what makes the
/// `@unchecked Sendable` below sound.
///
/// The engine is also a `TaskExecutor` (``CurlHTTPClient/taskExecutor``): jobs of tasks that prefer
/// it queue in `jobs` and run on the engine's thread between two waits, so a task whose answer the
/// thread has just read resumes right there, without waking any other thread.
final class CurlEngine: @unchecked Sendable {
    private enum Entry {
        case registered
        case cancelled
        case running(OpaquePointer)
    }

    private let configuration: HTTPClientConfiguration
    private let multi: OpaquePointer
    private let driver: OpaquePointer

    // Everything below, the multi handle and the transfers in it are guarded by `lock`.
    private let lock = NSLock()
    private var nextID: UInt64 = 0
    private var entries: [UInt64: Entry] = [:]
    private var stopping = false
    private var closed = false
    private var active: [OpaquePointer: CurlTransfer] = [:]
    private var idleHandles: [OpaquePointer] = []
    private static let maximumIdleHandles = 32
    /// Jobs of tasks that prefer the engine as their executor, in arrival order.
    private var jobs: [UnownedJob] = []
    /// True while the engine's thread sleeps (or is about to) in `ccurl_driver_wait`: a job that
    /// arrives then must wake it. A job enqueued by the thread itself, or while it is busy, must not.
    private var waiting = false
    /// The engine's thread, once it runs (for ``isEngineThread``).
    private var engineThread: pthread_t?

    private typealias Finished = [(CurlTransfer, Result<HTTPResponse, TransportError>)]

    init(configuration: HTTPClientConfiguration) throws {
        guard let multi = ccurl_multi_init() else {
            throw TransportError(code: .unavailable, message: "curl_multi_init failed", isRetryable: false)
        }
        guard let driver = ccurl_driver_create(multi) else {
            _ = ccurl_multi_cleanup(multi)
            throw TransportError(
                code: .unavailable, message: "no epoll or kqueue to drive libcurl with", isRetryable: false)
        }
        guard ccurl_driver_install(driver) == 0 else {
            _ = ccurl_multi_cleanup(multi)
            ccurl_driver_destroy(driver)
            throw TransportError(
                code: .unavailable, message: "libcurl refused the socket and timer callbacks", isRetryable: false)
        }
        self.configuration = configuration
        self.multi = multi
        self.driver = driver
        let perHost = max(1, configuration.maximumConnectionsPerHost)
        _ = ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_MAX_HOST_CONNECTIONS), perHost)
        _ = ccurl_multi_setopt_long(multi, Int32(CCURLMOPT_MAXCONNECTS), max(perHost * 2, 8))
        let thread = Thread { [self] in
            // Named from inside the thread: a name set before `start()` did not reach the OS thread
            // on Linux (perf showed the libdispatch worker's name), and debuggers and perf show this.
            Thread.current.name = "CurlHTTPClient"
            self.run()
        }
        thread.start()
    }

    // MARK: Commands (any thread)

    /// Reserves an id before the request is submitted, so a cancellation that arrives first is kept.
    func register() -> UInt64 {
        lock.withLock {
            nextID += 1
            entries[nextID] = .registered
            return nextID
        }
    }

    /// Starts the transfer on the calling thread: libcurl writes the request before this returns
    /// when a kept-alive connection is free. The continuation is resumed once, from whichever
    /// thread sees the transfer end.
    func submit(id: UInt64, request: HTTPRequest, continuation: CheckedContinuation<HTTPResponse, any Error>) {
        let transfer = CurlTransfer(
            id: id, request: request, continuation: continuation,
            maximumBytes: configuration.maximumResponseBytes)
        // Take a handle, then set its options outside the lock: the handle is nobody else's yet.
        let handle: Result<OpaquePointer, TransportError> = lock.withLock {
            if let refusal = refusalLocked(id) { return .failure(refusal) }
            guard let easy = idleHandles.popLast() ?? ccurl_easy_init() else {
                entries[id] = nil
                return .failure(TransportError(code: .other, message: "curl_easy_init failed"))
            }
            return .success(easy)
        }
        let easy: OpaquePointer
        switch handle {
        case .failure(let error):
            continuation.resume(throwing: error)
            return
        case .success(let value):
            easy = value
        }
        transfer.easy = easy
        let configured = configure(easy, for: transfer)
        var finished: Finished = []
        let refusal: TransportError? = lock.withLock {
            if let error = configured ?? refusalLocked(id) {
                entries[id] = nil
                transfer.releaseBuffers()
                recycleLocked(easy)
                return error
            }
            let added = ccurl_multi_add_handle(multi, easy)
            guard added == 0 else {
                entries[id] = nil
                transfer.releaseBuffers()
                recycleLocked(easy)
                return TransportError(code: .other, message: "curl_multi_add_handle failed (\(added))")
            }
            active[easy] = transfer
            entries[id] = .running(easy)
            ccurl_driver_kick(driver)
            collectDoneLocked(into: &finished)
            return nil
        }
        if let refusal { continuation.resume(throwing: refusal) }
        resume(finished)
    }

    /// Why a registered request may not start: the client stopped or the task was cancelled.
    private func refusalLocked(_ id: UInt64) -> TransportError? {
        if stopping {
            entries[id] = nil
            return TransportError(code: .cancelled, message: "the client was shut down", isRetryable: false)
        }
        if case .cancelled = entries[id] {
            entries[id] = nil
            return Self.cancelledError
        }
        return nil
    }

    func cancel(id: UInt64) {
        var finished: Finished = []
        lock.withLock {
            switch entries[id] {
            case .registered:
                entries[id] = .cancelled
            case .running(let easy):
                finishLocked(easy, with: .failure(Self.cancelledError), into: &finished)
                ccurl_driver_kick(driver)
                collectDoneLocked(into: &finished)
            case .cancelled, nil:
                break
            }
        }
        resume(finished)
    }

    func shutdown() {
        lock.withLock {
            stopping = true
            if !closed { ccurl_driver_wake(driver) }
        }
    }

    private static let cancelledError = TransportError(
        code: .cancelled, message: "the request was cancelled", isRetryable: false)

    // MARK: Engine thread

    /// Whether the caller runs on the engine's thread (tests check where preferring tasks resume).
    var isEngineThread: Bool {
        let current = pthread_self()
        return lock.withLock { engineThread.map { pthread_equal($0, current) != 0 } ?? false }
    }

    private func run() {
        let started = pthread_self()
        lock.withLock { engineThread = started }
        let capacity = 64
        var sockets = [Int32](repeating: 0, count: capacity)
        var masks = [Int32](repeating: 0, count: capacity)
        var batch: [UnownedJob] = []
        while true {
            // Queued jobs first: then only look at the sockets. Otherwise sleep until a socket,
            // libcurl's timer (a descriptor in the same wait set) or a new job speaks: a held
            // long-poll costs no wake-up of its own (issue 34 §5 measured one a second before).
            let timeout: Int32 = lock.withLock {
                if !jobs.isEmpty { return 0 }
                waiting = true
                return -1
            }
            let count = Int(ccurl_driver_wait(driver, &sockets, &masks, Int32(capacity), timeout))
            var finished: Finished = []
            let stop: Bool = lock.withLock {
                waiting = false
                if stopping { return true }
                if count == 0, timeout != 0, !active.isEmpty {
                    var running: Int32 = 0
                    _ = ccurl_multi_socket_action(multi, CCURL_SOCKET_TIMEOUT, 0, &running)
                    ccurl_driver_kick(driver)
                }
                for index in 0..<count { _ = ccurl_driver_handle(driver, sockets[index], masks[index]) }
                collectDoneLocked(into: &finished)
                return false
            }
            resume(finished)
            if stop {
                close()
                return
            }
            // One batch per turn (what was queued by now, the jobs just resumed among them), so a
            // task that keeps re-enqueueing itself cannot starve the sockets.
            lock.withLock { swap(&batch, &jobs) }
            if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) {
                // (Always true where a job can be queued: only a `TaskExecutor` enqueues them.)
                for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
            }
            batch.removeAll(keepingCapacity: true)
        }
    }

    private func close() {
        let error = TransportError(code: .cancelled, message: "the client was shut down", isRetryable: false)
        var finished: Finished = []
        let leftover: [UnownedJob] = lock.withLock {
            for easy in Array(active.keys) { finishLocked(easy, with: .failure(error), into: &finished) }
            for easy in idleHandles { ccurl_easy_cleanup(easy) }
            idleHandles.removeAll()
            closed = true
            engineThread = nil  // its id may be reused by a new thread
            _ = ccurl_multi_cleanup(multi)
            ccurl_driver_destroy(driver)
            defer { jobs.removeAll() }
            return jobs
        }
        // From here on `enqueue` hands jobs to the global executor's threads; so do the queued ones
        // and the callers resumed with the shutdown error. No job is dropped.
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) {
            for job in leftover { runElsewhere(job) }
        }
        resume(finished)
    }

    // MARK: Task executor

    /// The jobs that reached the engine after it shut down: they run on a global thread, still
    /// reporting the engine as their task executor, so no task is left suspended.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    fileprivate func runElsewhere(_ job: UnownedJob) {
        DispatchQueue.global().async { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }
    }

    /// Queues `job` for the engine's thread, waking the thread when it sleeps; once the engine is
    /// shut down, the job runs on a global thread instead.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    fileprivate func enqueueJob(_ job: UnownedJob) {
        let queued: Bool = lock.withLock {
            if stopping || closed { return false }
            jobs.append(job)
            if waiting {
                // Under the lock, so the driver cannot be closed in between.
                waiting = false
                ccurl_driver_wake(driver)
            }
            return true
        }
        if !queued { runElsewhere(job) }
    }

    /// Takes every transfer libcurl reports done out of the multi handle. Removing a handle may
    /// move libcurl's timer, so the driver runs again until nothing more finishes.
    private func collectDoneLocked(into finished: inout Finished) {
        var done: OpaquePointer?
        var code: Int32 = 0
        while true {
            let before = finished.count
            while ccurl_multi_next_done(multi, &done, &code) == 1, let easy = done {
                finishLocked(easy, with: outcome(of: easy, code: code), into: &finished)
            }
            if finished.count == before { return }
            ccurl_driver_kick(driver)
        }
    }

    /// Takes a running transfer out of the multi handle; its caller is resumed by ``resume(_:)``.
    private func finishLocked(
        _ easy: OpaquePointer, with result: Result<HTTPResponse, TransportError>, into finished: inout Finished
    ) {
        guard let transfer = active.removeValue(forKey: easy) else { return }
        entries[transfer.id] = nil
        _ = ccurl_multi_remove_handle(multi, easy)
        transfer.releaseBuffers()
        recycleLocked(easy)
        finished.append((transfer, result))
    }

    /// Resumes the callers of finished transfers; called without the lock.
    private func resume(_ finished: Finished) {
        for (transfer, result) in finished {
            transfer.continuation.resume(with: result.mapError { $0 as any Error })
        }
    }

    private func recycleLocked(_ easy: OpaquePointer) {
        ccurl_easy_reset(easy)
        if idleHandles.count < Self.maximumIdleHandles {
            idleHandles.append(easy)
        } else {
            ccurl_easy_cleanup(easy)
        }
    }

    /// Sets every option of one transfer; returns an error when libcurl refuses one.
    private func configure(_ easy: OpaquePointer, for transfer: CurlTransfer) -> TransportError? {
        let request = transfer.request
        var refused: [String] = []
        func set(_ option: Int, _ value: Int, _ name: String) {
            if ccurl_easy_setopt_long(easy, Int32(option), value) != 0 { refused.append(name) }
        }
        func set(_ option: Int, text value: String, _ name: String) {
            // libcurl copies string options, so the temporary C string may go away afterwards.
            if value.withCString({ ccurl_easy_setopt_pointer(easy, Int32(option), $0) }) != 0 { refused.append(name) }
        }
        func set(_ option: Int, pointer value: UnsafeRawPointer?, _ name: String) {
            if ccurl_easy_setopt_pointer(easy, Int32(option), value) != 0 { refused.append(name) }
        }

        set(CCURLOPT_URL, text: request.url, "URL")
        set(CCURLOPT_NOSIGNAL, 1, "NOSIGNAL")
        set(CCURLOPT_NOPROGRESS, 1, "NOPROGRESS")
        set(CCURLOPT_FOLLOWLOCATION, 0, "FOLLOWLOCATION")
        set(CCURLOPT_TCP_NODELAY, 1, "TCP_NODELAY")
        // Connections are close-on-exec: a child process the app spawns must not keep one open
        // after the client closed it (or the server reset it).
        if ccurl_easy_use_cloexec_sockets(easy) != 0 { refused.append("OPENSOCKETFUNCTION") }
        set(CCURLOPT_SSL_VERIFYPEER, 1, "SSL_VERIFYPEER")
        set(CCURLOPT_SSL_VERIFYHOST, 2, "SSL_VERIFYHOST")
        if let authorities = configuration.certificateAuthorityFile {
            set(CCURLOPT_CAINFO, text: authorities, "CAINFO")
        }
        // Older libcurl lacks PROTOCOLS_STR; the scheme was already checked, so a refusal is harmless.
        _ = "http,https".withCString { ccurl_easy_setopt_pointer(easy, Int32(CCURLOPT_PROTOCOLS_STR), $0) }
        set(CCURLOPT_ACCEPT_ENCODING, text: "", "ACCEPT_ENCODING")
        let timeout = request.timeout ?? configuration.defaultTimeout
        set(CCURLOPT_TIMEOUT_MS, Int(clamping: max(1, timeout.roundedUpMilliseconds)), "TIMEOUT_MS")
        let connectTimeout = max(1, configuration.connectTimeout.roundedUpMilliseconds)
        set(CCURLOPT_CONNECTTIMEOUT_MS, Int(clamping: connectTimeout), "CONNECTTIMEOUT_MS")
        if let keepAlive = configuration.tcpKeepAlive {
            // Whole seconds, at least one. A libcurl that refuses these (built without keep-alive
            // support) still sends the request: keep-alive only makes a dead path fail sooner.
            let seconds = Int(clamping: max(1, (keepAlive.roundedUpMilliseconds + 999) / 1000))
            _ = ccurl_easy_setopt_long(easy, Int32(CCURLOPT_TCP_KEEPALIVE), 1)
            _ = ccurl_easy_setopt_long(easy, Int32(CCURLOPT_TCP_KEEPIDLE), seconds)
            _ = ccurl_easy_setopt_long(easy, Int32(CCURLOPT_TCP_KEEPINTVL), seconds)
        }
        _ = ccurl_easy_setopt_off_t(easy, Int32(CCURLOPT_MAXFILESIZE_LARGE), Int64(configuration.maximumResponseBytes))

        let method = request.method.rawValue
        if let body = request.body {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, body.count), alignment: 1)
            buffer.copyBytes(from: body)
            transfer.requestBody = buffer
            set(CCURLOPT_POST, 1, "POST")
            set(CCURLOPT_POSTFIELDS, pointer: UnsafeRawPointer(buffer.baseAddress), "POSTFIELDS")
            if ccurl_easy_setopt_off_t(easy, Int32(CCURLOPT_POSTFIELDSIZE_LARGE), Int64(body.count)) != 0 {
                refused.append("POSTFIELDSIZE_LARGE")
            }
            if request.method != .post { set(CCURLOPT_CUSTOMREQUEST, text: method, "CUSTOMREQUEST") }
        } else if request.method == .get {
            set(CCURLOPT_HTTPGET, 1, "HTTPGET")
        } else if request.method == .head {
            set(CCURLOPT_NOBODY, 1, "NOBODY")
        } else {
            set(CCURLOPT_CUSTOMREQUEST, text: method, "CUSTOMREQUEST")
        }

        var list: OpaquePointer?
        func append(_ line: String) {
            list = ccurl_slist_append(list, line)
        }
        for field in request.headers {
            // "Name;" is libcurl's spelling of a header with an empty value.
            append(field.value.isEmpty ? field.name + ";" : field.name + ": " + field.value)
        }
        // The body is already in memory: waiting for "100 Continue" would only add a round trip.
        if !request.headers.contains("Expect") { append("Expect:") }
        // Without this, libcurl labels every body as a form.
        if request.body != nil, !request.headers.contains("Content-Type") { append("Content-Type:") }
        transfer.headerList = list
        set(CCURLOPT_HTTPHEADER, pointer: UnsafeRawPointer(list), "HTTPHEADER")

        let user = UnsafeRawPointer(Unmanaged.passUnretained(transfer).toOpaque())
        if ccurl_easy_setopt_data_callback(easy, Int32(CCURLOPT_WRITEFUNCTION), curlWriteBody) != 0 {
            refused.append("WRITEFUNCTION")
        }
        set(CCURLOPT_WRITEDATA, pointer: user, "WRITEDATA")
        if ccurl_easy_setopt_data_callback(easy, Int32(CCURLOPT_HEADERFUNCTION), curlWriteHeader) != 0 {
            refused.append("HEADERFUNCTION")
        }
        set(CCURLOPT_HEADERDATA, pointer: user, "HEADERDATA")

        guard refused.isEmpty else {
            return TransportError(
                code: .invalidRequest, message: "libcurl refused options: \(refused.joined(separator: ", "))",
                isRetryable: false)
        }
        return nil
    }

    private func outcome(of easy: OpaquePointer, code: Int32) -> Result<HTTPResponse, TransportError> {
        guard let transfer = active[easy] else {
            return .failure(TransportError(code: .other, message: "unknown transfer"))
        }
        guard code == Int32(CCURLE_OK) else {
            return .failure(Self.error(for: code, exceededLimit: transfer.exceededLimit))
        }
        var status = 0
        _ = ccurl_easy_getinfo_long(easy, Int32(CCURLINFO_RESPONSE_CODE), &status)
        guard (100...999).contains(status) else {
            return .failure(TransportError(code: .invalidResponse, message: "no HTTP status in the response"))
        }
        return .success(
            HTTPResponse(
                status: status, headers: HTTPHeaders(transfer.responseHeaders.fields), body: transfer.responseBody))
    }

    /// Maps a libcurl result code to a transport error.
    static func error(for code: Int32, exceededLimit: Bool) -> TransportError {
        let reason = ccurl_easy_strerror(code).map { String(cString: $0) } ?? "error \(code)"
        let cause = LibcurlError(code: Int(code), reason: reason)
        let message = cause.description
        func failure(_ kind: TransportError.Code, _ text: String = message) -> TransportError {
            TransportError(code: kind, message: text, underlying: cause)
        }
        switch Int(code) {
        case CCURLE_OPERATION_TIMEDOUT:
            return failure(.timedOut)
        case CCURLE_COULDNT_CONNECT:
            return failure(.cannotConnect)
        case CCURLE_COULDNT_RESOLVE_HOST, CCURLE_COULDNT_RESOLVE_PROXY:
            return failure(.cannotResolveHost)
        case CCURLE_PARTIAL_FILE, CCURLE_GOT_NOTHING, CCURLE_SEND_ERROR, CCURLE_RECV_ERROR, CCURLE_HTTP2,
            CCURLE_HTTP2_STREAM:
            return failure(.connectionLost)
        case CCURLE_SSL_CONNECT_ERROR, CCURLE_SSL_CERTPROBLEM, CCURLE_SSL_CIPHER, CCURLE_PEER_FAILED_VERIFICATION,
            CCURLE_SSL_CACERT_BADFILE, CCURLE_SSL_SHUTDOWN_FAILED, CCURLE_SSL_CRL_BADFILE, CCURLE_SSL_ISSUER_ERROR,
            CCURLE_SSL_CLIENTCERT:
            return failure(.tls)
        case CCURLE_WEIRD_SERVER_REPLY, CCURLE_BAD_CONTENT_ENCODING:
            return failure(.invalidResponse)
        case CCURLE_FILESIZE_EXCEEDED:
            return failure(.tooLarge)
        case CCURLE_WRITE_ERROR where exceededLimit:
            return failure(.tooLarge, "the response body exceeds the configured limit")
        case CCURLE_UNSUPPORTED_PROTOCOL:
            // The scheme was checked before sending (`validateForSending`), so this is libcurl
            // refusing a reply that is not HTTP ("Received HTTP/0.9 when not allowed").
            return failure(.invalidResponse)
        case CCURLE_URL_MALFORMAT:
            return failure(.invalidRequest)
        default:
            return failure(.other)
        }
    }
}

@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
extension CurlEngine: TaskExecutor {
    func enqueue(_ job: consuming ExecutorJob) {
        enqueueJob(UnownedJob(job))
    }
}
