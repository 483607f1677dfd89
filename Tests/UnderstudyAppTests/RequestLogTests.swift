import Testing
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import UnderstudyHTTPServer
import UnderstudyJSON
import UnderstudyTestSupport
@testable import UnderstudyApp

/// The request log: its line formats, and a running server's lines for HTTP, HTTPS, CONNECT,
/// parse errors and SMTP.
@Suite(.serialized) struct RequestLogTests {
    static let exchange = HTTPExchange(method: "GET", host: "appleid.apple.com", target: "/auth/keys?x=1", status: 200,
                                       bytes: 1234, durationNanoseconds: 420_000, peer: "127.0.0.1:5555", isTLS: true)
    static let noon = timespec(tv_sec: 1_796_299_200, tv_nsec: 7_000_000)   // 2026-12-03T12:00:00.007Z

    @Test func textLinesAreLogfmtWithQuotingWhereNeeded() {
        let log = RequestLog(format: .text, sink: { _ in })
        let line = String(decoding: log.line([("kind", .text("http")), ("path", .text("/a b\"c\n")), ("n", .number(7)),
                                              ("to", .list(["a@x", "b@y"])), ("ms", .milliseconds(1_234_567))], time: Self.noon),
                          as: UTF8.self)
        #expect(line == #"time=2026-12-03T12:00:00.007Z kind=http path="/a b\"c\n" n=7 to=a@x,b@y ms=1.234"# + "\n")
        #expect(RequestLog.logfmtValue("") == #""""#)
        #expect(RequestLog.logfmtValue("k=v") == #""k=v""#)
        #expect(RequestLog.logfmtValue("\u{1}") == #""\u0001""#)
        #expect(RequestLog.milliseconds(42_000) == "0.042")
    }

    @Test func jsonLinesAreOneObjectEach() throws {
        let log = RequestLog(format: .json, sink: { _ in })
        let bytes = log.line([("kind", .text("smtp")), ("to", .list(["a@x"])), ("size", .number(10)), ("ms", .milliseconds(1_500_000))],
                             time: Self.noon)
        #expect(bytes.last == 10 && bytes.dropLast().allSatisfy { $0 != 10 })
        let object = try JSONValue.parse(Array(bytes.dropLast()))
        #expect(object == ["time": "2026-12-03T12:00:00.007Z", "kind": "smtp", "to": ["a@x"], "size": 10, "ms": .double(1.5)])
    }

    @Test func linesArriveInBatchesAndWhatOverflowsIsCounted() {
        let written = Mutex<[UInt8]>([])
        let log = RequestLog(format: .text, sink: { bytes in written.withLock { $0 += bytes } })
        let lines = RequestLog.bufferLimit / 100 + 1000   // more than the buffer holds before a flush can run
        for _ in 0..<lines { log.http(Self.exchange) }
        log.flush()
        let text = String(decoding: written.withLock { $0 }, as: UTF8.self)
        let count = text.split(separator: "\n").count { $0.contains("kind=https method=GET host=appleid.apple.com path=\"/auth/keys?x=1\" status=200 bytes=1234 ms=0.420 peer=127.0.0.1:5555") }
        let dropped = text.split(separator: "\n").first { $0.contains("kind=log dropped=") }
        #expect(count > 0)
        if count < lines {
            // The drop line tells how many went missing, and every request is accounted for.
            let n = dropped.flatMap { $0.split(separator: " ").first { $0.hasPrefix("dropped=") } }.flatMap { Int($0.dropFirst(8)) }
            #expect(n.map { $0 + count } == lines)
        }
    }

    static func start(format: String) throws -> (Application, SimpleHTTPClient, Box<[UInt8]>) {
        let written = Box<[UInt8]>([])
        let configuration = try Configuration.load(configFile: nil, environment: [:], flags: [
            "--http": "127.0.0.1:0", "--smtp": "127.0.0.1:0", "--https": "127.0.0.1:0",
            "--ca": ApplicationTests.caFolder.path + "/ca", "--log-format": format,
        ])
        let app = try Application(configuration: configuration, requestLogSink: { bytes in written.update { $0 += bytes } })
        return (app, try SimpleHTTPClient(server: app.httpAddresses[0]), written)
    }

    /// The log's lines once `count` lines containing `marker` have been written.
    static func lines(_ written: Box<[UInt8]>, containing marker: String, count: Int = 1) -> [String] {
        var found: [String] = []
        _ = waitUntil {
            found = String(decoding: written.value, as: UTF8.self).split(separator: "\n").map(String.init).filter { $0.contains(marker) }
            return found.count >= count
        }
        return found
    }

    @Test func aRunningServerLogsEveryRequestAndMessage() throws {
        let (app, client, written) = try Self.start(format: "text")
        defer { app.shutdown() }
        _ = try client.get("/healthz")
        _ = try client.request("GET", "/auth/keys", headers: [("Host", "appleid.apple.com")])
        _ = try client.request("GET", "/api/messages", headers: [("Host", "rebind.example")])
        _ = try client.request("CONNECT", "elsewhere.example:443", headers: [("Host", "elsewhere.example:443")])

        #expect(Self.lines(written, containing: "path=/healthz").first.map {
            $0.contains("kind=http method=GET") && $0.contains("status=200") && $0.contains("peer=127.0.0.1:")
        } == true)
        #expect(Self.lines(written, containing: "host=appleid.apple.com path=/auth/keys status=200").count == 1)
        #expect(Self.lines(written, containing: "host=rebind.example path=/api/messages status=421").count == 1)
        #expect(Self.lines(written, containing: "method=CONNECT host=elsewhere.example:443 path=elsewhere.example:443 status=403").count == 1)

        // A request that cannot be parsed is logged too, as the server's own 400.
        let raw = try BlockingSocket(host: "127.0.0.1", port: ListenAddress(app.httpAddresses[0])!.port)
        try raw.send("GET /\r\rx\r\n\r\n")
        _ = try? raw.readToEnd()
        #expect(Self.lines(written, containing: "method=- ").first?.contains("status=400") == true)

        let smtp = ListenAddress(app.smtpAddress)!
        let reply = try SimpleSMTPClient(host: smtp.host, port: smtp.port)
            .send(from: "noreply@example.com", to: ["alice@example.com", "bob@example.com"],
                  message: MailSinkTests.message(to: "alice@example.com", subject: "Code", body: "Your code is 123456"))
        let mail = Self.lines(written, containing: "kind=smtp")
        #expect(mail.count == 1)
        #expect(mail.first?.contains("from=noreply@example.com to=alice@example.com,bob@example.com size=") == true)
        #expect(mail.first?.contains("reply=\"250 2.0.0 Ok: queued as ") == true, "\(mail) \(reply)")
    }

    @Test func jsonFormatAndQuiet() throws {
        let (app, client, written) = try Self.start(format: "json")
        _ = try client.get("/healthz")
        let line = try #require(Self.lines(written, containing: "\"/healthz\"").first)
        let object = try JSONValue.parse(Array(line.utf8))
        #expect(object["kind"] == "http" && object["method"] == "GET" && object["status"] == 200)
        #expect(object["ms"]?.doubleValue != nil && object["time"]?.stringValue?.hasSuffix("Z") == true)
        app.shutdown()

        let (quiet, quietClient) = try ApplicationTests.start()   // --quiet
        defer { quiet.shutdown() }
        #expect(quiet.requestLog == nil)
        _ = try quietClient.get("/healthz")
    }
}
