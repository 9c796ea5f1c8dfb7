/// The exit statuses of every executable of the package (Documentation/CLI.md, "Exit codes").
package enum ExitStatus {
    /// Success; also `--help`, `--version`, and a server stopped with Ctrl-C.
    package static let ok: Int32 = 0
    /// The work failed: a service or network error, a file that cannot be read, a check that
    /// found problems.
    package static let failure: Int32 = 1
    /// The command line is wrong: an unknown command or option, a missing or invalid value.
    package static let usage: Int32 = 2
}
