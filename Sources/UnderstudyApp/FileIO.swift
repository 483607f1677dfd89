#if canImport(Glibc)
import Glibc
#endif

/// Whole-file reads and writes and directory listings on glibc: all the app needs of a file system,
/// without Foundation. Every read has a size limit.
enum FileIO {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        static func errno(_ call: String, _ path: String) -> Failure {
            Failure(description: "\(call) \(path): \(String(cString: strerror(Glibc.errno)))")
        }
    }

    static func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .errno("open", path) }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if Glibc.errno == EINTR { continue }
                throw .errno("read", path)
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
            if out.count > limit { throw Failure(description: "\(path) is larger than \(limit) bytes") }
        }
        return out
    }

    static func readString(_ path: String, limit: Int = 1 << 20) throws(Failure) -> String {
        String(decoding: try read(path, limit: limit), as: UTF8.self)
    }

    /// Writes atomically enough for keys and configs: to a temporary name, then rename.
    static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(Failure) {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw .errno("open", temporary) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if Glibc.errno == EINTR { continue }
                close(fd)
                throw .errno("write", temporary)
            }
            offset += n
        }
        close(fd)
        guard rename(temporary, path) == 0 else { throw .errno("rename", path) }
    }

    static func makeDirectory(_ path: String) throws(Failure) {
        var partial = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            partial += "/" + component
            if mkdir(partial, 0o755) != 0 && Glibc.errno != EEXIST { throw .errno("mkdir", partial) }
        }
    }

    /// Names in a directory, sorted, without "." and "..".
    static func list(_ path: String) throws(Failure) -> [String] {
        guard let dir = opendir(path) else { throw .errno("opendir", path) }
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

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}
