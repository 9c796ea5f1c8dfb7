import DataSyncEmulator
import EmulatorHTTP
import Foundation
import JSONCore
import Testing

/// Issue 35, item 4: a list is computed over the rows the token may `get`, before paging, so
/// neither the page, `has_next` nor the next cursor says anything about the other rows.
@Suite struct ListScopeTests {
    /// Creates users `id` with `name` (a sortable property), signed.
    static func createUsers(_ client: AccessClient, _ users: [(id: String, name: String)]) async throws {
        for (id, name) in users {
            let body: JSONValue = [
                "data": ["id": .string(id), "entityClassVersion": 1, "payload": ["name": .string(name), "type": "t"]]
            ]
            let created = await client.sendSigned(
                "POST", "/v1/datasync/subkeys/sub-c/users", body: try body.jsonBytes(),
                headers: [(name: "Content-Type", value: AccessClient.contentType("POST", "users"))])
            try #require(created.status == 201, "\(created.text)")
        }
    }

    /// What an attacker reads out of a cursor: its text, and its first dot-separated part decoded
    /// as base64 (standard or URL-safe alphabet).
    static func attackerView(_ cursor: String) -> String {
        let first = cursor.split(separator: ".").first.map(String.init) ?? cursor
        var base64 = first.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let decoded = Data(base64Encoded: base64).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return cursor + "\n" + decoded
    }

    /// Follows `next_cursor` from the first page of `query` with `token`; returns every page.
    static func pages(_ client: AccessClient, _ query: String, token: String) async throws -> [AccessReply] {
        var replies: [AccessReply] = []
        var cursor: String?
        repeat {
            var rest = "users?" + query
            if let cursor { rest += "&cursor=" + AccessClient.encode(cursor) }
            let reply = await client.dataSync("GET", rest, auth: token)
            try #require(reply.status == 200, "\(reply.text)")
            replies.append(reply)
            cursor = reply.json?["meta"]?["next_cursor"]?.stringValue
            try #require(replies.count <= 20, "paging does not end")
        } while cursor != nil
        return replies
    }

    static func ids(_ reply: AccessReply) -> [String] {
        reply.json?["data"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }

    @Test("a token for one user: a sorted list with limit=1 shows that user, and no cursor names a hidden one")
    func cursorsNeverNameHiddenRows() async throws {
        let client = try AccessClient()
        let hidden = [
            ("hidden-a", "hidden-name-a"), ("hidden-b", "hidden-name-b"), ("hidden-d", "hidden-name-d"),
            ("hidden-e", "hidden-name-e"),
        ]
        // The readable user sorts in the middle, so hidden rows come before and after it.
        try await Self.createUsers(client, hidden + [("mine", "hidden-name-c")])
        let token = try await client.grant(["resources": ["uuids": ["mine": 32]]])
        for sort in ["name", "name:desc", "id", "id:desc", "updatedAt"] {
            let replies = try await Self.pages(client, "sort=\(sort)&limit=1", token: token)
            #expect(replies.flatMap(Self.ids) == ["mine"], "sort=\(sort)")
            for reply in replies {
                var seen = reply.text
                if let cursor = reply.json?["meta"]?["next_cursor"]?.stringValue { seen += Self.attackerView(cursor) }
                if let next = reply.json?["links"]?["next"]?.stringValue {
                    let query = next.split(separator: "?").last.map(String.init) ?? ""
                    for item in query.split(separator: "&") where item.hasPrefix("cursor=") {
                        seen += Self.attackerView(PercentDecoding.decode(item.dropFirst(7)) ?? "")
                    }
                }
                for (id, name) in hidden {
                    #expect(!seen.contains(id), "sort=\(sort) leaks \(id): \(seen)")
                    #expect(!seen.contains(name), "sort=\(sort) leaks \(name): \(seen)")
                }
            }
            #expect(replies.count == 1, "one readable row is one page (sort=\(sort))")
            #expect(replies.first?.json?["meta"]?["has_next"] == false)
        }
    }

    @Test(
        "with several readable rows among hidden ones, paging returns exactly the readable rows, full pages, in order",
        arguments: ["", "sort=name", "sort=name:desc", "sort=id:desc", "filter=type%20%3D%3D%20%22t%22&sort=name"])
    func pagingOverTheReadableRows(_ query: String) async throws {
        let client = try AccessClient()
        var users: [(id: String, name: String)] = []
        for index in 0..<12 {
            let readable = index % 3 == 0 || index == 7
            let id = (readable ? (index % 2 == 0 ? "p-" : "r-") : "hide-") + String(index)
            users.append((id, "n\(String(100 - index))"))
        }
        try await Self.createUsers(client, users)
        // Exact grants and a pattern; an exact entry without `get` hides a row the pattern matches.
        let token = try await client.grant([
            "resources": ["uuids": ["r-3": 32, "r-9": 32, "r-7": 32, "p-0": 1]], "patterns": ["uuids": ["^p-": 32]],
        ])
        let readable: Set = ["r-3", "r-9", "r-7", "p-6"]
        // The signed list (everything) in the same order, narrowed to the readable rows.
        let everything = await client.sendSigned(
            "GET", "/v1/datasync/subkeys/sub-c/users",
            query: query.split(separator: "&").compactMap { item in
                let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { return nil }
                return (name: parts[0], value: PercentDecoding.decode(Substring(parts[1])) ?? parts[1])
            } + [(name: "limit", value: "100")])
        let expected = Self.ids(everything).filter(readable.contains)
        #expect(expected.count == readable.count, "\(everything.text)")
        let base = query.isEmpty ? "limit=3" : query + "&limit=3"
        let replies = try await Self.pages(client, base, token: token)
        #expect(replies.flatMap(Self.ids) == expected)
        #expect(replies.map { Self.ids($0).count } == [3, 1])
        #expect(replies.map { $0.json?["meta"]?["has_next"] } == [true, false])
        #expect(replies.map { $0.json?["meta"]?["limit"] } == [3, 3])
        #expect(replies.last?.json?["links"]?["next"] == .null)
        for reply in replies {
            let cursor = reply.json?["meta"]?["next_cursor"]?.stringValue.map(Self.attackerView) ?? ""
            for user in users where !readable.contains(user.id) {
                #expect(!cursor.contains(user.id) && !reply.text.contains(user.id))
            }
        }
    }
}

/// The router hands an authorizer's scope to the service on both of its paths (at once and in a
/// task), so the two give the same answer for every decision.
@Suite struct ScopedRoutingTests {
    /// Lists `rows`, narrowed by the scope when there is one; answers at once unless the target
    /// says `wait`.
    struct RowService: EmulatorService {
        let rows = ["a", "b", "c", "d"]
        func claims(_ request: ServerRequest) -> Bool { true }
        func answer(_ scope: ListScope?) -> ServerResponse {
            let test = scope?.makeRowTest()
            let shown = rows.filter { test?($0) ?? true }
            return ServerResponse(status: 200, body: Array(shown.joined(separator: ",").utf8))
        }
        func respond(to request: ServerRequest) async -> ServerResponse { answer(nil) }
        func respond(to request: ServerRequest, scope: ListScope) async -> ServerResponse { answer(scope) }
        func respondImmediately(to request: ServerRequest) -> ServerResponse? {
            request.rawQuery == "wait" ? nil : answer(nil)
        }
        func respondImmediately(to request: ServerRequest, scope: ListScope) -> ServerResponse? {
            request.rawQuery == "wait" ? nil : answer(scope)
        }
    }

    /// `/open` allows, `/scoped` scopes to `a` and `c`, `/marked` scopes and rewrites, `/no` denies.
    struct PathAuthorizer: EmulatorAuthorizer {
        static let scope = ListScope { { $0 == "a" || $0 == "c" } }
        func authorize(_ request: ServerRequest) async -> AuthorizationDecision {
            switch request.rawPath {
            case "/open": return .allow
            case "/scoped": return .allowScoped(Self.scope, rewrite: nil)
            case "/marked": return .allowScoped(Self.scope, rewrite: { Self.mark($0) })
            default: return .deny(ServerResponse(status: 403))
            }
        }
        func authorizeImmediately(_ request: ServerRequest) -> ImmediateAuthorizationDecision? {
            switch request.rawPath {
            case "/open": return .allow
            case "/scoped": return .allowScoped(Self.scope, rewrite: nil)
            case "/marked": return .allowScoped(Self.scope, rewrite: { Self.mark($0) })
            default: return .deny(ServerResponse(status: 403))
            }
        }
        static func mark(_ response: ServerResponse) -> ServerResponse {
            var marked = response
            marked.body += Array("!".utf8)
            return marked
        }
    }

    @Test(
        "every decision gives the same answer at once and through a task",
        arguments: [
            ("/open", "a,b,c,d"), ("/scoped", "a,c"), ("/marked", "a,c!"), ("/no", ""), ("/open?wait", "a,b,c,d"),
            ("/scoped?wait", "a,c"), ("/marked?wait", "a,c!"),
        ])
    func bothPathsAgree(target: String, expected: String) async {
        let router = EmulatorRouter(services: [RowService()], authorizer: PathAuthorizer())
        let request = ServerRequest(method: "GET", target: target)
        let task = await router.handle(request)
        #expect(String(decoding: task.body, as: UTF8.self) == expected)
        if let immediate = router.respondImmediately(to: request) {
            #expect(immediate.status == task.status)
            #expect(immediate.body == task.body)
        } else {
            #expect(target.hasSuffix("?wait"))
        }
    }
}
