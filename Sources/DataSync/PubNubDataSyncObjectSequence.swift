public import DataSyncModels

/// The objects of a DataSync list, fetched page after page as you iterate.
///
/// One request is in flight at a time, and only when the objects already fetched are used up.
/// Iteration ends after the page whose `hasNext` is `false` (or that has no page information).
/// Cancelling the iterating task stops it: the next step throws a `PubNubError` with reason
/// `.requestCancelled`. A page that says more follow but gives no new cursor fails with
/// `.malformedResponse` rather than looping.
///
/// ```swift
/// for try await user in pubnub.dataSync.users(pageSize: 100, filter: "department == 'Sales'") {
///     print(user.id)
/// }
/// ```
public struct PubNubDataSyncObjectSequence<Element: PubNubDataSyncObject>: AsyncSequence, Sendable {
    /// Fetches the page at a cursor (`nil` for the first page).
    public typealias PageFetcher = @Sendable (String?) async throws -> ([Element], PubNubDataSyncPage?)

    private let startCursor: String?
    private let fetch: PageFetcher

    /// Creates a sequence that starts at `cursor` and calls `fetch` for each page; use it to page
    /// through results of your own fetch function (or a mock in tests).
    public init(startingAt cursor: String? = nil, fetch: @escaping PageFetcher) {
        self.startCursor = cursor
        self.fetch = fetch
    }

    /// Creates an iterator that has fetched nothing yet.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(cursor: startCursor, fetch: fetch)
    }

    /// Steps through the objects, fetching the next page when the current one is used up.
    public struct AsyncIterator: AsyncIteratorProtocol, Sendable {
        private var cursor: String?
        private let fetch: PageFetcher
        private var buffer: [Element] = []
        private var position = 0
        private var finished = false
        private var pendingError: PubNubError?

        init(cursor: String?, fetch: @escaping PageFetcher) {
            self.cursor = cursor
            self.fetch = fetch
        }

        /// The next object, or `nil` after the last page.
        ///
        /// - Throws: `PubNubError` when a page cannot be fetched or the task was cancelled.
        public mutating func next() async throws -> Element? {
            while true {
                if position < buffer.count {
                    defer { position += 1 }
                    return buffer[position]
                }
                if finished {
                    if let error = pendingError {
                        pendingError = nil
                        throw error
                    }
                    return nil
                }
                if Task.isCancelled {
                    finished = true
                    throw ServicePipeline.cancelled(CancellationError())
                }
                let (objects, page) = try await fetch(cursor)
                buffer = objects
                position = 0
                guard let page, page.hasNext else {
                    finished = true
                    continue
                }
                guard let next = page.cursor, next != cursor else {
                    // Hand out the objects already received before reporting the broken page.
                    finished = true
                    pendingError = PubNubError.malformedResponse(
                        "a page says more objects follow but gives no new cursor", statusCode: nil)
                    continue
                }
                cursor = next
            }
        }
    }
}
