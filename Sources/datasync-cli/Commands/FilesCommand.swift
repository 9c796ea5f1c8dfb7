import ArgumentParsing
import FileSharing
import Foundation

/// `datasync files send|list|url|download|delete`: the calls of the FileSharing module.
enum FilesCommand {
    private static let channelArgument = PositionalSpec(name: "CHANNEL", help: "the channel the file belongs to")
    private static let idArgument = PositionalSpec(name: "ID", help: "the file's id (from send or list)")
    private static let nameArgument = PositionalSpec(name: "NAME", help: "the file's name (from send or list)")

    static var command: Command<CommandAction> {
        Command(
            name: "files", summary: "shares files on a channel: send, list, url, download and delete",
            discussion:
                "Files are stored by the service (or the emulator) and announced on the channel with a file "
                + "message. The command line sends and reads files unencrypted.",
            subcommands: [send, list, url, download, delete])
    }

    /// The reference ID/NAME of the positional arguments.
    private static func reference(_ invocation: Invocation) -> PubNubFileReference {
        PubNubFileReference(id: invocation.positional("ID"), name: invocation.positional("NAME"))
    }

    private static func describe(_ file: PubNubFile) -> JSONValue {
        var object: [String: JSONValue] = ["id": .string(file.id), "name": .string(file.name)]
        if let size = file.size { object["size"] = .int(Int64(size)) }
        if let created = file.created { object["created"] = .string(created) }
        return .object(object)
    }

    static var send: Command<CommandAction> {
        Command(
            name: "send", summary: "uploads a file and announces it on the channel; prints its id, name and timetoken",
            discussion:
                "PATH is a local file, or - for standard input (then --name is required). The upload is made once; "
                + "if only the announcement fails, the error says which stored file to announce again.",
            options: [
                .value("--name", "NAME", help: "the file's name on the channel (default: PATH's last component)"),
                .value("--content-type", "TYPE", help: "the file's media type (default application/octet-stream)"),
                .value("--message", "JSON", help: "a message to send with the file (text, @FILE or -)"),
                .value("--meta", "JSON", help: "metadata of the file message that filter expressions can test"),
                .flag("--no-store", help: "do not keep the file message in history"),
                .value("--ttl", "HOURS", help: "how many hours the stored file message is kept"),
            ],
            positionals: [channelArgument, PositionalSpec(name: "PATH", help: "the file to send, or - for stdin")],
            examples: [
                "datasync files send room-1 ./photo.jpg --content-type image/jpeg",
                #"echo hello | datasync files send room-1 - --name hello.txt --message '{"text":"a note"}'"#,
            ],
            action: { invocation in
                let arguments = invocation.arguments
                let channel = invocation.positional("CHANNEL")
                let path = invocation.positional("PATH")
                let data: [UInt8]
                let defaultName: String?
                if path == "-" {
                    data = try invocation.context.standardInput(for: "PATH")
                    defaultName = nil
                } else {
                    guard let contents = FileManager.default.contents(atPath: path) else {
                        throw UsageError("cannot read \(path)", command: arguments.commandName)
                    }
                    data = [UInt8](contents)
                    defaultName = URL(fileURLWithPath: path).lastPathComponent
                }
                guard let name = arguments.value("--name") ?? defaultName, !name.isEmpty else {
                    throw UsageError("--name is required when PATH is -", command: arguments.commandName)
                }
                let message = try invocation.jsonOption("--message")
                let meta = try invocation.jsonOption("--meta")
                let options = PubNubFileMessageOptions(
                    shouldStore: !arguments.flag("--no-store"), storeTTL: try arguments.int("--ttl", in: 0...Int.max),
                    meta: meta)
                let pubnub = try invocation.client(needsPublishKey: true)
                let contentType = arguments.value("--content-type") ?? "application/octet-stream"
                do throws(PubNubSendFileError) {
                    let sent = try await pubnub.sendFile(
                        channel: channel, name: name, data: data, contentType: contentType, message: message,
                        options: options)
                    invocation.emit([
                        "channel": .string(channel), "id": .string(sent.file.id), "name": .string(sent.file.name),
                        "timetoken": .string(String(sent.timetoken)),
                    ])
                    return ExitStatus.ok
                } catch {
                    if let stored = error.uploadedFile {
                        invocation.context.console.err(
                            "datasync: the file was stored (id \(stored.id), name \(stored.name)) but not announced")
                    }
                    throw error.error
                }
            })
    }

    static var list: Command<CommandAction> {
        Command(
            name: "list", summary: "lists a channel's files, one JSON object per line (NDJSON)",
            options: [
                .value("--limit", "N", help: "files per request, 1 to 100 (default: the service's)"),
                .value("--next", "CURSOR", help: "start from this page cursor (printed with --page)"),
                .flag("--page", help: "print one page as {\"files\":[…],\"next\":…} instead of every file"),
            ],
            positionals: [channelArgument],
            examples: ["datasync files list room-1", "datasync files list room-1 --limit 10 --page"],
            action: { invocation in
                let arguments = invocation.arguments
                let channel = invocation.positional("CHANNEL")
                let limit = try arguments.int("--limit", in: 1...100)
                let pubnub = try invocation.client()
                var next = arguments.value("--next")
                if arguments.flag("--page") {
                    let page = try await pubnub.listFiles(channel: channel, limit: limit, next: next)
                    invocation.emit([
                        "files": .array(page.files.map(describe)), "next": page.next.map { .string($0) } ?? .null,
                    ])
                    return ExitStatus.ok
                }
                repeat {
                    let page = try await pubnub.listFiles(channel: channel, limit: limit, next: next)
                    for file in page.files { invocation.emitLine(describe(file)) }
                    // A service that answers the cursor it was given would loop forever.
                    guard page.next != next, !page.files.isEmpty else { break }
                    next = page.next
                } while next != nil
                return ExitStatus.ok
            })
    }

    static var url: Command<CommandAction> {
        Command(
            name: "url", summary: "prints a download URL for a file (it expires, as the service decides)",
            positionals: [channelArgument, idArgument, nameArgument],
            examples: ["datasync files url room-1 5a3eb38c-… photo.jpg"],
            action: { invocation in
                let channel = invocation.positional("CHANNEL")
                let location = try await invocation.client().fileURL(channel: channel, file: reference(invocation))
                invocation.emit(["url": .string(location)])
                return ExitStatus.ok
            })
    }

    static var download: Command<CommandAction> {
        Command(
            name: "download", summary: "downloads a file to a local path (default: ./NAME) or standard output",
            options: [
                .value("--output", "PATH", aliases: ["-o"], help: "where to write the file; - for standard output"),
                .flag("--force", help: "replace PATH when it exists"),
            ],
            positionals: [channelArgument, idArgument, nameArgument],
            examples: [
                "datasync files download room-1 5a3eb38c-… photo.jpg",
                "datasync files download room-1 5a3eb38c-… notes.txt -o -",
            ],
            action: { invocation in
                let arguments = invocation.arguments
                let file = reference(invocation)
                let path: String
                if let output = arguments.value("--output") {
                    path = output
                } else {
                    // The name comes from the service: only its last component, and never a
                    // directory step, may name a file here.
                    let last = URL(fileURLWithPath: file.name).lastPathComponent
                    guard !last.isEmpty, last != ".", last != "..", last != "/" else {
                        throw UsageError(
                            "the name \(file.name) cannot be used as a local file name; give --output",
                            command: arguments.commandName)
                    }
                    path = last
                }
                if path != "-", !arguments.flag("--force"), FileManager.default.fileExists(atPath: path) {
                    throw UsageError("\(path) exists; add --force to replace it", command: arguments.commandName)
                }
                let channel = invocation.positional("CHANNEL")
                let downloaded = try await invocation.client().downloadFile(channel: channel, file: file)
                if path == "-" {
                    FileHandle.standardOutput.write(Data(downloaded.data))
                    return ExitStatus.ok
                }
                guard FileManager.default.createFile(atPath: path, contents: Data(downloaded.data)) else {
                    throw UsageError("cannot write \(path)", command: arguments.commandName)
                }
                invocation.note("wrote \(downloaded.data.count) bytes to \(path)")
                return ExitStatus.ok
            })
    }

    static var delete: Command<CommandAction> {
        Command(
            name: "delete", summary: "deletes a file from the channel's storage",
            positionals: [channelArgument, idArgument, nameArgument],
            examples: ["datasync files delete room-1 5a3eb38c-… photo.jpg"],
            action: { invocation in
                let channel = invocation.positional("CHANNEL")
                let file = reference(invocation)
                try await invocation.client().deleteFile(channel: channel, file: file)
                invocation.emit(["channel": .string(channel), "id": .string(file.id), "deleted": true])
                return ExitStatus.ok
            })
    }
}
