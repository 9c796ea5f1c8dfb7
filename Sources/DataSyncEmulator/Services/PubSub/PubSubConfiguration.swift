/// The keys of one pub/sub keyset: a publish key, a subscribe key and a secret key.
///
/// The subscribe key names the keyset (its message log, groups and presence); a publish is
/// accepted only when its publish key and subscribe key belong to the same keyset. The secret key
/// signs server requests and Access Manager grants; tokens and signatures are checked only when
/// ``accessControl`` is on (off by default, so the `demo-secret` default changes nothing).
public struct PubSubKeyset: Sendable, Hashable {
    /// The publish key (`pub-c-…` on the real service).
    public var publishKey: String
    /// The subscribe key (`sub-c-…` on the real service).
    public var subscribeKey: String
    /// The secret key: grants are signed with it, and so are server requests.
    public var secretKey: String
    /// Whether every request on this keyset (DataSync included) must carry a token granted for it
    /// or a request signature made with ``secretKey``. Off by default.
    public var accessControl: Bool

    /// Creates a keyset; access control stays off unless `accessControl` is true.
    public init(publishKey: String, subscribeKey: String, secretKey: String, accessControl: Bool = false) {
        self.publishKey = publishKey
        self.subscribeKey = subscribeKey
        self.secretKey = secretKey
        self.accessControl = accessControl
    }

    /// A keyset with access control on.
    public static func protected(publishKey: String, subscribeKey: String, secretKey: String) -> PubSubKeyset {
        PubSubKeyset(publishKey: publishKey, subscribeKey: subscribeKey, secretKey: secretKey, accessControl: true)
    }

    /// The keyset the emulator serves unless told otherwise: `demo` / `demo` / `demo-secret`.
    public static let demo = PubSubKeyset(publishKey: "demo", subscribeKey: "demo", secretKey: "demo-secret")
}

/// How the emulator's publish/subscribe and presence services behave. Every default is the value
/// written down in `Documentation/Emulator.md`.
public struct PubSubConfiguration: Sendable {
    /// The keysets served; a publish or subscribe naming any other key is refused.
    public var keysets: [PubSubKeyset]
    /// How many recent events each keyset keeps for catch-up (a subscribe whose `tt` lies in the
    /// past). Default 20,000.
    public var catchUpBufferSize: Int
    /// How long a subscribe long-poll is held before it answers with no messages. Default 280 s.
    public var longPollTimeout: Duration
    /// The most envelopes in one subscribe answer. Default 100.
    public var maximumMessagesPerResponse: Int
    /// The presence timeout when a subscribe or heartbeat names none (`heartbeat`). Default 300 s.
    public var defaultPresenceTimeout: Int
    /// Once a channel's occupancy exceeds this, its join, leave and timeout events are replaced by
    /// one `interval` event per ``presenceInterval``. Default 20.
    public var presenceAnnounceMax: Int
    /// The period of `interval` events on channels above ``presenceAnnounceMax``. Default 10 s.
    public var presenceInterval: Int
    /// When the join, leave and timeout arrays of an `interval` event would encode to more than
    /// this many bytes, they are left out and `here_now_refresh: true` is sent. Default 30,000.
    public var presenceDeltaByteLimit: Int
    /// The most channel groups per keyset. Default 10,000.
    public var maximumChannelGroups: Int
    /// The most channels in one channel group. Default 2,000.
    public var maximumChannelsPerGroup: Int
    /// The most presences (one uuid on one channel) a keyset holds at once. A subscribe or
    /// heartbeat that would add more is answered 400 with a message naming the limit, and changes
    /// nothing; refreshing a presence already held always works. Default 50,000.
    public var maximumPresencesPerKeyset: Int
    /// The largest file one upload may store (Documentation/Files.md). Default 5 MiB, the
    /// service's limit; a larger upload is answered 413.
    public var maximumFileBytes = 5 * 1024 * 1024
    /// The most bytes of files one keyset holds in all; an upload beyond it is answered 507.
    /// Default 256 MiB. Files live in memory only.
    public var maximumFileStorageBytes = 256 * 1024 * 1024
    /// The most mobile push registrations (one device token, gateway and, for APNs2, topic and
    /// environment) a keyset holds. Registering one more device is answered 400 and changes
    /// nothing; changing a device already registered always works. Default 100,000.
    public var maximumPushRegistrations: Int

    /// Creates a configuration; every value starts at its documented default.
    public init(
        keysets: [PubSubKeyset] = [.demo], catchUpBufferSize: Int = 20_000, longPollTimeout: Duration = .seconds(280),
        maximumMessagesPerResponse: Int = 100, defaultPresenceTimeout: Int = 300, presenceAnnounceMax: Int = 20,
        presenceInterval: Int = 10, presenceDeltaByteLimit: Int = 30_000, maximumChannelGroups: Int = 10_000,
        maximumChannelsPerGroup: Int = 2_000, maximumPresencesPerKeyset: Int = 50_000,
        maximumPushRegistrations: Int = 100_000
    ) {
        self.keysets = keysets
        self.catchUpBufferSize = catchUpBufferSize
        self.longPollTimeout = longPollTimeout
        self.maximumMessagesPerResponse = maximumMessagesPerResponse
        self.defaultPresenceTimeout = defaultPresenceTimeout
        self.presenceAnnounceMax = presenceAnnounceMax
        self.presenceInterval = presenceInterval
        self.presenceDeltaByteLimit = presenceDeltaByteLimit
        self.maximumChannelGroups = maximumChannelGroups
        self.maximumChannelsPerGroup = maximumChannelsPerGroup
        self.maximumPresencesPerKeyset = maximumPresencesPerKeyset
        self.maximumPushRegistrations = maximumPushRegistrations
    }
}
