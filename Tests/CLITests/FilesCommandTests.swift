import Foundation
import JSONCore
import Testing

/// `datasync files send|list|url|download|delete` against a live emulator, through the built
/// executable.
@Suite("files commands")
struct FilesCommandTests {
    @Test("send a file, list it, get its URL, download it byte for byte, delete it")
    func roundTrip() async throws {
        try await withEmulator { live in
            let source = live.home.appendingPathComponent("notes.txt")
            let bytes = Array("line one\nline two\n\u{0}\u{FF}binary tail".utf8)
            try Data(bytes).write(to: source)
            let sent = try await live.run([
                "files", "send", "room-1", source.path, "--content-type", "text/plain", "--message",
                #"{"text":"notes"}"#,
                "--compact",
            ])
            #expect(sent.status == 0, "\(sent)")
            let reply = try sent.json()
            let id = try #require(reply["id"]?.stringValue)
            #expect(reply["name"] == "notes.txt")
            #expect(reply["timetoken"]?.stringValue?.count == 17, "\(reply)")

            let listed = try await live.run(["files", "list", "room-1"])
            #expect(listed.status == 0, "\(listed)")
            let files = try listed.ndjson()
            #expect(files.map { $0["id"] } == [.string(id)])
            #expect(files.first?["size"] == .int(Int64(bytes.count)))

            let url = try await live.run(["files", "url", "room-1", id, "notes.txt", "--compact"])
            #expect(url.status == 0, "\(url)")
            #expect(try url.json()["url"]?.stringValue?.hasPrefix("http://") == true, "\(url)")

            let target = live.home.appendingPathComponent("downloaded.txt")
            let downloaded = try await live.run([
                "files", "download", "room-1", id, "notes.txt", "--output", target.path,
            ])
            #expect(downloaded.status == 0, "\(downloaded)")
            #expect(try [UInt8](Data(contentsOf: target)) == bytes)
            #expect(downloaded.stderr.contains("wrote \(bytes.count) bytes"), "\(downloaded)")

            // An existing file is kept unless --force.
            let again = try await live.run(["files", "download", "room-1", id, "notes.txt", "--output", target.path])
            #expect(again.status == 2, "\(again)")
            #expect(again.stderr.contains("--force"), "\(again)")
            let forced = try await live.run([
                "files", "download", "room-1", id, "notes.txt", "--output", target.path, "--force",
            ])
            #expect(forced.status == 0, "\(forced)")

            let toStdout = try await live.run(["files", "download", "room-1", id, "notes.txt", "-o", "-"])
            #expect(toStdout.status == 0, "\(toStdout)")
            #expect(Array(toStdout.stdout.utf8).count == String(decoding: bytes, as: UTF8.self).utf8.count)

            let deleted = try await live.run(["files", "delete", "room-1", id, "notes.txt", "--compact"])
            #expect(deleted.status == 0, "\(deleted)")
            #expect(try deleted.json()["deleted"] == true)
            #expect(try await live.run(["files", "list", "room-1"]).stdout.isEmpty)
        }
    }

    @Test("send from standard input needs --name; list pages through every file")
    func standardInputAndPaging() async throws {
        try await withEmulator { live in
            let unnamed = try await live.run(["files", "send", "room-2", "-"], stdin: "hello")
            #expect(unnamed.status == 2, "\(unnamed)")
            #expect(unnamed.stderr.contains("--name"), "\(unnamed)")
            for index in 0..<5 {
                let sent = try await live.run(
                    ["files", "send", "room-2", "-", "--name", "f\(index).txt", "--no-store"], stdin: "file \(index)")
                #expect(sent.status == 0, "\(sent)")
            }
            let all = try await live.run(["files", "list", "room-2", "--limit", "2"])
            #expect(all.status == 0, "\(all)")
            #expect(Set(try all.ndjson().compactMap { $0["name"]?.stringValue }) == Set((0..<5).map { "f\($0).txt" }))
            let page = try await live.run(["files", "list", "room-2", "--limit", "2", "--page", "--compact"])
            #expect(try page.json()["files"]?.arrayValue?.count == 2)
            #expect(try page.json()["next"]?.stringValue != nil, "\(page)")
        }
    }

    @Test("a file that is not there is a service error (exit 1); a missing local file a usage error (exit 2)")
    func errors() async throws {
        try await withEmulator { live in
            let missing = try await live.run([
                "files", "download", "room-3", "no-such-id", "x.txt", "--output",
                live.home.appendingPathComponent("x").path,
            ])
            #expect(missing.status == 1, "\(missing)")
            let unreadable = try await live.run([
                "files", "send", "room-3", live.home.appendingPathComponent("nope").path,
            ])
            #expect(unreadable.status == 2, "\(unreadable)")
            #expect(unreadable.stderr.contains("cannot read"), "\(unreadable)")
        }
    }
}
