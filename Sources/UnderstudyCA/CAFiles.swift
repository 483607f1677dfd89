#if canImport(Glibc)
import Glibc
#endif

/// The few file-system calls the CA needs, on glibc, each failure a `CertificateAuthorityError`
/// naming the call and the path.
enum CAFiles {
    static func failure(_ call: String, _ path: String) -> CertificateAuthorityError {
        let code = errno
        return .fileSystem(call, path, errno: code, String(cString: strerror(code)))
    }

    /// Creates `path` and missing parents with mode 0700 (existing ones are left as they are).
    static func makeDirectory(_ path: String) throws(CertificateAuthorityError) {
        var partial = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            partial += "/" + component
            if mkdir(partial, 0o700) != 0 && errno != EEXIST {
                throw .unusableDirectory(partial, String(cString: strerror(errno)))
            }
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw .unusableDirectory(path, String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .unusableDirectory(path, "it exists and is not a directory") }
    }

    /// Names in a directory, sorted, without "." and "..".
    static func list(_ path: String) throws(CertificateAuthorityError) -> [String] {
        guard let dir = opendir(path) else { throw failure("opendir", path) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Runs `body` holding an exclusive lock on `directory/ca.lock` (so two processes starting on
    /// an empty directory do not both create a CA).
    static func withLock<R>(in directory: String, _ body: () throws(CertificateAuthorityError) -> R) throws(CertificateAuthorityError) -> R {
        let path = directory + "/" + CertificateAuthority.lockFileName
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .unusableDirectory(directory, "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw failure("flock", path) }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// The permission bits of `path`.
    static func mode(_ path: String) throws(CertificateAuthorityError) -> UInt32 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure("stat", path) }
        return UInt32(info.st_mode) & 0o7777
    }

    static func read(_ path: String, limit: Int) throws(CertificateAuthorityError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open", path) }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure("read", path)
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
            if out.count > limit { throw .fileSystem("read", path, errno: EFBIG, "larger than \(limit) bytes") }
        }
        return out
    }

    /// Writes `bytes` to a new temporary file created with `mode` (never wider, whatever the
    /// umask), syncs it and renames it to `path`, so `path` never exists half written or with
    /// wider permissions, even briefly.
    static func writeNew(_ bytes: [UInt8], to path: String, in directory: String, mode: mode_t) throws(CertificateAuthorityError) {
        let name = path.split(separator: "/").last.map(String.init) ?? "file"
        let temporary = directory + "/" + CertificateAuthority.temporaryPrefix + "\(getpid())-" + name
        _ = unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard fd >= 0 else { throw failure("open", temporary) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                let error = failure("write", temporary)
                close(fd)
                _ = unlink(temporary)
                throw error
            }
            offset += n
        }
        guard fsync(fd) == 0 else {
            let error = failure("fsync", temporary)
            close(fd)
            _ = unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = failure("rename", path)
            _ = unlink(temporary)
            throw error
        }
    }

    /// Makes the directory's entries (the renames) durable.
    static func syncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    static func remove(_ path: String) { _ = unlink(path) }

    /// Seconds since 1970 (wall clock: certificate validity is wall-clock time).
    static func now() -> Int64 { Int64(time(nil)) }

    /// This machine's host name, or "localhost" if it has none.
    static func hostname() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }

    /// "YYYY-MM-DD" (UTC) of `seconds` since 1970.
    static func date(_ seconds: Int64) -> String {
        var t = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&t, &parts) != nil else { return "unknown date" }
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))"
    }

    /// Whether `text` is an IPv4 or IPv6 literal.
    static func isIPAddress(_ text: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }
}
