import Testing
@testable import UnderstudyStore

/// Ingests 20,000 messages of about 4 KiB and prints rates and query latencies. Asserts counts
/// only: timing belongs to the benchmark.
@Suite struct MessageStoreBulkTests {
    @Test func ingestsTwentyThousandMessages() throws {
        let store = try MessageStore(location: .temporary, maxMessages: 30_000)
        defer { store.close() }
        let filler = String(repeating: "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", count: 60)
        func message(_ n: Int) -> NewMessage {
            let to = "user\(n % 500)@example.com"
            let text = "Hello \(to), your code is \(100_000 + n). \(filler)"
            var m = sample(n, to: to, subject: "Sign-in code \(n)", text: text, codes: ["\(100_000 + n)"])
            m.raw = Array(("Subject: Sign-in code \(n)\r\n\r\n" + text).utf8)
            return m
        }
        // Messages are built before timing so the rates measure the store alone.
        let singles = (0..<2_000).map(message)
        let batches = stride(from: 2_000, to: 20_000, by: 100).map { ($0..<$0 + 100).map(message) }
        var start = monotonicMilliseconds()
        var cpu = processCPUMilliseconds()
        for m in singles { try store.insert(m) }
        let single = monotonicMilliseconds() - start
        let singleCPU = processCPUMilliseconds() - cpu
        start = monotonicMilliseconds()
        cpu = processCPUMilliseconds()
        for batch in batches { try store.insert(batch: batch) }
        let batched = monotonicMilliseconds() - start
        let batchedCPU = processCPUMilliseconds() - cpu
        print("store: 2,000 single inserts (~4 KiB): \(Int(2_000 / single * 1000))/s wall, "
            + "\(Int(2_000 / singleCPU * 1000))/s of CPU; 18,000 in batches of 100: "
            + "\(Int(18_000 / batched * 1000))/s wall, \(Int(18_000 / batchedCPU * 1000))/s of CPU "
            + "(debug build; CPU counts every thread of the test process)")

        #expect(try store.count() == 20_000)
        /// Median wall time of 15 runs, in ms.
        func median<T>(_ body: () throws -> T) rethrows -> (T, Double) {
            var times: [Double] = []
            var result: T?
            for _ in 0..<15 {
                let start = monotonicMilliseconds()
                result = try body()
                times.append(monotonicMilliseconds() - start)
            }
            return (result!, times.sorted()[times.count / 2])
        }
        let (byRecipient, recipientTime) = try median { try store.list(MessageFilter(to: "user7@example.com", limit: 50)) }
        #expect(byRecipient.total == 40)
        #expect(byRecipient.items.first?.subject == "Sign-in code 19507")
        let (search, searchTime) = try median { try store.list(MessageFilter(query: "code 119999")) }
        #expect(search.total == 1)
        let (common, commonTime) = try median { try store.list(MessageFilter(query: "lorem", limit: 50)) }
        #expect(common.total == 20_000 && common.items.count == 50)
        let (both, bothTime) = try median { try store.list(MessageFilter(to: "user7@example.com", query: "lorem")) }
        #expect(both.total == 40)
        let (rare, rareTime) = try median { try store.list(MessageFilter(to: "user7@example.com", query: "119507")) }
        #expect(rare.total == 1)
        let (latest, latestTime) = try median { try store.latest(to: "user7@example.com", requireCode: true) }
        #expect(latest?.summary.codes == ["119507"])
        print("store: medians over 20,000 messages: list to=recipient \(recipientTime) ms; search rare word "
            + "\(searchTime) ms; search word in every message \(commonTime) ms; recipient+word \(bothTime) ms; "
            + "recipient+rare word \(rareTime) ms; "
            + "latest with code \(latestTime) ms")
    }
}
