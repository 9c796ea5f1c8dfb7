import ArgumentParsing
import DataSyncEmulator
import Dispatch
import Foundation

/// `emulator`: the local emulator in this process, with the flags of `datasync-emulator` (both
/// parse them with `EmulatorOptions`).
enum EmulatorCommand {
    static var command: Command<CommandAction> {
        Command(
            name: "emulator", summary: "runs the local DataSync emulator in this process until Ctrl-C",
            discussion:
                "Takes exactly the flags of datasync-emulator (run 'datasync emulator --help' for them). It prints "
                + "the origin and keys, then one line per request.",
            // Not parsed here (the arguments pass through to the emulator's own parser); listed so
            // that shell completion offers them.
            options: EmulatorOptions.optionSpecs,
            examples: [
                "datasync emulator --port 8090",
                "export DATASYNC_ORIGIN=http://127.0.0.1:8090 DATASYNC_SUBSCRIBE_KEY=demo DATASYNC_PUBLISH_KEY=demo",
            ],
            passesArgumentsThrough: true,
            action: { invocation in try await run(invocation) })
    }

    static let program = "datasync emulator"

    /// The emulator, or a usage error (status 2) when it refuses the configuration the flags
    /// made: the caller's mistake, like a bad flag.
    static func makeEmulator(_ configuration: EmulatorConfiguration) throws -> Emulator {
        let result: Result<Emulator, EmulatorError> = Result { () throws(EmulatorError) in
            try Emulator(configuration: configuration)
        }
        switch result {
        case .success(let emulator): return emulator
        case .failure(let error) where error.code == .invalidConfiguration:
            throw UsageError(error.message, command: program)
        case .failure(let error): throw error
        }
    }

    static func run(_ invocation: Invocation) async throws -> Int32 {
        let console = invocation.console
        let options: EmulatorOptions
        var configuration: EmulatorConfiguration
        // The same table and parser as datasync-emulator; this command passes its arguments
        // through so that the emulator's help is shown for `datasync emulator --help`.
        let parser = ArgumentParser<Never>(root: EmulatorOptions.command(program: program))
        let given = invocation.arguments.passthrough
        // The config file's flags (--config FILE, or ./datasync.json) come first, so flags override them.
        var expanded: (arguments: [String], file: String?) = (given, nil)
        if !given.contains(where: { ["--help", "-h"].contains($0) }) {
            do throws(EmulatorOptionsError) {
                expanded = try EmulatorConfigFile.expand(
                    given, currentDirectory: FileManager.default.currentDirectoryPath)
            } catch  where error.code == .unreadableFile || error.code == .invalidFile {
                throw error
            } catch {
                throw UsageError(error.message, kind: .invalidValue, option: error.option, command: program)
            }
        }
        switch try parser.parse(expanded.arguments) {
        case .help, .version:
            console.out(parser.help([parser.root]))
            return ExitStatus.ok
        case .run(_, let parsed):
            do throws(EmulatorOptionsError) {
                options = try EmulatorOptions(parsed: parsed)
                configuration = try options.configuration()
            } catch  where error.code == .unreadableFile || error.code == .invalidFile {
                throw error
            } catch {
                throw UsageError(error.message, kind: .invalidValue, option: error.option, command: program)
            }
        }

        // Request lines (info), their sizes (debug) and warnings go through one logger at --log-level.
        let logger = EmulatorOutputLogger(
            minimumLevel: options.logLevel, standardOutput: { console.out($0) }, standardError: { console.err($0) })
        configuration.logger = logger
        let emulator = try makeEmulator(configuration)
        // Signals become stream elements on their own queue, with their default action off.
        let (signals, sources) = StopSignals.stream()
        defer { for source in sources { source.cancel() } }

        // The logger prints the request lines unless `--no-request-lines` (the in-memory request log
        // still has them).
        let url: URL
        do {
            url = try await emulator.start(host: options.host, port: options.port)
        } catch {
            throw EmulatorStartFailure(description: "\(error)\(options.portHint)")
        }
        let origin = url.absoluteString
        for warning in options.securityWarnings { logger.log(.warning, .emulator, warning) }
        // The same banner as datasync-emulator's, console URL included.
        for line in options.bannerLines(url: url, emulator: emulator, configFile: expanded.file) { console.out(line) }
        console.out("Point the CLI at it from another shell:")
        console.out(
            "  export DATASYNC_ORIGIN=\(origin) DATASYNC_SUBSCRIBE_KEY=\(options.subscribeKey) "
                + "DATASYNC_PUBLISH_KEY=\(options.publishKey)")
        console.out("Press Ctrl-C to stop.")

        for await number in signals {
            logger.log(.info, .emulator, "received signal \(number), stopping")
            break
        }
        await emulator.stop()
        logger.log(.info, .emulator, "stopped")
        return ExitStatus.ok
    }
}

/// The emulator could not listen (the port is taken, the address is not this machine's).
struct EmulatorStartFailure: Error, CustomStringConvertible {
    var description: String
}
