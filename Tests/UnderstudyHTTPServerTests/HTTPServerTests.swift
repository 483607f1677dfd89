import Testing
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import UnderstudyHTTP
import UnderstudyIO
import UnderstudyTestSupport
@testable import UnderstudyHTTPServer

/// A responder exercising every kind of reply; records cancellations and stream closes.
struct TestResponder: HTTPResponder {
    let events: Box<[String]>

    func respond(to request: HTTPRequest) -> HTTPReply {
        switch request.path {
        case "/hello":
            return .response(.json(["hello": "world", "n": .integer(Int64(request.queryValue("n").flatMap { Int($0) } ?? 0))]))
        case "/echo":
            return .response(HTTPResponse(status: .ok, headers: ["Content-Type": "application/octet-stream"], body: request.body))
        case "/later":
            let delay = UInt32(request.queryValue("ms").flatMap { Int($0) } ?? 20)
            let tag = request.queryValue("tag") ?? ""
            events.update { $0.append("started \(tag)") }
            return .deferred { promise in
                onOtherThread {
                    usleep(delay * 1000)
                    promise.succeed(.text("later \(tag)"))
                    promise.succeed(.text("ignored second answer"))
                }
            }
        case "/forever":
            let events = self.events
            return .deferred { promise in
                promise.onCancel { events.update { $0.append("cancelled") } }
            }
        case "/stream":
            return .stream(HTTPResponse(status: .ok, headers: ["Content-Type": "text/event-stream"])) { writer in
                onOtherThread {
                    writer.write(Array("data: one\n\n".utf8))
                    usleep(10_000)
                    writer.write(Array("data: two\n\n".utf8))
                    writer.finish()
                    #expect(writer.write(Array("late".utf8)) == false)
                }
            }
        case "/stream-forever":
            let events = self.events
            return .stream(HTTPResponse(status: .ok)) { writer in
                writer.onClose { events.update { $0.append("stream closed") } }
                writer.write(Array("hello\n".utf8))
            }
        case "/big":
            // A pulled stream of `chunks` pieces of 64 KiB, counting what the server asked for.
            let total = request.queryValue("chunks").flatMap { Int($0) } ?? 1
            let produced = bigChunksProduced
            produced.update { $0 = 0 }
            return .stream(HTTPResponse(status: .ok, headers: ["Content-Type": "application/octet-stream"])) { writer in
                writer.stream {
                    var index = 0
                    produced.update { index = $0; if $0 < total { $0 += 1 } }
                    return index < total ? bigChunk(index) : nil
                }
            }
        case "/blocking-big":
            // The same pulled stream, returned by work on the worker pool (as the inbox's /raw is).
            var inner = request
            inner.path = "/big"
            let forward = inner
            return .blocking { [self] in respond(to: forward) }
        case "/held":
            // Blocking work that runs until the test opens `heldGate`.
            return .blocking {
                heldStarted.update { $0 += 1 }
                while !heldGate.value { usleep(1000) }
                return .response(.text("released"))
            }
        case "/large":
            return .response(HTTPResponse(status: .ok, body: [UInt8](repeating: 0x61, count: 16 << 20)))
        default:
            return .response(.problem(.notFound, error: "not_found", message: "no route for \(request.path)"))
        }
    }
}

/// `/held` work items started, and whether they may finish.
let heldStarted = Box(0)
let heldGate = Box(false)

/// Chunks `/big` has handed out since its last request.
let bigChunksProduced = Box(0)

/// Piece `index` of `/big`: 64 KiB whose bytes depend on their position.
func bigChunk(_ index: Int) -> [UInt8] {
    (0..<65536).map { UInt8(truncatingIfNeeded: (index &* 65536 &+ $0) % 251) }
}

@Suite(.serialized)
struct HTTPServerTests {
    let events = Box<[String]>([])

    func withServer(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
                    _ body: (SocketAddress, HTTPServer) throws -> Void) throws {
        var configuration = HTTPServerConfiguration(threads: 2)
        configure(&configuration)
        let server = HTTPServer(configuration: configuration, responder: TestResponder(events: events))
        let addresses = try server.start()
        defer { server.shutdown() }
        try body(addresses[0], server)
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() throws {
        try withServer { address, _ in
            let client = try HTTPTestClient(address)
            defer { client.close() }
            for n in 1...3 {
                client.send("GET /hello?n=\(n) HTTP/1.1\r\nHost: test\r\n\r\n")
                let response = try #require(client.readResponse())
                #expect(response.status == 200)
                #expect(response.text == #"{"hello":"world","n":\#(n)}"#)
                #expect(response.header("Connection") == nil)
                #expect(response.header("Date") != nil)
            }
        }
    }

    @Test func pipelinedRequestsInOneWriteAreAnsweredInOrderEvenWhenTheFirstIsDeferred() throws {
        try withServer { address, _ in
            let client = try HTTPTestClient(address)
            defer { client.close() }
            client.send("GET /later?ms=50&tag=a HTTP/1.1\r\nHost: t\r\n\r\n"
                + "GET /hello?n=2 HTTP/1.1\r\nHost: t\r\n\r\n"
                + "GET /later?ms=1&tag=c HTTP/1.1\r\nHost: t\r\n\r\n"
                + "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\nbody")
            #expect(client.readResponse()?.text == "later a")
            #expect(client.readResponse()?.text == #"{"hello":"world","n":2}"#)
            #expect(client.readResponse()?.text == "later c")
            #expect(client.readResponse()?.text == "body")
        }
    }

    @Test func connectionCloseAndHTTP10CloseAfterTheResponse() throws {
        try withServer { address, _ in
            let client = try HTTPTestClient(address)
            client.send("GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.header("Connection") == "close")
            #expect(client.readsEOF())
            client.close()

            let old = try HTTPTestClient(address)
            old.send("GET /hello HTTP/1.0\r\n\r\n")
            #expect(old.readResponse()?.status == 200)
            #expect(old.readsEOF())
            old.close()
        }
    }

    @Test func headGetsHeadersWithTheBodyLengthButNoBody() throws {
        try withServer { address, _ in
            let client = try HTTPTestClient(address)
            defer { client.close() }
            client.send("HEAD /hello HTTP/1.1\r\nHost: t\r\n\r\nGET /hello?n=1 HTTP/1.1\r\nHost: t\r\n\r\n")
            let head = try #require(client.readResponse(forHead: true))
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == String(#"{"hello":"world","n":0}"#.utf8.count))
            // The next response starts right after the head: no stray body bytes.
            #expect(client.readResponse()?.text == #"{"hello":"world","n":1}"#)
        }
    }

    @Test func chunkedRequestBody() throws {
        try withServer { address, _ in
            let client = try HTTPTestClient(address)
            defer { client.close() }
            client.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n")
            #expect(client.readResponse()?.text == "hello, world")
        }
    }

    @Test func expectContinueGetsA100BeforeTheBodyIsSent() throws {
        try withServer { address, _ in
            let client = try HTTPTestClient(address)
            defer { client.close() }
            client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n")
            let interim = try #require(client.readResponse())
            #expect(interim.status == 100)
            client.send("abc")
            #expect(client.readResponse()?.text == "abc")
        }
    }

    @Test func oversizedHeadersGet431AndTheConnectionCloses() throws {
        try withServer({ $0.limits = HTTPLimits(maxHeaderBytes: 1024) }) { address, _ in
            let client = try HTTPTestClient(address)
            defer { client.close() }
            client.send("GET /hello HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "a", count: 2000))\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.status == 431)
            #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(response.text.contains(#""error":"request_header_fields_too_large""#))
            #expect(client.readsEOF())
        }
    }

    @Test func oversizedBodyGets413() throws {
        try withServer({ $0.limits = HTTPLimits(maxBodyBytes: 10) }) { address, _ in
            let client = try HTTPTestClient(address)
            defer { client.close() }
            client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.status == 413)
            #expect(response.header("Connection") == "close")
            #expect(client.readsEOF())
        }
    }

    @Test func malformedRequestGets400() throws {
        try withServer { address, _ in
            let client = try HTTPTestClient(address)
            defer { client.close() }
            client.send("GET /hello HTTP/1.1\r\nHost: t\r\n folded\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.status == 400)
            #expect(response.text.contains(#""message":"#))
            #expect(client.readsEOF())
        }
    }

    @Test func silentOrSlowClientGets408() throws {
        try withServer({ $0.headerReadTimeout = .milliseconds(200) }) { address, _ in
            let silent = try HTTPTestClient(address)
            defer { silent.close() }
            let slow = try HTTPTestClient(address)
            defer { slow.close() }
            slow.send("GET /hello HTTP/1.1\r\nHost:")
            for client in [silent, slow] {
                let response = try #require(client.readResponse())
                #expect(response.status == 408)
                #expect(response.text.contains("request_timeout"))
                #expect(client.readsEOF())
            }
        }
    }

    @Test func idleKeepAliveConnectionIsClosedSilently() throws {
        try withServer({ $0.idleTimeout = .milliseconds(100) }) { address, _ in
            let client = try HTTPTestClient(address)
            defer { client.close() }
            client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(client.readResponse()?.status == 200)
            #expect(client.readsEOF())
        }
    }

    @Test func deferredReplyCompletedFromAnotherThread() throws {
        try withServer { address, _ in
            let client = try HTTPTestClient(address)
            defer { client.close() }
            client.send("GET /later?ms=30&tag=x HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.text == "later x")
            // The second succeed() was ignored: the connection carries on with the next request.
            client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(client.readResponse()?.status == 200)
        }
    }

    @Test func streamSendsTwoChunksThenFinishes() throws {
        try withServer { address, _ in
            let client = try HTTPTestClient(address)
            defer { client.close() }
            client.send("GET /stream HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.chunked)
            #expect(response.header("Content-Type") == "text/event-stream")
            #expect(response.text == "data: one\n\ndata: two\n\n")
            client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(client.readResponse()?.status == 200)
        }
    }

    @Test func headOfAStreamIsTheHeadOnly() throws {
        try withServer { address, _ in
            let client = try HTTPTestClient(address)
            defer { client.close() }
            client.send("HEAD /stream HTTP/1.1\r\nHost: t\r\n\r\n")
            let head = try #require(client.readResponse(forHead: true))
            #expect(head.status == 200)
            client.send("GET /hello?n=5 HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(client.readResponse()?.text == #"{"hello":"world","n":5}"#)
        }
    }

    @Test func pipelineBeyondTheQueueLimitIsReadAfterRepliesDrain() throws {
        try withServer({ $0.maxPipelinedRequests = 4 }) { address, _ in
            let client = try HTTPTestClient(address)
            defer { client.close() }
            var requests = "GET /later?ms=50&tag=first HTTP/1.1\r\nHost: t\r\n\r\n"
            for n in 1...30 { requests += "GET /hello?n=\(n) HTTP/1.1\r\nHost: t\r\n\r\n" }
            client.send(requests)
            #expect(client.readResponse()?.text == "later first")
            for n in 1...30 {
                #expect(client.readResponse()?.text == #"{"hello":"world","n":\#(n)}"#)
            }
        }
    }

    @Test func manyKeepAliveConnectionsAcrossBothLoops() throws {
        try withServer { address, server in
            let clients = try (0..<64).map { _ in try HTTPTestClient(address) }
            defer { for client in clients { client.close() } }
            for round in 1...3 {
                for client in clients { client.send("GET /hello?n=\(round) HTTP/1.1\r\nHost: t\r\n\r\n") }
                for client in clients {
                    #expect(client.readResponse()?.text == #"{"hello":"world","n":\#(round)}"#)
                }
            }
            #expect(server.connectionCount == 64)
        }
    }

    @Test func clientDisconnectCancelsDeferredAndClosesStreams() throws {
        try withServer { address, _ in
            let waiting = try HTTPTestClient(address)
            waiting.send("GET /forever HTTP/1.1\r\nHost: t\r\n\r\n")
            let streaming = try HTTPTestClient(address)
            streaming.send("GET /stream-forever HTTP/1.1\r\nHost: t\r\n\r\n")
            // Wait until the stream has started, so both requests were handled.
            var firstLine: [UInt8] = []
            var byte: UInt8 = 0
            while firstLine.count < 4, recv(streaming.fd, &byte, 1, 0) == 1 { firstLine.append(byte) }
            #expect(firstLine == Array("HTTP".utf8))
            waiting.close()
            streaming.close()
            #expect(waitUntil { events.value.sorted() == ["cancelled", "stream closed"] })
        }
    }

    @Test func requestSentOneByteAtATime() throws {
        try withServer { address, _ in
            let client = try HTTPTestClient(address)
            defer { client.close() }
            var one: Int32 = 1
            setsockopt(client.fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            for byte in Array("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nbytes".utf8) {
                client.send([byte])
            }
            #expect(client.readResponse()?.text == "bytes")
        }
    }

    @Test func unknownPathIsAJSONProblem() throws {
        try withServer { address, _ in
            let client = try HTTPTestClient(address)
            defer { client.close() }
            client.send("GET /nope HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.status == 404)
            #expect(response.text.contains(#""error":"not_found""#))
        }
    }

    @Test func connectionsOverTheLimitGet503() throws {
        try withServer({ $0.maxConnections = 1 }) { address, server in
            let first = try HTTPTestClient(address)
            defer { first.close() }
            first.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(first.readResponse()?.status == 200)
            let second = try HTTPTestClient(address)
            defer { second.close() }
            let response = try #require(second.readResponse())
            #expect(response.status == 503)
            #expect(second.readsEOF())
        }
    }

    @Test func shutdownLetsAnInFlightDeferredReplyFinish() throws {
        var configuration = HTTPServerConfiguration(threads: 1)
        configuration.shutdownTimeout = .seconds(5)
        let server = HTTPServer(configuration: configuration, responder: TestResponder(events: events))
        let address = try server.start()[0]
        let busy = try HTTPTestClient(address)
        defer { busy.close() }
        let idle = try HTTPTestClient(address)
        defer { idle.close() }
        idle.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(idle.readResponse()?.status == 200)
        busy.send("GET /later?ms=200&tag=done HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(waitUntil { events.value.contains("started done") })
        server.shutdown()
        #expect(busy.readResponse()?.text == "later done")
        #expect(busy.readsEOF())
        #expect(idle.readsEOF())
        #expect(throws: IOError.self) { _ = try HTTPTestClient(address) }
    }

    // MARK: Hardening

    @Test func everyResponseCarriesTheSecurityHeaders() throws {
        try withServer({ $0.headerReadTimeout = .milliseconds(200) }) { address, _ in
            func check(_ request: String?, status: Int) throws {
                let client = try HTTPTestClient(address)
                defer { client.close() }
                if let request { client.send(request) }
                let response = try #require(client.readResponse())
                #expect(response.status == status)
                #expect(response.header("X-Content-Type-Options") == "nosniff", "\(status)")
                #expect(response.header("Content-Security-Policy") == "frame-ancestors 'none'", "\(status)")
            }
            try check("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n", status: 200)
            try check("GET /nowhere HTTP/1.1\r\nHost: t\r\n\r\n", status: 404)
            try check("GET /later?ms=1 HTTP/1.1\r\nHost: t\r\n\r\n", status: 200)
            try check("GET /stream HTTP/1.1\r\nHost: t\r\n\r\n", status: 200)
            try check("GET / HTTP/1.1\r\n\r\n", status: 400)
            try check(nil, status: 408)
        }
    }

    @Test func emptyLinesBeforeARequestRunAgainstTheHeaderTimeoutNotTheIdleOne() throws {
        try withServer({ $0.headerReadTimeout = .milliseconds(300); $0.idleTimeout = .seconds(600) }) { address, _ in
            let fresh = try HTTPTestClient(address)
            defer { fresh.close() }
            fresh.send("\r\n")
            let kept = try HTTPTestClient(address)
            defer { kept.close() }
            kept.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(kept.readResponse()?.status == 200)
            kept.send("\r\n\r\n")
            for client in [fresh, kept] {
                let response = try #require(client.readResponse())   // not the 600 s idle close
                #expect(response.status == 408)
                #expect(client.readsEOF())
            }
        }
    }

    @Test func manyEmptyLinesOrABareCRGet400AtOnce() throws {
        try withServer({ $0.headerReadTimeout = .seconds(120) }) { address, _ in
            let blank = try HTTPTestClient(address)
            defer { blank.close() }
            blank.send(String(repeating: "\r\n", count: 9))
            let bareCR = try HTTPTestClient(address)
            defer { bareCR.close() }
            bareCR.send("GET / HTTP/1.1\r\r")
            for client in [blank, bareCR] {
                let response = try #require(client.readResponse())   // not a 408 two minutes later
                #expect(response.status == 400)
                #expect(client.readsEOF())
            }
        }
    }

    @Test func aPulledStreamArrivesWholeAndInOrder() throws {
        try withServer { address, _ in
            let client = try HTTPTestClient(address)
            defer { client.close() }
            client.send("GET /big?chunks=64 HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try #require(client.readResponse())
            #expect(response.chunked)
            #expect(response.body.count == 64 << 16)
            let exact = response.body == (0..<64).flatMap(bigChunk)   // (a failure would print megabytes)
            #expect(exact)
            client.send("HEAD /big?chunks=64 HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(client.readResponse(forHead: true)?.status == 200)
            client.send("GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(client.readResponse()?.status == 200)
        }
    }

    @Test func aStreamReturnedByBlockingWorkIsStreamedInOrder() throws {
        let pool = WorkerPool(threads: 2, queueLimit: 16)
        defer { pool.shutdown() }
        try withServer({ $0.workers = pool }) { address, _ in
            let client = try HTTPTestClient(address)
            defer { client.close() }
            // Pipelined: the stream's slot keeps its place between the two quick replies.
            client.send("GET /hello?n=1 HTTP/1.1\r\nHost: t\r\n\r\nGET /blocking-big?chunks=16 HTTP/1.1\r\nHost: t\r\n\r\n"
                        + "GET /hello?n=2 HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(client.readResponse()?.text == #"{"hello":"world","n":1}"#)
            let response = try #require(client.readResponse())
            #expect(response.status == 200)
            #expect(response.chunked)
            let exact = response.body == (0..<16).flatMap(bigChunk)
            #expect(exact)
            #expect(client.readResponse()?.text == #"{"hello":"world","n":2}"#)
            // HTTP/1.0 has no chunked framing: the same body arrives whole, then the connection closes.
            let old = try HTTPTestClient(address)
            defer { old.close() }
            old.send("GET /blocking-big?chunks=4 HTTP/1.0\r\n\r\n")
            let whole = try #require(old.readResponse())
            #expect(whole.status == 200)
            #expect(!whole.chunked)
            #expect(whole.body.count == 4 << 16)
        }
    }

    @Test func aFullWorkerPoolAnswers503AtOnceAndTheRestComplete() throws {
        let pool = WorkerPool(threads: 1, queueLimit: 1)
        defer { pool.shutdown() }
        heldStarted.update { $0 = 0 }
        heldGate.update { $0 = false }
        defer { heldGate.update { $0 = true } }
        try withServer({ $0.workers = pool }) { address, _ in
            let running = try HTTPTestClient(address), queued = try HTTPTestClient(address), refused = try HTTPTestClient(address)
            defer { running.close(); queued.close(); refused.close() }
            running.send("GET /held HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(waitUntil { heldStarted.value == 1 })      // the one worker is busy
            queued.send("GET /held HTTP/1.1\r\nHost: t\r\n\r\n")  // waits in the queue (limit 1)
            #expect(waitUntil { pool.queuedCount == 1 })
            refused.send("GET /held HTTP/1.1\r\nHost: t\r\n\r\n")
            let busy = try #require(refused.readResponse())
            #expect(busy.status == 503)
            #expect(busy.text.contains("server_busy"))
            heldGate.update { $0 = true }
            #expect(running.readResponse()?.text == "released")
            #expect(queued.readResponse()?.text == "released")
        }
    }

    /// Stops the kernel from buffering much for a client that does not read.
    func shrinkReceiveBuffer(_ client: HTTPTestClient) {
        var size: Int32 = 16 * 1024
        setsockopt(client.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    @Test func aPulledStreamIsProducedOnlyAsFastAsTheClientReads() throws {
        try withServer({ $0.writeTimeout = .seconds(600) }) { address, _ in
            let client = try HTTPTestClient(address)
            defer { client.close() }
            shrinkReceiveBuffer(client)
            client.send("GET /big?chunks=512 HTTP/1.1\r\nHost: t\r\n\r\n")   // 32 MiB
            // Wait until the server stops producing (the socket buffers are full), then count.
            var last = -1
            var steady = 0
            for _ in 0..<200 where steady < 5 {
                usleep(50_000)
                let now = bigChunksProduced.value
                steady = now == last && now > 0 ? steady + 1 : 0
                last = now
            }
            // Kernel buffers (a few MiB) plus the server's low-water mark and one chunk, far from 32 MiB.
            #expect(bigChunksProduced.value > 0)
            #expect(bigChunksProduced.value <= 160)
            let response = try #require(client.readResponse())
            #expect(response.body.count == 512 << 16)
            #expect(bigChunksProduced.value == 512)
        }
    }

    @Test func aClientThatStopsReadingIsDisconnectedAfterTheWriteTimeout() throws {
        try withServer({ $0.writeTimeout = .milliseconds(300) }) { address, server in
            for target in ["/big?chunks=512", "/large"] {
                let client = try HTTPTestClient(address)
                defer { client.close() }
                shrinkReceiveBuffer(client)
                client.send("GET \(target) HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(waitUntil { server.connectionCount == 1 })
                #expect(waitUntil { server.connectionCount == 0 }, "\(target): still connected")
            }
        }
    }
}
