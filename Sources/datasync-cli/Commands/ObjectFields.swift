import ArgumentParsing
import DataSync
import Foundation

/// The fields of a create or set: from `--json` first, each flag overriding.
struct ObjectFields: Sendable {
    var id: String?
    var className: String?
    var classVersion: Int?
    var classLevel: PubNubDataSyncClassLevel?
    var status: String?
    var payload: JSONValue?
    var channelId: String?
    var userId: String?
    var entityAId: String?
    var entityBId: String?

    /// Keys a `--json` document may hold beyond the fields: what `get` prints and the service sets.
    static let readOnlyKeys: Set<String> = ["createdAt", "updatedAt", "expiresAt", "eTag"]

    static func read(_ kind: ObjectKind, _ invocation: Invocation, allowsLinks: Bool) throws(UsageError) -> ObjectFields
    {
        let arguments = invocation.arguments
        var fields = ObjectFields()
        if let text = arguments.value("--json") {
            let document = try JSONArgument.read(text, option: "--json", context: invocation.context)
            guard let members = document.objectValue else {
                throw UsageError("--json takes a JSON object, not \(document.typeName)", command: arguments.commandName)
            }
            fields = try fromDocument(members, kind: kind, creating: allowsLinks, command: arguments.commandName)
        }
        if let id = arguments.value("--id") { fields.id = id }
        if let name = arguments.value("--class") { fields.className = name }
        if let version = try arguments.int("--class-version") { fields.classVersion = version }
        if let level = arguments.value("--class-level") { fields.classLevel = ObjectCommands.classLevel(level) }
        if let status = arguments.value("--status") { fields.status = status }
        if let payload = arguments.value("--payload") {
            fields.payload = try JSONArgument.read(payload, option: "--payload", context: invocation.context)
        }
        if let channel = arguments.value("--channel") { fields.channelId = channel }
        if let user = arguments.value("--user") { fields.userId = user }
        if let a = arguments.value("--entity-a") { fields.entityAId = a }
        if let b = arguments.value("--entity-b") { fields.entityBId = b }
        return fields
    }

    private static func fromDocument(
        _ members: JSONObject, kind: ObjectKind, creating: Bool, command: String
    ) throws(UsageError) -> ObjectFields {
        var fields = ObjectFields()
        var accepted: [String] = ["status", "payload", kind.classVersionKey, "classVersion"]
        if creating {
            accepted += ["id"]
            switch kind {
            case .users, .channels, .entities:
                accepted += ["entityClass", "className", "entityClassLevel", "classLevel"]
            case .memberships: accepted += ["channelId", "userId"]
            case .relationships: accepted += ["relationshipClass", "className", "entityAId", "entityBId"]
            }
        } else {
            // What `get` prints, so it can be piped back; fixed at creation, so only checked for type.
            accepted += ["id", kind.classNameKey, "entityClassLevel", "channelId", "userId", "entityAId", "entityBId"]
        }
        func string(_ key: String) throws(UsageError) -> String? {
            guard let value = members[key], !value.isNull else { return nil }
            guard let text = value.stringValue else {
                throw UsageError("--json: \"\(key)\" must be a string, not \(value.typeName)", command: command)
            }
            return text
        }
        for key in members.keys.sorted() where !accepted.contains(key) && !readOnlyKeys.contains(key) {
            throw UsageError(
                "--json: unknown field \"\(key)\" for \(creating ? "creating" : "setting") a \(kind.singular)",
                suggestion: EditDistance.suggestion(for: key, among: accepted), command: command)
        }
        if let value = members[kind.classVersionKey] ?? members["classVersion"], !value.isNull {
            guard let version = value.intValue else {
                throw UsageError("--json: the class version must be a whole number", command: command)
            }
            fields.classVersion = version
        }
        fields.status = try string("status")
        if let payload = members["payload"], !payload.isNull { fields.payload = payload }
        guard creating else { return fields }
        fields.id = try string("id")
        let wireClass = try string(kind.classNameKey)
        let sdkClass = try string("className")
        fields.className = wireClass ?? sdkClass
        let wireLevel = try string("entityClassLevel")
        let sdkLevel = try string("classLevel")
        if let level = wireLevel ?? sdkLevel { fields.classLevel = ObjectCommands.classLevel(level) }
        fields.channelId = try string("channelId")
        fields.userId = try string("userId")
        fields.entityAId = try string("entityAId")
        fields.entityBId = try string("entityBId")
        return fields
    }

    /// `value`, or a usage error naming `flag`.
    func required<T>(_ value: T?, _ flag: String, _ invocation: Invocation) throws(UsageError) -> T {
        guard let value else {
            throw UsageError(
                "missing option '\(flag)' for '\(invocation.arguments.commandName)' (or give it in --json)",
                command: invocation.arguments.commandName)
        }
        return value
    }
}
