// datasync-codegen: Swift types from DataSync class definitions. See Plugins/README.md.
import Foundation

let usage = """
    usage: datasync-codegen generate [--access internal|public] --input FILE --output FILE [--input FILE --output FILE]...
           datasync-codegen check [--source] [--access internal|public] FILE...

    generate  writes one Swift file per definition file (only when its content changes); any
              error is printed as FILE:LINE:COLUMN: error: POINTER: MESSAGE and the exit status is 1
    check     validates the files and prints what would be generated (--source: the Swift source)

    A definition file is the class document of `datasync-emulator --classes`
    ({"entityClasses":[…],"relationshipClasses":[…]}) or a class endpoint body ({"data":…}).
    """

func standardError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

func fail(_ message: String, status: Int32 = 2) -> Never {
    standardError("datasync-codegen: \(message)")
    exit(status)
}

func read(_ path: String) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)", status: 1) }
    return [UInt8](data)
}

struct Arguments {
    var command = ""
    var isPublic = false
    var printSource = false
    var inputs: [String] = []
    var outputs: [String] = []
}

func parseArguments(_ list: [String]) -> Arguments {
    var arguments = Arguments()
    guard let command = list.first else { fail("no command\n\(usage)") }
    if command == "--help" || command == "-h" || command == "help" {
        print(usage)
        exit(0)
    }
    arguments.command = command
    var index = 1
    func value(_ name: String) -> String {
        index += 1
        guard index < list.count else { fail("\(name) needs a value\n\(usage)") }
        return list[index]
    }
    while index < list.count {
        let argument = list[index]
        switch argument {
        case "--help", "-h":
            print(usage)
            exit(0)
        case "--access":
            switch value(argument) {
            case "public": arguments.isPublic = true
            case "internal": arguments.isPublic = false
            case let other: fail("--access takes internal or public, not \(other)")
            }
        case "--source": arguments.printSource = true
        case "--input": arguments.inputs.append(value(argument))
        case "--output": arguments.outputs.append(value(argument))
        default:
            if argument.hasPrefix("-") { fail("unknown option \(argument)\n\(usage)") }
            arguments.inputs.append(argument)
        }
        index += 1
    }
    return arguments
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
        fail("generate needs one --output per --input\n\(usage)")
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
    guard !arguments.inputs.isEmpty else { fail("check needs at least one file\n\(usage)") }
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
    fail("unknown command \(arguments.command)\n\(usage)")
}
