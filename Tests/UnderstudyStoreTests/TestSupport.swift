#if canImport(Glibc)
import Glibc
#endif
@testable import UnderstudyStore

func makeStore(maxMessages: Int = MessageStore.defaultMaxMessages) throws -> MessageStore {
    try MessageStore(location: .temporary, maxMessages: maxMessages)
}

func sample(_ n: Int, to: String = "user@example.com", subject: String? = nil, text: String? = nil,
            codes: [String] = [], receivedAt: Int64? = nil) -> NewMessage {
    let subject = subject ?? "Message \(n)"
    let raw = Array("From: sender@example.com\r\nTo: \(to)\r\nSubject: \(subject)\r\n\r\n\(text ?? "Body \(n)")\r\n".utf8)
    return NewMessage(receivedAt: receivedAt ?? 1_700_000_000_000 + Int64(n), raw: raw,
                      envelopeFrom: "bounce@example.com", envelopeTo: [to], from: "Sender <sender@example.com>",
                      to: [to], subject: subject, text: text ?? "Body \(n)", snippet: String((text ?? "Body").prefix(40)),
                      codes: codes)
}

/// A directory of its own for file-backed tests, removed by `remove()`.
struct ScratchDirectory {
    let directory: TemporaryDirectory
    var path: String { directory.path }
    init() throws { directory = try TemporaryDirectory.make(prefix: "understudy-store-test") }
    func remove() { directory.remove() }
}

func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : -1
}

/// Copies a file byte for byte (used to capture a database as a killed process leaves it).
func copyFile(_ source: String, to destination: String) throws {
    guard let input = fopen(source, "rb") else { throw DatabaseError.decoding("cannot open \(source)") }
    defer { fclose(input) }
    guard let output = fopen(destination, "wb") else { throw DatabaseError.decoding("cannot create \(destination)") }
    defer { fclose(output) }
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let read = fread(&buffer, 1, buffer.count, input)
        if read == 0 { break }
        _ = fwrite(buffer, 1, read, output)
    }
}

/// Copies a store as a killed process leaves it on disk: the database, its WAL and the message log.
func copyStoreAsKilled(_ path: String, to destination: String) throws {
    try copyFile(path, to: destination)
    try copyFile(path + "-wal", to: destination + "-wal")
    guard mkdir(destination + "-messages", 0o700) == 0 else { throw DatabaseError.decoding("cannot create \(destination)-messages") }
    for segment in try MessageLog.listSegments(path + "-messages") {
        try copyFile(MessageLog.path(path + "-messages", segment), to: MessageLog.path(destination + "-messages", segment))
    }
}

func monotonicMilliseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) * 1000 + Double(now.tv_nsec) / 1_000_000
}

/// CPU time of the whole process (all threads), in milliseconds.
func processCPUMilliseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) * 1000 + Double(now.tv_nsec) / 1_000_000
}
