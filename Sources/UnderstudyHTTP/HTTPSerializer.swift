#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Response bytes, built into one array with capacity reserved up front (this is the hot path).
///
/// The serializer owns the framing headers: any `Content-Length` or `Transfer-Encoding` in the
/// response is replaced by its own (except that a HEAD response with an empty body keeps a
/// `Content-Length` the handler set). It adds `Date` (cached per second) and `Server: understudy`
/// unless the response has them, and `Connection: close` (replacing any `Connection`) when the
/// connection will close. CR, LF and NUL in header values are written as spaces, so a value taken
/// from a request can never split the response. `defaults` are fields every response of a server
/// carries (security headers): each is written unless the response sets a field of that name.
public enum HTTPSerializer {
    /// Full response bytes. Adds Content-Length (none for 1xx/204/304, which never carry a body),
    /// `Connection: close` when `!keepAlive`, `Date`, `Server: understudy`; for HEAD writes the head
    /// only, with the Content-Length of the body.
    public static func serialize(_ response: HTTPResponse, requestMethod: HTTPMethod, keepAlive: Bool) -> [UInt8] {
        serialize(response, requestMethod: requestMethod, requestVersion: .http1_1, keepAlive: keepAlive)
    }

    /// As above; for an HTTP/1.0 request kept alive, also writes `Connection: keep-alive`, which
    /// 1.0 clients need to reuse the connection.
    public static func serialize(_ response: HTTPResponse, requestMethod: HTTPMethod,
                                 requestVersion: HTTPVersion, keepAlive: Bool, defaults: HTTPHeaders = [:]) -> [UInt8] {
        let allowsBody = response.status.allowsBody
        let writesBody = allowsBody && requestMethod != .head
        var out: [UInt8] = []
        out.reserveCapacity(headCapacity(response, defaults) + (writesBody ? response.body.count : 0))
        let userLength = requestMethod == .head && response.body.isEmpty
            ? response.headers["Content-Length"] : nil
        writeHead(response, into: &out, keepAlive: keepAlive, keepUserLength: userLength != nil,
                  http10KeepAlive: keepAlive && requestVersion == .http1_0, defaults: defaults)
        if allowsBody && userLength == nil {
            out.append(contentsOf: contentLengthPrefix)
            appendDecimal(response.body.count, to: &out)
            out.append(contentsOf: crlf)
        }
        out.append(contentsOf: crlf)
        if writesBody {
            out.append(contentsOf: response.body)
        }
        return out
    }

    /// Status line and headers for a streamed body (`Transfer-Encoding: chunked`); the response's
    /// body is ignored. Follow with `chunk(_:)` per piece and `lastChunk`.
    public static func serializeStreamHead(_ response: HTTPResponse, keepAlive: Bool,
                                           defaults: HTTPHeaders = [:]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(headCapacity(response, defaults) + 32)
        writeHead(response, into: &out, keepAlive: keepAlive, keepUserLength: false, http10KeepAlive: false,
                  defaults: defaults)
        out.append(contentsOf: transferEncodingChunked)
        out.append(contentsOf: crlf)
        return out
    }

    /// One chunk: hex size, CRLF, bytes, CRLF. Empty input gives no bytes (an empty chunk would end
    /// the body; use `lastChunk` for that).
    public static func chunk(_ bytes: [UInt8]) -> [UInt8] {
        guard !bytes.isEmpty else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 20)
        appendHex(bytes.count, to: &out)
        out.append(contentsOf: crlf)
        out.append(contentsOf: bytes)
        out.append(contentsOf: crlf)
        return out
    }

    public static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
    public static let continueResponse: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    // MARK: Internals

    private static let crlf: [UInt8] = [0x0D, 0x0A]
    private static let contentLengthPrefix: [UInt8] = Array("Content-Length: ".utf8)
    private static let transferEncodingChunked: [UInt8] = Array("Transfer-Encoding: chunked\r\n".utf8)
    private static let connectionClose: [UInt8] = Array("Connection: close\r\n".utf8)
    private static let connectionKeepAlive: [UInt8] = Array("Connection: keep-alive\r\n".utf8)
    private static let serverLine: [UInt8] = Array("Server: understudy\r\n".utf8)
    private static let statusPrefix: [UInt8] = Array("HTTP/1.1 ".utf8)
    static let dateCache = HTTPDateCache()

    private static func headCapacity(_ response: HTTPResponse, _ defaults: HTTPHeaders) -> Int {
        var size = 160 + response.status.reasonPhrase.utf8.count
        for field in response.headers.fields {
            size += field.name.utf8.count + field.value.utf8.count + 4
        }
        for field in defaults.fields {
            size += field.name.utf8.count + field.value.utf8.count + 4
        }
        return size
    }

    /// The framing-relevant headers a response may carry.
    private enum Special { case none, contentLength, transferEncoding, connection, date, server }

    @inline(__always)
    private static func classify(_ name: String) -> Special {
        switch name.utf8.count {
        case 4 where HTTPHeaders.namesEqual(name, "Date"): .date
        case 6 where HTTPHeaders.namesEqual(name, "Server"): .server
        case 10 where HTTPHeaders.namesEqual(name, "Connection"): .connection
        case 14 where HTTPHeaders.namesEqual(name, "Content-Length"): .contentLength
        case 17 where HTTPHeaders.namesEqual(name, "Transfer-Encoding"): .transferEncoding
        default: .none
        }
    }

    private static func writeHead(_ response: HTTPResponse, into out: inout [UInt8], keepAlive: Bool,
                                  keepUserLength: Bool, http10KeepAlive: Bool, defaults: HTTPHeaders) {
        out.append(contentsOf: statusPrefix)
        appendStatusCode(response.status.code, to: &out)
        out.append(UInt8(ascii: " "))
        appendSanitized(response.status.reasonPhrase, to: &out)
        out.append(contentsOf: crlf)

        var hasDate = false
        var hasServer = false
        var hasConnection = false
        for field in response.headers.fields {
            switch classify(field.name) {
            case .contentLength:
                if !keepUserLength { continue }
            case .transferEncoding:
                continue
            case .connection:
                if !keepAlive { continue }
                hasConnection = true
            case .date:
                hasDate = true
            case .server:
                hasServer = true
            case .none:
                break
            }
            appendSanitized(field.name, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(UInt8(ascii: " "))
            appendSanitized(field.value, to: &out)
            out.append(contentsOf: crlf)
        }
        for field in defaults.fields where !response.headers.contains(field.name) {
            appendSanitized(field.name, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(UInt8(ascii: " "))
            appendSanitized(field.value, to: &out)
            out.append(contentsOf: crlf)
        }
        if !hasDate { dateCache.appendDateLine(to: &out) }
        if !hasServer { out.append(contentsOf: serverLine) }
        if !keepAlive {
            out.append(contentsOf: connectionClose)
        } else if http10KeepAlive && !hasConnection {
            out.append(contentsOf: connectionKeepAlive)
        }
    }

    @inline(__always)
    private static func appendSanitized(_ text: String, to out: inout [UInt8]) {
        let utf8 = text.utf8
        // Native strings are contiguous UTF-8: scan and copy the buffer, no per-byte iterator.
        let copied = utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            for byte in bytes where byte == 0x0D || byte == 0x0A || byte == 0x00 { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if copied == true { return }
        if utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) {
            for byte in utf8 {
                out.append(byte == 0x0D || byte == 0x0A || byte == 0x00 ? UInt8(ascii: " ") : byte)
            }
        } else {
            out.append(contentsOf: utf8)
        }
    }

    private static func appendStatusCode(_ code: Int, to out: inout [UInt8]) {
        if code >= 100 && code <= 999 {
            out.append(ASCII.zero + UInt8(code / 100))
            out.append(ASCII.zero + UInt8(code / 10 % 10))
            out.append(ASCII.zero + UInt8(code % 10))
        } else {
            appendDecimal(code, to: &out)
        }
    }

    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        guard value > 0 else {
            out.append(ASCII.zero)
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            while rest > 0 {
                buffer[count] = ASCII.zero + UInt8(rest % 10)
                rest /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) {
                out.append(buffer[index])
            }
        }
    }

    static func appendHex(_ value: Int, to out: inout [UInt8]) {
        let hex: StaticString = "0123456789abcdef"
        var shift = (Int.bitWidth - value.leadingZeroBitCount + 3) / 4 * 4 - 4
        if shift < 0 { shift = 0 }
        hex.withUTF8Buffer { digits in
            while shift >= 0 {
                out.append(digits[(value >> shift) & 0xF])
                shift -= 4
            }
        }
    }
}

/// The `Date: <IMF-fixdate>\r\n` line, formatted at most once per second (RFC 9110 §5.6.7).
final class HTTPDateCache: Sendable {
    private struct Entry {
        var second: Int
        var line: [UInt8]
    }

    private let entry = Mutex(Entry(second: Int.min, line: []))

    func appendDateLine(to out: inout [UInt8]) {
        let now = Int(time(nil))
        entry.withLock { entry in
            if entry.second != now {
                entry.second = now
                entry.line = HTTPDateCache.dateLine(epochSeconds: now)
            }
            out.append(contentsOf: entry.line)
        }
    }

    /// `Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n` for a Unix time.
    static func dateLine(epochSeconds: Int) -> [UInt8] {
        Array(("Date: " + HTTPDate.format(epochSeconds: Int64(epochSeconds)) + "\r\n").utf8)
    }
}
