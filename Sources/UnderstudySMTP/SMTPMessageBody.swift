/// The data of one message while it arrives: kept up to the size limit, then only counted.
struct SMTPMessageBody: Sendable {
    private(set) var bytes: [UInt8] = []
    /// Octets received so far, including those discarded past the limit.
    private(set) var size = 0
    let limit: Int

    init(limit: Int, expectedSize: Int?) {
        self.limit = limit
        if let expectedSize, expectedSize > 0 { bytes.reserveCapacity(Swift.min(expectedSize + 64, limit)) }
    }

    var exceedsLimit: Bool { size > limit }

    mutating func append(_ chunk: UnsafeBufferPointer<UInt8>) {
        guard !chunk.isEmpty else { return }
        size += chunk.count
        if size <= limit {
            bytes.append(contentsOf: chunk)
        } else if !bytes.isEmpty || bytes.capacity > 0 {
            bytes = []  // over the limit: free what was kept, the message will be refused
        }
    }

    mutating func appendLineEnd() {
        size += 2
        if size <= limit {
            bytes.append(13)
            bytes.append(10)
        } else if bytes.capacity > 0 {
            bytes = []
        }
    }

    mutating func takeBytes() -> [UInt8] {
        let result = bytes
        bytes = []
        return result
    }
}
