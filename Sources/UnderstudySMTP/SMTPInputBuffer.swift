/// Received bytes not yet consumed, with a read index so consuming never shifts memory, and a scan
/// index so a partial line is never searched twice.
struct SMTPInputBuffer: Sendable {
    private(set) var bytes: [UInt8] = []
    private(set) var readIndex = 0
    /// Bytes before this index (and at or after `readIndex`) are known to hold no LF.
    private var scanIndex = 0

    var unreadCount: Int { bytes.count - readIndex }
    var isEmpty: Bool { readIndex == bytes.count }

    mutating func append(_ newBytes: some Collection<UInt8>) {
        compact()
        bytes.append(contentsOf: newBytes)
    }

    /// Drops consumed bytes: all of them for free when everything was read, otherwise only once they are
    /// most of the buffer, so the shifting cost stays linear in the input.
    mutating func compact() {
        if readIndex == bytes.count {
            bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 20)
            readIndex = 0
            scanIndex = 0
        } else if readIndex >= 4096 && readIndex >= bytes.count / 2 {
            bytes.removeSubrange(0..<readIndex)
            scanIndex -= readIndex
            readIndex = 0
        }
    }

    enum Line {
        /// A complete line without its LF or CRLF; the buffer is already past it.
        case complete([UInt8])
        /// No line end yet.
        case incomplete
        /// No line end within `limit` octets: the caller should discard up to the next LF.
        case tooLong
    }

    /// The next line if one ends within `limit` octets (line end included).
    mutating func nextLine(limit: Int) -> Line {
        let start = Swift.max(scanIndex, readIndex)
        let found: Int? = bytes.withUnsafeBufferPointer { buffer in
            var index = start
            while index < buffer.count {
                if buffer[index] == 10 { return index }
                index += 1
            }
            return nil
        }
        guard let lineFeed = found else {
            scanIndex = bytes.count
            return bytes.count - readIndex >= limit ? .tooLong : .incomplete
        }
        if lineFeed + 1 - readIndex > limit {
            // The line is complete but too long: leave it for discardLine().
            scanIndex = lineFeed
            return .tooLong
        }
        var end = lineFeed
        if end > readIndex && bytes[end - 1] == 13 { end -= 1 }
        let line = Array(bytes[readIndex..<end])
        readIndex = lineFeed + 1
        scanIndex = readIndex
        return .complete(line)
    }

    /// Drops bytes up to and including the next LF. Returns false (having dropped everything) if there is none yet.
    mutating func discardLine() -> Bool {
        let start = Swift.max(scanIndex, readIndex)
        var index = start
        while index < bytes.count {
            if bytes[index] == 10 {
                readIndex = index + 1
                scanIndex = readIndex
                return true
            }
            index += 1
        }
        readIndex = bytes.count
        scanIndex = readIndex
        return false
    }

    /// Calls `body` with the unread bytes; it returns how many it consumed.
    mutating func consume(_ body: (UnsafeBufferPointer<UInt8>) -> Int) {
        let start = readIndex
        let consumed = bytes.withUnsafeBufferPointer { buffer in
            body(UnsafeBufferPointer(rebasing: buffer[start...]))
        }
        readIndex += consumed
        scanIndex = Swift.max(scanIndex, readIndex)
    }

    mutating func removeAll() {
        bytes = []
        readIndex = 0
        scanIndex = 0
    }
}
