#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// A stored message's raw bytes, read a piece at a time: from its log segment (kept open, so a
/// segment removed meanwhile still reads), or from memory for messages stored before the log.
/// Serving a large message this way holds one piece, not the whole message, per reader.
///
/// Call `close()` once done (reading to the end closes it too); the descriptor is never closed in
/// `deinit`. Safe from any thread.
public final class RawMessageReader: Sendable {
    private enum Source {
        case file(fd: Int32, offset: Int64)
        case memory([UInt8])
        case closed
    }

    private struct State {
        var source: Source
        var done = 0
    }

    /// The message's size in bytes.
    public let count: Int
    private let state: Mutex<State>

    init(fd: Int32, offset: Int64, count: Int) {
        self.count = count
        state = Mutex(State(source: .file(fd: fd, offset: offset)))
    }

    /// Bytes already in memory, handed out a piece at a time the same way.
    public init(bytes: [UInt8]) {
        count = bytes.count
        state = Mutex(State(source: .memory(bytes)))
    }

    /// The next at most `limit` bytes; empty at the end (and then closed). Throws when the log
    /// cannot be read (the reader is closed then).
    public func read(upTo limit: Int) throws -> [UInt8] {
        try state.withLock { state throws(DatabaseError) -> [UInt8] in
            let n = min(limit, count - state.done)
            switch state.source {
            case .closed:
                return []
            case .memory(let bytes):
                defer { state.done += n }
                if n <= 0 { state.source = .closed; return [] }
                return Array(bytes[state.done..<state.done + n])
            case .file(let fd, let offset):
                if n <= 0 { Self.close(&state); return [] }
                var piece = [UInt8](repeating: 0, count: n)
                guard MessageLog.readFully(fd, &piece, at: offset + Int64(state.done)) else {
                    Self.close(&state)
                    throw DatabaseError.invalidPath("message log", reason: "a message's segment ended early or could not be read")
                }
                state.done += n
                return piece
            }
        }
    }

    /// Releases the descriptor; later reads return nothing. Idempotent.
    public func close() {
        state.withLock { Self.close(&$0) }
    }

    private static func close(_ state: inout State) {
        if case .file(let fd, _) = state.source { _ = Glibc.close(fd) }
        state.source = .closed
    }
}

extension MessageLog {
    /// Opens the record at `position` for reading its raw message piece by piece: nil when its
    /// segment is gone or the bytes there are not a record. The envelope is skipped, not checked
    /// against the record's checksum (a record the index points at was appended whole).
    func rawReader(at position: Int64) throws -> RawMessageReader? {
        let path = Self.path(directory, Position.segment(position))
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw DatabaseError.invalidPath(path, reason: "cannot read the message log (\(String(cString: strerror(errno))))")
        }
        let start = Position.offset(position)
        var cursor = start
        func take(_ n: Int) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: n)
            guard MessageLog.readFully(fd, &bytes, at: cursor) else { return nil }
            cursor += Int64(n)
            return bytes
        }
        func u16(_ bytes: [UInt8], at i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 }
        // Head: magic, body length, checksum; body: id (26), arrival (8), from, recipients, raw.
        guard let head = take(Self.headBytes),
              UInt32(head[0]) | UInt32(head[1]) << 8 | UInt32(head[2]) << 16 | UInt32(head[3]) << 24 == Self.magic,
              case let length = Int(UInt32(head[4]) | UInt32(head[5]) << 8 | UInt32(head[6]) << 16 | UInt32(head[7]) << 24),
              length <= Self.maximumBodyBytes,
              let fixed = take(26 + 8 + 2), let from = take(u16(fixed, at: 34) + 2) else {
            _ = Glibc.close(fd)
            return nil
        }
        var recipients = u16(from, at: from.count - 2)
        while recipients > 0 {
            guard let n = take(2) else { _ = Glibc.close(fd); return nil }
            cursor += Int64(u16(n, at: 0))
            recipients -= 1
        }
        let bodyStart = start + Int64(Self.headBytes)
        let rawCount = length - Int(cursor - bodyStart)
        guard rawCount >= 0 else { _ = Glibc.close(fd); return nil }
        return RawMessageReader(fd: fd, offset: cursor, count: rawCount)
    }
}

extension MessageStore {
    /// The message's original bytes as a reader (see `RawMessageReader`), or nil when there is no
    /// such message. The caller closes it.
    public func rawReader(id: String) throws -> RawMessageReader? {
        guard let found = try rawLocation(id: id) else { return nil }
        if let position = found.position {
            return try log.rawReader(at: position)
        }
        return found.raw.map { RawMessageReader(bytes: $0) }
    }
}
