// datasync-codegen: Swift types from DataSync class definitions. See Plugins/README.md.
import ArgumentParsing
import Foundation

/// The commands, read by the package's shared argument parser.
let root = Command<Never>(
    name: "datasync-codegen", summary: "Swift types from DataSync class definitions",
    discussion: """
        A definition file is the class document of `datasync-emulator --classes` \
        ({"entityClasses":[…],"relationshipClasses":[…]}) or a class endpoint body ({"data":…}).
        """,
    subcommands: [
        Command(
            name: "generate",
            summary: "writes one Swift file per definition file (only when its content changes)",
            discussion:
                "Any error is printed as FILE:LINE:COLUMN: error: POINTER: MESSAGE and the exit status is 1.",
            options: [
                .value(
                    "--access", "LEVEL", help: "the access level of the generated types",
                    choices: ["internal", "public"]),
                .repeated("--input", "FILE", help: "a definition file (repeatable, one per --output)"),
                .repeated("--output", "FILE", help: "the Swift file to write for the --input in the same place"),
            ],
            examples: ["datasync-codegen generate --input Catalog.datasync.json --output Catalog.swift"]),
        Command(
            name: "check", summary: "validates the files and prints what would be generated",
            options: [
                .flag("--source", help: "print the Swift source instead of a summary"),
                .value(
                    "--access", "LEVEL", help: "the access level of the generated types",
                    choices: ["internal", "public"]),
            ],
            positionals: [PositionalSpec(name: "FILE", help: "a definition file", variadic: true)],
            examples: ["datasync-codegen check Catalog.datasync.json"]),
    ])

struct Arguments {
    var command = ""
    var isPublic = false
    var printSource = false
    var inputs: [String] = []
    var outputs: [String] = []
}

func parseArguments(_ list: [String]) -> Arguments {
    let parsed: ParsedArguments
    switch ArgumentParser.tool(root).resolve(list, program: root.name) {
    case .run(_, let arguments): parsed = arguments
    case .exit(let status): exit(status)
    }
    var arguments = Arguments()
    arguments.command = parsed.commandPath.last ?? ""
    arguments.isPublic = parsed.value("--access") == "public"
    arguments.printSource = parsed.flag("--source")
    arguments.inputs = parsed.values("--input") + parsed.positionals
    arguments.outputs = parsed.values("--output")
    return arguments
}

func standardError(_ text: String) {
    StandardStreams.err(text)
}

func fail(_ message: String, status: Int32 = ExitStatus.usage) -> Never {
    standardError("datasync-codegen: \(message)")
    exit(status)
}

func read(_ path: String) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
        fail("cannot read \(path)", status: ExitStatus.failure)
    }
    return [UInt8](data)
}

let arguments = parseArguments(Array(CommandLine.arguments.dropFirst()))
let results = Codegen.load(arguments.inputs.map { ($0, read($0)) })
var failed = false
for result in results {
    if case .failure(let error) = result.models {
        standardError(result.diagnostic(error))
        failed = true
    }
}

switch arguments.command {
case "generate":
    guard arguments.inputs.count == arguments.outputs.count, !arguments.inputs.isEmpty else {
        fail("generate needs one --output per --input\nsee 'datasync-codegen generate --help'")
    }
    if failed { exit(1) }
    for (result, output) in zip(results, arguments.outputs) {
        guard case .success(let models) = result.models else { continue }
        let source = Codegen.source(models, path: result.path, isPublic: arguments.isPublic)
        let bytes = Data(source.utf8)
        if FileManager.default.contents(atPath: output) == bytes { continue }
        do {
            try bytes.write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            fail("cannot write \(output): \(error)", status: 1)
        }
    }
case "check":
    for result in results {
        guard case .success(let models) = result.models else { continue }
        print("\(result.path): ok, \(models.count) class\(models.count == 1 ? "" : "es")")
        if arguments.printSource {
            print(Codegen.source(models, path: result.path, isPublic: arguments.isPublic))
        } else if !models.isEmpty {
            print(Codegen.summary(models).split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        }
    }
    if failed { exit(1) }
default:
    // The parser accepts only the commands above.
    fail("unknown command \(arguments.command)")
}
