import UnderstudyJSON

/// What the audit needs of a minted scenario token.
struct MintedTokenForAudit {
    var idToken: String
    var claims: JSONObject
    var nonce: String?
    var rawNonce: String?
}
