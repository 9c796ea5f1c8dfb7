/// An object told about every real-time event and status of a client, the seed API's listener.
///
/// Every method has an empty default, so implement only those you need. Register it with
/// `pubnub.addListener(_:)`; the client holds it strongly until `removeListener(_:)`, so it
/// never disappears behind your back (and must not hold the client strongly itself if you want
/// both released). Methods run in the configuration's completion context, never under an SDK lock,
/// one event after another in the order the service sent them.
///
/// ```swift
/// final class Inbox: PubNubEventsListener {
///     func didReceive(message: PubNubMessage) { print(message.channel, message.payload) }
///     func didReceive(status: PubNubStatus) { print(status.category) }
/// }
/// let inbox = Inbox()
/// pubnub.addListener(inbox)
/// pubnub.subscribe(to: ["room-1"])
/// ```
public protocol PubNubEventsListener: AnyObject, Sendable {
    /// A message arrived.
    func didReceive(message: PubNubMessage)
    /// A signal arrived.
    func didReceive(signal: PubNubSignal)
    /// A message action was added or removed.
    func didReceive(messageAction: PubNubMessageActionEvent)
    /// A presence event arrived.
    func didReceive(presence: PubNubPresenceEvent)
    /// An App Context (objects) event arrived.
    func didReceive(objectEvent: PubNubAppContextEvent)
    /// A file was shared.
    func didReceive(fileEvent: PubNubFileEvent)
    /// The subscribe loop or a presence call reported a status.
    func didReceive(status: PubNubStatus)
    /// A DataSync change arrived (once, when another channel brings a copy; see `dataSyncDeduplication`).
    func didReceive(dataSyncEvent: PubNubDataSyncEvent)
    /// DataSync events may have been missed: local copies built from events may be stale.
    func didReceive(dataSyncGap: PubNubDataSyncGap)
    /// An event of a type this SDK does not know arrived.
    func didReceive(unknownEvent: PubNubRawEvent)
}

extension PubNubEventsListener {
    /// Does nothing.
    public func didReceive(message: PubNubMessage) {}
    /// Does nothing.
    public func didReceive(signal: PubNubSignal) {}
    /// Does nothing.
    public func didReceive(messageAction: PubNubMessageActionEvent) {}
    /// Does nothing.
    public func didReceive(presence: PubNubPresenceEvent) {}
    /// Does nothing.
    public func didReceive(objectEvent: PubNubAppContextEvent) {}
    /// Does nothing.
    public func didReceive(fileEvent: PubNubFileEvent) {}
    /// Does nothing.
    public func didReceive(status: PubNubStatus) {}
    /// Does nothing.
    public func didReceive(dataSyncEvent: PubNubDataSyncEvent) {}
    /// Does nothing.
    public func didReceive(dataSyncGap: PubNubDataSyncGap) {}
    /// Does nothing.
    public func didReceive(unknownEvent: PubNubRawEvent) {}
}

extension PubNubEventsListener {
    /// Calls the method for `event`.
    func dispatch(_ event: PubNubEvent) {
        switch event {
        case .message(let message): didReceive(message: message)
        case .signal(let signal): didReceive(signal: signal)
        case .presence(let presence): didReceive(presence: presence)
        case .messageAction(let action): didReceive(messageAction: action)
        case .appContext(let object): didReceive(objectEvent: object)
        case .file(let file): didReceive(fileEvent: file)
        case .dataSync(let change): didReceive(dataSyncEvent: change)
        case .unknown(let raw): didReceive(unknownEvent: raw)
        }
    }
}
