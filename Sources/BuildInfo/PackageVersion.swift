/// The package's version: the one place it is written. The SDK sends it in `pnsdk`, and every
/// executable prints it for `--version`.
package enum PackageVersion {
    /// The version of this package, such as `0.1.0`.
    package static let current = "0.1.0"

    /// What `program --version` prints: `datasync-emulator 0.1.0`.
    package static func line(for program: String) -> String {
        program + " " + current
    }
}
