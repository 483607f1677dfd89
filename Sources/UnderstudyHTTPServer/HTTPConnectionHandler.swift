#if canImport(Glibc)
import Glibc
#endif
import UnderstudyHTTP
import UnderstudyIO

/// One HTTP/1.1 connection: feeds the parser, asks the responder, writes replies in request order.
/// Confined to the connection's event loop (not Sendable); deferred replies and streams hop back
/// onto the loop with `execute`.
final class HTTPConnectionHandler: ConnectionHandler {
    /// A reply in the order of its request. Only the first slot may write.
    private enum Slot {
        case ready([UInt8], closeAfter: Bool)
        case deferred(DeferredResponse)
        case stream(StreamedBody)
    }

    private enum Timeout { case none, request, idle }

    private let configuration: HTTPServerConfiguration
    private let responder: any HTTPResponder
    private var parser: HTTPRequestParser
    private var connection: (any Transport)?
    /// What every request on this connection is told about how it arrived.
    private var context = HTTPRequestContext()
    private var slots: [Slot] = []
    /// The last reply is queued (Connection: close, or a parse error): read no more requests.
    private var closing = false
    private var quiescing = false
    private var inputClosed = false
    private var pausedForBackpressure = false
    /// The CONNECT being answered, and since when, for the request log.
    private var connectRequest: HTTPRequest?
    private var connectStarted: UInt64?

    private var timeout = Timeout.none
    private var deadline: UInt64 = 0
    private var timerFireAt: UInt64 = .max

    init(configuration: HTTPServerConfiguration, responder: any HTTPResponder) {
        self.configuration = configuration
        self.responder = responder
        self.parser = HTTPRequestParser(limits: configuration.limits)
    }

    // MARK: ConnectionHandler

    func connectionActive(_ connection: any Transport) {
        self.connection = connection
        let security = connection.security
        context = HTTPRequestContext(isTLS: security.isTLS, serverName: security.serverName,
                                     peer: connection.remoteAddress.description)
        connection.setWritePolicy(timeout: configuration.writeTimeout, lowWater: configuration.streamLowWaterBytes)
        setTimeout(.request)   // the first request must arrive within the header-read timeout
    }

    func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {
        parser.feed(bytes)
        processRequests()
    }

    func connectionDidDrainWrites(_ connection: any Transport) {
        if case .stream(let body)? = slots.first, body.source != nil {
            writeReadySlots()   // room again: pull the next chunks
            guard self.connection != nil else { return }
        }
        resumeIfPossible()
    }

    /// EOF from the client. A half-close cannot be told from a client that went away, so like nginx
    /// the server treats it as the client leaving: what is written goes out, deferred replies are
    /// cancelled and streams closed.
    func connectionInputClosed(_ connection: any Transport) {
        inputClosed = true
        connection.close()
    }

    func connectionShouldQuiesce(_ connection: any Transport) {
        quiescing = true
        if slots.isEmpty && !parser.hasPartialRequest { connection.close() }
        // else: the request in progress is answered with `Connection: close`.
    }

    func connectionClosed(_ connection: any Transport, reason: ConnectionCloseReason) {
        self.connection = nil
        let abandoned = slots
        slots = []
        timeout = .none
        for slot in abandoned {
            switch slot {
            case .ready: break
            case .deferred(let promise): promise.clientWentAway()
            case .stream(let body): body.clientWentAway()
            }
        }
    }

    // MARK: Requests

    private func processRequests() {
        guard let connection else { return }
        while !closing {
            if slots.count >= configuration.maxPipelinedRequests
                || connection.pendingWriteBytes >= configuration.maxPendingWriteBytes {
                // Stop reading until the client has taken some of the replies.
                pausedForBackpressure = true
                connection.pauseReading()
                break
            }
            guard let event = parser.next() else { break }
            switch event {
            case .expectContinue:
                enqueue(HTTPSerializer.continueResponse, closeAfter: false)
            case .request(let request):
                handle(request)
            case .error(let error):
                closing = true
                enqueue(serialize(error.response), closeAfter: true)
            }
            if self.connection == nil { return }
        }
        updateTimeout()
    }

    private func handle(_ request: HTTPRequest) {
        guard let connection else { return }
        var request = request
        request.context = context
        if request.method == .connect {
            handleConnect(request)
            return
        }
        let keepAlive = request.keepAlive && !quiescing && !inputClosed
        if !keepAlive { closing = true }
        let record = configuration.requestLog.map { ExchangeRecord(sink: $0, request: request, started: Self.now()) }
        let reply = responder.respond(to: request)
        switch reply {
        case .response(let response):
            let bytes = HTTPSerializer.serialize(response, requestMethod: request.method,
                                                 requestVersion: request.version, keepAlive: keepAlive,
                                                 defaults: configuration.defaultResponseHeaders)
            record?.finish(status: response.status.code, bytes: bytes.count, now: Self.now())
            enqueue(bytes, closeAfter: !keepAlive)
        case .deferred, .blocking:
            let promise = DeferredResponse(handler: self, loop: connection.eventLoop, method: request.method,
                                           version: request.version, keepAlive: keepAlive,
                                           workers: configuration.workers,
                                           defaults: configuration.defaultResponseHeaders, record: record)
            slots.append(.deferred(promise))
            promise.complete(with: reply)
        case .stream(let head, let start):
            // Chunked framing needs HTTP/1.1; a 1.0 client gets the same and the connection closes after.
            let streamKeepAlive = keepAlive && request.version == .http1_1
            if !streamKeepAlive { closing = true }
            let body = StreamedBody(handler: self, loop: connection.eventLoop,
                                    head: HTTPSerializer.serializeStreamHead(head, keepAlive: streamKeepAlive,
                                                                             defaults: configuration.defaultResponseHeaders),
                                    headOnly: request.method == .head || !head.status.allowsBody,
                                    closeAfter: !streamKeepAlive, status: head.status.code, record: record)
            slots.append(.stream(body))
            writeReadySlots()
            start(body)
        }
    }

    // MARK: CONNECT

    private static let connectEstablished = Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)

    /// A CONNECT is the last request of a connection: refused (and closed), or answered 200 and the
    /// connection handed to what serves the tunnel, with any bytes the client sent after the head.
    private func refuseConnect(_ response: HTTPResponse) {
        let bytes = HTTPSerializer.serialize(response, requestMethod: .connect, requestVersion: .http1_1, keepAlive: false,
                                             defaults: configuration.defaultResponseHeaders)
        if let connectRequest { logConnect(connectRequest, status: response.status.code, bytes: bytes.count) }
        enqueue(bytes, closeAfter: true)
    }

    private func handleConnect(_ request: HTTPRequest) {
        guard let connection else { return }
        if configuration.requestLog != nil {
            connectRequest = request
            connectStarted = Self.now()
        }
        closing = true
        let refuse = refuseConnect
        guard let decide = configuration.connect else {
            return refuse(.problem(.notImplemented, error: "not_a_proxy",
                                   message: "this server does not accept CONNECT; send requests to it directly"))
        }
        guard slots.isEmpty else {
            return refuse(.problem(.badRequest, error: "connect_pipelined",
                                   message: "CONNECT must not follow other requests on the same connection; send it first"))
        }
        let next: any ConnectionHandler
        switch decide(request) {
        case .refuse(let response):
            return refuse(response)
        case .serve(let layer):
            var inner = configuration
            inner.connect = nil   // no CONNECT inside a tunnel
            next = layer.wrap(HTTPConnectionHandler(configuration: inner, responder: responder))
        case .handOff(let make):
            next = make()
        case .passThrough(let host, let port):
            return passThrough(to: host, port: port, on: connection)
        }
        establishTunnel(on: connection, handler: next)
    }

    /// Answers 200 and gives the connection to `handler`, with what the client sent past the head.
    private func establishTunnel(on connection: any Transport, handler: any ConnectionHandler) {
        connection.write(Self.connectEstablished)
        if let connectRequest { logConnect(connectRequest, status: 200, bytes: Self.connectEstablished.count) }
        let tunnelBytes = parser.takeTunnelBytes()
        // The connection is the tunnel's from here: this handler lets go of it.
        self.connection = nil
        timeout = .none
        connection.replaceHandler(with: handler, replaying: tunnelBytes)
    }

    /// A tunnel to the real host: resolve it off the loop, connect, then splice the two
    /// connections. The client hears 200 only once the host is reached, else 502.
    private func passThrough(to host: String, port: Int, on connection: any Transport) {
        timeout = .none
        connection.pauseReading()
        let loop = connection.eventLoop
        let unreachable: (String) -> Void = { [self] reason in
            refuseConnect(.problem(.badGateway, error: "upstream_unreachable",
                                   message: "cannot reach \(host):\(port) to tunnel to it: \(reason)"))
        }
        OutboundConnection.resolve(host, port: port, on: loop) { [self] result in
            let address: SocketAddress
            switch result {
            case .failure(let error): return unreachable("\(error)")
            case .success(let addresses): address = addresses[0]
            }
            guard self.connection != nil else { return }   // the client left meanwhile
            let splice = Splice()
            OutboundConnection.connect(to: address, on: loop, timeout: .seconds(10), handler: splice.upstream,
                                       connected: { [self] in
                guard let client = self.connection else { return splice.upstream.end() }
                splice.upstream.write(parser.takeTunnelBytes())
                client.write(Self.connectEstablished)
                if let connectRequest { logConnect(connectRequest, status: 200, bytes: Self.connectEstablished.count) }
                self.connection = nil
                client.replaceHandler(with: splice.client, replaying: [])
                client.resumeReading()
            }, failed: { error in unreachable("\(error)") })
        }
    }

    /// Writes `bytes` now if nothing is queued ahead of it, else queues it in order.
    private func enqueue(_ bytes: [UInt8], closeAfter: Bool) {
        guard let connection else { return }
        if slots.isEmpty {
            connection.write(bytes)
            if closeAfter { connection.close() }
        } else {
            slots.append(.ready(bytes, closeAfter: closeAfter))
        }
    }

    /// Writes every reply at the head of the queue that is complete.
    private func writeReadySlots() {
        guard let connection else { return }
        while let first = slots.first {
            switch first {
            case .ready(let bytes, let closeAfter):
                slots.removeFirst()
                connection.write(bytes)
                if closeAfter { connection.close(); return }
            case .deferred(let promise):
                guard let bytes = promise.bytes else { return }
                slots.removeFirst()
                connection.write(bytes)
                if !promise.keepAlive { connection.close(); return }
            case .stream(let body):
                if !body.headWritten {
                    body.headWritten = true
                    connection.write(body.head)
                    body.sentBytes += body.head.count
                }
                if !body.pendingChunks.isEmpty {
                    for chunk in body.pendingChunks where !body.headOnly {
                        connection.write(chunk)
                        body.sentBytes += chunk.count
                    }
                    body.pendingChunks.removeAll()
                    if connection.pendingWriteBytes > configuration.maxPendingWriteBytes {
                        connection.closeNow()   // the client does not read: cut the stream off
                        return
                    }
                }
                if body.source != nil {
                    pull(body, into: connection)
                    guard self.connection != nil else { return }
                }
                guard body.finished else { return }
                slots.removeFirst()
                if !body.headOnly {
                    connection.write(HTTPSerializer.lastChunk)
                    body.sentBytes += HTTPSerializer.lastChunk.count
                }
                body.record?.finish(status: body.status, bytes: body.sentBytes, now: Self.now())
                if body.closeAfter { connection.close(); return }
            }
        }
        // Nothing left to write.
        if (quiescing || inputClosed) && !parser.hasPartialRequest {
            connection.close()
        }
    }

    /// Takes chunks from a pulled stream while the connection has room (at most the low-water
    /// mark unsent), so a slow reader holds one chunk and the mark, not the whole body.
    private func pull(_ body: StreamedBody, into connection: any Transport) {
        guard let source = body.source else { return }
        if body.headOnly {
            body.sourceEnded()
            return
        }
        while connection.isOpen && connection.pendingWriteBytes <= configuration.streamLowWaterBytes {
            let next: [UInt8]?
            do { next = try source() } catch {
                connection.closeNow()   // the body cannot be completed: the client must not take it as whole
                return
            }
            guard let bytes = next, !bytes.isEmpty else {
                body.sourceEnded()
                return
            }
            let chunk = HTTPSerializer.chunk(bytes)
            body.sentBytes += chunk.count
            connection.write(chunk)
        }
    }

    // MARK: Called back on the loop by deferred replies and streams

    func deferredCompleted() {
        writeReadySlots()
        resumeIfPossible()
        updateTimeout()
    }

    /// Deferred or blocking work answered with a stream: its slot becomes a streamed body, in place,
    /// so replies keep their order (on the loop).
    func deferredBecameStream(_ promise: DeferredResponse, head: HTTPResponse,
                              start: @Sendable (any HTTPBodyWriter) -> Void) {
        guard let connection,
              let index = slots.firstIndex(where: { if case .deferred(let p) = $0 { p === promise } else { false } })
        else { return }   // the client went away meanwhile
        let body = StreamedBody(handler: self, loop: connection.eventLoop,
                                head: HTTPSerializer.serializeStreamHead(head, keepAlive: promise.keepAlive,
                                                                         defaults: configuration.defaultResponseHeaders),
                                headOnly: !head.status.allowsBody, closeAfter: !promise.keepAlive,
                                status: head.status.code, record: promise.record)
        slots[index] = .stream(body)
        start(body)
        streamChanged()
    }

    func streamChanged() {
        writeReadySlots()
        resumeIfPossible()
        updateTimeout()
    }

    private func resumeIfPossible() {
        guard let connection, connection.isOpen, pausedForBackpressure,
              slots.count < configuration.maxPipelinedRequests,
              connection.pendingWriteBytes < configuration.maxPendingWriteBytes else { return }
        pausedForBackpressure = false
        connection.resumeReading()
        processRequests()   // requests already buffered in the parser
    }

    // MARK: Timeouts (one lazily re-armed timer per connection, no timer work per request)

    private func updateTimeout() {
        guard connection != nil else { return }
        if !slots.isEmpty || closing {
            timeout = .none          // waiting for replies: the responder decides how long
        } else if parser.hasPartialRequest {
            if timeout != .request { setTimeout(.request) }   // counted from the request's first bytes
        } else {
            setTimeout(.idle)
        }
    }

    private func setTimeout(_ kind: Timeout) {
        guard let connection else { return }
        timeout = kind
        let delay = kind == .idle ? configuration.idleTimeout : configuration.headerReadTimeout
        deadline = Self.now() &+ Self.nanoseconds(delay)
        if deadline < timerFireAt { armTimer(connection, at: deadline) }
    }

    private func armTimer(_ connection: any Transport, at when: UInt64) {
        timerFireAt = when
        let now = Self.now()
        let delay = when > now ? Duration.nanoseconds(Int64(clamping: when - now)) : .zero
        connection.schedule(after: delay) { [self] in timerFired() }   // cancelled when the connection closes
    }

    private func timerFired() {
        timerFireAt = .max
        guard let connection, timeout != .none else { return }
        if Self.now() < deadline {
            armTimer(connection, at: deadline)
            return
        }
        switch timeout {
        case .none:
            break
        case .idle:
            connection.close()
        case .request:
            closing = true
            timeout = .none
            let seconds = Double(Self.nanoseconds(configuration.headerReadTimeout)) / 1e9
            let response = HTTPResponse.problem(
                .requestTimeout, error: "request_timeout",
                message: "the request was not received completely within \(seconds) s; send the whole request promptly")
            enqueue(serialize(response), closeAfter: true)
        }
    }

    /// An error the server answers itself (parse error, timeout) before closing.
    private func serialize(_ response: HTTPResponse) -> [UInt8] {
        let bytes = HTTPSerializer.serialize(response, requestMethod: .get, requestVersion: .http1_1, keepAlive: false,
                                             defaults: configuration.defaultResponseHeaders)
        if let sink = configuration.requestLog {
            let now = Self.now()
            ExchangeRecord(sink: sink, unparsedFrom: context, started: now).finish(status: response.status.code,
                                                                                   bytes: bytes.count, now: now)
        }
        return bytes
    }

    /// Tells the request log of a CONNECT's answer.
    private func logConnect(_ request: HTTPRequest, status: Int, bytes: Int) {
        guard let sink = configuration.requestLog else { return }
        let now = Self.now()
        ExchangeRecord(sink: sink, request: request, started: connectStarted ?? now).finish(status: status, bytes: bytes, now: now)
    }

    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
    }
}
