import Foundation
import Synchronization
import UnderstudyTLS

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct Scratch {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-ca-\(UUID().uuidString)").path
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    func write(_ name: String, _ text: String, mode: Int = 0o600) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let file = path + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file)
    }

    static func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}

/// A settable clock for the CA (seconds since 1970).
final class TestClock: Sendable {
    private let now: Mutex<Int64>
    init(_ start: Int64) { now = Mutex(start) }
    func advance(by seconds: Int64) { now.withLock { $0 += seconds } }
    var read: @Sendable () -> Int64 { { [self] in now.withLock { $0 } } }
}

/// Handshakes a client and a server engine by moving bytes between them until both are quiet.
func handshake(client clientContext: TLSContext, server serverContext: TLSContext, serverName: String) throws -> (client: TLSConnection, server: TLSConnection) {
    let client = try TLSConnection(context: clientContext, serverName: serverName)
    let server = try TLSConnection(context: serverContext)
    for _ in 0..<100 {
        let toServer = client.drainForNetwork()
        let toClient = server.drainForNetwork()
        if toServer.isEmpty && toClient.isEmpty { break }
        server.consumeFromNetwork(toServer)
        client.consumeFromNetwork(toClient)
    }
    return (client, server)
}

/// Runs the `openssl` command-line tool; its stdout, or nil if it exits non-zero.
enum OpenSSLCommand {
    static var path: String? {
        ["/usr/bin/openssl", "/usr/local/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func run(_ arguments: [String]) -> String? {
        guard let path else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: output, as: UTF8.self) : nil
    }
}
