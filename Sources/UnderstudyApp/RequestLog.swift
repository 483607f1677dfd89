#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import UnderstudyHTTPServer
import UnderstudyJSON

/// The request log: one line per HTTP request and per SMTP message, on standard error, as logfmt
/// text (`time=... kind=http method=GET ...`) or JSON lines (`--log-format json`); `--quiet` turns
/// it off. Lines are formatted on the thread that reports them and written in batches from a
/// queue of their own, so a loop never waits on a slow terminal; past `bufferLimit` unwritten
/// bytes, lines are dropped and counted, and the count is written when the log catches up.
final class RequestLog: Sendable {
    typealias Format = LogSettings.Format

    /// One SMTP transaction's outcome.
    struct MailEntry: Sendable {
        var from: String
        var recipients: [String]
        var size: Int
        /// The stored message's id; nil when it was refused.
        var id: String?
        /// The reply's code and text, e.g. `250 2.0.0 Ok: queued as <id>`.
        var reply: String
        var durationNanoseconds: UInt64
    }

    private struct State {
        var buffer: [UInt8] = []
        var flushScheduled = false
        var dropped = 0
    }

    static let bufferLimit = 4 << 20
    let format: Format
    private let sink: @Sendable ([UInt8]) -> Void
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "understudy.request-log")

    /// `sink` gets batches of whole lines (standard error by default).
    init(format: Format, sink: @escaping @Sendable ([UInt8]) -> Void = { RequestLog.writeStandardError($0) }) {
        self.format = format
        self.sink = sink
    }

    func http(_ exchange: HTTPExchange) {
        let fields: [(String, Field)] = [
            ("kind", .text(exchange.isTLS ? "https" : "http")),
            ("method", .text(exchange.method)),
            ("host", .text(exchange.host ?? "-")),
            ("path", .text(exchange.target)),
            ("status", .number(Int64(exchange.status))),
            ("bytes", .number(Int64(exchange.bytes))),
            ("ms", .milliseconds(exchange.durationNanoseconds)),
            ("peer", .text(exchange.peer ?? "-")),
        ]
        append(line(fields))
    }

    func mail(_ entry: MailEntry) {
        let fields: [(String, Field)] = [
            ("kind", .text("smtp")),
            ("from", .text(entry.from.isEmpty ? "<>" : entry.from)),
            ("to", .list(entry.recipients)),
            ("size", .number(Int64(entry.size))),
            ("id", .text(entry.id ?? "-")),
            ("reply", .text(entry.reply)),
            ("ms", .milliseconds(entry.durationNanoseconds)),
        ]
        append(line(fields))
    }

    /// Writes what is buffered now (at shutdown), waiting at most `timeout` seconds: a stderr
    /// nobody reads must not keep the server from stopping.
    func flush(timeout: Int = 2) {
        let done = DispatchSemaphore(value: 0)
        queue.async {
            self.write()
            done.signal()
        }
        _ = done.wait(timeout: .now() + .seconds(timeout))
    }

    // MARK: Formatting

    enum Field {
        case text(String)
        case number(Int64)
        case list([String])
        case milliseconds(UInt64)
    }

    func line(_ fields: [(String, Field)], time: timespec = RequestLog.wallClock()) -> [UInt8] {
        switch format {
        case .json:
            var members: [(String, JSONValue)] = [("time", .string(Self.timestamp(time)))]
            for (name, field) in fields {
                switch field {
                case .text(let text): members.append((name, .string(text)))
                case .number(let n): members.append((name, .integer(n)))
                case .list(let items): members.append((name, .array(items.map { .string($0) })))
                case .milliseconds(let ns): members.append((name, .double(Double(ns / 1000) / 1000)))
                }
            }
            return JSONValue.object(JSONObject(members)).serializedBytes() + [10]
        case .text:
            // Bytes written directly: this runs once per request on the loops.
            var out: [UInt8] = []
            out.reserveCapacity(256)
            out.append(contentsOf: "time=".utf8)
            Self.appendTimestamp(time, to: &out)
            for (name, field) in fields {
                out.append(UInt8(ascii: " "))
                out.append(contentsOf: name.utf8)
                out.append(UInt8(ascii: "="))
                switch field {
                case .text(let text): Self.appendLogfmt(text, to: &out)
                case .number(let n): Self.appendDecimal(n, to: &out)
                case .list(let items): Self.appendLogfmt(items.joined(separator: ","), to: &out)
                case .milliseconds(let ns): Self.appendMilliseconds(ns, to: &out)
                }
            }
            out.append(10)
            return out
        }
    }

    static func appendLogfmt(_ text: String, to out: inout [UInt8]) {
        let plain = !text.isEmpty && text.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "=") && $0 != UInt8(ascii: "\\") }
        if plain { out.append(contentsOf: text.utf8) } else { out.append(contentsOf: logfmtValue(text).utf8) }
    }

    static func appendDecimal(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var n = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(n % 10)
                n /= 10
                count += 1
            } while n > 0
            out.append(contentsOf: buffer[(20 - count)...])
        }
    }

    /// `1.234` for 1,234,567 ns.
    static func appendMilliseconds(_ nanoseconds: UInt64, to out: inout [UInt8]) {
        let micros = nanoseconds / 1000
        appendDecimal(Int64(clamping: micros / 1000), to: &out)
        out.append(UInt8(ascii: "."))
        let fraction = micros % 1000
        out.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        out.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        out.append(UInt8(ascii: "0") + UInt8(fraction % 10))
    }

    /// `2026-12-03T12:46:46.123Z`.
    static func appendTimestamp(_ time: timespec, to out: inout [UInt8]) {
        var seconds = time.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int32, _ width: Int) {
            var divisor: Int32 = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / divisor % 10))
                divisor /= 10
            }
        }
        digits(parts.tm_year + 1900, 4); out.append(UInt8(ascii: "-"))
        digits(parts.tm_mon + 1, 2); out.append(UInt8(ascii: "-"))
        digits(parts.tm_mday, 2); out.append(UInt8(ascii: "T"))
        digits(parts.tm_hour, 2); out.append(UInt8(ascii: ":"))
        digits(parts.tm_min, 2); out.append(UInt8(ascii: ":"))
        digits(parts.tm_sec, 2); out.append(UInt8(ascii: "."))
        digits(Int32(time.tv_nsec / 1_000_000), 3); out.append(UInt8(ascii: "Z"))
    }

    /// A logfmt value: bare when it has no space, quote, `=` or control character, else quoted
    /// with `\"`, `\\` and `\n`-style escapes (so one request is always one line).
    static func logfmtValue(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F && $0 != "\"" && $0 != "=" && $0 != "\\" }
        if plain { return text }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// `0.042` for 42 µs: milliseconds with three decimals.
    static func milliseconds(_ nanoseconds: UInt64) -> String {
        var out: [UInt8] = []
        appendMilliseconds(nanoseconds, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func monotonicNow() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    static func wallClock() -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return now
    }

    /// `2026-12-03T12:46:46.123Z`.
    static func timestamp(_ time: timespec) -> String {
        var out: [UInt8] = []
        appendTimestamp(time, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Writing

    private func append(_ line: [UInt8]) {
        let schedule = state.withLock { state -> Bool in
            guard state.buffer.count + line.count <= Self.bufferLimit else {
                state.dropped += 1
                return false
            }
            state.buffer.append(contentsOf: line)
            if state.flushScheduled { return false }
            state.flushScheduled = true
            return true
        }
        // A short delay gathers the lines of a burst into one write.
        if schedule { queue.asyncAfter(deadline: .now() + .milliseconds(10)) { self.write() } }
    }

    private func write() {
        let (bytes, dropped) = state.withLock { state -> ([UInt8], Int) in
            defer { state.buffer = []; state.dropped = 0; state.flushScheduled = false }
            return (state.buffer, state.dropped)
        }
        var batch = bytes
        if dropped > 0 {
            batch += line([("kind", .text("log")),
                           ("dropped", .number(Int64(dropped))),
                           ("reason", .text("standard error did not keep up; the lines of that many requests were not written"))])
        }
        if !batch.isEmpty { sink(batch) }
    }

    static func writeStandardError(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }   // stderr closed: nothing to tell anyone
            offset += n
        }
    }
}
