import Dispatch
import Synchronization
import Testing
import UnderstudyHTTP
@testable import UnderstudyInbox

/// Records what an event stream writes, as the HTTP server's body writer would send it.
private final class RecordingWriter: HTTPBodyWriter {
    let writes = Mutex<[String]>([])
    func write(_ bytes: [UInt8]) -> Bool {
        writes.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) }
        return true
    }
    func finish() {}
    func onClose(_ callback: @escaping @Sendable () -> Void) {}
}

@Suite struct HeartbeatTests {
    @Test func writesACommentEveryIntervalUntilStopped() throws {
        let writer = RecordingWriter()
        let heartbeat = Heartbeat(writer: writer, interval: .milliseconds(20))
        heartbeat.start()
        let deadline = DispatchTime.now() + .seconds(5)
        while writer.writes.withLock({ $0.count }) < 3, DispatchTime.now() < deadline {
            _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(5))
        }
        heartbeat.stop()
        let atStop = writer.writes.withLock { $0 }
        #expect(atStop.count >= 3)
        // A comment line (": ...") ends by a blank line: clients ignore it, proxies see traffic.
        #expect(atStop.allSatisfy { $0 == ": ping\n\n" })
        _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(100))
        #expect(writer.writes.withLock { $0.count } <= atStop.count + 1)  // one may have been in flight
    }

    @Test func theDefaultIntervalIsFifteenSeconds() {
        #expect(Heartbeat(writer: RecordingWriter()).interval == .seconds(15))
    }
}
