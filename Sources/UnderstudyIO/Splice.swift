/// Two transports joined into a tunnel: what one side receives is written to the other. A side
/// whose peer has more than `highWater` bytes unsent stops reading until they drain, so a fast
/// sender cannot fill memory; when either side closes or ends its input, both close once what is
/// queued is sent.
///
/// Give `client` and `upstream` to the two transports (`replaceHandler`, or as the handler of a
/// new connection). Bytes for a side that is not active yet wait for it (`send(_:to:)`).
/// Loop-confined: both transports must be on the same loop.
public final class Splice {
    public let client = Side()
    public let upstream = Side()

    /// Unsent bytes on one side past which the other stops reading.
    public static let highWater = 1 << 20

    public init() {
        client.peer = upstream
        upstream.peer = client
    }

    /// One end of the tunnel.
    public final class Side: ConnectionHandler {
        fileprivate var peer: Side?
        private(set) var transport: (any Transport)?
        private var waiting: [UInt8] = []
        private var ended = false

        /// Queues `bytes` for this side's peer-to-be: written as soon as this side is active.
        public func write(_ bytes: [UInt8]) {
            guard !bytes.isEmpty else { return }
            if let transport { transport.write(bytes) } else { waiting += bytes }
        }

        /// Closes this side now or, if it is not active yet, as soon as it is.
        public func end() {
            ended = true
            transport?.close()
        }

        public func connectionActive(_ connection: any Transport) {
            transport = connection
            if ended || peer == nil { return connection.close() }
            if !waiting.isEmpty {
                connection.write(waiting)
                waiting = []
            }
        }

        public func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {
            guard let peer else { return }
            peer.write(Array(bytes))
            if let other = peer.transport, other.pendingWriteBytes > Splice.highWater { connection.pauseReading() }
        }

        public func connectionDidDrainWrites(_ connection: any Transport) {
            if let other = peer?.transport, other.isReadingPaused { other.resumeReading() }
        }

        public func connectionInputClosed(_ connection: any Transport) {
            peer?.end()
            connection.close()
        }

        public func connectionShouldQuiesce(_ connection: any Transport) {
            connection.close()
        }

        public func connectionClosed(_ connection: any Transport, reason: ConnectionCloseReason) {
            transport = nil
            let other = peer
            peer = nil
            other?.peer = nil
            other?.end()
        }
    }
}
