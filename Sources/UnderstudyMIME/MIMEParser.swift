import Glibc

/// Walks a message's MIME tree over one byte array (ranges, no copies until a leaf is decoded).
/// Work is linear in the input per nesting level, and nesting is bounded by `MIMELimits.maxDepth`.
struct MIMEParser {
    indirect enum Node {
        case leaf(Int)
        case multipart(subtype: String, children: [Node])
    }

    let bytes: [UInt8]
    let limits: MIMELimits
    var parts: [MIMEPart] = []
    var decodedTotal = 0
    var truncated = false
    var exhausted = false

    init(bytes: [UInt8], limits: MIMELimits) {
        self.bytes = bytes
        self.limits = limits
    }

    /// Parses the whole message: its headers and its body tree.
    mutating func parseMessage() -> (headers: MIMEHeaders, root: Node) {
        let (headers, bodyStart, cut) = MIMEHeaders.parse(bytes, in: 0..<bytes.count, maxFields: limits.maxHeaderFields)
        if cut { truncated = true }
        let root = node(headers: headers, body: bodyStart..<bytes.count, number: "", depth: 0,
                        defaultType: .defaultText)
        return (headers, root)
    }

    mutating func node(headers: MIMEHeaders, body: Range<Int>, number: String, depth: Int,
                       defaultType: MIMEContentType) -> Node {
        let type = headers.first(named: "content-type").map { MIMEContentType(parsing: $0.rawValue) } ?? defaultType
        guard type.type == "multipart" else {
            return leaf(headers: headers, type: type, body: body, number: number, opaque: false)
        }
        guard let boundaryText = type.boundary, !boundaryText.isEmpty, boundaryText.utf8.count <= 200 else {
            return leaf(headers: headers, type: type, body: body, number: number, opaque: false)
        }
        if depth >= limits.maxDepth {
            truncated = true
            return leaf(headers: headers, type: type, body: body, number: number, opaque: true)
        }
        let boundary = Array(boundaryText.utf8)
        guard let first = nextDelimiter(boundary, from: body.lowerBound, end: body.upperBound), !first.isClose else {
            return leaf(headers: headers, type: type, body: body, number: number, opaque: false)
        }
        let childDefault: MIMEContentType = type.subtype == "digest" ? .defaultDigestChild : .defaultText
        var children: [Node] = []
        var partStart = first.after
        var k = 0
        while !exhausted {
            let delimiter = nextDelimiter(boundary, from: partStart, end: body.upperBound)
            var partEnd = body.upperBound  // a missing close delimiter ends the part at the end of the body
            if let d = delimiter {
                partEnd = d.lineStart
                if partEnd > partStart, bytes[partEnd - 1] == 0x0A { partEnd -= 1 }
                if partEnd > partStart, bytes[partEnd - 1] == 0x0D { partEnd -= 1 }
            }
            let childNumber = number.isEmpty ? "\(k + 1)" : "\(number).\(k + 1)"
            k += 1
            if parts.count >= limits.maxParts {
                exhausted = true
                truncated = true
                break
            }
            if parts.count == limits.maxParts - 1, let d = delimiter, !d.isClose {
                // One slot left and more parts follow: keep the rest as one opaque part.
                exhausted = true
                truncated = true
                children.append(leaf(headers: MIMEHeaders(), type: MIMEContentType(type: "application", subtype: "octet-stream"),
                                     body: partStart..<body.upperBound, number: childNumber, opaque: true))
                break
            }
            let (childHeaders, childBody, cut) = MIMEHeaders.parse(bytes, in: partStart..<partEnd,
                                                                   maxFields: limits.maxHeaderFields)
            if cut { truncated = true }
            children.append(node(headers: childHeaders, body: childBody..<max(childBody, partEnd), number: childNumber,
                                 depth: depth + 1, defaultType: childDefault))
            guard let d = delimiter, !d.isClose else { break }
            partStart = d.after
        }
        return .multipart(subtype: type.subtype, children: children)
    }

    struct Delimiter {
        var lineStart: Int
        var after: Int
        var isClose: Bool
    }

    /// The next line, at or after the line start `from`, that is "--boundary" (optionally "--" after it
    /// for the close delimiter) followed only by transport padding (RFC 2046 5.1.1).
    func nextDelimiter(_ boundary: [UInt8], from: Int, end: Int) -> Delimiter? {
        bytes.withUnsafeBufferPointer { p in
            boundary.withUnsafeBufferPointer { bd in
                let bl = bd.count
                var i = from
                while i < end {
                    if i + 2 + bl <= end, p[i] == 0x2D, p[i + 1] == 0x2D, p[i + 2] == bd[0],
                       memcmpEqual(p, i + 2, bd, bl) {
                        var j = i + 2 + bl
                        var close = false
                        if j + 1 < end, p[j] == 0x2D, p[j + 1] == 0x2D { close = true; j += 2 }
                        while j < end, p[j] == 0x20 || p[j] == 0x09 { j += 1 }
                        let lineEnds = j == end || p[j] == 0x0A || (p[j] == 0x0D && (j + 1 == end || p[j + 1] == 0x0A))
                        if lineEnds || close {
                            var after = j
                            while after < end, p[after] != 0x0A { after += 1 }
                            return Delimiter(lineStart: i, after: min(after + 1, end), isClose: close)
                        }
                    }
                    // Next line.
                    guard let lf = findLF(p, from: i, end: end) else { return nil }
                    i = lf + 1
                }
                return nil
            }
        }
    }

    @inline(__always)
    private func memcmpEqual(_ p: UnsafeBufferPointer<UInt8>, _ at: Int, _ b: UnsafeBufferPointer<UInt8>, _ n: Int) -> Bool {
        var k = 0
        while k < n {
            if p[at + k] != b[k] { return false }
            k += 1
        }
        return true
    }

    @inline(__always)
    private func findLF(_ p: UnsafeBufferPointer<UInt8>, from: Int, end: Int) -> Int? {
        guard from < end, let base = p.baseAddress else { return nil }
        guard let hit = memchr(base + from, 0x0A, end - from) else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    mutating func leaf(headers: MIMEHeaders, type: MIMEContentType, body: Range<Int>, number: String, opaque: Bool) -> Node {
        let transfer = (headers["content-transfer-encoding"] ?? "7bit").trimmingSpaces().lowercased()
        var disposition: MIMEDisposition? = nil
        var filename: String? = nil
        if let raw = headers.first(named: "content-disposition")?.rawValue {
            let (value, params) = MIMEParameters.parse(raw)
            disposition = MIMEDisposition(rawValue: value)
            filename = params["filename"]
        }
        if filename == nil || filename!.isEmpty { filename = type.parameters["name"] }
        if let f = filename, f.trimmingSpaces().isEmpty { filename = nil }
        var contentID: String? = nil
        if let id = headers["content-id"] {
            var s = Substring(id.trimmingSpaces())
            if s.hasPrefix("<") { s = s.dropFirst() }
            if s.hasSuffix(">") { s = s.dropLast() }
            contentID = s.isEmpty ? nil : String(s)
        }
        var opaque = opaque
        let raw = bytes[body]
        var decoded: [UInt8]
        if !opaque && raw.count > limits.maxDecodedBytes - decodedTotal {
            opaque = true
            truncated = true
        }
        if opaque {
            decoded = Array(raw)
        } else {
            switch transfer {
            case "base64": decoded = MIMEBase64.decode(raw)
            case "quoted-printable": decoded = QuotedPrintable.decode(raw)
            default: decoded = Array(raw)
            }
            decodedTotal += decoded.count
        }
        parts.append(MIMEPart(partNumber: number.isEmpty ? "1" : number, headers: headers, type: type,
                              disposition: disposition, filename: filename, contentID: contentID,
                              transferEncoding: transfer, isOpaque: opaque, bytes: decoded))
        return .leaf(parts.count - 1)
    }

    /// Indices of the body parts of `wanted` type ("text/plain" or "text/html"), following the
    /// multipart semantics: one branch of an alternative (the first with plain text, the last with
    /// HTML), the root of a related, everything of a mixed.
    func bodyParts(_ node: Node, wanted: String, into out: inout [Int]) {
        switch node {
        case .leaf(let i):
            let p = parts[i]
            if !p.isOpaque, !p.isAttachment, p.contentType == wanted { out.append(i) }
        case .multipart(let subtype, let children):
            switch subtype {
            case "alternative":
                let order = wanted == "text/html" ? Array(children.reversed()) : children
                for child in order {
                    var found: [Int] = []
                    bodyParts(child, wanted: wanted, into: &found)
                    if !found.isEmpty { out.append(contentsOf: found); return }
                }
            case "related":
                if let root = children.first { bodyParts(root, wanted: wanted, into: &out) }
            default:
                for child in children { bodyParts(child, wanted: wanted, into: &out) }
            }
        }
    }
}
