import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the state file, its journal, their temporary files and the lock file are opened, so that
/// a state file kept in a directory other users can write to (`/tmp`) cannot be turned against
/// the emulator: no path is ever followed through a symbolic link, a file another user owns is
/// never read or appended to, temporary files are created fresh (never reused, never truncated)
/// and readable by their owner only, and one lock keeps a second emulator off the same state.
enum StateFileAccess {
    /// Permissions of every file the emulator creates next to the state file: owner only, since
    /// the state holds every object and the cursor key.
    static let fileMode: mode_t = 0o600

    /// Whether anything (a symbolic link included, even a dangling one) exists at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Opens the existing file at `path` without following a symbolic link, and checks that it is
    /// a regular file owned by this process's user. Returns nil when nothing is there.
    ///
    /// - Throws: `fileAccess` naming the file and why it is refused.
    static func openExisting(_ path: String, flags: Int32) throws(EmulatorError) -> Int32? {
        let fd = openFile(path, flags | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP { throw refusedLink(path) }
            throw EmulatorError(code: .fileAccess, message: "cannot open \(path): \(describe(code))")
        }
        try closeUnlessOwnedRegularFile(fd, path)
        return fd
    }

    /// The whole content of the existing file at `path` (see ``openExisting(_:flags:)``), or nil
    /// when there is none.
    static func read(_ path: String) throws(EmulatorError) -> [UInt8]? {
        guard let fd = try openExisting(path, flags: O_RDONLY) else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return readFile(fd, base, buffer.count)
            }
            if count > 0 {
                bytes += chunk[0..<count]
            } else if count == 0 {
                return bytes
            } else if errno != EINTR {
                throw EmulatorError(code: .fileAccess, message: "cannot read \(path): \(describe(errno))")
            }
        }
    }

    /// Creates a new temporary file next to `target`, `.<name>.<pid>.<random>.tmp`, with
    /// `O_EXCL | O_NOFOLLOW` and mode 0600: whatever already sits at a name (a file, or a link
    /// planted by another user) is never opened; the next name is tried instead.
    ///
    /// - Parameter suffixes: the random parts to try, in order (tests pass fixed ones); by
    ///   default up to 16 random 64-bit values.
    /// - Returns: the open descriptor and the temporary file's path.
    static func createTemporary(
        nextTo target: String, suffixes: [String]? = nil
    ) throws(EmulatorError) -> (fd: Int32, path: String) {
        let url = URL(fileURLWithPath: target)
        let directory = url.deletingLastPathComponent().path
        let candidates =
            suffixes
            ?? (0..<16).map { _ in
                var generator = SystemRandomNumberGenerator()
                return String(generator.next() as UInt64, radix: 16)
            }
        var lastError = EEXIST
        for suffix in candidates {
            let temporary = directory + "/.\(url.lastPathComponent).\(getpid()).\(suffix).tmp"
            let fd = openFile(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, fileMode)
            if fd >= 0 {
                // The umask may only have removed bits; set exactly owner read and write.
                _ = fchmod(fd, fileMode)
                return (fd, temporary)
            }
            lastError = errno
            guard lastError == EEXIST else {
                throw EmulatorError(
                    code: .fileAccess, message: "cannot create \(temporary): \(describe(lastError))")
            }
        }
        throw EmulatorError(
            code: .fileAccess,
            message: "cannot create a temporary file next to \(target): every name tried exists already "
                + "(\(describe(lastError)))")
    }

    /// Takes the lock that keeps a second emulator off the state file: an exclusive `flock` on
    /// `<path>.lock` (a file of its own, because the state file itself is replaced by renames and
    /// a lock on it would stay with the old file). The lock lasts until the returned descriptor is
    /// closed, or the process ends, however it ends. The lock file holds the owner's process id,
    /// to name it to the next one.
    ///
    /// - Throws: `stateFileInUse` when another emulator holds the lock; `fileAccess` when the
    ///   lock file is a link, another user's, or cannot be created.
    static func lock(_ path: String) throws(EmulatorError) -> Int32 {
        let lockPath = path + ".lock"
        let fd = openFile(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, fileMode)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP { throw refusedLink(lockPath) }
            throw EmulatorError(code: .fileAccess, message: "cannot open the lock file \(lockPath): \(describe(code))")
        }
        try closeUnlessOwnedRegularFile(fd, lockPath)
        guard takeLock(fd, lockPath) else {
            let code = errno
            let holder = (try? read(lockPath)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            close(fd)
            guard code == EWOULDBLOCK || code == EAGAIN else {
                throw EmulatorError(code: .fileAccess, message: "cannot lock \(lockPath): \(describe(code))")
            }
            let pid = holder.split(whereSeparator: \.isWhitespace).first.map { "process \($0)" } ?? "another process"
            throw EmulatorError(
                code: .stateFileInUse,
                message: "the state file \(path) is in use by another emulator (\(pid) holds \(lockPath)); stop it, "
                    + "or give this one another state file")
        }
        let owner = Array("\(getpid())\n".utf8)
        if ftruncate(fd, 0) == 0 { _ = StatePersistence.writeAll(fd, owner, at: 0) }
        return fd
    }

    /// Takes the exclusive lock on `fd` without waiting on another process. When this process
    /// holds it (an in-process emulator on the same file that was just released, whose last
    /// reference may still be dropped on another thread a moment later), waits up to two seconds
    /// for it to go: so "release the emulator, make a new one on the same file" restarts reliably
    /// in a test, and two live emulators on one file still fail. False, with `errno` set, when the
    /// lock stays taken.
    private static func takeLock(_ fd: Int32, _ lockPath: String) -> Bool {
        var attempts = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            guard code == EWOULDBLOCK || code == EAGAIN, attempts < 400 else { return false }
            let holder = (try? read(lockPath)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            guard holder.split(whereSeparator: \.isWhitespace).first == "\(getpid())"[...] else {
                errno = code
                return false
            }
            attempts += 1
            usleep(5_000)
        }
        return true
    }

    /// Closes `fd` and throws when ``checkOwnedRegularFile(_:_:)`` refuses it: a refused file
    /// must not hold a descriptor open for the rest of the run.
    private static func closeUnlessOwnedRegularFile(_ fd: Int32, _ path: String) throws(EmulatorError) {
        do throws(EmulatorError) {
            try checkOwnedRegularFile(fd, path)
        } catch {
            close(fd)
            throw error
        }
    }

    private static func checkOwnedRegularFile(_ fd: Int32, _ path: String) throws(EmulatorError) {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw EmulatorError(code: .fileAccess, message: "cannot stat \(path): \(describe(errno))")
        }
        guard info.st_mode & 0o170000 == 0o100000 else {
            throw EmulatorError(
                code: .fileAccess, message: "\(path) is refused: it is not a regular file; it was left as it is")
        }
        guard info.st_uid == geteuid() else {
            throw EmulatorError(
                code: .fileAccess,
                message: "\(path) is refused: it belongs to user \(info.st_uid), not to this emulator's user "
                    + "\(geteuid()) (in a directory others can write to, another user may have put it there); it "
                    + "was left as it is")
        }
    }

    private static func refusedLink(_ path: String) -> EmulatorError {
        EmulatorError(
            code: .fileAccess,
            message: "\(path) is refused: it is a symbolic link, and the emulator never follows one to its state "
                + "(it could point at any file this user can write); give the real path instead")
    }

    static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text)
    }
}

/// `read(2)`.
private func readFile(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
        return Darwin.read(fd, buffer, count)
    #elseif canImport(Musl)
        return Musl.read(fd, buffer, count)
    #else
        return Glibc.read(fd, buffer, count)
    #endif
}

/// `open(2)` with a mode.
func openFile(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    #if canImport(Darwin)
        return Darwin.open(path, flags, mode)
    #elseif canImport(Musl)
        return Musl.open(path, flags, mode)
    #else
        return Glibc.open(path, flags, mode)
    #endif
}

/// `fdatasync(2)` where there is one, `fsync(2)` elsewhere: what the state file's journal and the
/// pub/sub journal call before they count an append as durable.
func syncData(_ fd: Int32) -> Int32 {
    #if canImport(Darwin)
        return fsync(fd)
    #else
        return fdatasync(fd)
    #endif
}
