import Dispatch
import Testing
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
@testable import UnderstudyIO
import UnderstudyTestSupport

@Suite struct WorkerPoolTests {
    @Test func jobsRunOffTheLoopAndResultsComeBackOnIt() throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully() }
        let loop = group.next()
        let pool = WorkerPool(threads: 2, queueLimit: 16)
        defer { pool.shutdown() }
        let seen = Box<[String]>([])
        for n in 0..<10 {
            let accepted = pool.submit({ () -> Int in
                seen.update { $0.append(loop.inEventLoop ? "work on loop" : "work") }
                return n * n
            }, deliveringOn: loop) { square in
                seen.update { $0.append(loop.inEventLoop ? "result \(square)" : "result off loop") }
            }
            #expect(accepted)
        }
        #expect(waitUntil { seen.value.count == 20 })
        #expect(seen.value.filter { $0 == "work" }.count == 10)
        #expect(Set(seen.value.filter { $0.hasPrefix("result") }) == Set((0..<10).map { "result \($0 * $0)" }))
    }

    /// With every thread busy, jobs wait up to the queue limit; the next one is refused at once,
    /// and places free up as jobs start.
    @Test func aFullQueueRefusesInsteadOfGrowing() {
        let pool = WorkerPool(threads: 2, queueLimit: 3)
        let release = DispatchSemaphore(value: 0)
        let started = Atomic<Int>(0)
        let finished = Atomic<Int>(0)
        let job: @Sendable () -> Void = {
            started.add(1, ordering: .relaxed)
            release.wait()
            finished.add(1, ordering: .relaxed)
        }
        #expect(pool.submit(job) && pool.submit(job))
        #expect(waitUntil { started.load(ordering: .relaxed) == 2 })
        #expect(pool.runningCount == 2)
        #expect(pool.submit(job) && pool.submit(job) && pool.submit(job))
        #expect(pool.waitingCount == 3)
        #expect(!pool.submit(job), "a fourth waiting job must be refused")
        release.signal()
        #expect(waitUntil { pool.waitingCount == 2 })
        #expect(pool.submit(job))
        for _ in 0..<5 { release.signal() }
        #expect(waitUntil { finished.load(ordering: .relaxed) == 6 })
        pool.shutdown()
    }

    @Test func shutdownFinishesWhatIsQueuedThenRefuses() {
        let pool = WorkerPool(threads: 1, queueLimit: 100)
        let count = Atomic<Int>(0)
        for _ in 0..<50 { pool.submit { usleep(100); count.add(1, ordering: .relaxed) } }
        pool.shutdown()
        #expect(count.load(ordering: .relaxed) == 50)
        #expect(!pool.submit { count.add(1, ordering: .relaxed) })
        pool.shutdown()  // a second call does nothing
    }
}
