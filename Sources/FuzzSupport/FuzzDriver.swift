import ArgumentParsing
import Foundation

/// Runs a fuzz harness's body either under libFuzzer or as a replay tool.
///
/// A harness is an executable target whose `main.swift` ends with
/// `FuzzDriver.main { bytes in … }`. In a normal build the command line names corpus files or
/// folders and each file is run once (to reproduce a finding). Built with `-DFUZZING` and
/// `-sanitize=fuzzer,address` (see `Scripts/fuzz.sh`), control passes to libFuzzer, which calls the
/// body once per generated input. A body reports a broken invariant by calling `abort()`.
public enum FuzzDriver {
    /// Runs the harness and exits the process.
    public static func main(_ body: @escaping @Sendable ([UInt8]) -> Void) -> Never {
        #if FUZZING
            FuzzTarget.body = body
            var argumentCount = CommandLine.argc
            var argumentVector = CommandLine.unsafeArgv
            // SwiftPM points `main` at the module's own entry, so libFuzzer's `main` never runs:
            // its driver is started from here instead.
            exit(
                runFuzzerDriver(&argumentCount, &argumentVector) { data, size in
                    guard let data else { return 0 }
                    FuzzTarget.body?(Array(UnsafeBufferPointer(start: data, count: size)))
                    return 0
                })
        #else
            let name = CommandLine.arguments.first.map { ($0 as NSString).lastPathComponent } ?? "fuzz-harness"
            let command = Command<Never>(
                name: name, summary: "replays inputs through this fuzz harness",
                discussion: """
                    Replays each input file (a folder stands for the files in it) through the harness once \
                    and reports whether an invariant broke (the process aborts if one does). To fuzz instead \
                    of replay, build with libFuzzer: Scripts/fuzz.sh <area> <seconds>.
                    """,
                positionals: [
                    PositionalSpec(name: "FILE|FOLDER", help: "a crash input or a corpus folder", variadic: true)
                ])
            // libFuzzer's spelling of help, for muscle memory.
            let given = CommandLine.arguments.dropFirst().map { $0 == "-help=1" ? "--help" : $0 }
            let parsed: ParsedArguments
            switch ArgumentParser.tool(command).resolve(given, program: name) {
            case .run(_, let arguments): parsed = arguments
            case .exit(let status): exit(status)
            }
            let (files, missing) = corpusFiles(parsed.positionals[...])
            for path in missing { StandardStreams.err("\(name): no such file: \(path)") }
            var replayed = 0
            var unreadable = 0
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    StandardStreams.err("\(name): cannot read \(file)")
                    unreadable += 1
                    continue
                }
                body(Array(data))
                replayed += 1
            }
            StandardStreams.out("replayed \(replayed) input(s) with no invariant broken")
            exit(missing.isEmpty && unreadable == 0 ? ExitStatus.ok : ExitStatus.failure)
        #endif
    }

    /// Expands the arguments into files: a folder stands for the files in it, in name order.
    /// Arguments naming nothing come back as `missing`.
    static func corpusFiles(_ arguments: ArraySlice<String>) -> (files: [String], missing: [String]) {
        var files: [String] = []
        var missing: [String] = []
        for argument in arguments {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
                missing.append(argument)
                continue
            }
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []
                files += names.sorted().map { argument + "/" + $0 }
            } else {
                files.append(argument)
            }
        }
        return (files, missing)
    }
}

#if FUZZING
    /// Where the C callback finds the harness body (a C function pointer cannot capture it).
    enum FuzzTarget {
        // nonisolated(unsafe): written once before libFuzzer starts and only read afterwards, on
        // libFuzzer's single fuzzing thread.
        nonisolated(unsafe) static var body: (@Sendable ([UInt8]) -> Void)?
    }

    /// libFuzzer's driver for programs with their own `main` (in the runtime `-sanitize=fuzzer` links).
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt
#endif
