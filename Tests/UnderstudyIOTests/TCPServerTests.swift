import Testing
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
@testable import UnderstudyIO
import UnderstudyTestSupport

/// Echoes every byte; records how the connection ended.
final class EchoHandler: ConnectionHandler {
    let closes: Box<[String]>
    init(closes: Box<[String]>) { self.closes = closes }
    func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {
        connection.write(Array(bytes))
    }
    func connectionClosed(_ connection: any Transport, reason: ConnectionCloseReason) {
        closes.update { $0.append(reason.description) }
    }
}

/// Sends `size` patterned bytes as soon as the connection is active, then closes after the flush.
final class BlastHandler: ConnectionHandler {
    let size: Int
    init(size: Int) { self.size = size }
    func connectionActive(_ connection: any Transport) {
        var bytes = [UInt8](repeating: 0, count: size)
        for i in 0..<size { bytes[i] = UInt8(truncatingIfNeeded: i &* 31 &+ i >> 11) }
        connection.write(bytes)
        connection.close()
    }
    func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {}
}

@Suite(.serialized)
struct TCPServerTests {
    @Test func echoRoundTripOnPortZero() throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdownGracefully() }
        let closes = Box<[String]>([])
        let server = TCPServer(configuration: .init(host: "127.0.0.1", port: 0), group: group) { _ in EchoHandler(closes: closes) }
        let address = try server.start()
        #expect(address.port != 0)
        #expect(server.localAddress == address)
        let client = try TestClient(address)
        client.send("hello, loop")
        #expect(client.read(count: 11) == Array("hello, loop".utf8))
        client.close()
        #expect(waitUntil { closes.value == ["closed by peer"] })
        #expect(waitUntil { server.connectionCount == 0 })
    }

    @Test(arguments: ["::1", "localhost"])
    func listensOnIPv6AndLocalhost(host: String) throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let server = TCPServer(configuration: .init(host: host, port: 0), group: group) { _ in EchoHandler(closes: Box([])) }
        let address: SocketAddress
        do { address = try server.start() } catch {
            // No IPv6 on this machine: nothing to test.
            if host == "::1", error.errnoCode == EADDRNOTAVAIL { return }
            throw error
        }
        #expect(address.host == (host == "::1" ? "::1" : "127.0.0.1"))
        let client = try TestClient(address)
        client.send("x")
        #expect(client.read(count: 1) == [UInt8(ascii: "x")])
        client.close()
    }

    @Test(arguments: ["127.0.0.1", "::1"])
    func aConnectionKnowsItsPeer(host: String) throws {
        final class PeerHandler: ConnectionHandler {
            let peers: Box<[SocketAddress]>
            init(peers: Box<[SocketAddress]>) { self.peers = peers }
            func connectionActive(_ connection: any Transport) { peers.update { $0.append(connection.remoteAddress) } }
            func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {}
        }
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let peers = Box<[SocketAddress]>([])
        let server = TCPServer(configuration: .init(host: host, port: 0), group: group) { _ in PeerHandler(peers: peers) }
        let address: SocketAddress
        do { address = try server.start() } catch {
            if host == "::1", error.errnoCode == EADDRNOTAVAIL { return }
            throw error
        }
        let client = try TestClient(address)
        defer { client.close() }
        #expect(waitUntil { peers.value.count == 1 })
        #expect(peers.value.first == SocketAddress.local(of: client.fd))  // the client's own end
        #expect(peers.value.first?.port != address.port)
    }

    /// SO_REUSEPORT must not let a second server share a port that is already taken.
    @Test func aTakenPortIsRefused() throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdownGracefully() }
        let first = TCPServer(configuration: .init(port: 0), group: group) { _ in EchoHandler(closes: Box([])) }
        let address = try first.start()
        let second = TCPServer(configuration: .init(port: address.port), group: group) { _ in EchoHandler(closes: Box([])) }
        do {
            try second.start()
            Issue.record("a second server bound \(address)")
        } catch {
            #expect(error.errnoCode == EADDRINUSE)
            #expect(error.systemCallName == "bind")
        }
        first.stop()
    }

    @Test func rejectsHostNames() {
        #expect(throws: IOError.self) { try SocketAddress(host: "example.com", port: 80) }
        #expect(throws: IOError.self) { try SocketAddress(host: "127.0.0.1", port: 70000) }
    }

    @Test func manyConnectionsAtOnce() throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdownGracefully() }
        let server = TCPServer(configuration: .init(port: 0), group: group) { _ in EchoHandler(closes: Box([])) }
        let address = try server.start()
        let clients = try (0..<200).map { _ in try TestClient(address) }
        for (i, client) in clients.enumerated() { client.send("client \(i);") }
        for (i, client) in clients.enumerated() {
            let expected = Array("client \(i);".utf8)
            #expect(client.read(count: expected.count) == expected)
        }
        #expect(server.connectionCount == 200)
        for client in clients { client.close() }
        #expect(waitUntil { server.connectionCount == 0 })
    }

    @Test func largeWriteArrivesWholeThroughPartialWrites() throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdownGracefully() }
        let size = 8 * 1024 * 1024
        let server = TCPServer(configuration: .init(port: 0), group: group) { _ in BlastHandler(size: size) }
        let address = try server.start()
        let client = try TestClient(address)
        let received = try #require(client.readToEnd())
        #expect(received.count == size)
        var mismatch = false
        for i in 0..<received.count where received[i] != UInt8(truncatingIfNeeded: i &* 31 &+ i >> 11) { mismatch = true; break }
        #expect(!mismatch)
        client.close()
    }

    @Test func drainCallbackAfterThePeerCatchesUp() throws {
        final class DrainHandler: ConnectionHandler {
            let drained: Box<Int>
            init(drained: Box<Int>) { self.drained = drained }
            func connectionActive(_ connection: any Transport) {
                connection.write([UInt8](repeating: 7, count: 16 * 1024 * 1024))
                #expect(connection.pendingWriteBytes > 0)   // more than any socket buffer
            }
            func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {}
            func connectionDidDrainWrites(_ connection: any Transport) {
                drained.update { $0 += 1 }
                connection.close()
            }
        }
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let drained = Box(0)
        let server = TCPServer(configuration: .init(port: 0), group: group) { _ in DrainHandler(drained: drained) }
        let client = try TestClient(try server.start())
        #expect(client.readToEnd()?.count == 16 * 1024 * 1024)
        #expect(drained.value == 1)
        client.close()
    }

    @Test func otherThreadsWriteThroughAConnectionReference() throws {
        final class WorkerHandler: ConnectionHandler {
            func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {
                let reference = connection.reference
                let text = String(decoding: bytes, as: UTF8.self)
                TestThread {
                    // Off the loop: the work, then back onto the loop for the write.
                    let reply = Array(text.uppercased().utf8)
                    reference.execute { connection in
                        #expect(connection.eventLoop.inEventLoop)
                        connection.write(reply)
                    }
                }.start()
            }
        }
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let server = TCPServer(configuration: .init(port: 0), group: group) { _ in WorkerHandler() }
        let client = try TestClient(try server.start())
        client.send("quiet")
        #expect(client.read(count: 5) == Array("QUIET".utf8))
        client.close()
    }

    @Test func echoOfSeveralMegabytesWhileClientSendsAndReads() throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdownGracefully() }
        let server = TCPServer(configuration: .init(port: 0), group: group) { _ in EchoHandler(closes: Box([])) }
        let address = try server.start()
        let client = try TestClient(address)
        let size = 4 * 1024 * 1024
        let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 % 251) }
        let sender = TestThread { client.send(payload) }
        sender.start()
        let echoed = client.read(count: size)
        #expect(echoed == payload)
        client.close()
    }

    @Test func connectionsOverTheCapGetAnAnswerThenClose() throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdownGracefully() }
        let server = TCPServer(configuration: .init(port: 0, maxConnections: 2), group: group,
                               connectionLimitReached: { $0.write(Array("421 too many connections\r\n".utf8)) },
                               makeHandler: { _ in EchoHandler(closes: Box([])) })
        let address = try server.start()
        let first = try TestClient(address), second = try TestClient(address)
        first.send("1"); second.send("2")
        #expect(first.read(count: 1) == Array("1".utf8))
        #expect(second.read(count: 1) == Array("2".utf8))
        let third = try TestClient(address)
        #expect(third.readToEnd() == Array("421 too many connections\r\n".utf8))
        third.close()
        // Once one closes, a new connection is served again.
        first.close()
        #expect(waitUntil { server.connectionCount == 1 })
        let fourth = try TestClient(address)
        fourth.send("4")
        #expect(fourth.read(count: 1) == Array("4".utf8))
        second.close(); fourth.close()
    }

    @Test func peerHalfCloseClosesAfterPendingWrites() throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let closes = Box<[String]>([])
        let server = TCPServer(configuration: .init(port: 0), group: group) { _ in EchoHandler(closes: closes) }
        let address = try server.start()
        let client = try TestClient(address)
        client.send("bye")
        client.shutdownWrite()
        #expect(client.readToEnd() == Array("bye".utf8))
        #expect(waitUntil { closes.value.count == 1 })
        client.close()
    }

    @Test func connectionTimersAndBackpressure() throws {
        final class PausingHandler: ConnectionHandler {
            let events: Box<[String]>
            init(events: Box<[String]>) { self.events = events }
            func connectionActive(_ connection: any Transport) {
                connection.pauseReading()
                connection.schedule(after: .milliseconds(30)) { [events] in
                    events.update { $0.append("resumed") }
                    connection.resumeReading()
                }
            }
            func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {
                events.update { $0.append("read \(bytes.count)") }
                connection.write(Array(bytes))
            }
        }
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let events = Box<[String]>([])
        let server = TCPServer(configuration: .init(port: 0), group: group) { _ in PausingHandler(events: events) }
        let client = try TestClient(try server.start())
        client.send("abc")
        #expect(client.read(count: 3) == Array("abc".utf8))
        #expect(events.value.first == "resumed")
        client.close()
    }

    @Test func pausingCostsNothingUntilInputArrivesThenStopsWakingTheLoop() throws {
        // Pausing leaves the epoll interest alone (no system call when nothing comes in), also
        // when the read that paused wrote a reply, as an SMTP session does; but input arriving
        // while paused must drop it, or the level-triggered loop would spin.
        final class LazyPauseHandler: ConnectionHandler {
            let events: Box<[String]>
            init(events: Box<[String]>) { self.events = events }
            func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {
                connection.write(Array(bytes))
                guard events.value.isEmpty else { return }
                connection.pauseReading()
                connection.schedule(after: .milliseconds(1)) { [events] in
                    let registered = (connection as! Connection).interest & EpollEvents.input != 0
                    events.update { $0.append(registered ? "still registered" : "dropped early") }
                    self.poll(connection, remaining: 400)
                }
            }
            func poll(_ connection: any Transport, remaining: Int) {
                if (connection as! Connection).interest & EpollEvents.input == 0 {
                    events.update { $0.append("dropped on input") }
                    connection.resumeReading()
                } else if remaining == 0 {
                    events.update { $0.append("never dropped") }
                    connection.resumeReading()
                } else {
                    connection.schedule(after: .milliseconds(5)) { self.poll(connection, remaining: remaining - 1) }
                }
            }
        }
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let events = Box<[String]>([])
        let server = TCPServer(configuration: .init(port: 0), group: group) { _ in LazyPauseHandler(events: events) }
        let client = try TestClient(try server.start())
        client.send("a")
        #expect(client.read(count: 1) == Array("a".utf8))
        #expect(waitUntil { events.value.count == 1 })
        client.send("xyz")
        #expect(client.read(count: 3) == Array("xyz".utf8))  // resumed, and the input read
        #expect(events.value == ["still registered", "dropped on input"])
        client.close()
    }

    @Test func inputWhileClosingWithWritesPendingStopsWakingTheLoop() throws {
        // close() with a reply still queued reads no more; input arriving meanwhile must drop the
        // epoll interest (lazily, as pausing does), or the level-triggered loop would spin.
        final class ClosingHandler: ConnectionHandler {
            let references: Box<[ConnectionReference]>
            init(references: Box<[ConnectionReference]>) { self.references = references }
            func connectionActive(_ connection: any Transport) {
                connection.write([UInt8](repeating: 0x61, count: 8 << 20))  // more than the socket buffers take
                connection.close()
                references.update { $0.append(connection.reference) }
            }
            func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {
                Issue.record("read \(bytes.count) bytes after close()")
            }
        }
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let references = Box<[ConnectionReference]>([])
        let server = TCPServer(configuration: .init(port: 0), group: group) { _ in ClosingHandler(references: references) }
        let client = try TestClient(try server.start())
        #expect(waitUntil { references.value.count == 1 })
        let input = Box<UInt32?>(nil)
        func readInterest() {
            references.value[0].execute { connection in input.update { $0 = (connection as! Connection).interest & EpollEvents.input } }
        }
        readInterest()
        #expect(waitUntil { input.value != nil })
        #expect(input.value != 0)  // nothing came in yet: the interest was left as it was
        client.send("late")
        #expect(waitUntil {
            readInterest()
            return input.value == 0
        })
        // All 8 MiB arrive: the close lingers over the unread input instead of resetting the
        // connection (which would make this side drop what it had not read yet).
        #expect(client.readToEnd()?.count == 8 << 20)
        client.close()
    }

    /// Answers the first bytes it gets, then closes with the rest of the input unread.
    final class ReplyAndClose: ConnectionHandler {
        func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {
            connection.write(Array("bye\n".utf8))
            connection.close()
        }
    }

    /// Descriptors registered on the group's first loop, read on that loop.
    static func registeredCount(_ group: EventLoopGroup) -> Int? {
        let registered = Box<Int?>(nil)
        group.loops[0].execute { registered.update { $0 = group.loops[0].registeredCount } }
        _ = waitUntil { registered.value != nil }
        return registered.value
    }

    @Test func aLingeringCloseEndsWhenThePeerCloses() throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let server = TCPServer(configuration: .init(port: 0), group: group) { _ in Self.ReplyAndClose() }
        let address = try server.start()
        let registered = Box<Int?>(nil)
        func readRegistered() { registered.update { $0 = Self.registeredCount(group) } }
        readRegistered()
        let baseline = try #require(registered.value)
        // The reply arrives whole, then EOF (not a reset), while the client keeps sending.
        let client = try TestClient(address)
        client.send("QUIT\r\n" + String(repeating: "pipelined after the end\r\n", count: 4000))
        #expect(client.readToEnd() == Array("bye\n".utf8))
        client.send("more")  // still accepted and discarded: the server reads until we close
        readRegistered()
        #expect(registered.value == baseline + 1)  // lingering: the descriptor is still open
        client.close()
        #expect(waitUntil {
            readRegistered()
            return registered.value == baseline
        })
    }

    @Test func aLingeringCloseStopsAfterDiscardingItsBound() throws {
        // A peer that never stops sending does not keep the descriptor: past `lingerBytes`
        // discarded, the connection closes while the peer is still connected. The linger time is
        // set far beyond the wait below, so only the byte bound can end it.
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully(timeout: .seconds(1)) }
        let server = TCPServer(configuration: .init(port: 0, lingerTime: .seconds(600)), group: group) { _ in Self.ReplyAndClose() }
        let address = try server.start()
        let baseline = try #require(Self.registeredCount(group))
        let client = try TestClient(address)
        // More than one read takes, so input is left unread when the handler closes; then more
        // than the bound. The send returns once the server stops reading and resets.
        client.send([UInt8](repeating: 0x78, count: Connection.lingerBytes * 3))
        #expect(waitUntil { Self.registeredCount(group) == baseline })
        client.close()
    }

    /// Reads one line, then hands the connection to an echo handler, replaying what followed the
    /// line in the same read: a protocol switch (CONNECT, STARTTLS) in miniature.
    final class SwitchAfterLine: ConnectionHandler {
        let closes: Box<[String]>
        init(closes: Box<[String]>) { self.closes = closes }
        func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {
            guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return }
            connection.write(Array("switching\n".utf8))
            connection.replaceHandler(with: EchoHandler(closes: closes), replaying: Array(bytes[(newline + 1)...]))
        }
        func connectionClosed(_ connection: any Transport, reason: ConnectionCloseReason) {
            closes.update { $0.append("old handler told: \(reason)") }
        }
    }

    @Test func aHandlerCanHandTheConnectionToAnotherAndReplayInput() throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let closes = Box<[String]>([])
        let server = TCPServer(configuration: .init(port: 0), group: group) { _ in SwitchAfterLine(closes: closes) }
        let client = try TestClient(try server.start())
        client.send("SWITCH\npipelined")
        #expect(client.read(count: 19) == Array("switching\npipelined".utf8))
        client.send("later")
        #expect(client.read(count: 5) == Array("later".utf8))
        client.close()
        #expect(waitUntil { closes.value == ["closed by peer"] })  // only the new handler hears of it
    }

    @Test func gracefulShutdownStopsAcceptingAndClosesConnections() throws {
        let group = try EventLoopGroup(threads: 2)
        let closes = Box<[String]>([])
        let server = TCPServer(configuration: .init(port: 0), group: group) { _ in EchoHandler(closes: closes) }
        let address = try server.start()
        let client = try TestClient(address)
        client.send("x")
        #expect(client.read(count: 1) == [UInt8(ascii: "x")])
        group.shutdownGracefully(timeout: .seconds(2))
        #expect(closes.value == ["closed locally"])
        #expect(client.readToEnd() == [])
        client.close()
        #expect(throws: IOError.self) { _ = try TestClient(address) }
    }

    /// Holds itself in a timer closure, as protocol handlers do, and counts its deinit.
    final class TimedHandler: ConnectionHandler {
        static let alive = Box(0)
        init() { Self.alive.update { $0 += 1 } }
        deinit { Self.alive.update { $0 -= 1 } }
        func connectionActive(_ connection: any Transport) {
            connection.schedule(after: .seconds(600)) { [self] in connection.write(Array("\(self)".utf8)) }
            connection.schedule(after: .seconds(600)) { [self] in _ = self }
        }
        func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {
            connection.close()
        }
    }

    @Test func aClosedConnectionCancelsItsTimersSoNothingOutlivesIt() throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let server = TCPServer(configuration: .init(host: "127.0.0.1", port: 0), group: group) { _ in TimedHandler() }
        let address = try server.start()
        for closedBy in ["server", "client"] {
            let client = try TestClient(address)
            #expect(waitUntil { TimedHandler.alive.value == 1 })
            if closedBy == "server" {
                client.send("x")
                #expect(client.readToEnd() == [])
            }
            client.close()
            // Both 600 s timers held the handler (and through it the connection): closing released them.
            #expect(waitUntil { server.connectionCount == 0 && TimedHandler.alive.value == 0 }, "closed by the \(closedBy)")
        }
    }
}
