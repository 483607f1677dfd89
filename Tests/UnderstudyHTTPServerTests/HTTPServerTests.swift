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
        default:
            return .response(.problem(.notFound, error: "not_found", message: "no route for \(request.path)"))
        }
    }
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
}
