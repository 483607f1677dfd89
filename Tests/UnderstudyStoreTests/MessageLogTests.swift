#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import UnderstudyStore

@Suite struct MessageLogTests {
    static func append(_ log: MessageLog, _ n: Int, size: Int = 100) throws -> (position: Int64, end: Int64) {
        try log.append(id: "01M8X0STMX2P6MC8XJA492B" + Self.three(n), receivedAt: 1_700_000_000_000 + Int64(n),
                       envelopeFrom: "from\(n)@example.com", envelopeTo: ["to@example.com", "ünï@example.com"],
                       raw: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) })
    }

    /// Opens the log and reads back what lies past `position`, two records a run (so runs are exercised).
    static func open(_ directory: String, segmentBytes: Int = MessageLog.defaultSegmentBytes,
                     from position: Int64) throws -> (MessageLog, [MessageLogRecord]) {
        let log = try MessageLog.open(directory: directory, segmentBytes: segmentBytes, from: position)
        var records: [MessageLogRecord] = []
        try log.forEachRecord(from: position, chunkRecords: 2) { records += $0 }
        return (log, records)
    }

    static func three(_ n: Int) -> String {
        let digits = String(n)
        return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
    }

    @Test func recordsReadBackByteForByte() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let (log, pending) = try Self.open(scratch.path + "/log", from: 0)
        defer { log.close() }
        #expect(pending.isEmpty)
        let first = try Self.append(log, 1)
        let second = try Self.append(log, 2, size: 0)
        #expect(second.position == first.end)
        let record = try #require(try log.read(at: first.position))
        #expect(record.id == "01M8X0STMX2P6MC8XJA492B001")
        #expect(record.receivedAt == 1_700_000_000_001)
        #expect(record.envelopeFrom == "from1@example.com")
        #expect(record.envelopeTo == ["to@example.com", "ünï@example.com"])
        #expect(record.raw == (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 1) })
        #expect(record.end == first.end)
        #expect(try log.read(at: second.position)?.raw == [])
        // Not the start of a record: nil, not garbage.
        #expect(try log.read(at: first.position + 5) == nil)
    }

    @Test func reopeningReturnsTheRecordsPastAPositionAndAppendsAfterThem() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.path + "/log"
        var (log, _) = try Self.open(directory, from: 0)
        let ends = try (0..<5).map { try Self.append(log, $0).end }
        log.close()
        let pending: [MessageLogRecord]
        (log, pending) = try Self.open(directory, from: ends[2])
        #expect(pending.map(\.id) == ["01M8X0STMX2P6MC8XJA492B003", "01M8X0STMX2P6MC8XJA492B004"])
        #expect(pending.last?.end == ends[4])
        let next = try Self.append(log, 5)
        #expect(next.position == ends[4])
        log.close()
        // The space allocated ahead is given back: the file ends at the last record.
        #expect(fileSize(MessageLog.path(directory, 1)) == Int(MessageLog.Position.offset(next.end)))
    }

    @Test func aRecordCutShortOrDamagedEndsTheLogAndIsWrittenOver() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.path + "/log"
        var (log, _) = try Self.open(directory, from: 0)
        let a = try Self.append(log, 1)
        let b = try Self.append(log, 2)
        log.close()
        let file = MessageLog.path(directory, 1)
        // A process killed mid-write leaves the start of a record.
        #expect(truncate(file, off_t(MessageLog.Position.offset(b.end) - 7)) == 0)
        var pending: [MessageLogRecord]
        (log, pending) = try Self.open(directory, from: 0)
        #expect(pending.map(\.end) == [a.end])
        let c = try Self.append(log, 3)
        #expect(c.position == a.end)
        log.close()
        // A flipped byte fails the checksum.
        let fd = Glibc.open(file, O_WRONLY)
        var byte: UInt8 = 0xFF
        #expect(pwrite(fd, &byte, 1, off_t(MessageLog.Position.offset(c.position)) + 40) == 1)
        close(fd)
        (log, pending) = try Self.open(directory, from: 0)
        defer { log.close() }
        #expect(pending.map(\.end) == [a.end])
    }

    @Test func segmentsRollAndAreRemovedWhole() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.path + "/log"
        var (log, _) = try Self.open(directory, segmentBytes: 4096, from: 0)
        let written = try (0..<10).map { try Self.append(log, $0, size: 1500) }
        let segments = try MessageLog.listSegments(directory)
        #expect(segments.count == 5)  // two records of ~1.6 KB fit in 4 KiB
        #expect(written.map { MessageLog.Position.segment($0.position) } == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5])
        // Every record reads back across segments, and reopening from the start finds them all.
        for (n, w) in written.enumerated() { #expect(try log.read(at: w.position)?.id.hasSuffix(Self.three(n)) == true) }
        log.removeSegments(before: written[5].position)
        #expect(try MessageLog.listSegments(directory) == [3, 4, 5])
        #expect(try log.read(at: written[0].position) == nil)
        // The segment being appended to stays, whatever the position.
        log.removeSegments(before: MessageLog.Position.make(segment: 99, offset: 0))
        #expect(try MessageLog.listSegments(directory) == [5])
        log.close()
        let pending: [MessageLogRecord]
        (log, pending) = try Self.open(directory, segmentBytes: 4096, from: written[8].end)
        defer { log.close() }
        #expect(pending.map(\.end) == [written[9].end])
    }

    @Test func aDamagedRecordInAnOlderSegmentEndsOnlyThatSegment() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.path + "/log"
        var (log, _) = try Self.open(directory, segmentBytes: 4096, from: 0)
        let written = try (0..<6).map { try Self.append(log, $0, size: 1500) }  // two a segment
        log.close()
        // Flip a byte inside the second record of segment 1 (say, a bad sector).
        let fd = Glibc.open(MessageLog.path(directory, 1), O_WRONLY)
        var byte: UInt8 = 0xFF
        #expect(pwrite(fd, &byte, 1, off_t(MessageLog.Position.offset(written[1].position)) + 100) == 1)
        Glibc.close(fd)
        let pending: [MessageLogRecord]
        (log, pending) = try Self.open(directory, segmentBytes: 4096, from: 0)
        defer { log.close() }
        #expect(pending.map(\.end) == [written[0].end] + written[2...].map(\.end))
        // Appending resumes after the newest segment's records.
        #expect(try Self.append(log, 7).position == written[5].end)
    }

    @Test func aLogBehindTheIndexIsNotAppendedToBeforeThePositionTheIndexHolds() throws {
        // The database says it indexed through segment 3, but the log directory was emptied (or
        // copied without its newest segment): new records must land past that position, or they
        // would be skipped when the store opens again.
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.path + "/log"
        let held = MessageLog.Position.make(segment: 3, offset: 500)
        var (log, pending) = try Self.open(directory, from: held)
        #expect(pending.isEmpty)
        let next = try Self.append(log, 1)
        #expect(next.position > held)
        log.close()
        (log, pending) = try Self.open(directory, from: held)
        defer { log.close() }
        #expect(pending.map(\.end) == [next.end])
    }

    @Test func aClosedLogRefusesToAppend() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let directory = scratch.path + "/log"
        let (log, _) = try Self.open(directory, from: 0)
        _ = try Self.append(log, 1)
        log.close()
        #expect(throws: DatabaseError.self) { try Self.append(log, 2) }
    }
}
