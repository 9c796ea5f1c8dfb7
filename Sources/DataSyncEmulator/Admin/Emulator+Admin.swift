public import Foundation
public import JSONCore

/// The admin operations in process: the same as the admin routes under ``adminPathPrefix``
/// (Documentation/Emulator.md, "Admin routes"), for tests that hold the ``Emulator`` itself.
extension Emulator {
    /// The reserved path prefix of the admin routes and the web console: `/_emulator`. No keyset
    /// path can reach it and it never names a keyset.
    public static let adminPathPrefix = "/_emulator"

    /// The admin secret: the configured ``AdminConfiguration/secret``, or a random one made at
    /// start. Admin calls carry it as `Authorization: Bearer <secret>` when
    /// ``adminSecretRequired`` is true.
    public nonisolated var adminSecret: String { admin.access.secret }

    /// Whether admin calls need ``adminSecret``: a secret was configured, access control is on
    /// for a keyset, or the emulator serves on an address that is not loopback.
    public nonisolated var adminSecretRequired: Bool { admin.access.isSecretRequired }

    /// The web console's address while serving (`http://127.0.0.1:<port>/_emulator/console/`).
    public var consoleURL: URL? { baseURL.flatMap { URL(string: $0.absoluteString + AdminService.consolePath) } }

    /// Empties one keyset as `POST /_emulator/v1/keysets/{sub}/reset` does: every DataSync object
    /// goes (one `delete` change each with cause ``ChangeEvent/Cause/reset``, no real-time
    /// event), the classes go back to the built-ins and the class template, and the pub/sub log,
    /// channel groups and presence are forgotten.
    public func resetKeyset(_ subscribeKey: String) async {
        _ = await admin.reset(subscribeKey)
    }

    /// Resets every keyset, as `POST /_emulator/v1/reset` does.
    public func resetAllKeysets() async {
        _ = await admin.resetAll()
    }

    /// The state as a seed document (`GET /_emulator/v1/export`): per keyset its custom classes
    /// and objects; every keyset holding something when `subscribeKeys` is nil. Feed it to
    /// ``importState(_:)``, ``seed(_:)`` or `--seed` to get the same objects back (with new
    /// timestamps, eTags and expiries).
    public func exportState(subscribeKeys: [String]? = nil) async -> JSONValue {
        await admin.export(subscribeKeys)
    }

    /// Replaces each keyset `document` (a seed document) names, as `POST /_emulator/v1/import`
    /// does: all or nothing, each keyset reset as ``resetKeyset(_:)`` does, then seeded. Returns
    /// once the real-time events of the created objects are published.
    ///
    /// - Throws: ``EmulatorError`` with ``EmulatorError/Code-swift.struct/invalidSeed`` and the
    ///   refused item's JSON Pointer; nothing has changed then.
    public func importState(_ document: JSONValue) async throws(EmulatorError) {
        _ = try await admin.importState(document)
    }

    /// The newest `limit` entries of the in-memory request log, oldest first (the console's live
    /// request log; admin routes are not logged, credentials are redacted).
    public nonisolated func recentRequests(limit: Int = 100) -> [RequestLogEntry] {
        admin.requestLog.journal.entries(after: nil, limit: limit).entries.map(\.element)
    }
}
