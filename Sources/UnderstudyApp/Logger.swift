/// Every diagnostic line the app writes (start-up, shutdown, errors, notes beside a command's
/// output) goes through here: to standard error, one line each, `understudy: <level>: <message>`.
/// Standard output is left to what scripts parse (tokens, codes, tables, JSON).
struct Logger {
    enum Level: String, Sendable {
        case info, warning, error
    }

    let output: CommandOutput

    func log(_ level: Level, _ message: String) {
        output.err("understudy: \(level.rawValue): \(message)\n")
    }

    func info(_ message: String) { log(.info, message) }
    func warning(_ message: String) { log(.warning, message) }
    func error(_ message: String) { log(.error, message) }
}
