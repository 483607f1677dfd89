import Synchronization

/// A streamed reply gathered whole into one response: what a stream started from deferred or
/// blocking work becomes where the server cannot stream it (a promise without a connection, an
/// HTTP/1.0 client).
public final class CollectedBody: HTTPBodyWriter, Sendable {
    private let head: HTTPResponse
    private let promise: any HTTPResponsePromise
    private let bytes = Mutex<[UInt8]>([])

    public init(head: HTTPResponse, promise: any HTTPResponsePromise) {
        self.head = head
        self.promise = promise
    }

    public func write(_ chunk: [UInt8]) -> Bool {
        bytes.withLock { $0.append(contentsOf: chunk) }
        return true
    }

    public func finish() {
        var response = head
        response.body = bytes.withLock { $0 }
        promise.succeed(response)
    }

    public func onClose(_ callback: @escaping @Sendable () -> Void) { promise.onCancel(callback) }

    public func stream(from next: @escaping @Sendable () throws -> [UInt8]?) {
        do {
            while let chunk = try next(), !chunk.isEmpty { _ = write(chunk) }
            finish()
        } catch {
            promise.succeed(.problem(.internalServerError, error: "store_failed", message: "\(error)"))
        }
    }
}
