import Foundation
import Testing
import UnderstudyTLS

/// The engine as a server for an independent client, `openssl s_client`, over a real TCP socket on
/// 127.0.0.1 port 0: the bytes are moved by a plain blocking loop with generous poll deadlines.
@Suite(.serialized, .enabled(if: OpenSSLTool.path != nil, "needs the openssl command-line tool"))
struct OpenSSLClientInteropTests {
    @Test(arguments: ["-tls1_3", "-tls1_2"])
    func sClientVerifiesTheServerAndExchangesData(versionFlag: String) throws {
        let listener = try LoopbackListener()
        defer { listener.close() }
        let caFile = FileManager.default.temporaryDirectory.appendingPathComponent("understudy-tls-\(UUID().uuidString).pem")
        try TestCredentials.text("test-ca.pem").write(to: caFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: caFile) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: OpenSSLTool.path!)
        process.arguments = ["s_client", "-connect", "127.0.0.1:\(listener.port)", "-servername", "appleid.apple.com",
                             "-CAfile", caFile.path, "-verify_return_error", "-verify_hostname", "appleid.apple.com",
                             "-alpn", "http/1.1", versionFlag, "-ign_eof", "-brief"]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data("GET /auth/keys HTTP/1.1\r\n\r\n".utf8))
        try stdin.fileHandleForWriting.close()

        let server = try TLSConnection(context: TestCredentials.serverContext())
        let socket = try #require(listener.accept(timeoutMilliseconds: 30_000), "s_client did not connect")
        defer { Glibc.close(socket) }
        var request: [UInt8] = []
        var answered = false
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            guard let bytes = LoopbackListener.read(socket, timeoutMilliseconds: 1000) else { break }  // peer closed
            server.consumeFromNetwork(bytes)
            request += server.readPlaintext()
            if !answered, request.count >= 4, request.suffix(4) == Array("\r\n\r\n".utf8) {
                try server.writePlaintext(Array("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok".utf8))
                server.close()
                answered = true
            }
            LoopbackListener.writeAll(socket, server.drainForNetwork())
            if answered { break }
            if server.failure != nil { break }
        }
        shutdown(socket, Int32(SHUT_WR))
        let output = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let diagnostics = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        #expect(server.failure == nil, "\(String(describing: server.failure))")
        #expect(String(decoding: request, as: UTF8.self) == "GET /auth/keys HTTP/1.1\r\n\r\n")
        #expect(output.contains("HTTP/1.1 200 OK") && output.hasSuffix("ok"), "\(output)")
        #expect(diagnostics.contains("Verification: OK"), "\(diagnostics)")
        #expect(diagnostics.contains(versionFlag == "-tls1_3" ? "Protocol version: TLSv1.3" : "Protocol version: TLSv1.2"), "\(diagnostics)")
        #expect(server.serverName == "appleid.apple.com")
        #expect(server.applicationProtocol == "http/1.1")
    }
}

enum OpenSSLTool {
    static var path: String? {
        ["/usr/bin/openssl", "/usr/local/bin/openssl"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A blocking TCP listener on 127.0.0.1, port 0, for the interop test.
struct LoopbackListener {
    let fd: Int32
    let port: UInt16

    struct Failure: Error { let call: String }

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(call: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            Glibc.close(fd)
            throw Failure(call: "bind/listen")
        }
        self.fd = fd
        self.port = UInt16(bigEndian: address.sin_port)
    }

    func accept(timeoutMilliseconds: Int32) -> Int32? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutMilliseconds) == 1 else { return nil }
        let connection = Glibc.accept(fd, nil, nil)
        return connection >= 0 ? connection : nil
    }

    func close() { Glibc.close(fd) }

    /// What arrived within the timeout ([] if nothing), or nil once the peer closed.
    static func read(_ fd: Int32, timeoutMilliseconds: Int32) -> [UInt8]? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutMilliseconds) == 1 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        return n > 0 ? Array(buffer.prefix(n)) : nil
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }
}
