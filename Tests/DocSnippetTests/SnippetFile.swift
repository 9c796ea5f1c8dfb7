/// Turns the snippets of one document into a Swift file to type-check.
enum SnippetFile {
    /// Imported by every generated file, so a snippet may leave out the imports a page's first
    /// example already showed.
    static let imports = [
        "Foundation", "JSONCore", "JSONPatch", "Transport", "Auth", "DataSyncModels", "PubNubCore", "DataSync",
        "PubNubCrypto", "EmulatorHTTP", "DataSyncTestSupport", "FilterExpression", "Realtime", "Messaging",
        "DataSyncEmulator", "DataSyncLive", "MessagePersistence", "FileSharing", "MobilePush",
    ]

    /// Types the snippets take as given: a payload type, your backend, a listener.
    static let declarations = """
        struct Product: Codable, Sendable, JSONCodable {
            var name: String
            var price: Double
            var stock: Int
            var tags: [String]
        }
        struct MyBackend: Sendable {
            func fetchPubNubToken() async throws -> String { "t" }
        }
        struct ChatMessage: Codable, Sendable, JSONCodable {
            var text: String
        }
        struct Order: Codable, Sendable, JSONCodable {
            var id: String
        }
        /// An app's local copy of DataSync objects, kept current from events.
        final class ObjectCache: Sendable {
            func apply(_ event: PubNubDataSyncEvent) {}
            func reload() async {}
        }
        func reloadAlice() async {}
        func render<Value>(_ value: Value, stale: Bool = false) {}
        func show<Value>(_ value: Value, badge: String = "") {}
        func showMissing() {}
        """

    /// Placeholder values at the top of every snippet's function; a snippet's own declarations
    /// shadow them, since the snippet runs in a nested scope.
    static let values = """
        let tokenFromYourServer = "t"
        let tokenFromMyServer = "t"
        let token = "t"
        let refreshedToken = "t"
        let myQueue = DispatchQueue(label: "results")
        let text = "t"
        let backend = MyBackend()
        let product = Product(name: "Sneaker", price: 99.99, stock: 24, tags: [])
        let store = TokenStore()
        let provider = ClosureTokenProvider { _ in "t" }
        let httpClient: any HTTPClient = MockHTTPClient.success(body: [])
        let configuration = PubNubConfiguration(publishKey: nil, subscribeKey: "demo", userId: "me")
        let pubnub = PubNub(configuration: configuration)
        let dataSync = pubnub.dataSync
        let module = try CryptoModule.aesCbcCryptoModule(cipherKey: "enigma")
        let user = try await dataSync.getUser(id: "user-1")
        let cache = ObjectCache()
        let push = PubNubPushPayload().apns(title: "New message")
        let big: JSONValue = ["text": "a long message"]
        let deviceToken = Data([0x0b, 0xad, 0xf0, 0x0d])
        let tokenData = deviceToken
        let registrationToken = "fcm-registration-token"
        """

    /// A file of `snippet` alone, at file scope and with only its own imports: a stand-in
    /// snippet declares a type for another module's API, and the prelude's modules could make its
    /// names ambiguous where the app that copies it would not have them.
    static func standAlone(_ snippet: Snippet) -> String {
        (["#sourceLocation(file: \"\(snippet.document)\", line: \(snippet.line))"] + snippet.lines + [
            "#sourceLocation()"
        ])
        .joined(separator: "\n") + "\n"
    }

    static func source(for snippets: [Snippet], document: String) -> String {
        var imports = imports
        var fileScope: [String] = []
        var functions: [String] = []
        for (number, snippet) in snippets.enumerated() {
            var lines = snippet.lines
            for index in lines.indices where lines[index].hasPrefix("import ") {
                let module = lines[index].dropFirst("import ".count).trimmingSpaces()
                if !imports.contains(module) { imports.append(module) }
                lines[index] = ""  // keeps the line numbers
            }
            let located =
                ["#sourceLocation(file: \"\(document)\", line: \(snippet.line))"] + lines
                + ["#sourceLocation()"]
            if needsFileScope(lines) {
                fileScope.append(located.joined(separator: "\n"))
            } else {
                functions.append(
                    """
                    func snippet\(number + 1)() async throws {
                    \(values)
                    do {
                    \(located.joined(separator: "\n"))
                    }
                    }
                    """)
            }
        }
        return
            (["// Generated from \(document) by DocSnippetTests."] + imports.map { "import " + $0 }
            + [declarations] + fileScope + functions).joined(separator: "\n\n") + "\n"
    }

    /// Declarations that cannot sit inside a function: extensions, protocols, and test functions
    /// (the `@Test` and `@Suite` macros want a type or the file).
    static let fileScopeStarts = ["extension ", "protocol ", "@main", "@Test", "@Suite"]

    /// What a line of a declarations-only snippet starts with.
    static let declarationStarts = [
        "struct ", "final class ", "class ", "enum ", "actor ", "typealias ", "@", "extension ",
        "protocol ",
    ]

    /// Whether a snippet must be placed at file scope instead of in a function of its own: it
    /// declares what only the file may hold, or it only declares types (so the
    /// document's later snippets can use them, as a reader would).
    static func needsFileScope(_ lines: [String]) -> Bool {
        if lines.contains(where: { line in fileScopeStarts.contains { line.hasPrefix($0) } }) { return true }
        let topLevel = lines.filter { line in
            guard let first = line.first else { return false }
            return first != " " && first != "}" && first != ")" && !line.hasPrefix("//")
        }
        return !topLevel.isEmpty
            && topLevel.allSatisfy { line in declarationStarts.contains { line.hasPrefix($0) } }
    }
}
