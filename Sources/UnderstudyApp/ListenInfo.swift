import Synchronization
import UnderstudyJSON

/// What the server listens on, known only once the listeners are bound (port 0 picks), for the
/// web UI's start page (`GET /api/info`). Set once by `Application`, read by any worker.
final class ListenInfo: Sendable {
    struct Addresses: Sendable {
        var http: [String] = []
        var https: String?
        var smtp: String?
        var smtps: String?
        var caCertificate: String?
    }

    private let state = Mutex(Addresses())

    func set(_ addresses: Addresses) { state.withLock { $0 = addresses } }

    var addresses: Addresses { state.withLock { $0 } }
}
