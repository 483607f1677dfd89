import UnderstudyStore

/// Why the inbox could not store a message or answer a read. The SMTP layer answers 452 when the
/// disk is full and 451 otherwise; the API answers 503 while the store cannot be written.
public struct InboxError: Error, Sendable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case storeFailed
        case storageUnavailable
        case indexFailing
        case indexTimedOut
    }

    private let code: Code
    /// What was wrong and what to do.
    public let description: String
    /// The store's disk (or quota) is full.
    public let isOutOfSpace: Bool

    private init(_ code: Code, _ description: String, outOfSpace: Bool = false) {
        self.code = code
        self.description = description
        self.isOutOfSpace = outOfSpace
    }

    static let kept = "messages already accepted are kept in its log and indexed once it can be written; "
        + "new mail is refused (SMTP 452 or 451) until then"

    /// The store's files cannot be written (`error` carries the errno): a full disk, an I/O error.
    /// Nil when `error` is not such a failure.
    static func storage(path: String, _ error: any Error) -> InboxError? {
        guard let error = error as? DatabaseError, let code = error.storageErrno else { return nil }
        let advice = error.isOutOfSpace ? "free disk space there (or restart with --data on a disk with room)" : "check that disk"
        return InboxError(.storageUnavailable, "the store at \(path) cannot be written: \(DatabaseError.errnoDescription(code)); "
                          + "\(advice); \(kept)", outOfSpace: error.isOutOfSpace)
    }

    /// Indexing fails for another reason than the disk.
    static func indexFailing(path: String, _ error: any Error) -> InboxError {
        storage(path: path, error) ?? InboxError(.indexFailing, "the store at \(path) cannot index new messages: \(error); \(kept)")
    }

    static func storeFailed(_ error: any Error) -> InboxError {
        InboxError(.storeFailed, "the message could not be stored: \(error); try again")
    }

    static func indexTimedOut(_ timeout: Duration) -> InboxError {
        InboxError(.indexTimedOut, "the index did not catch up with the messages already accepted within "
                   + "\(timeout.components.seconds) s, so an answer now could miss some; try again")
    }

    /// The store cannot be written or cannot index (what the API answers 503 for).
    public var isStorageUnavailable: Bool { code == .storageUnavailable || code == .indexFailing }
    public var isTimeout: Bool { code == .indexTimedOut }

    /// The `error` code of the API's JSON body.
    public var errorCode: String {
        switch code {
        case .storeFailed: return "store_failed"
        case .storageUnavailable: return "storage_unavailable"
        case .indexFailing: return "index_unavailable"
        case .indexTimedOut: return "index_busy"
        }
    }
}
