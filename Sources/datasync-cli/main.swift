// datasync: the DataSync command line (Documentation/CLI.md). Everything it does goes through the
// SDK's public API (DataSync, Realtime, Messaging, PubNubCore) and, for `datasync emulator`, the
// DataSyncEmulator library.
import Foundation

let status = await DataSyncCLI.main(
    Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
exit(status)
