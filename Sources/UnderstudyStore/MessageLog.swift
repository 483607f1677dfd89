#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CShims
import Synchronization

/// One message as the log holds it: what SMTP accepted, before any decoding.
public struct MessageLogRecord: Sendable, Equatable {
    public var id: String
    /// Milliseconds since the Unix epoch.
    public var receivedAt: Int64
    public var envelopeFrom: String
    public var envelopeTo: [String]
    public var raw: [UInt8]
    /// Where the record starts, and where the next one does (see `MessageLog.Position`).
    public var position: Int64
    public var end: Int64
}

/// Append-only segment files holding every accepted message byte for byte: the store's durable
/// copy of the raw mail. SQLite indexes the log (decoded fields, recipients, search) and keeps
/// each message's position in it; the raw bytes are written once, here, instead of twice (WAL,
/// then checkpoint) inside B-tree pages.
///
/// A message is stored once its record is appended: the write reaches the kernel before the
/// SMTP 250, so it survives SIGKILL, like a committed WAL frame (nothing here or in SQLite
/// calls fsync per message; only an OS crash can lose the last writes). Records not yet indexed
/// when the process stopped are read back with `forEachRecord`, and indexed again.
///
/// Layout: files `<16 hex digits>.log` in one directory, numbered from 1; a new segment starts
/// once the current one reaches `segmentBytes`. A record is a 16-byte head (magic, body length,
/// checksum of the body) and a body (id, arrival time, envelope, raw message). A segment is
/// deleted whole once no stored message lies in it (`removeSegments(before:)`).
final class MessageLog: Sendable {
    /// A place in the log: segment number in the high bits, byte offset in the low 40.
    enum Position {
        static let offsetBits: Int64 = 40
        static func make(segment: Int64, offset: Int64) -> Int64 { segment << offsetBits | offset }
        static func segment(_ position: Int64) -> Int64 { position >> offsetBits }
        static func offset(_ position: Int64) -> Int64 { position & ((1 << offsetBits) - 1) }
    }

    static let defaultSegmentBytes = 64 << 20
    static let magic: UInt32 = 0x314D_5355  // "USM1", little-endian
    static let headBytes = 16
    /// Largest record body read back: the store's largest message plus its envelope.
    static let maximumBodyBytes = NewMessage.maximumRawSize + 8 << 20

    let directory: String
    let segmentBytes: Int
    /// Holds an exclusive flock on `<directory>/lock` while open.
    private let lockFD: Int32
    private let state: Mutex<Appender>
    /// Test seam (see `MessageStore.failLogWrites`): nonzero makes every append fail with it.
    let injectedWriteErrno = Atomic<Int32>(0)

    private struct Appender {
        var fd: Int32
        var segment: Int64
        var tail: Int64
        /// The file's length: space is allocated ahead of `tail`, `allocationStep` at a time.
        var allocated: Int64
    }

    /// How far ahead of the records a segment's space is allocated. Appending a few KiB at a time
    /// to the end of a file makes the kernel zero the rest of each new page-cache folio, over and
    /// over (large folios, ext4 on Linux 6.x); writing inside space already allocated does not.
    static let allocationStep: Int64 = 4 << 20

    /// Opens (creating it if needed) the log in `directory`, ready to append after the records
    /// from `position` on (which the index has not seen: `forEachRecord` reads them). A record cut
    /// short (the process died while writing it, before anyone was told it was stored) can only
    /// end the newest segment, the one appended to: it is truncated there. In an older segment a
    /// damaged record ends what `forEachRecord` reads of it.
    static func open(directory: String, segmentBytes: Int = defaultSegmentBytes, from position: Int64) throws -> MessageLog {
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw DatabaseError.invalidPath(directory, reason: "cannot create the message log directory (\(errnoText()))")
        }
        // One process appends to a log: two would write over each other's records.
        let lockFD = Glibc.open(directory + "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockFD >= 0 else {
            throw DatabaseError.invalidPath(directory, reason: "cannot create the message log's lock file (\(errnoText()))")
        }
        guard flock(lockFD, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = busy ? "another process is using this store; stop it first" : "cannot lock the message log (\(errnoText()))"
            Glibc.close(lockFD)
            throw DatabaseError.invalidPath(directory, reason: reason)
        }
        do {
            return try open(directory: directory, segmentBytes: segmentBytes, from: position, lockFD: lockFD)
        } catch {
            Glibc.close(lockFD)
            throw error
        }
    }

    private static func open(directory: String, segmentBytes: Int, from position: Int64, lockFD: Int32) throws -> MessageLog {
        let segments = try listSegments(directory)
        let fromSegment = Position.segment(position)
        // Appending resumes at the end of the valid records of the newest segment.
        var last = (segment: max(fromSegment, 1), end: Int64(-1))
        if let newest = segments.last, newest >= fromSegment {
            let start = newest == fromSegment ? Position.offset(position) : 0
            let (validEnd, size) = try scan(path: path(directory, newest), segment: newest, from: start) { _ in }
            // Past the records: a torn one, or the zeros of space allocated ahead.
            if validEnd < size {
                let fd = Glibc.open(path(directory, newest), O_WRONLY | O_CLOEXEC)
                if fd >= 0 {
                    _ = ftruncate(fd, off_t(validEnd))
                    Glibc.close(fd)
                }
            }
            last = (newest, size < start ? -1 : validEnd)
        }
        // A segment shorter than where the index says it got (or missing) is not appended to:
        // records written there would sit before the index's position and be skipped on reopening.
        if last.end < 0 {
            last = (segments.contains(last.segment) || Position.offset(position) > 0 ? last.segment + 1 : last.segment, 0)
        }
        let file = path(directory, last.segment)
        let fd = Glibc.open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw DatabaseError.invalidPath(file, reason: "cannot open the message log (\(errnoText()))")
        }
        _ = ftruncate(fd, off_t(last.end))
        return MessageLog(directory: directory, segmentBytes: segmentBytes, lockFD: lockFD,
                          appender: Appender(fd: fd, segment: last.segment, tail: last.end, allocated: last.end))
    }

    /// Hands `body` the records from `position` on, in order, a run at a time (at most
    /// `chunkRecords` records or about `chunkBytes` of them), so reading back a long log never
    /// holds more than one run in memory.
    func forEachRecord(from position: Int64, chunkRecords: Int = 256, chunkBytes: Int = 32 << 20,
                       _ body: ([MessageLogRecord]) throws -> Void) throws {
        let fromSegment = Position.segment(position)
        var chunk: [MessageLogRecord] = []
        var bytes = 0
        for segment in try Self.listSegments(directory) where segment >= fromSegment {
            let start = segment == fromSegment ? Position.offset(position) : 0
            _ = try Self.scan(path: Self.path(directory, segment), segment: segment, from: start) { record in
                chunk.append(record)
                bytes += record.raw.count
                if chunk.count >= chunkRecords || bytes >= chunkBytes {
                    try body(chunk)
                    chunk.removeAll(keepingCapacity: true)
                    bytes = 0
                }
            }
        }
        if !chunk.isEmpty { try body(chunk) }
    }

    private init(directory: String, segmentBytes: Int, lockFD: Int32, appender: Appender) {
        self.directory = directory
        self.lockFD = lockFD
        self.segmentBytes = max(4096, segmentBytes)
        state = Mutex(appender)
    }

    static func path(_ directory: String, _ segment: Int64) -> String {
        let hex = String(UInt64(segment), radix: 16)
        return "\(directory)/\(String(repeating: "0", count: max(0, 16 - hex.count)))\(hex).log"
    }

    /// The segment numbers present, ascending.
    static func listSegments(_ directory: String) throws -> [Int64] {
        guard let dir = opendir(directory) else {
            throw DatabaseError.invalidPath(directory, reason: "cannot read the message log directory (\(errnoText()))")
        }
        defer { closedir(dir) }
        var segments: [Int64] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            guard name.utf8.count == 20, name.hasSuffix(".log"),
                  let number = UInt64(name.prefix(16), radix: 16), number > 0, number < 1 << 23 else { continue }
            segments.append(Int64(number))
        }
        return segments.sorted()
    }

    // MARK: Appending

    /// Appends one record; returns where it starts and ends. Callers that need records in a
    /// known order (the inbox's queue) call this under their own lock.
    func append(id: String, receivedAt: Int64, envelopeFrom: String, envelopeTo: [String],
                raw: [UInt8]) throws -> (position: Int64, end: Int64) {
        let record = Self.encode(id: id, receivedAt: receivedAt, envelopeFrom: envelopeFrom,
                                 envelopeTo: envelopeTo, raw: raw)
        return try state.withLock { s in
            guard s.fd >= 0 else { throw DatabaseError.closed }
            if s.tail > 0 && s.tail + Int64(record.count) > Int64(segmentBytes) {
                let next = s.segment + 1
                let fd = Glibc.open(Self.path(directory, next), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
                guard fd >= 0 else {
                    throw DatabaseError.storage(Self.path(directory, next), errno: errno, doing: "start the message log segment")
                }
                _ = ftruncate(s.fd, off_t(s.tail))  // give back the space allocated ahead
                Glibc.close(s.fd)
                s = Appender(fd: fd, segment: next, tail: 0, allocated: 0)
            }
            let start = s.tail
            if start + Int64(record.count) > s.allocated {
                // Best effort: without it (a file system that cannot) appends just cost more.
                let length = max(Self.allocationStep, start + Int64(record.count) - s.allocated)
                if CShims_fallocate(s.fd, s.allocated, length) == 0 { s.allocated += length }
            }
            var written = 0
            let injected = injectedWriteErrno.load(ordering: .relaxed)
            let failure: Int32? = injected != 0 ? injected : record.withUnsafeBytes { bytes in
                while written < bytes.count {
                    let n = pwrite(s.fd, bytes.baseAddress! + written, bytes.count - written, off_t(start) + off_t(written))
                    if n > 0 { written += n } else if n < 0 && errno == EINTR { continue } else { return n < 0 ? errno : ENOSPC }
                }
                return nil
            }
            if let failure {
                // Leave no partial record behind.
                _ = ftruncate(s.fd, off_t(start))
                s.allocated = start
                throw DatabaseError.storage(Self.path(directory, s.segment), errno: failure, doing: "write to the message log")
            }
            s.tail = start + Int64(record.count)
            return (Position.make(segment: s.segment, offset: start), Position.make(segment: s.segment, offset: s.tail))
        }
    }

    static func encode(id: String, receivedAt: Int64, envelopeFrom: String, envelopeTo: [String], raw: [UInt8]) -> [UInt8] {
        var body: [UInt8] = []
        let fromBytes = Array(envelopeFrom.utf8.prefix(Int(UInt16.max)))
        let addresses = envelopeTo.prefix(Int(UInt16.max)).map { Array($0.utf8.prefix(Int(UInt16.max))) }
        body.reserveCapacity(headBytes + 26 + 8 + 4 + fromBytes.count + addresses.reduce(0) { $0 + 2 + $1.count } + raw.count)
        body.append(contentsOf: [UInt8](repeating: 0, count: headBytes))
        body.append(contentsOf: Array(id.utf8.prefix(26)) + [UInt8](repeating: 0x30, count: max(0, 26 - id.utf8.count)))
        appendInteger(&body, UInt64(bitPattern: receivedAt))
        appendInteger(&body, UInt16(fromBytes.count))
        body.append(contentsOf: fromBytes)
        appendInteger(&body, UInt16(addresses.count))
        for address in addresses {
            appendInteger(&body, UInt16(address.count))
            body.append(contentsOf: address)
        }
        body.append(contentsOf: raw)
        let length = UInt32(body.count - headBytes)
        let sum = body.withUnsafeBytes { checksum(UnsafeRawBufferPointer(rebasing: $0[headBytes...])) }
        body.withUnsafeMutableBytes { head in
            head.storeBytes(of: magic.littleEndian, toByteOffset: 0, as: UInt32.self)
            head.storeBytes(of: length.littleEndian, toByteOffset: 4, as: UInt32.self)
            head.storeBytes(of: sum.littleEndian, toByteOffset: 8, as: UInt64.self)
        }
        return body
    }

    private static func appendInteger<T: FixedWidthInteger>(_ out: inout [UInt8], _ value: T) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    /// 64-bit checksum of a record body, eight bytes a step: it only has to catch a damaged
    /// record, not resist an adversary.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var i = 0
        while i + 8 <= bytes.count {
            h = (h ^ bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self).littleEndian) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 29
            i += 8
        }
        var last: UInt64 = 0
        var shift: UInt64 = 0
        while i < bytes.count {
            last |= UInt64(bytes[i]) << shift
            shift += 8
            i += 1
        }
        h = (h ^ last) &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h = h &* 0xC4CE_B9FE_1A85_EC53
        return h ^ (h >> 33)
    }

    // MARK: Reading

    /// The record at `position`, or nil when its segment is gone or the bytes there are not one.
    func read(at position: Int64) throws -> MessageLogRecord? {
        let path = Self.path(directory, Position.segment(position))
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw DatabaseError.invalidPath(path, reason: "cannot read the message log (\(errnoText()))")
        }
        defer { Glibc.close(fd) }
        return Self.readRecord(fd: fd, segment: Position.segment(position), at: Position.offset(position))
    }

    /// Reads one record; nil when it is cut short, damaged or not a record.
    private static func readRecord(fd: Int32, segment: Int64, at offset: Int64) -> MessageLogRecord? {
        var head = [UInt8](repeating: 0, count: headBytes)
        guard readFully(fd, &head, at: offset) else { return nil }
        let (magicValue, length, sum) = head.withUnsafeBytes { b in
            (UInt32(littleEndian: b.loadUnaligned(fromByteOffset: 0, as: UInt32.self)),
             Int(UInt32(littleEndian: b.loadUnaligned(fromByteOffset: 4, as: UInt32.self))),
             UInt64(littleEndian: b.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
        guard magicValue == magic, length >= 26 + 8 + 4, length <= maximumBodyBytes else { return nil }
        var body = [UInt8](repeating: 0, count: length)
        guard readFully(fd, &body, at: offset + Int64(headBytes)),
              body.withUnsafeBytes({ checksum($0) }) == sum else { return nil }
        var reader = FieldReader(bytes: body)
        guard let idBytes = reader.bytes(26), let receivedAt = reader.integer(UInt64.self),
              let fromCount = reader.integer(UInt16.self), let from = reader.bytes(Int(fromCount)),
              let addressCount = reader.integer(UInt16.self) else { return nil }
        var addresses: [String] = []
        for _ in 0..<addressCount {
            guard let n = reader.integer(UInt16.self), let address = reader.bytes(Int(n)) else { return nil }
            addresses.append(String(decoding: address, as: UTF8.self))
        }
        let end = offset + Int64(headBytes + length)
        return MessageLogRecord(id: String(decoding: idBytes, as: UTF8.self), receivedAt: Int64(bitPattern: receivedAt),
                                envelopeFrom: String(decoding: from, as: UTF8.self), envelopeTo: addresses,
                                raw: Array(body[reader.offset...]),
                                position: Position.make(segment: segment, offset: offset),
                                end: Position.make(segment: segment, offset: end))
    }

    private struct FieldReader {
        let bytes: [UInt8]
        var offset = 0
        mutating func bytes(_ n: Int) -> ArraySlice<UInt8>? {
            guard n >= 0, offset + n <= bytes.count else { return nil }
            defer { offset += n }
            return bytes[offset..<offset + n]
        }
        mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
            guard let slice = bytes(MemoryLayout<T>.size) else { return nil }
            return slice.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(as: T.self)) }
        }
    }

    /// Fills `buffer` from `fd` at `offset` (pread, retried on EINTR); false on EOF or an error.
    static func readFully(_ fd: Int32, _ buffer: inout [UInt8], at offset: Int64) -> Bool {
        var done = 0
        let count = buffer.count
        return buffer.withUnsafeMutableBytes { b -> Bool in
            while done < count {
                let n = pread(fd, b.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { return false }
            }
            return true
        }
    }

    /// Reads one segment's records from `offset` on, passing each to `each`; returns where the
    /// valid ones end and the file's size.
    private static func scan(path: String, segment: Int64, from offset: Int64,
                             each: (MessageLogRecord) throws -> Void) throws -> (validEnd: Int64, size: Int64) {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw DatabaseError.invalidPath(path, reason: "cannot read the message log (\(errnoText()))") }
        defer { Glibc.close(fd) }
        let size = Int64(lseek(fd, 0, SEEK_END))
        var at = offset
        while at < size, let record = readRecord(fd: fd, segment: segment, at: at) {
            try each(record)
            at = Position.offset(record.end)
        }
        return (min(at, size), size)
    }

    // MARK: Removing

    /// Deletes every segment before the one holding `position`, never the one being appended to.
    func removeSegments(before position: Int64) {
        let keepFrom = Position.segment(position)
        let active = state.withLock { $0.segment }
        guard let segments = try? Self.listSegments(directory) else { return }
        for segment in segments where segment < keepFrom && segment < active {
            unlink(Self.path(directory, segment))
        }
    }

    /// Where the next record will start.
    var tail: Int64 { state.withLock { Position.make(segment: $0.segment, offset: $0.tail) } }

    func close() {
        state.withLock { s in
            guard s.fd >= 0 else { return }
            _ = ftruncate(s.fd, off_t(s.tail))
            Glibc.close(s.fd)
            s.fd = -1
            Glibc.close(lockFD)  // releases the lock
        }
    }
}

private func errnoText() -> String { String(cString: strerror(errno)) }
