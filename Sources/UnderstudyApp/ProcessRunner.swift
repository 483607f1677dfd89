#if canImport(Glibc)
import Glibc
#endif

/// Runs a shell command (`/bin/sh -c`) with its output discarded, and returns its exit status;
/// killed past `timeout` seconds.
enum ProcessRunner {
    struct Outcome {
        var status: Int32?
        var timedOut: Bool
    }

    static func run(_ command: String, timeout: Int) throws(UsageError) -> Outcome {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let args: [UnsafeMutablePointer<CChar>?] = ["/bin/sh", "-c", command].map { (s: String) in s.withCString { strdup($0) } }
        defer { args.forEach { free($0) } }
        var argv: [UnsafeMutablePointer<CChar>?] = args + [nil]
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/bin/sh", &actions, nil, &argv, environ)
        guard rc == 0 else { throw UsageError("cannot run /bin/sh for --command: \(String(cString: strerror(rc)))") }
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let end = deadline.tv_sec + timeout
        var status: Int32 = 0
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { break }
            if r < 0 && errno != EINTR { return Outcome(status: nil, timedOut: false) }
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            if now.tv_sec >= end {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                return Outcome(status: nil, timedOut: true)
            }
            usleep(5_000)
        }
        // WIFEXITED / WEXITSTATUS, which Swift cannot import as macros.
        let exited = status & 0x7f == 0
        return Outcome(status: exited ? (status >> 8) & 0xff : nil, timedOut: false)
    }
}
