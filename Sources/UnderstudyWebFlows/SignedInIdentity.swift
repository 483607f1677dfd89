import UnderstudyJSON

/// Who signed in, as the code and its tokens remember it (stored as JSON text in the grants).
public struct SignedInIdentity: Sendable, Equatable {
    /// The address the tokens carry (for Apple's Hide My Email, the relay address).
    public var email: String
    public var subject: String
    public var givenName: String?
    public var familyName: String?
    public var isPrivateEmail: Bool
    /// Google Workspace domain, when the request asked for `hd` and the address is in it.
    public var hd: String?

    public init(email: String, subject: String, givenName: String? = nil, familyName: String? = nil,
                isPrivateEmail: Bool = false, hd: String? = nil) {
        self.email = email; self.subject = subject; self.givenName = givenName; self.familyName = familyName
        self.isPrivateEmail = isPrivateEmail; self.hd = hd
    }

    public var name: String? {
        let parts = [givenName, familyName].compactMap { $0?.isEmpty == false ? $0 : nil }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    public var encoded: String {
        var o: JSONObject = ["email": .string(email), "sub": .string(subject), "private": .bool(isPrivateEmail)]
        if let givenName { o["given"] = .string(givenName) }
        if let familyName { o["family"] = .string(familyName) }
        if let hd { o["hd"] = .string(hd) }
        return JSONValue.object(o).serialized()
    }

    public init?(encoded: String) {
        guard let o = (try? JSONValue.parse(Array(encoded.utf8)))?.objectValue,
              let email = o["email"]?.stringValue, let sub = o["sub"]?.stringValue else { return nil }
        self.init(email: email, subject: sub, givenName: o["given"]?.stringValue, familyName: o["family"]?.stringValue,
                  isPrivateEmail: o["private"]?.boolValue ?? false, hd: o["hd"]?.stringValue)
    }

    /// Apple's `user` form field: `{"name":{"firstName":..,"lastName":..},"email":..}`, with the
    /// parts the scopes asked for.
    public func appleUserJSON(scopes: [String]) -> String {
        var o = JSONObject()
        if scopes.contains("name") {
            o["name"] = ["firstName": .string(givenName ?? ""), "lastName": .string(familyName ?? "")]
        }
        if scopes.contains("email") { o["email"] = .string(email) }
        return JSONValue.object(o).serialized()
    }
}
