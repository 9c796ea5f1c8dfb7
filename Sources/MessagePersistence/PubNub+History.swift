public import PubNubCore
import Transport

extension PubNub {
    // MARK: async

    /// Fetches stored messages of one or more channels
    /// (`GET /v3/history/sub-key/{sub}/channel/{channels}`; with `includeActions`,
    /// `/v3/history-with-actions/…` for one channel).
    ///
    /// Each channel's messages come oldest first: the newest of `range` (`start` exclusive,
    /// `end` inclusive), at most 100 for one channel and 25 per channel for several or with
    /// actions. Ordinary messages are decrypted with the configuration's crypto module; one that
    /// cannot be is returned as stored with ``PubNubHistoryMessage/decryptionError`` set.
    ///
    /// - Parameters:
    ///   - channels: The channels (up to 500; one with `includeActions`).
    ///   - range: The time range and page size.
    ///   - includeActions: Whether to return each message's actions (one channel only).
    ///   - includeMeta: Whether to return publish metadata.
    ///   - includeMessageType: Whether to return the service's message type.
    ///   - includeCustomMessageType: Whether to return the custom message type.
    ///   - includeUUID: Whether to return the publisher's user id.
    ///   - requestConfig: Per-request overrides.
    /// - Throws: `PubNubError`: `.missingRequiredParameter` or `.invalidArguments` for bad
    ///   arguments (nothing sent); the service's errors (`.forbidden` without read access);
    ///   `.malformedResponse` for an answer without `channels`.
    ///
    /// ```swift
    /// let fetched = try await pubnub.fetchMessages(from: ["room-1"], range: PubNubHistoryRange(limit: 10))
    /// for message in fetched.channels["room-1"] ?? [] { print(message.timetoken, message.message) }
    /// ```
    public func fetchMessages(
        from channels: [String], range: PubNubHistoryRange = PubNubHistoryRange(), includeActions: Bool = false,
        includeMeta: Bool = false, includeMessageType: Bool = true, includeCustomMessageType: Bool = false,
        includeUUID: Bool = true, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubFetchedMessages {
        let call = try HistoryCall.fetch(
            subscribeKey: configuration.subscribeKey, channels: channels, range: range, includeActions: includeActions,
            includeMeta: includeMeta, includeMessageType: includeMessageType,
            includeCustomMessageType: includeCustomMessageType, includeUUID: includeUUID)
        let response = try await pipeline.exchange(call, custom: requestConfig)
        return try HistoryCall.fetched(response, module: configuration.cryptoModule, range: range)
    }

    /// Pages backwards through a channel's history, newest page first (each page oldest first),
    /// until the channel has no older message. Each page is one request, made when the loop asks
    /// for it; a failure ends the sequence by throwing.
    ///
    /// ```swift
    /// for try await page in pubnub.historyPages(of: "room-1", pageSize: 50) {
    ///     for message in page.reversed() { print(message.message) }  // newest to oldest
    /// }
    /// ```
    public func historyPages(
        of channel: String, pageSize: Int = 100, includeMeta: Bool = false, includeCustomMessageType: Bool = false,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) -> PubNubHistoryPages {
        PubNubHistoryPages(pageSize: pageSize) { start in
            let fetched = try await self.fetchMessages(
                from: [channel], range: PubNubHistoryRange(start: start, limit: pageSize), includeMeta: includeMeta,
                includeCustomMessageType: includeCustomMessageType, custom: requestConfig)
            return fetched.channels[channel] ?? []
        }
    }

    /// Deletes a channel's stored messages in a range
    /// (`DELETE /v3/history/sub-key/{sub}/channel/{channel}`): after `start` (exclusive) up to and
    /// including `end`; without both, the whole channel. To delete one message, pass its
    /// timetoken minus one as `start` and its timetoken as `end`.
    ///
    /// - Throws: `PubNubError`: `.invalidArguments` for an empty channel (nothing sent); the
    ///   service's errors (`.forbidden` without delete access).
    public func deleteMessages(
        from channel: String, start: Timetoken? = nil, end: Timetoken? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws {
        let call = try HistoryCall.delete(
            subscribeKey: configuration.subscribeKey, channel: channel, start: start, end: end)
        _ = try HistoryCall.answerObject(try await pipeline.exchange(call, custom: requestConfig))
    }

    /// How many messages each channel stored after a timetoken (exclusive)
    /// (`GET /v3/history/sub-key/{sub}/message-counts/{channels}`). The service reports at most
    /// 10,000 per channel.
    ///
    /// - Parameters:
    ///   - channels: Each channel with the timetoken to count after (up to 100 channels).
    ///   - requestConfig: Per-request overrides.
    /// - Throws: `PubNubError`: `.missingRequiredParameter` or `.invalidArguments` (nothing sent);
    ///   the service's errors; `.malformedResponse` without `channels`.
    ///
    /// ```swift
    /// let unread = try await pubnub.messageCounts(channels: ["room-1": lastRead, "room-2": lastRead])
    /// ```
    public func messageCounts(
        channels: [String: Timetoken], custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> [String: Int] {
        let ordered = channels.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        let call = try HistoryCall.counts(subscribeKey: configuration.subscribeKey, channels: ordered)
        let object = try HistoryCall.answerObject(try await pipeline.exchange(call, custom: requestConfig))
        guard let counts = object["channels"]?.objectValue else {
            throw PubNubError.malformedResponse("a message-counts answer has no `channels`", statusCode: 200)
        }
        return counts.dictionary.compactMapValues(\.intValue)
    }

    /// Adds an action (a reaction, a receipt) to a stored message
    /// (`POST /v1/message-actions/{sub}/channel/{channel}/message/{tt}`). Subscribers of the
    /// channel receive it as a message action event (`added`).
    ///
    /// - Returns: The action with its own timetoken (keep it to remove the action).
    /// - Throws: `PubNubError`: `.invalidArguments` for an empty channel or value or a type that
    ///   is empty or over 15 characters (nothing sent); `.conflict` when this user already added
    ///   the same type and value; `.forbidden` without update access.
    public func addMessageAction(
        channel: String, type: String, value: String, messageTimetoken: Timetoken,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubMessageAction {
        let call = try HistoryCall.addAction(
            subscribeKey: configuration.subscribeKey, channel: channel, type: type, value: value,
            messageTimetoken: messageTimetoken)
        let object = try HistoryCall.answerObject(try await pipeline.exchange(call, custom: requestConfig))
        guard let data = object["data"], let action = HistoryCall.action(data) else {
            throw PubNubError.malformedResponse("an add-action answer has no action in `data`", statusCode: 200)
        }
        return action
    }

    /// Removes an action from a message
    /// (`DELETE /v1/message-actions/{sub}/channel/{channel}/message/{tt}/action/{actionTt}`).
    /// Subscribers of the channel receive a message action event (`removed`).
    ///
    /// - Throws: `PubNubError`: `.invalidArguments` for an empty channel (nothing sent);
    ///   `.resourceNotFound` when there is no such action; `.forbidden` without delete access.
    public func removeMessageAction(
        channel: String, messageTimetoken: Timetoken, actionTimetoken: Timetoken,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws {
        let call = try HistoryCall.removeAction(
            subscribeKey: configuration.subscribeKey, channel: channel, messageTimetoken: messageTimetoken,
            actionTimetoken: actionTimetoken)
        _ = try HistoryCall.answerObject(try await pipeline.exchange(call, custom: requestConfig))
    }

    /// One page of a channel's message actions, oldest first
    /// (`GET /v1/message-actions/{sub}/channel/{channel}`): the newest `limit` (1...100, default
    /// 100) with action timetokens before `start` (exclusive) and at or after `end`. Pass
    /// ``PubNubMessageActionsPage/nextStart`` as the next call's `start` to page backwards.
    ///
    /// - Throws: `PubNubError`: `.invalidArguments` for an empty channel or a limit out of range
    ///   (nothing sent); `.forbidden` without read access; `.malformedResponse` without `data`.
    public func fetchMessageActions(
        channel: String, start: Timetoken? = nil, end: Timetoken? = nil, limit: Int? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration()
    ) async throws -> PubNubMessageActionsPage {
        let call = try HistoryCall.listActions(
            subscribeKey: configuration.subscribeKey, channel: channel, start: start, end: end, limit: limit)
        let object = try HistoryCall.answerObject(try await pipeline.exchange(call, custom: requestConfig))
        guard let data = object["data"]?.arrayValue else {
            throw PubNubError.malformedResponse("a message-actions answer has no `data` list", statusCode: 200)
        }
        let next = object["more"]?["start"].flatMap(HistoryCall.timetoken)
        return PubNubMessageActionsPage(actions: data.compactMap(HistoryCall.action), nextStart: next)
    }

    // MARK: completion

    /// Fetches stored messages; see the `async` form. `completion` runs in the configured context.
    public func fetchMessages(
        from channels: [String], range: PubNubHistoryRange = PubNubHistoryRange(), includeActions: Bool = false,
        includeMeta: Bool = false, includeMessageType: Bool = true, includeCustomMessageType: Bool = false,
        includeUUID: Bool = true, custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubFetchedMessages, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) {
            try await self.fetchMessages(
                from: channels, range: range, includeActions: includeActions, includeMeta: includeMeta,
                includeMessageType: includeMessageType, includeCustomMessageType: includeCustomMessageType,
                includeUUID: includeUUID, custom: requestConfig)
        }
    }

    /// Deletes stored messages; see the `async` form. `completion` runs in the configured context.
    public func deleteMessages(
        from channel: String, start: Timetoken? = nil, end: Timetoken? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Void, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) {
            try await self.deleteMessages(from: channel, start: start, end: end, custom: requestConfig)
        }
    }

    /// Counts messages per channel; see the `async` form. `completion` runs in the configured context.
    public func messageCounts(
        channels: [String: Timetoken],
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<[String: Int], any Error>) -> Void)?
    ) {
        pipeline.complete(completion) { try await self.messageCounts(channels: channels, custom: requestConfig) }
    }

    /// Adds a message action; see the `async` form. `completion` runs in the configured context.
    public func addMessageAction(
        channel: String, type: String, value: String, messageTimetoken: Timetoken,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubMessageAction, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) {
            try await self.addMessageAction(
                channel: channel, type: type, value: value, messageTimetoken: messageTimetoken, custom: requestConfig)
        }
    }

    /// Removes a message action; see the `async` form. `completion` runs in the configured context.
    public func removeMessageAction(
        channel: String, messageTimetoken: Timetoken, actionTimetoken: Timetoken,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<Void, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) {
            try await self.removeMessageAction(
                channel: channel, messageTimetoken: messageTimetoken, actionTimetoken: actionTimetoken,
                custom: requestConfig)
        }
    }

    /// Fetches a page of message actions; see the `async` form. `completion` runs in the
    /// configured context.
    public func fetchMessageActions(
        channel: String, start: Timetoken? = nil, end: Timetoken? = nil, limit: Int? = nil,
        custom requestConfig: PubNub.RequestConfiguration = PubNub.RequestConfiguration(),
        completion: (@Sendable (Result<PubNubMessageActionsPage, any Error>) -> Void)?
    ) {
        pipeline.complete(completion) {
            try await self.fetchMessageActions(
                channel: channel, start: start, end: end, limit: limit, custom: requestConfig)
        }
    }
}

/// The pages of a channel's history, newest page first, each page oldest first; made by
/// `PubNub.historyPages(of:pageSize:…)`. Each
/// iteration makes one request when asked for its next page; it ends after a page shorter than
/// the page size or an empty one.
public struct PubNubHistoryPages: AsyncSequence, Sendable {
    /// One page: up to the page size of messages, oldest first.
    public typealias Element = [PubNubHistoryMessage]

    let pageSize: Int
    let fetch: @Sendable (Timetoken?) async throws -> [PubNubHistoryMessage]

    init(pageSize: Int, fetch: @escaping @Sendable (Timetoken?) async throws -> [PubNubHistoryMessage]) {
        self.pageSize = pageSize
        self.fetch = fetch
    }

    /// Creates an iterator that starts from the newest message.
    public func makeAsyncIterator() -> Iterator { Iterator(pages: self) }

    /// Walks the pages; each ``next()`` makes at most one request.
    public struct Iterator: AsyncIteratorProtocol {
        let pages: PubNubHistoryPages
        var start: Timetoken?
        var finished = false

        init(pages: PubNubHistoryPages) { self.pages = pages }

        /// The next older page, or `nil` once the history is exhausted.
        public mutating func next() async throws -> [PubNubHistoryMessage]? {
            guard !finished else { return nil }
            let page = try await pages.fetch(start)
            // A page shorter than asked means the range holds nothing older; the service caps a
            // page at 100, so that is the most a larger page size can ask for.
            if page.count < Swift.min(pages.pageSize, HistoryCall.singleChannelLimit) { finished = true }
            guard let oldest = page.first else { return nil }
            start = oldest.timetoken
            return page
        }
    }
}
