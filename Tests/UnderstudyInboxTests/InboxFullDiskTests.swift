import Dispatch
import Synchronization
import Testing
@testable import UnderstudyStore
@testable import UnderstudyInbox

#if canImport(Glibc)
import Glibc
#endif

/// The inbox on a real file system that fills up: a 2 MiB tmpfs, which only root can mount.
/// (The fault-injection tests in InboxTests cover the same ground deterministically everywhere.)
@Suite struct InboxFullDiskTests {
    /// Root, and a tmpfs mount works here (not in every container).
    static let canMountTmpfs: Bool = {
        guard getuid() == 0, let scratch = try? TemporaryDirectory.make(prefix: "understudy-tmpfs-probe") else { return false }
        defer { scratch.remove() }
        guard mount("tmpfs", scratch.path, "tmpfs", 0, "size=64k") == 0 else { return false }
        umount2(scratch.path, Int32(MNT_DETACH))
        return true
    }()

    @Test(.enabled(if: canMountTmpfs, "needs root and tmpfs"))
    func everyMessageAnswered250SurvivesTheDiskFillingUp() throws {
        let scratch = try TemporaryDirectory.make(prefix: "understudy-full-disk")
        defer { scratch.remove() }
        try #require(mount("tmpfs", scratch.path, "tmpfs", 0, "size=2m") == 0)
        defer { umount2(scratch.path, Int32(MNT_DETACH)) }
        let inbox = Inbox(store: try MessageStore(location: .file(scratch.path + "/inbox.sqlite")), clock: { 1_796_230_014_000 })
        defer { inbox.store.close() }

        // Send 32 KiB messages until one is refused: the disk is full.
        let body = String(repeating: "0123456789abcdef ", count: 1900)
        var accepted: [String] = []
        var refusal: InboxError?
        for i in 0..<400 where refusal == nil {
            let result = Outcome<Result<String, InboxError>>()
            inbox.accept(raw: mail(to: "fill@example.com", subject: "m\(i)", body: body), envelopeFrom: "a@x",
                         envelopeTo: ["fill@example.com"]) { result.set($0) }
            switch try #require(result.wait(seconds: 30)) {
            case .success(let id): accepted.append(id)
            case .failure(let error): refusal = error
            }
        }
        let error = try #require(refusal)
        #expect(error.isOutOfSpace, "\(error)")
        #expect(error.description.contains("No space left on device (ENOSPC)"))
        #expect(!accepted.isEmpty)

        // A read either sees every message answered for, or is told the store cannot be written.
        let told = Outcome<InboxError?>()
        if inbox.afterPendingCommits(timeout: .seconds(30), { told.set($0) }) {
            if let failure = try #require(told.wait(seconds: 40)) {
                #expect(failure.isStorageUnavailable)
            } else {
                #expect(try inbox.store.count() == accepted.count)
            }
        } else {
            #expect(try inbox.store.count() == accepted.count)
        }

        // Room again: everything answered 250 is indexed, and nothing else.
        try #require(mount("tmpfs", scratch.path, "tmpfs", UInt(MS_REMOUNT), "size=64m") == 0)
        InboxTests.afterPendingCommits(inbox)
        #expect(try inbox.store.count() == accepted.count)
        #expect(try Set(inbox.store.list(MessageFilter(to: "fill@example.com", limit: 500)).items.map(\.id)) == Set(accepted))
        _ = try inbox.acceptAndWait(raw: mail(to: "fill@example.com", subject: "after", body: "x"), envelopeFrom: "a@x",
                                    envelopeTo: ["fill@example.com"])
        #expect(try inbox.store.count() == accepted.count + 1)
    }
}
