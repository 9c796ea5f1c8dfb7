import DataSyncEmulator
import Foundation
import Testing

@Suite("the emulator's flags are all documented")
struct EmulatorFlagDocsTests {
    static let documentation = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Documentation")

    @Test("CLI.md and Emulator.md name every flag of EmulatorOptions", arguments: ["CLI.md", "Emulator.md"])
    func everyFlag(_ file: String) throws {
        let text = try String(contentsOf: Self.documentation.appendingPathComponent(file), encoding: .utf8)
        #expect(EmulatorOptions.optionNames.count >= 21)
        for name in EmulatorOptions.optionNames {
            #expect(text.contains("`\(name)"), "\(file) does not mention \(name)")
        }
    }
}
