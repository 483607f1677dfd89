import Dispatch
import Testing
@testable import UnderstudyApp
@testable import UnderstudyStore

/// Requests that read SQLite run on the worker pool: while one is stuck, the loop thread it came in
/// on goes on answering HTTP and SMTP.
@Suite(.serialized) struct WorkOffTheLoopTests {
    @Test func aStuckStoreReadDelaysNeitherSMTPNorHealth() throws {
        // One loop thread, so the stuck request, the SMTP session and /healthz all share it.
        let (app, client) = try ApplicationTests.start(["--threads": "1"])
        defer { app.shutdown() }
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? app.inbox.store.pool.read { _ in holding.signal(); release.wait() }
            held.signal()
        }
        holding.wait()
        defer { release.signal(); held.wait() }

        // This request waits for the reader the test holds.
        let httpPort = Int(app.httpAddresses[0].split(separator: ":").last ?? "") ?? 0
        let stuck = try BlockingSocket(host: "127.0.0.1", port: httpPort, timeout: 10)
        defer { stuck.close() }
        try stuck.send("GET /api/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")

        // Meanwhile the same loop answers everyone else.
        let health = try client.get("/healthz", readTimeout: 5)
        #expect(health.status == 200)
        let port = Int(app.smtpAddress.split(separator: ":").last ?? "") ?? 0
        let smtp = try BlockingSocket(host: "127.0.0.1", port: port, timeout: 5)
        defer { smtp.close() }
        #expect(try SimpleSMTPClient.readReply(smtp).code == 220)
        try smtp.send("EHLO test.local\r\n")
        #expect(try SimpleSMTPClient.readReply(smtp).code == 250)

        // Once the reader is free, the stuck request is answered too.
        release.signal()
        let status = try stuck.readLine()
        #expect(status?.hasPrefix("HTTP/1.1 200") == true)
    }
}
