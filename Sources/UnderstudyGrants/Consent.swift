import UnderstudyStore

/// An identity's consent to a client.
public struct Consent: Sendable, RowDecodable, Equatable {
    public var scope: String
    public var refreshIssued: Bool
    public var appleUserSent: Bool
    public var updatedAt: Int64

    static let select = "SELECT scope, refresh_issued, apple_user_sent, updated_at FROM consents"

    public init(row: Row) throws {
        scope = try row.value(at: 0)
        refreshIssued = try row.value(at: 1)
        appleUserSent = try row.value(at: 2)
        updatedAt = try row.value(at: 3)
    }
}
