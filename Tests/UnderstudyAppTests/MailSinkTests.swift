import Synchronization
import Testing
import UnderstudyJOSE
import UnderstudyJSON
@testable import UnderstudyApp
@testable import UnderstudyStore

#if canImport(Glibc)
import Glibc
#endif

/// The mail sink end to end in-process: real SMTP in, the HTTP API and the CLI out.
@Suite(.serialized) struct MailSinkTests {
    static func start() throws -> (Application, SimpleHTTPClient, SimpleSMTPClient) {
        let configuration = try Configuration.load(configFile: nil, environment: [:],
                                                   flags: ["--http": "127.0.0.1:0", "--smtp": "127.0.0.1:0", "--https": "null", "--ca": ApplicationTests.caFolder.path + "/ca",
                                                           "--quiet": "true"])
        let app = try Application(configuration: configuration)
        let smtp = ListenAddress(app.smtpAddress)!
        return (app, try SimpleSMTPClient.http(app), SimpleSMTPClient(host: smtp.host, port: smtp.port))
    }

    static func message(to: String, subject: String, body: String, extraHeaders: String = "") -> [UInt8] {
        Array("From: Sender <noreply@example.com>\r\nTo: \(to)\r\nSubject: \(subject)\r\n\(extraHeaders)\r\n\(body)\r\n".utf8)
    }

    @Test func waitingForACodeAnswersWhenTheMailLands() throws {
        let (app, http, smtp) = try Self.start()
        defer { app.shutdown() }
        // Nothing there yet: without wait, 404 at once.
        let none = try http.get("/api/otp?to=alice@example.com")
        #expect(none.status == 404 && none.json?["error"] == "nothing_arrived")
        // Parameters are checked, each error naming the parameter.
        for (query, name) in [("", "to"), ("to=a@b&wait=301", "wait"), ("to=a@b&wait=soon", "wait"),
                              ("to=a@b&after=2026-13-45T00:00:00Z", "after"), ("to=a@b&after=not%20an%20id", "after")] {
            let r = try http.get("/api/otp?\(query)")
            #expect(r.status == 400, "\(query)")
            #expect(r.json?["error"] == "invalid_parameter", "\(query)")
            #expect(r.json?["message"]?.stringValue?.hasPrefix(name) == true, "\(query): \(r.text)")
        }

        let answer = Mutex<SimpleHTTPClient.Response?>(nil)
        let waiter = try spawnThread { answer.withLock { $0 = try? http.get("/api/otp?to=alice%40example.com&wait=20", readTimeout: 30) } }
        usleep(200_000)
        let queued = try smtp.send(from: "noreply@example.com", to: ["alice@example.com"],
                                   message: Self.message(to: "alice@example.com", subject: "Sign in", body: "Your verification code is 884 213."))
        waiter.join()
        let r = try #require(answer.withLock { $0 })
        #expect(r.status == 200)
        #expect(r.json?["code"] == "884213")
        #expect(queued.hasSuffix(r.json?["messageId"]?.stringValue ?? "?"))

        // `after` skips what was already read; a wait that sees nothing new ends in 404.
        let id = r.json?["messageId"]?.stringValue ?? ""
        let later = try http.get("/api/otp?to=alice@example.com&after=\(id)&wait=1", readTimeout: 10)
        #expect(later.status == 404)
        #expect(try http.get("/api/otp?to=alice@example.com").json?["code"] == "884213")
    }

    @Test func linksListingDetailRawPartsAndDelete() throws {
        let (app, http, smtp) = try Self.start()
        defer { app.shutdown() }
        let html = "<p>Hi</p><a href=\"https://app.example.com/auth/v1/verify?token=t1&amp;type=magiclink\">Log in</a>"
        let body = "--b\r\nContent-Type: text/plain\r\n\r\nLog in: https://app.example.com/auth/v1/verify?token=t1&type=magiclink\r\n--b\r\nContent-Type: text/html\r\n\r\n\(html)\r\n--b\r\nContent-Type: application/pdf\r\nContent-Disposition: attachment; filename=\"a.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\nJVBERi0=\r\n--b--"
        let raw = Self.message(to: "bob@example.com", subject: "Your magic link", body: body,
                               extraHeaders: "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n")
        _ = try smtp.send(from: "noreply@example.com", to: ["bob@example.com"], message: raw)
        _ = try smtp.send(from: "noreply@example.com", to: ["carol@example.com"],
                          message: Self.message(to: "carol@example.com", subject: "Weekly news", body: "Nothing to see"))

        let link = try http.get("/api/links?to=bob@example.com&purpose=magic-link")
        #expect(link.status == 200)
        #expect(link.json?["url"] == "https://app.example.com/auth/v1/verify?token=t1&type=magiclink")
        #expect(try http.get("/api/links?to=bob@example.com&purpose=reset-password").status == 404)
        #expect(try http.get("/api/links?to=bob@example.com&purpose=bogus").status == 400)

        let list = try http.get("/api/messages?to=bob@example.com")
        #expect(list.json?["total"] == 1)
        let id = try #require(list.json?["messages"]?[0]?["id"]?.stringValue)
        #expect(try http.get("/api/messages").json?["total"] == 2)
        #expect(try http.get("/api/messages?q=weekly").json?["total"] == 1)
        #expect(try http.get("/api/messages?limit=0").status == 400)

        let detail = try http.get("/api/messages/\(id)")
        #expect(detail.json?["subject"] == "Your magic link")
        #expect(detail.json?["headers"]?["Subject"] == ["Your magic link"])
        #expect(detail.json?["attachments"]?[0]?["name"] == "a.pdf")
        #expect(detail.json?["links"]?[0]?["purpose"] == "magic-link")

        let rawResponse = try http.get("/api/messages/\(id)/raw")
        #expect(rawResponse.header("Content-Type") == "message/rfc822")
        #expect(rawResponse.body == raw)  // byte for byte

        let part = try http.get("/api/messages/\(id)/parts/3")
        #expect(part.header("Content-Type") == "application/pdf")
        #expect(part.body == Array("%PDF-".utf8))
        #expect(try http.get("/api/messages/\(id)/parts/9").status == 404)

        #expect(try http.request("DELETE", "/api/messages/\(id)").status == 204)
        #expect(try http.get("/api/messages/\(id)").status == 404)
        #expect(try http.request("DELETE", "/api/messages").json?["deleted"] == 1)
        #expect(try http.get("/api/messages").json?["total"] == 0)
    }

    /// A received mail's HTML, SVG or XML never runs on the API's origin: parts carry a sandbox
    /// CSP and nosniff, active types download unless viewed on purpose (still sandboxed).
    @Test func partsAreServedInert() throws {
        let (app, http, smtp) = try Self.start()
        defer { app.shutdown() }
        let script = "<script>fetch('/api/messages',{method:'DELETE'})</script><img src=\"https://t.example/p.png\">"
        let body = "--b\r\nContent-Type: text/plain\r\n\r\nplain text\r\n--b\r\nContent-Type: text/html\r\n\r\n\(script)\r\n"
            + "--b\r\nContent-Type: image/svg+xml\r\nContent-Disposition: inline; filename=\"x.svg\"\r\n\r\n<svg onload=\"alert(1)\"/>\r\n"
            + "--b\r\nContent-Type: image/png\r\n\r\nPNG\r\n--b--"
        _ = try smtp.send(from: "x@example.com", to: ["eve@example.com"], message: Self.message(
            to: "eve@example.com", subject: "XSS", body: body, extraHeaders: "MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n"))
        let id = try #require(try http.get("/api/messages?to=eve@example.com").json?["messages"]?[0]?["id"]?.stringValue)
        func part(_ n: String, _ query: String = "") throws -> SimpleHTTPClient.Response {
            let r = try http.get("/api/messages/\(id)/parts/\(n)\(query)")
            #expect(r.status == 200)
            #expect(r.header("X-Content-Type-Options") == "nosniff")
            let policy = r.header("Content-Security-Policy") ?? ""
            #expect(policy.hasPrefix("sandbox; default-src 'none'"), "\(policy)")
            #expect(!policy.contains("script-src"))
            return r
        }
        #expect(try part("1").header("Content-Disposition") == nil)   // text/plain: inert, inline
        let html = try part("2")
        #expect(html.header("Content-Type") == "text/html")
        #expect(html.header("Content-Disposition") == "attachment")
        #expect(html.header("Content-Security-Policy")?.contains("img-src") == false)
        #expect(try part("3").header("Content-Disposition") == "attachment; filename=\"x.svg\"")
        let viewed = try part("2", "?view=1")
        #expect(viewed.header("Content-Disposition") == nil)
        #expect(viewed.text.contains("<script>"))   // shown as sent, but the sandbox runs no script
        #expect(viewed.header("Content-Security-Policy")?.contains("img-src") == false)
        #expect(try part("2", "?view=1&images=1").header("Content-Security-Policy")?.contains("img-src * data:") == true)
        #expect(try part("3", "?view=1").header("Content-Disposition") == "inline; filename=\"x.svg\"")

        let raw = try http.get("/api/messages/\(id)/raw")
        #expect(raw.header("Content-Type") == "message/rfc822")
        #expect(raw.header("X-Content-Type-Options") == "nosniff")
        #expect(raw.header("Content-Security-Policy")?.hasPrefix("sandbox") == true)
        // Every other response carries the general headers too.
        for path in ["/api/messages", "/healthz", "/apple/auth/keys", "/nowhere"] {
            let r = try http.get(path)
            #expect(r.header("X-Content-Type-Options") == "nosniff", "\(path)")
            #expect(r.header("Content-Security-Policy") == "frame-ancestors 'none'", "\(path)")
        }
    }

    /// A large message goes out from the store's log a chunk at a time, complete and exact.
    @Test func aLargeMessageIsStreamedWholeFromTheLog() throws {
        let (app, http, smtp) = try Self.start()
        defer { app.shutdown() }
        var lines = ""
        for n in 0..<70_000 { lines += "line \(n) of a large message, padded to be longer than a short one\r\n" }
        let raw = Self.message(to: "big@example.com", subject: "Large", body: lines)
        #expect(raw.count > 4 << 20)
        _ = try smtp.send(from: "x@example.com", to: ["big@example.com"], message: raw)
        let id = try #require(try http.get("/api/messages?to=big@example.com").json?["messages"]?[0]?["id"]?.stringValue)
        let stored = try #require(try app.inbox.store.raw(id: id))   // read whole, as before streaming
        let response = try http.get("/api/messages/\(id)/raw", readTimeout: 30)
        #expect(response.header("Transfer-Encoding") == "chunked")
        #expect(response.body.count == stored.count)
        let exact = response.body == stored   // (not inside #expect: a failure would print megabytes)
        #expect(exact)
        let detail = try http.get("/api/messages/\(id)", readTimeout: 30)   // a big detail streams from memory
        #expect(detail.status == 200 && detail.json?["subject"] == "Large")
        let part = try http.get("/api/messages/\(id)/parts/1", readTimeout: 30)
        #expect(part.status == 200 && part.header("Transfer-Encoding") == "chunked" && part.body.count > 4 << 20)
    }

    @Test func theAPIAnswersOnlyOnceWhatWasAnswered250IsIndexed() throws {
        let (app, http, smtp) = try Self.start()
        defer { app.shutdown() }
        // Hold the index's writer: the 250 comes from the log, and the API must wait rather than
        // answer without the message.
        let store = app.inbox.store
        let holding = Atomic<Bool>(false)
        let release = Atomic<Bool>(false)
        let holder = try spawnThread {
            _ = try? store.pool.writeWithoutTransaction { _ in
                holding.store(true, ordering: .sequentiallyConsistent)
                while !release.load(ordering: .sequentiallyConsistent) { usleep(1000) }
            }
        }
        while !holding.load(ordering: .sequentiallyConsistent) { usleep(1000) }
        let queued = try smtp.send(from: "noreply@example.com", to: ["lag@example.com"],
                                   message: Self.message(to: "lag@example.com", subject: "Code", body: "Your code is 246 810."))
        #expect(queued.contains("queued as"))  // answered while the index is held
        #expect(app.inbox.hasPendingCommits)
        let answers = Mutex<[Int: SimpleHTTPClient.Response]>([:])
        let paths = ["/api/otp?to=lag@example.com", "/api/messages?to=lag@example.com", "/api/links?to=lag@example.com"]
        let readers = try paths.enumerated().map { n, path in
            try spawnThread { if let r = try? http.get(path, readTimeout: 20) { answers.withLock { $0[n] = r } } }
        }
        usleep(150_000)
        #expect(answers.withLock { $0.isEmpty })  // waiting, not answering 404 or an empty list
        release.store(true, ordering: .sequentiallyConsistent)
        holder.join()
        for reader in readers { reader.join() }
        let got = answers.withLock { $0 }
        #expect(got[0]?.status == 200 && got[0]?.json?["code"] == "246810")
        #expect(got[1]?.json?["total"] == 1)
        #expect(got[2]?.status == 404)  // indexed, and it has no link
    }

    /// Polls `condition` for up to 10 s.
    static func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        for _ in 0..<5000 {
            if try condition() { return true }
            usleep(2000)
        }
        return try condition()
    }

    /// The SMTP reply that refused a message, from the client's error.
    static func refusal(_ body: () throws -> String) -> String {
        do { return "accepted: " + (try body()) } catch { return "\(error)" }
    }

    @Test func aFullDiskKeepsWhatWasAnswered250AndSaysSo() throws {
        let (app, http, smtp) = try Self.start()
        defer { app.shutdown() }
        let store = app.inbox.store
        // Three messages answered 250 from the log while the index's writer is held; then the disk fills.
        let holding = Atomic<Bool>(false)
        let release = Atomic<Bool>(false)
        let holder = try spawnThread {
            _ = try? store.pool.writeWithoutTransaction { _ in
                holding.store(true, ordering: .sequentiallyConsistent)
                while !release.load(ordering: .sequentiallyConsistent) { usleep(1000) }
            }
        }
        while !holding.load(ordering: .sequentiallyConsistent) { usleep(1000) }
        for n in 0..<3 {
            let queued = try smtp.send(from: "noreply@example.com", to: ["full@example.com"],
                                       message: Self.message(to: "full@example.com", subject: "Code \(n)", body: "Your code is 13579\(n)."))
            #expect(queued.contains("queued as"))
        }
        store.failIndexWrites(errno: ENOSPC)
        release.store(true, ordering: .sequentiallyConsistent)
        holder.join()
        #expect(Self.eventually { app.inbox.indexFailure != nil })

        // Every read that would miss them answers 503 naming the disk, rather than without them.
        for path in ["/api/messages?to=full@example.com", "/api/otp?to=full@example.com&wait=30", "/api/messages"] {
            let r = try http.get(path, readTimeout: 30)
            #expect(r.status == 503, "\(path)")
            #expect(r.json?["error"] == "storage_unavailable", "\(path)")
            let message = r.json?["message"]?.stringValue ?? ""
            #expect(message.contains(store.path) && message.contains("No space left on device (ENOSPC)"), "\(path): \(message)")
        }
        #expect(try http.request("DELETE", "/api/messages").status == 503)
        // New mail is refused with 452 4.3.1, and nothing of it is kept.
        #expect(Self.refusal {
            try smtp.send(from: "noreply@example.com", to: ["full@example.com"], message: Self.message(to: "full@example.com", subject: "late", body: "x"))
        }.contains("452 4.3.1"))

        // The disk has room again: the retry indexes the three, and mail is accepted.
        store.failIndexWrites(errno: 0)
        #expect(Self.eventually { !app.inbox.hasPendingCommits })
        let list = try http.get("/api/messages?to=full@example.com")
        #expect(list.status == 200 && list.json?["total"] == 3)
        #expect(try http.get("/api/otp?to=full@example.com").json?["code"] == "135792")
        #expect(try smtp.send(from: "noreply@example.com", to: ["full@example.com"],
                              message: Self.message(to: "full@example.com", subject: "after", body: "y")).contains("queued as"))

        // A delete on a full disk, with nothing pending, is a 503 too (it was a 500). The message just
        // sent must be indexed first, or its commit meets the fault and puts the inbox into failure.
        #expect(Self.eventually { !app.inbox.hasPendingCommits })
        store.failIndexWrites(errno: ENOSPC)
        let id = try #require(list.json?["messages"]?[0]?["id"]?.stringValue)
        let deleted = try http.request("DELETE", "/api/messages/\(id)")
        #expect(deleted.status == 503 && deleted.json?["error"] == "storage_unavailable")
        store.failIndexWrites(errno: 0)
        #expect(Self.eventually { app.inbox.indexFailure == nil })
        #expect(try http.request("DELETE", "/api/messages/\(id)").status == 204)
    }

    @Test func aFailedLogWriteAnswers452WhenTheDiskIsFullAnd451Otherwise() throws {
        let (app, http, smtp) = try Self.start()
        defer { app.shutdown() }
        let send = { try smtp.send(from: "noreply@example.com", to: ["log@example.com"],
                                   message: Self.message(to: "log@example.com", subject: "s", body: "b")) }
        app.inbox.store.failLogWrites(errno: ENOSPC)
        #expect(Self.refusal(send).contains("452 4.3.1 Insufficient system storage"))
        app.inbox.store.failLogWrites(errno: EIO)
        let ioError = Self.refusal(send)
        #expect(ioError.contains("451 4.3.0") && ioError.contains("Input/output error (EIO)"), "\(ioError)")
        app.inbox.store.failLogWrites(errno: 0)
        #expect(try send().contains("queued as"))
        #expect(try http.get("/api/messages?to=log@example.com").json?["total"] == 1)
    }

    @Test func serverSentEventsAnnounceNewMessages() throws {
        let (app, _, smtp) = try Self.start()
        defer { app.shutdown() }
        let http = ListenAddress(app.httpAddresses[0])!
        let socket = try BlockingSocket(host: http.host, port: http.port)
        defer { socket.close() }
        try socket.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(try socket.readLine() == "HTTP/1.1 200 OK")
        usleep(100_000)
        _ = try smtp.send(from: "a@example.com", to: ["dave@example.com"], message: Self.message(to: "dave@example.com", subject: "Event!", body: "code 654321"))
        var seen: [String] = []
        while let line = try socket.readLine(), seen.count < 200 {
            seen.append(line)
            if line.hasPrefix("data: {") { break }
        }
        #expect(seen.contains("event: message"))
        let data = try #require(seen.last.map { String($0.dropFirst(6)) })
        #expect(try JSONValue.parse(data)["subject"] == "Event!")
    }

    @Test func cliSendOtpAndInbox() throws {
        let (app, _, _) = try Self.start()
        defer { app.shutdown() }
        let sent = runCLI(["send", "--smtp", app.smtpAddress, "--to", "erin@example.com", "--subject", "Código de verificación",
                           "--body", "Tu código de verificación es 314159"])
        #expect(sent.status == 0, "\(sent.err)")
        #expect(sent.out.trimmingSpaces().count == 26)
        let otp = runCLI(["otp", "--server", "http://\(app.httpAddresses[0])", "--to", "erin@example.com", "--wait", "5"])
        #expect(otp.status == 0, "\(otp.err)")
        #expect(otp.out == "314159\n")
        let missing = runCLI(["otp", "--server", "http://\(app.httpAddresses[0])", "--to", "nobody@example.com"])
        #expect(missing.status == 1 && missing.out.isEmpty && missing.err.contains("no one-time code"))
        let inbox = runCLI(["inbox", "--server", app.httpAddresses[0]])
        #expect(inbox.status == 0)
        #expect(inbox.out.contains("Código de verificación"))
        #expect(inbox.out.contains("314159"))
        #expect(runCLI(["otp"]).status == 64)
        #expect(runCLI(["otp", "--to", "x@y", "--wait", "9999"]).status == 64)
    }

    /// otp exits 1 when nothing arrived (naming --wait, not the API's wait=), 69 when the server
    /// cannot be reached; an empty inbox says so on stderr.
    @Test func cliExitStatusesAndEmptyInbox() throws {
        let (app, _, _) = try Self.start()
        let server = "http://\(app.httpAddresses[0])"
        let missing = runCLI(["otp", "--server", server, "--to", "nobody@example.com", "--wait", "1"])
        #expect(missing.status == 1)
        #expect(missing.err.contains("no one-time code for nobody@example.com arrived within 1 s"), "\(missing.err)")
        #expect(missing.err.contains("--wait SECONDS") && !missing.err.contains("wait=SECONDS"), "\(missing.err)")
        let link = runCLI(["link", "--server", server, "--to", "nobody@example.com", "--purpose", "magic-link"])
        #expect(link.status == 1 && link.err.contains("no magic-link link") && link.err.contains("--wait SECONDS"))
        let empty = runCLI(["inbox", "--server", server, "--to", "nobody@example.com"])
        #expect(empty.status == 0 && empty.out.isEmpty)
        #expect(empty.err == "understudy: info: no messages to nobody@example.com\n")
        app.shutdown()
        for command in [["otp", "--to", "a@b"], ["link", "--to", "a@b"], ["inbox"]] {
            let r = runCLI(command + ["--server", server])
            #expect(r.status == 69, "\(command): \(r.err)")
            #expect(r.err.hasPrefix("understudy: error: cannot connect to"), "\(r.err)")
        }
        let send = runCLI(["send", "--smtp", app.smtpAddress, "--to", "a@b"])
        #expect(send.status == 69, "\(send.err)")
    }

    /// `send` reads standard input: a whole message with -t (recipients from To/Cc/Bcc, Bcc removed)
    /// and -f, or a bare body; sendmail's -i/-oi are accepted.
    @Test func sendReadsStandardInputLikeSendmail() throws {
        let (app, http, _) = try Self.start()
        defer { app.shutdown() }
        let message = "From: App <app@example.com>\nTo: Dana <dana@example.com>\nCc: eve@example.com\n"
            + "Bcc: frank@example.com\nSubject: Your code\n  is here\n\nYour verification code is 271828.\n"
        let sent = runCLI(["send", "--smtp", app.smtpAddress, "-t", "-i", "-oi", "-f", "bounce@example.com"],
                          stdin: Array(message.utf8))
        #expect(sent.status == 0, "\(sent.err)")
        let id = sent.out.trimmingSpaces()
        for who in ["dana@example.com", "eve@example.com", "frank@example.com"] {
            let otp = runCLI(["otp", "--server", app.httpAddresses[0], "--to", who])
            #expect(otp.out == "271828\n", "\(who): \(otp.err)")
        }
        let raw = try http.get("/api/messages/\(id)/raw").text
        #expect(raw.contains("Subject: Your code\r\n  is here") && !raw.contains("Bcc") && !raw.contains("frank"))
        // A bare body, recipients as arguments (sendmail's shape).
        let body = runCLI(["send", "--smtp", app.smtpAddress, "--subject", "Piped", "gina@example.com"],
                          stdin: Array("Tu código es 161803\n".utf8))
        #expect(body.status == 0, "\(body.err)")
        #expect(runCLI(["otp", "--server", app.httpAddresses[0], "--to", "gina@example.com"]).out == "161803\n")
        // Headers on stdin and --subject disagree: a usage error, nothing sent.
        let both = runCLI(["send", "--smtp", app.smtpAddress, "--to", "h@example.com", "--subject", "x"], stdin: Array(message.utf8))
        #expect(both.status == 64 && both.err.contains("drop --subject"))
    }

    @Test func smtpSizeLimitAndAuthFromConfiguration() throws {
        let configuration = try Configuration.load(configFile: nil, environment: [:], flags: [
            "--http": "127.0.0.1:0", "--smtp": "127.0.0.1:0", "--https": "null", "--ca": ApplicationTests.caFolder.path + "/ca", "--mail-max-message-size": "2048",
            "--mail-username": "u", "--mail-password": "p",
        ])
        let app = try Application(configuration: configuration)
        defer { app.shutdown() }
        let a = ListenAddress(app.smtpAddress)!
        let socket = try BlockingSocket(host: a.host, port: a.port)
        defer { socket.close() }
        _ = try SimpleSMTPClient.readReply(socket)
        try socket.send("EHLO t\r\n")
        let ehlo = try SimpleSMTPClient.readReply(socket)
        #expect(ehlo.lines.contains("SIZE 2048"))
        try socket.send("AUTH PLAIN \(Base64.encode("\u{0}u\u{0}wrong".utf8))\r\n")
        #expect(try SimpleSMTPClient.readReply(socket).code == 535)
        try socket.send("MAIL FROM:<a@b> SIZE=4096\r\n")
        #expect(try SimpleSMTPClient.readReply(socket).code == 552)
    }
}

extension SimpleSMTPClient {
    static func http(_ app: Application) throws -> SimpleHTTPClient { try SimpleHTTPClient(server: app.httpAddresses[0]) }
}

/// A joinable thread for tests that need a blocking call to run beside them.
final class TestThread: @unchecked Sendable {
    var thread = pthread_t()
    func join() { pthread_join(thread, nil) }
}

final class ThreadBody {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

func spawnThread(_ body: @escaping @Sendable () -> Void) throws -> TestThread {
    let t = TestThread()
    let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    let rc = pthread_create(&t.thread, nil, { raw in
        Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().body()
        return nil
    }, context)
    guard rc == 0 else { throw BlockingSocket.Failure(description: "pthread_create failed") }
    return t
}
