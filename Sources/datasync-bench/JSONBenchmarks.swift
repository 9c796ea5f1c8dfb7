import Foundation
import JSONCore

enum JSONBenchmarks {
    static func run() async throws -> [BenchRow] { [] }
}
