import Testing
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
@testable import UnderstudyIO
import UnderstudyTestSupport

@Suite(.serialized)
struct EventLoopTests {
    @Test func executeFromOtherThreadsRunsOnTheLoop() throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdownGracefully() }
        let loop = group.next()
        #expect(!loop.inEventLoop)
        let ranOnLoop = Box(0)
        let threads = 4, perThread = 250
        let done = Box(0)
        for _ in 0..<threads {
            let t = TestThread { for _ in 0..<perThread { loop.execute { if loop.inEventLoop { ranOnLoop.update { $0 += 1 } } } }; done.update { $0 += 1 } }
            t.start()
        }
        #expect(waitUntil { ranOnLoop.value == threads * perThread })
    }

    @Test func timersFireInDeadlineOrderAndCancelledOnesDoNot() throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let loop = group.next()
        let fired = Box<[Int]>([])
        loop.schedule(after: .milliseconds(60)) { fired.update { $0.append(3) } }
        loop.schedule(after: .milliseconds(20)) { fired.update { $0.append(1) } }
        let cancelled = loop.schedule(after: .milliseconds(30)) { fired.update { $0.append(99) } }
        loop.schedule(after: .milliseconds(40)) { fired.update { $0.append(2) } }
        cancelled.cancel()
        #expect(waitUntil { fired.value.count == 3 })
        #expect(fired.value == [1, 2, 3])
        // The cancelled one never fires, even later.
        let sentinel = Box(false)
        loop.schedule(after: .milliseconds(50)) { sentinel.update { $0 = true } }
        #expect(waitUntil { sentinel.value })
        #expect(fired.value == [1, 2, 3])
    }

    @Test func timersScheduledOnTheLoopCanBeCancelledThere() throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let loop = group.next()
        let fired = Box<[String]>([])
        loop.execute {
            let a = loop.schedule(after: .milliseconds(10)) { fired.update { $0.append("a") } }
            loop.schedule(after: .zero) { fired.update { $0.append("now") } }
            a.cancel()
            loop.schedule(after: .milliseconds(15)) { fired.update { $0.append("b") } }
        }
        #expect(waitUntil { fired.value.contains("b") })
        #expect(fired.value == ["now", "b"])
    }

    /// A connection re-arms a minutes-long timeout on every command: the cancelled entries must
    /// not pile up in the heap, and the live timers among them must still fire in order.
    @Test func cancelledTimersDoNotAccumulate() throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let loop = group.next()
        let fired = Box<[Int]>([])
        let sizes = Box<[Int]>([])
        loop.execute {
            var current = loop.schedule(after: .seconds(300)) {}
            for n in 0..<100_000 {
                current.cancel()
                current = loop.schedule(after: .seconds(300)) {}
                if n % 25_000 == 0 { sizes.update { $0.append(loop.timerHeapCount) } }
            }
            loop.schedule(after: .milliseconds(20)) { fired.update { $0.append(2) } }
            loop.schedule(after: .milliseconds(10)) { fired.update { $0.append(1) } }
            sizes.update { $0.append(loop.timerHeapCount) }
            current.cancel()
        }
        #expect(waitUntil { fired.value.count == 2 })
        #expect(fired.value == [1, 2])
        #expect(sizes.value.count == 5)
        #expect(sizes.value.allSatisfy { $0 <= 130 }, "heap sizes \(sizes.value)")
    }

    @Test func shutdownRunsQueuedTasksAndJoins() throws {
        let group = try EventLoopGroup(threads: 2)
        let counter = Box(0)
        for loop in group.loops { loop.execute { counter.update { $0 += 1 } } }
        group.shutdownGracefully(timeout: .seconds(1))
        #expect(counter.value == 2)
        // After shutdown, execute is a no-op instead of a crash.
        group.loops[0].execute { counter.update { $0 += 1 } }
        #expect(counter.value == 2)
    }
}

@Suite(.serialized)
struct TerminationSignalTests {
    /// The signal is sent to this thread only (pthread_kill), so no other test thread can take it.
    @Test(arguments: [(SIGINT, TerminationSignal.interrupt), (SIGTERM, TerminationSignal.terminate)])
    func waitReturnsTheSignalThatArrived(signal: Int32, expected: TerminationSignal) {
        TerminationSignal.blockInCurrentThread()
        defer {
            var set = sigset_t()
            sigemptyset(&set); sigaddset(&set, SIGINT); sigaddset(&set, SIGTERM)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
        }
        let target = UInt(pthread_self())
        TestThread { pthread_kill(pthread_t(target), signal) }.start()
        #expect(TerminationSignal.wait() == expected)
    }
}
