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
            let arguments = CommandLine.arguments.dropFirst()
            if arguments.contains("-h") || arguments.contains("--help") || arguments.contains("-help=1") {
                let name = CommandLine.arguments.first.map { ($0 as NSString).lastPathComponent } ?? "fuzz-harness"
                print(
                    """
                    usage: \(name) FILE|FOLDER...

                    Replays each input file (a folder stands for the files in it) through the harness once
                    and reports whether an invariant broke (the process aborts if one does).
                      FILE|FOLDER   a crash input or a corpus folder to replay
                      -h, --help    print this help and exit

                    To fuzz instead of replay, build with libFuzzer: Scripts/fuzz.sh <area> <seconds>
                    """)
                exit(0)
            }
            var replayed = 0
            for file in corpusFiles(arguments) {
                guard let data = FileManager.default.contents(atPath: file) else {
                    print("cannot read \(file)")
                    continue
                }
                body(Array(data))
                replayed += 1
            }
            print("replayed \(replayed) input(s) with no invariant broken")
            exit(0)
        #endif
    }

    /// Expands the arguments into files: a folder stands for the files in it, in name order.
    static func corpusFiles(_ arguments: ArraySlice<String>) -> [String] {
        var files: [String] = []
        for argument in arguments {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
                print("no such file: \(argument)")
                continue
            }
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []
                files += names.sorted().map { argument + "/" + $0 }
            } else {
                files.append(argument)
            }
        }
        return files
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
