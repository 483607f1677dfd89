#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A private directory made with `mkdtemp`, removed by `remove()` or, failing that, at exit.
struct TemporaryDirectory: Sendable {
    let path: String

    /// Directories not yet removed, cleaned by an `atexit` handler installed on first use.
    private static let pending = Mutex<Set<String>>([])
    private static let installHandler: Void = {
        atexit {
            let paths = TemporaryDirectory.pending.withLock { pending in
                defer { pending.removeAll() }
                return pending
            }
            for path in paths { TemporaryDirectory.removeTree(path) }
        }
    }()

    static func make(prefix: String) throws -> TemporaryDirectory {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else {
            let reason = String(cString: strerror(errno))
            throw DatabaseError.invalidPath(base, reason: "cannot create a temporary directory there (\(reason)); "
                + "set TMPDIR to a writable directory")
        }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        _ = installHandler
        pending.withLock { _ = $0.insert(path) }
        return TemporaryDirectory(path: path)
    }

    /// Removes the directory and what is in it (the store's files and its message log directory).
    func remove() {
        _ = Self.pending.withLock { $0.remove(path) }
        Self.removeTree(path)
    }

    private static func removeTree(_ path: String) {
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
                }
                if name == "." || name == ".." { continue }
                // d_type may be DT_UNKNOWN on some file systems: a directory then fails unlink.
                if entry.pointee.d_type == UInt8(DT_DIR) || unlink("\(path)/\(name)") != 0 && errno == EISDIR {
                    removeTree("\(path)/\(name)")
                }
            }
            closedir(dir)
        }
        rmdir(path)
    }
}
