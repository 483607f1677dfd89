/// Pure incremental HTTP/1.x request parser (RFC 9112): bytes in, events out, no I/O.
///
/// Feed whatever arrived, then call `next()` until it returns nil. Behaviour, for the record:
/// - Lines end with CRLF; a bare LF is tolerated (RFC 9112 §2.2 allows it), a bare CR is a 400 as
///   soon as the byte after it arrives. Up to `maxLeadingEmptyLines` empty lines before a request
///   line are ignored (§2.2), more are a 400; while they come, a request counts as begun
///   (`hasPartialRequest`), so they run against the header-read timeout, not the idle one.
/// - Request line: `method SP request-target SP HTTP-version` with single spaces. Targets in
///   origin-form, absolute-form (http/https) and asterisk-form (OPTIONS only); CONNECT takes the
///   authority form `host:port` only, has no body, and ends parsing: what follows its head belongs
///   to the tunnel (`takeTunnelBytes()`).
///   HTTP/1.0 and HTTP/1.1 only, any other well-formed version is 505. The path is percent-decoded
///   (an invalid escape or non-UTF-8 result is 400); the query is form-decoded leniently.
/// - Header fields: obs-fold (a line starting with whitespace) is 400, whitespace before the colon
///   is 400, control characters in a value are 400. HTTP/1.1 needs exactly one Host (400).
/// - Framing: `Transfer-Encoding: chunked` (extensions ignored, trailers validated then dropped);
///   any other transfer coding is 501; chunked not last is 400; Transfer-Encoding with
///   Content-Length, or on HTTP/1.0, is 400. Content-Length must be digits (400); repeated values
///   must agree (400). No framing header means an empty body.
/// - Limits (`HTTPLimits`): head over `maxHeaderBytes` or `maxHeaderCount` is 431; a body over
///   `maxBodyBytes` is 413, decided at the header for Content-Length and at the chunk size line
///   that would pass it for chunked.
/// - `Expect: 100-continue` on an HTTP/1.1 request with a body yields `.expectContinue` right
///   after the head, whether or not the body is already buffered (so the events do not depend on
///   how bytes were split). Other expectations are 417. HTTP/1.0 expectations are ignored.
/// - After a request that does not keep the connection alive (`Connection: close`, or HTTP/1.0
///   without `keep-alive`), and after an error, the parser ignores further bytes: the server closes.
public struct HTTPRequestParser: Sendable {
    private enum State {
        case head
        case fixedBody(length: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        /// After a CONNECT: bytes are the tunnel's, kept for `takeTunnelBytes()`.
        case tunnel
        case closed
    }

    private struct RequestLine {
        var method: HTTPMethod
        var target: String
        var version: HTTPVersion
        var path: String
        var query: [(name: String, value: String)]
    }

    /// Longest chunk-size line (size and extensions) accepted.
    static let maxChunkLineBytes = 4096
    /// Empty lines tolerated before a request line.
    public static let maxLeadingEmptyLines = 8

    private let limits: HTTPLimits
    private var buffer: [UInt8] = []
    /// Start of the bytes not consumed yet.
    private var readIndex = 0
    /// While looking for a line end: bytes before this are known not to be LF.
    private var scanIndex = 0
    private var state = State.head

    private var requestLine: RequestLine?
    private var headers = HTTPHeaders()
    /// Bytes and fields of the head (or of the trailer section) so far.
    private var sectionBytes = 0
    private var sectionFields = 0
    private var body: [UInt8] = []
    private var keepAlive = true
    /// Empty lines seen before the request line now being read.
    private var leadingEmptyLines = 0

    public init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
    }

    /// Bytes of an unfinished request are buffered (a header-read timeout applies, not the idle one).
    public var hasPartialRequest: Bool {
        switch state {
        case .closed, .tunnel: false
        case .head: requestLine != nil || readIndex < buffer.count || leadingEmptyLines > 0
        default: true
        }
    }

    public mutating func feed(_ bytes: some Collection<UInt8>) {
        if case .closed = state { return }
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            readIndex = 0
            scanIndex = 0
        } else if readIndex >= 4096 && readIndex * 2 >= buffer.count {
            buffer.removeSubrange(0..<readIndex)
            scanIndex -= readIndex
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next event, or nil when more bytes are needed.
    public mutating func next() -> HTTPParserEvent? {
        while true {
            switch state {
            case .closed, .tunnel:
                return nil

            case .head:
                let budget = requestLine == nil ? limits.maxHeaderBytes : limits.maxHeaderBytes - sectionBytes
                switch takeLine(budget: budget) {
                case .needMore:
                    return nil
                case .tooLong:
                    return fail(.headersTooLarge(limit: limits.maxHeaderBytes))
                case .bareCR:
                    return fail(.bareCarriageReturn)
                case .line(let range, let length):
                    if requestLine == nil {
                        if range.isEmpty {   // empty lines before the request line
                            leadingEmptyLines += 1
                            if leadingEmptyLines > Self.maxLeadingEmptyLines {
                                return fail(.tooManyEmptyLines(limit: Self.maxLeadingEmptyLines))
                            }
                            continue
                        }
                        sectionBytes = length
                        switch parseRequestLine(range) {
                        case .success(let line): requestLine = line
                        case .failure(let error): return fail(error)
                        }
                    } else {
                        sectionBytes += length
                        if range.isEmpty { return finishHead() }
                        if sectionFields == limits.maxHeaderCount {
                            return fail(.tooManyHeaders(limit: limits.maxHeaderCount))
                        }
                        sectionFields += 1
                        switch parseField(range) {
                        case .success(let field): headers.add(name: field.name, value: field.value)
                        case .failure(let error): return fail(error)
                        }
                    }
                }

            case .fixedBody(let length):
                guard buffer.count - readIndex >= length else { return nil }
                body = Array(buffer[readIndex..<readIndex + length])
                readIndex += length
                return emit()

            case .chunkSize:
                switch takeLine(budget: HTTPRequestParser.maxChunkLineBytes) {
                case .needMore:
                    return nil
                case .tooLong:
                    return fail(.invalidChunk(
                        "chunk size line is longer than \(HTTPRequestParser.maxChunkLineBytes) bytes"))
                case .bareCR:
                    return fail(.bareCarriageReturn)
                case .line(let range, _):
                    switch parseChunkSize(range) {
                    case .failure(let error):
                        return fail(error)
                    case .success(0):
                        state = .trailers
                        sectionBytes = 0
                        sectionFields = 0
                    case .success(let size):
                        state = .chunkData(remaining: size)
                    }
                }

            case .chunkData(let remaining):
                let available = buffer.count - readIndex
                guard available > 0 else { return nil }
                let count = min(available, remaining)
                body.append(contentsOf: buffer[readIndex..<readIndex + count])
                readIndex += count
                state = count == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - count)

            case .chunkDataEnd:
                let available = buffer.count - readIndex
                guard available > 0 else { return nil }
                if buffer[readIndex] == ASCII.lf {
                    readIndex += 1
                } else if buffer[readIndex] == ASCII.cr {
                    guard available > 1 else { return nil }
                    guard buffer[readIndex + 1] == ASCII.lf else {
                        return fail(.invalidChunk("chunk data is not followed by CRLF"))
                    }
                    readIndex += 2
                } else {
                    return fail(.invalidChunk("chunk data is longer than its declared size"))
                }
                scanIndex = readIndex
                state = .chunkSize

            case .trailers:
                switch takeLine(budget: limits.maxHeaderBytes - sectionBytes) {
                case .needMore:
                    return nil
                case .tooLong:
                    return fail(.trailersTooLarge(limit: limits.maxHeaderBytes))
                case .bareCR:
                    return fail(.bareCarriageReturn)
                case .line(let range, let length):
                    sectionBytes += length
                    if range.isEmpty { return emit() }
                    if sectionFields == limits.maxHeaderCount {
                        return fail(.tooManyTrailers(limit: limits.maxHeaderCount))
                    }
                    sectionFields += 1
                    if case .failure(let error) = parseField(range) { return fail(error) }
                }
            }
        }
    }

    // MARK: Lines

    private enum LineResult {
        /// The line's content without its terminator, and its length with the terminator.
        case line(Range<Int>, length: Int)
        case needMore
        case tooLong
        /// A CR followed by something other than LF.
        case bareCR
    }

    /// Takes the next line if it is complete and at most `budget` bytes long with its terminator.
    /// A CR must be followed by LF: anything else is `.bareCR` as soon as that byte is here.
    private mutating func takeLine(budget: Int) -> LineResult {
        let start = readIndex
        let searchEnd = min(buffer.count, start + max(budget, 0))
        var index = max(scanIndex, start)
        var bareCR = false
        var undecidedCR = false
        let found: Int? = buffer.withUnsafeBufferPointer { bytes in
            while index < searchEnd {
                let byte = bytes[index]
                if byte == ASCII.lf { return index }
                if byte == ASCII.cr {
                    guard index + 1 < bytes.count else { undecidedCR = true; return nil }   // decided by the next byte
                    if bytes[index + 1] != ASCII.lf { bareCR = true; return nil }
                }
                index += 1
            }
            return nil
        }
        if bareCR { return .bareCR }
        guard let lf = found else {
            scanIndex = index
            // A CR last in the buffer waits for its next byte even at the budget: a bare CR is a 400
            // however the bytes were cut, as when they arrive together (then a CR LF past the budget is 431).
            if undecidedCR { return .needMore }
            return buffer.count - start >= max(budget, 1) ? .tooLong : .needMore
        }
        readIndex = lf + 1
        scanIndex = readIndex
        let end = lf > start && buffer[lf - 1] == ASCII.cr ? lf - 1 : lf
        return .line(start..<end, length: lf + 1 - start)
    }

    // MARK: Request line

    private func parseRequestLine(_ range: Range<Int>) -> Result<RequestLine, HTTPParseError> {
        let line = buffer[range]
        guard let firstSpace = line.firstIndex(of: ASCII.space),
              let lastSpace = line.lastIndex(of: ASCII.space), firstSpace != lastSpace else {
            return .failure(.invalidRequestLine("request line `\(excerpt(line))` does not have three parts"))
        }
        let methodBytes = line[range.lowerBound..<firstSpace]
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(ASCII.isTokenByte) else {
            return .failure(.invalidRequestLine("method `\(excerpt(methodBytes))` is not a token"))
        }
        let versionBytes = line[(lastSpace + 1)...]
        guard versionBytes.count == 8, versionBytes.starts(with: ASCII.httpSlash),
              case let major = versionBytes[lastSpace + 6], ASCII.isDigit(major),
              versionBytes[lastSpace + 7] == UInt8(ascii: "."),
              case let minor = versionBytes[lastSpace + 8], ASCII.isDigit(minor) else {
            return .failure(.invalidRequestLine("`\(excerpt(versionBytes))` is not an HTTP version"))
        }
        let version = HTTPVersion(major: Int(major - ASCII.zero), minor: Int(minor - ASCII.zero))
        guard version == .http1_1 || version == .http1_0 else {
            return .failure(.unsupportedVersion(version.description))
        }
        let targetBytes = line[(firstSpace + 1)..<lastSpace]
        guard !targetBytes.isEmpty, targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(.invalidTarget(
                "request-target `\(excerpt(targetBytes))` contains a space, control or non-ASCII byte; "
                + "percent-encode it and separate the parts of the request line with single spaces"))
        }
        let method = HTTPMethod(rawValue: String(decoding: methodBytes, as: UTF8.self))
        let target = String(decoding: targetBytes, as: UTF8.self)
        let parts = RequestTargetParts(target)
        if method == .connect {
            guard parts.form == .authority, Self.isHostAndPort(targetBytes) else {
                return .failure(.invalidTarget(
                    "CONNECT needs an authority-form target `host:port`, got `\(excerpt(targetBytes))`; "
                    + "send e.g. `CONNECT appleid.apple.com:443`"))
            }
            return .success(RequestLine(method: method, target: target, version: version, path: target, query: []))
        }
        switch parts.form {
        case .origin, .absolute:
            break
        case .asterisk:
            guard method == .options else {
                return .failure(.invalidTarget("request-target `*` is only valid for OPTIONS; send a path"))
            }
        case .authority:
            return .failure(.invalidTarget(
                "request-target `\(excerpt(targetBytes))` is not a path; send an origin-form target such as `/path?query`"))
        }
        guard let path = URLEncoding.percentDecoded(parts.rawPath) else {
            return .failure(.invalidTarget(
                "path `\(excerpt(parts.rawPath))` has an invalid percent-escape or is not UTF-8; "
                + "escape `%` as `%25` and encode bytes as two hex digits"))
        }
        let query = parts.rawQuery.map { URLEncoding.formDecoded($0) } ?? []
        return .success(RequestLine(method: method, target: target, version: version, path: path, query: query))
    }

    // MARK: Header fields

    private func parseField(_ range: Range<Int>) -> Result<(name: String, value: String), HTTPParseError> {
        let line = buffer[range]
        if let first = line.first, first == ASCII.space || first == ASCII.tab {
            return .failure(.obsoleteLineFolding)
        }
        guard let colon = line.firstIndex(of: ASCII.colon) else {
            return .failure(.invalidHeader("header line `\(excerpt(line))` has no colon; send `Name: value`"))
        }
        let nameBytes = line[range.lowerBound..<colon]
        if let last = nameBytes.last, last == ASCII.space || last == ASCII.tab {
            return .failure(.whitespaceBeforeColon(excerpt(nameBytes.dropLast())))
        }
        guard !nameBytes.isEmpty, nameBytes.allSatisfy(ASCII.isTokenByte) else {
            return .failure(.invalidHeader(
                "header name `\(excerpt(nameBytes))` is empty or has a character not allowed in a token; "
                + "use letters, digits and -"))
        }
        var valueStart = colon + 1
        var valueEnd = range.upperBound
        while valueStart < valueEnd, buffer[valueStart] == ASCII.space || buffer[valueStart] == ASCII.tab {
            valueStart += 1
        }
        while valueEnd > valueStart, buffer[valueEnd - 1] == ASCII.space || buffer[valueEnd - 1] == ASCII.tab {
            valueEnd -= 1
        }
        let valueBytes = buffer[valueStart..<valueEnd]
        let name = String(decoding: nameBytes, as: UTF8.self)
        guard valueBytes.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == ASCII.tab }) else {
            return .failure(.invalidHeader(
                "value of header `\(excerpt(nameBytes))` contains a control character (CR, NUL, ...); "
                + "send printable characters only"))
        }
        return .success((name: name, value: String(decoding: valueBytes, as: UTF8.self)))
    }

    // MARK: End of head: framing

    private mutating func finishHead() -> HTTPParserEvent? {
        guard let line = requestLine else { return nil }
        var hosts = 0
        for field in headers where field.name.utf8.count == 4 && HTTPHeaders.namesEqual(field.name, "Host") {
            hosts += 1
        }
        if hosts > 1 { return fail(.duplicateHost) }
        if hosts == 0 && line.version == .http1_1 { return fail(.missingHost) }

        if line.method == .connect {
            // No content (RFC 9110 §9.3.6): whatever follows the head is the tunnel's.
            keepAlive = true
            let event = emit()
            state = .tunnel
            return event
        }

        var chunked = false
        var contentLength = 0
        if headers.contains("Transfer-Encoding") {
            if line.version == .http1_0 { return fail(.transferEncodingInHTTP10) }
            if headers.contains("Content-Length") { return fail(.contentLengthWithTransferEncoding) }
            let codings = headers.tokens(for: "Transfer-Encoding")
            guard let last = codings.last, last.equalsLowercased("chunked") else {
                if let unknown = codings.first(where: { !$0.equalsLowercased("chunked") }) {
                    return fail(.unsupportedTransferEncoding(excerpt(unknown.utf8)))
                }
                return fail(.chunkedNotLast)
            }
            if let unknown = codings.dropLast().first(where: { !$0.equalsLowercased("chunked") }) {
                return fail(.unsupportedTransferEncoding(excerpt(unknown.utf8)))
            }
            if codings.count > 1 { return fail(.chunkedNotLast) }
            chunked = true
        } else if headers.contains("Content-Length") {
            var length: Int?
            for field in headers where HTTPHeaders.namesEqual(field.name, "Content-Length") {
                for element in field.value.split(separator: ",", omittingEmptySubsequences: false) {
                    let digits = element.trimmingOWS()
                    guard !digits.isEmpty, digits.utf8.allSatisfy(ASCII.isDigit) else {
                        return fail(.invalidContentLength(excerpt(field.value.utf8)))
                    }
                    guard let value = Int(digits), value <= limits.maxBodyBytes else {
                        return fail(.bodyTooLarge(limit: limits.maxBodyBytes))
                    }
                    if let earlier = length, earlier != value { return fail(.conflictingContentLength) }
                    length = value
                }
            }
            contentLength = length ?? 0
        }

        var expectsContinue = false
        if line.version == .http1_1 {
            for field in headers where HTTPHeaders.namesEqual(field.name, "Expect") {
                guard field.value.equalsLowercased("100-continue") else {
                    return fail(.unsupportedExpectation(excerpt(field.value.utf8)))
                }
                expectsContinue = true
            }
        }
        keepAlive = HTTPRequest.keepAlive(version: line.version, headers: headers)

        if chunked {
            state = .chunkSize
        } else if contentLength > 0 {
            state = .fixedBody(length: contentLength)
        } else {
            return emit()
        }
        return expectsContinue ? .expectContinue : next()
    }

    // MARK: Chunks

    private func parseChunkSize(_ range: Range<Int>) -> Result<Int, HTTPParseError> {
        let line = buffer[range]
        var size = 0
        var index = range.lowerBound
        var overflow = false
        while index < range.upperBound, let digit = URLEncoding.hexValue(buffer[index]) {
            let (shifted, o1) = size.multipliedReportingOverflow(by: 16)
            let (sum, o2) = shifted.addingReportingOverflow(Int(digit))
            overflow = overflow || o1 || o2
            size = sum
            index += 1
        }
        guard index > range.lowerBound else {
            return .failure(.invalidChunk("chunk size `\(excerpt(line))` is not a hexadecimal number"))
        }
        // Optional whitespace, then nothing or `;extensions` (ignored, but no control bytes).
        var rest = index
        while rest < range.upperBound, buffer[rest] == ASCII.space || buffer[rest] == ASCII.tab { rest += 1 }
        if rest < range.upperBound {
            guard buffer[rest] == UInt8(ascii: ";"),
                  buffer[rest..<range.upperBound].allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == ASCII.tab }) else {
                return .failure(.invalidChunk("chunk size line `\(excerpt(line))` is malformed"))
            }
        }
        if overflow || size > limits.maxBodyBytes - body.count {
            return .failure(.bodyTooLarge(limit: limits.maxBodyBytes))
        }
        return .success(size)
    }

    // MARK: Tunnels

    /// After a CONNECT request: the bytes received past its head (a TLS ClientHello the client sent
    /// without waiting for the 200), which now belong to the tunnel. Empty otherwise.
    public mutating func takeTunnelBytes() -> [UInt8] {
        guard case .tunnel = state else { return [] }
        let bytes = Array(buffer[readIndex...])
        close()
        return bytes
    }

    /// `host:port` or `[v6]:port`, with a port of 1 to 5 digits.
    private static func isHostAndPort(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let colon = bytes.lastIndex(of: ASCII.colon) else { return false }
        let port = bytes[(colon + 1)...]
        let host = bytes[..<colon]
        guard (1...5).contains(port.count), port.allSatisfy(ASCII.isDigit), !host.isEmpty else { return false }
        if host.first == UInt8(ascii: "[") { return host.last == UInt8(ascii: "]") && host.count > 2 }
        return host.allSatisfy { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "@") && $0 != ASCII.colon }
    }

    // MARK: Results

    private mutating func emit() -> HTTPParserEvent? {
        guard let line = requestLine else { return nil }
        let request = HTTPRequest(method: line.method, target: line.target, version: line.version,
                                  headers: headers, body: body, path: line.path, query: line.query)
        requestLine = nil
        headers = HTTPHeaders()
        body = []
        sectionBytes = 0
        sectionFields = 0
        leadingEmptyLines = 0
        scanIndex = readIndex
        if keepAlive {
            state = .head
        } else {
            close()
        }
        return .request(request)
    }

    private mutating func fail(_ error: HTTPParseError) -> HTTPParserEvent {
        close()
        requestLine = nil
        headers = HTTPHeaders()
        body = []
        return .error(error)
    }

    private mutating func close() {
        state = .closed
        buffer = []
        readIndex = 0
        scanIndex = 0
    }

    /// A short printable rendering of client bytes for error messages.
    private func excerpt(_ bytes: some Collection<UInt8>) -> String {
        var text = String(decoding: bytes.prefix(48).map { $0 >= 0x20 && $0 < 0x7F ? $0 : UInt8(ascii: "?") },
                          as: UTF8.self)
        if bytes.count > 48 { text += "..." }
        return text
    }
}

/// Byte constants and classes of RFC 9110 §5.6.
enum ASCII {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A
    static let zero: UInt8 = 0x30
    static let httpSlash: [UInt8] = Array("HTTP/".utf8)

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~"
    ///       / DIGIT / ALPHA
    static func isTokenByte(_ byte: UInt8) -> Bool {
        tokenTable[Int(byte)]
    }

    private static let tokenTable: [Bool] = (0..<256).map { value in
        let byte = UInt8(value)
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
