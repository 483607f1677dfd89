import Glibc

/// The `main` of a fuzz target built without `-sanitize=fuzzer` (a plain `swift build`).
///
/// libFuzzer supplies `main` only when the target is linked with `-sanitize=fuzzer`; without it the
/// executable would have none. So each harness declares an `@main` type under `#if !FUZZING`
/// (`Tests/Scripts/fuzz.sh` builds with `-DFUZZING`), and that type calls this: every argument is a
/// file, or a directory of files, fed once to the harness. This replays a crash artifact in a
/// normal debug build, where the failing check traps with its message.
public enum FuzzReplay {
    public static func main(_ harness: ([UInt8]) -> Void) {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard !arguments.isEmpty else {
            let name = CommandLine.arguments.first ?? "fuzz-target"
            printError("usage: \(name) FILE-OR-DIRECTORY...\n"
                + "Runs each input through the harness once (replays a crash). To fuzz, build with "
                + "Tests/Scripts/fuzz.sh, which links libFuzzer.")
            exit(64)
        }
        var count = 0
        for path in arguments {
            for file in files(at: path) {
                guard let bytes = read(file) else {
                    printError("cannot read \(file): \(String(cString: strerror(errno)))")
                    exit(1)
                }
                print("running \(file) (\(bytes.count) bytes)")
                harness(bytes)
                count += 1
            }
        }
        print("ran \(count) input\(count == 1 ? "" : "s"), no failure")
    }

    private static func printError(_ message: String) {
        let line = Array((message + "\n").utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    /// `path` itself, or the regular files directly inside it when it is a directory, sorted.
    private static func files(at path: String) -> [String] {
        guard let directory = opendir(path) else { return [path] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name == "." || name == ".." { continue }
            var status = stat()
            let full = path + "/" + name
            if stat(full, &status) == 0, status.st_mode & S_IFMT == S_IFREG { names.append(full) }
        }
        return names.sorted()
    }

    private static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[..<n])
        }
    }
}
