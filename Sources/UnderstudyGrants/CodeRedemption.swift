/// What redeeming an authorization code found.
public enum CodeRedemption: Sendable {
    case valid(StoredCode)
    case unknown
    case expired
    /// Redeemed before: the tokens of the first redemption are now revoked.
    case alreadyUsed
}
