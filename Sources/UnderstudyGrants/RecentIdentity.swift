import UnderstudyStore

/// An identity signed in with lately, for the sign-in page.
public struct RecentIdentity: Sendable, RowDecodable, Equatable {
    public var email: String
    public var givenName: String?
    public var familyName: String?
    public var usedAt: Int64

    public init(row: Row) throws {
        email = try row.value(at: 0)
        givenName = try row.value(at: 1)
        familyName = try row.value(at: 2)
        usedAt = try row.value(at: 3)
    }
}
