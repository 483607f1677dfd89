import Synchronization
import UnderstudyHTTP
import UnderstudyIO

/// One HTTP/1.1 request Understudy makes itself (Apple's notifications to an app), on an event
/// loop: resolve off the loop, connect without blocking, write, parse the answer, close. Plain
/// HTTP only. The completion runs once, on the loop, with the response or what went wrong.
public enum HTTPClient {
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public static func send(method: String, host: String, port: Int, target: String, headers: [(String, String)] = [],
                            body: [UInt8] = [], on loop: EventLoop, timeout: Duration = .seconds(30),
                            maximumBody: Int = 1 << 20,
                            _ completion: @escaping @Sendable (Result<HTTPResponse, Failure>) -> Void) {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host.contains(":") ? "[\(host)]" : host):\(port)\r\n"
        head += "Connection: close\r\nUser-Agent: understudy\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        let request = Array(head.utf8) + body
        let once = Once(completion)
        loop.execute {
            let timer = loop.schedule(after: timeout) { once.run(.failure(Failure(description: "no complete answer from \(host):\(port) within \(timeout)"))) }
            let finish: @Sendable (Result<HTTPResponse, Failure>) -> Void = { result in
                timer.cancel()
                once.run(result)
            }
            OutboundConnection.resolve(host, port: port, on: loop) { resolved in
                switch resolved {
                case .failure(let error):
                    finish(.failure(Failure(description: "cannot resolve \(host): \(error)")))
                case .success(let addresses):
                    let exchange = Exchange(request: request, parser: HTTPResponseParser(maximumBody: maximumBody, requestMethod: method),
                                            finish: finish)
                    OutboundConnection.connect(to: addresses[0], on: loop, timeout: timeout, handler: exchange, connected: {},
                                               failed: { error in finish(.failure(Failure(description: "cannot connect to \(host):\(port): \(error)"))) })
                }
            }
        }
    }

    /// Runs the completion the first time only (the answer, the timeout or a failure, whichever comes first).
    final class Once: Sendable {
        private let completion: Mutex<(@Sendable (Result<HTTPResponse, Failure>) -> Void)?>
        init(_ completion: @escaping @Sendable (Result<HTTPResponse, Failure>) -> Void) { self.completion = Mutex(completion) }
        func run(_ result: Result<HTTPResponse, Failure>) {
            let c = completion.withLock { c -> (@Sendable (Result<HTTPResponse, Failure>) -> Void)? in
                defer { c = nil }
                return c
            }
            c?(result)
        }
    }

    /// Writes the request, reads the response; loop-confined.
    final class Exchange: ConnectionHandler {
        let request: [UInt8]
        var parser: HTTPResponseParser
        let finish: @Sendable (Result<HTTPResponse, Failure>) -> Void
        var done = false

        init(request: [UInt8], parser: HTTPResponseParser, finish: @escaping @Sendable (Result<HTTPResponse, Failure>) -> Void) {
            self.request = request
            self.parser = parser
            self.finish = finish
        }

        func connectionActive(_ connection: any Transport) { connection.write(request) }

        func connection(_ connection: any Transport, received bytes: UnsafeRawBufferPointer) {
            guard !done else { return }
            do {
                if try parser.consume(bytes), let response = parser.response { complete(.success(response), connection) }
            } catch {
                complete(.failure(Failure(description: error.description)), connection)
            }
        }

        func connectionInputClosed(_ connection: any Transport) {
            guard !done else { return connection.close() }
            do {
                try parser.finish()
                complete(parser.response.map { .success($0) } ?? .failure(Failure(description: "no response")), connection)
            } catch {
                complete(.failure(Failure(description: error.description)), connection)
            }
        }

        func connectionClosed(_ connection: any Transport, reason: ConnectionCloseReason) {
            if !done { done = true; finish(.failure(Failure(description: "the connection closed before an answer (\(reason))"))) }
        }

        private func complete(_ result: Result<HTTPResponse, Failure>, _ connection: any Transport) {
            done = true
            finish(result)
            connection.closeNow()
        }
    }
}
