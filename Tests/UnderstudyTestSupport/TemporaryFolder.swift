#if canImport(Glibc)
import Glibc
#endif
import UnderstudyIO

/// A fresh directory under /tmp for a live test, removed with everything in it by `remove()`.
public struct TemporaryFolder: Sendable {
    public let path: String

    public init(prefix: String = "understudy-test") throws {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw IOError.systemCall("mkdtemp", errno: errno) }
        path = String(cString: made)
    }

    public func remove() {
        Self.removeTree(path)
    }

    private static func removeTree(_ path: String) {
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name == "." || name == ".." { continue }
                let child = path + "/" + name
                var info = stat()
                if lstat(child, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { removeTree(child) } else { unlink(child) }
            }
            closedir(dir)
        }
        rmdir(path)
    }
}
