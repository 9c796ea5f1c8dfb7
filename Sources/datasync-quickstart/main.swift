// datasync-quickstart: a guided tour of the DataSync API over real HTTP.
//
// By default it starts the DataSync emulator in this process on an ephemeral loopback port, with
// Access Manager on, so it needs no account and no network: a server role (ServerRole.swift,
// clearly server-side) mints every client's token, and a chapter shows a grant's limits and a
// token refreshed mid-run. With --origin, --subscribe-key and --token it runs the same story
// against a real service (without the access chapter: no secret key ever leaves your server).
//
//   swift run datasync-quickstart
//   swift run datasync-quickstart --origin ps.pndsn.com --subscribe-key sub-c-… --token …
import ArgumentParsing
import DataSync
import DataSyncEmulator
import Foundation
import Realtime

/// A profile stored as a user's payload: any `JSONCodable` type works.
struct Profile: JSONCodable {
    var displayName: String
    var title: String
    var team: String
}

struct Options {
    var origin: String?
    var subscribeKey = "demo"
    var token: String?
    var insecure = false

    /// The quickstart's flags, read by the package's shared argument parser.
    static let command = Command<Never>(
        name: "datasync-quickstart", summary: "a guided tour of the DataSync API over real HTTP",
        discussion: """
            Runs a guided DataSync story (users, channels, memberships, filtered lists, patches, eTags) \
            over real HTTP, while a second client watches Alice's changes arrive as real-time events. \
            Without --origin it starts an emulator in this process on 127.0.0.1 with access control on: \
            a server role mints each client's token, Alice's client is refused a write outside her \
            grant (403), and a token that expires mid-run is refreshed by the token provider.
            """,
        options: [
            .value("--origin", "HOST[:PORT]", help: "run against this service instead of the in-process emulator"),
            .value("--subscribe-key", "KEY", help: "the subscribe key to use (default: demo)"),
            .value("--token", "TOKEN", help: "the Access Manager token to send (never printed)"),
            .flag("--insecure-http", help: "plain HTTP to --origin, e.g. a standalone datasync-emulator"),
        ],
        examples: [
            "swift run datasync-emulator --port 8090 &",
            "swift run datasync-quickstart --origin 127.0.0.1:8090 --insecure-http",
        ])

    /// The options, or the exit status when help or the version was printed or the arguments
    /// were refused.
    static func parse(_ arguments: [String]) -> Result<Options, ExitCode> {
        let parsed: ParsedArguments
        switch ArgumentParser.tool(command).resolve(arguments, program: command.name) {
        case .run(_, let arguments): parsed = arguments
        case .exit(let status): return .failure(ExitCode(status: status))
        }
        var options = Options()
        if let origin = parsed.value("--origin") {
            guard !origin.isEmpty else {
                StandardStreams.err("datasync-quickstart: --origin needs a host\nsee 'datasync-quickstart --help'")
                return .failure(ExitCode(status: ExitStatus.usage))
            }
            options.origin = origin
        }
        if let key = parsed.value("--subscribe-key") { options.subscribeKey = key }
        options.token = parsed.value("--token")
        options.insecure = parsed.flag("--insecure-http")
        return .success(options)
    }
}

/// How the process ends without running the story.
struct ExitCode: Error {
    var status: Int32
}

struct QuickstartFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func step(_ text: String) { print("\n▶ \(text)") }
func detail(_ text: String) { print("  \(text)") }

/// The story: every call is a real request; an unexpected outcome stops the tour with an error.
/// `watch` makes the second client that follows Alice's changes in real time; `access`, when the
/// keyset enforces Access Manager and the server role is at hand, is the access chapter, told the
/// run's Alice and Bob.
func runStory(
    _ pubnub: PubNub, watch: (String) -> AliceWatcher, access: AccessChapter?, run: String
) async throws {
    let dataSync = pubnub.dataSync
    let alice = "alice-\(run)"
    let bob = "bob-\(run)"
    let carol = "carol-\(run)"
    let channel = "general-\(run)"

    step("A second client watches Alice in real time: pubnub.dataSyncEntity(\"\(alice)\").subscription()")
    let watcher = watch(alice)
    defer { watcher.stop() }
    try await watcher.start()

    step("Create three users with typed payloads")
    var created: [PubNubDataSyncUser] = []
    for (id, name, team) in [(alice, "Alice", "core"), (bob, "Bob", "core"), (carol, "Carol", "web")] {
        let user = try await dataSync.createUser(
            classVersion: 1, id: id, status: "active",
            payload: Profile(displayName: name, title: "Engineer", team: team))
        created.append(user)
        detail("created \(user.id) (eTag \(user.eTag), expires \(user.expiresAt.map { "\($0)" } ?? "never"))")
    }
    try await watcher.expect([.entityCreated])

    step("Create a channel and two memberships")
    let general = try await dataSync.createChannel(
        classVersion: 1, id: channel, status: "active", payload: ["topic": "Everything"])
    detail("created channel \(general.id)")
    for user in [alice, bob] {
        // With an id of our own: a token can only permit creating an id it names.
        let membership = try await dataSync.createMembership(
            channelId: channel, userId: user, classVersion: 1, id: "m-\(user)", status: "active")
        detail("\(user) joined \(channel) as membership \(membership.id)")
    }
    // Memberships have no channel of their own: Alice's arrives on hers (and on the channel's).
    try await watcher.expect([.relationshipCreated])

    step("List this run's users with filterFast, sorted by id descending, two per page")
    var cursor: String?
    var page = 1
    repeat {
        let (users, next) = try await dataSync.getUsers(
            cursor: cursor, limit: 2, filterFast: #"id LIKE "*-\#(run)" && status == "active""#,
            sort: [PubNub.DataSyncSortField(property: "id", ascending: false)])
        detail("page \(page): \(users.map(\.id).joined(separator: ", "))")
        cursor = next?.hasNext == true ? next?.cursor : nil
        page += 1
    } while cursor != nil

    step("Partially update Alice with JSON Patch, guarded by a test op and her eTag")
    let before = try await dataSync.getUser(id: alice)
    let updated = try await dataSync.updateUser(
        id: alice,
        operations: [
            .test(path: "/status", value: "active"),
            .replace(path: "/payload/title", value: "Team lead"),
        ],
        ifMatchesEtag: before.eTag)
    let profile = try updated.payload?.decode(Profile.self)
    detail("title is now \(profile?.title ?? "?"), eTag \(before.eTag) → \(updated.eTag)")
    try await watcher.expect([.entityUpdated])

    step("Write with the stale eTag: the service answers 412, so re-read and retry")
    do {
        _ = try await dataSync.setUser(
            id: alice, classVersion: 1, status: "away",
            payload: Profile(displayName: "Alice", title: "Team lead", team: "core"), ifMatchesEtag: before.eTag)
        throw QuickstartFailure("a write with a stale eTag was accepted")
    } catch let error where error.pubNubError?.reason == .preconditionFailed {
        detail("rejected as expected: \(error.pubNubError?.details.first?.message ?? "\(error)")")
        let fresh = try await dataSync.getUser(id: alice)
        let retried = try await dataSync.setUser(
            id: alice, classVersion: 1, status: "away", payload: fresh.payload, ifMatchesEtag: fresh.eTag)
        detail("retried with the fresh eTag: status is now \(retried.status ?? "nil")")
    }
    // The refused write published nothing; the retry is one update.
    try await watcher.expect([.entityUpdated])

    step("Add Bob to the channel a second time: the service answers 409")
    do {
        _ = try await dataSync.createMembership(channelId: channel, userId: bob, classVersion: 1, id: "m2-\(bob)")
        throw QuickstartFailure("a duplicate membership was accepted")
    } catch let error where error.pubNubError?.reason == .conflict {
        detail("rejected as expected: \(error.pubNubError?.details.first?.message ?? "\(error)")")
    }

    step("Walk the channel's memberships with the auto-pager")
    var members: [String] = []
    for try await membership in dataSync.memberships(channelId: channel, pageSize: 1) {
        members.append(membership.userId)
    }
    detail("members: \(members.sorted().joined(separator: ", "))")

    if let access {
        try await access.run(alice: alice, bob: bob, watcher: watcher)
    }

    step("Clean up (removing a user or channel also removes its memberships)")
    for user in created {
        try await dataSync.removeUser(id: user.id)
        detail("removed \(user.id)")
        if user.id == alice {
            // Her delete, then the cascade of her membership, whose sides the watcher remembers.
            try await watcher.expect([.entityDeleted, .relationshipDeleted])
        }
    }
    try await dataSync.removeChannel(id: channel)
    detail("removed \(channel)")
    let leftovers = try await dataSync.getMemberships(channelId: channel)
    detail("memberships left on \(channel): \(leftovers.memberships.count)")
}

func main() async -> Int32 {
    let options: Options
    switch Options.parse(Array(CommandLine.arguments.dropFirst())) {
    case .success(let parsed): options = parsed
    case .failure(let exit): return exit.status
    }

    var emulator: Emulator?
    var server: AppServer?
    let origin: String
    let secure: Bool
    if let given = options.origin {
        origin = given
        secure = !options.insecure
        print("Running against \(secure ? "https" : "http")://\(origin) with subscribe key \(options.subscribeKey)")
        print(
            "(The access chapter is skipped: it needs the in-process emulator, whose server role holds the secret key.)"
        )
    } else {
        do {
            // Access Manager on for the keyset: every request needs a token (or a signature).
            let keyset = PubSubKeyset.protected(
                publishKey: "demo", subscribeKey: options.subscribeKey, secretKey: "demo-secret")
            let local = try Emulator(
                configuration: EmulatorConfiguration(pubSub: PubSubConfiguration(keysets: [keyset])))
            let url = try await local.start()
            emulator = local
            server = try AppServer(emulator: local, url: url, keyset: keyset)
            origin = "\(url.host ?? "127.0.0.1"):\(url.port ?? 0)"
            secure = false
            print("Started the DataSync emulator at \(url) with access control on for keyset \(keyset.subscribeKey):")
            print("every request needs a token; the secret key stays with the server role (ServerRole.swift).")
        } catch {
            StandardStreams.err("datasync-quickstart: could not start the emulator: \(error)")
            return 1
        }
    }

    func client(_ userId: String, provider: (any TokenProvider)? = nil) -> PubNub {
        var configuration = PubNubConfiguration(
            publishKey: nil, subscribeKey: options.subscribeKey, userId: userId, authToken: options.token,
            origin: origin, useSecureConnections: secure)
        configuration.heartbeatInterval = .zero
        configuration.tokenProvider = provider
        return PubNub(configuration: configuration)
    }
    // Ids unique to this run, so the story can run twice against the same keyset.
    let run = String(UUID().uuidString.prefix(8)).lowercased()
    // With the server role at hand, each client asks it for a token when it needs one, as a
    // real app asks its backend: the story's client may manage this run's objects, the watcher
    // may read Alice's channel.
    let everything = "^.*-\(run)$"
    let all = Grant.read | Grant.create | Grant.get | Grant.update | Grant.delete
    let pubnub = client(
        "quickstart",
        provider: server?.tokenProvider(
            for: "quickstart",
            Grant(
                patterns: [
                    "uuids": [everything: all], "channels": [everything: all],
                    "datasync:memberships": [everything: all],
                ],
                summary: "this run's users, channels and memberships")))
    let watching = client(
        "quickstart-watcher",
        provider: server?.tokenProvider(
            for: "quickstart-watcher",
            Grant(resources: ["channels": ["alice-\(run)": Grant.read]], summary: "read on alice-\(run)'s channel")))
    if server != nil {
        print("Every client asks the app's server for its token (a TokenProvider), as a real app does.")
    }
    var status: Int32 = 0
    do {
        let access = server.flatMap { server in
            emulator.map { AccessChapter(server: server, emulator: $0, makeClient: client) }
        }
        try await runStory(
            pubnub,
            watch: { alice in
                AliceWatcher(pubnub: watching, userId: alice, limit: .seconds(10), eventsRequired: emulator != nil)
            }, access: access, run: run)
        print("\n✔ Quickstart finished: every step behaved as documented.")
        print(
            """

            Next steps:
              • run the emulator on its own:  swift run datasync-emulator --port 8090
                and this story against it:    swift run datasync-quickstart --origin 127.0.0.1:8090 --insecure-http
              • the DataSync guide:           Documentation/DataSyncGuide.md
              • real-time DataSync events:    Documentation/DataSyncRealtime.md
              • the emulator's routes:        Documentation/Emulator.md
              • tokens and Access Manager:    Documentation/Authentication.md
            """)
    } catch {
        StandardStreams.err("\n✘ Quickstart stopped: \(error)")
        status = 1
    }
    await emulator?.stop()
    return status
}

exit(await main())
