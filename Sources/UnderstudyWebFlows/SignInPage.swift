import UnderstudyHTTP

/// The sign-in page both providers share (pure HTML, no JavaScript): who asks (client, scopes,
/// redirect URI), the test identities to pick from (configured and recently used), a new
/// identity's fields, Apple's Hide My Email, and Continue / Cancel. The authorize parameters
/// travel in hidden fields and are validated again when the form comes back.
public enum SignInPage {
    /// An identity offered on the page.
    public struct Choice: Sendable, Equatable {
        public var email: String
        public var givenName: String?
        public var familyName: String?
        public init(email: String, givenName: String? = nil, familyName: String? = nil) {
            self.email = email; self.givenName = givenName; self.familyName = familyName
        }
    }

    /// The form's own fields; the authorize parameters keep their names.
    public enum Field {
        public static let action = "understudy_action"
        public static let csrf = "understudy_csrf"
        public static let identity = "understudy_identity"
        public static let email = "understudy_email"
        public static let givenName = "understudy_given_name"
        public static let familyName = "understudy_family_name"
        public static let hideEmail = "understudy_hide_email"
    }

    /// The page for `request`, posting back to `action` (a path relative to the page, so it works
    /// on the real host and path-routed alike).
    public static func render(_ request: AuthorizeRequest, choices: [Choice], csrf: String, action: String,
                              notice: String? = nil) -> HTTPResponse {
        let e = HTMLEscape.escape
        let who = request.provider == .apple ? "Sign in with Apple" : "Google Sign-In"
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>Understudy: choose a test identity</title><style>\(PageStyle.css)</style></head>
            <body><main><span class="badge">UNDERSTUDY · TEST STAND-IN FOR \(e(who.uppercased()))</span>
            <h1>Choose a test identity</h1>
            <dl><dt>Client</dt><dd>\(e(request.clientID))</dd>
            <dt>Scopes</dt><dd>\(e(request.scopes.isEmpty ? "(none)" : request.scope))</dd>
            <dt>Returns to</dt><dd>\(e(request.redirectURI))</dd></dl>

            """
        if let notice { html += "<p class=\"error\">\(e(notice))</p>\n" }
        html += "<form method=\"post\" action=\"\(e(action))\">\n"
        for (name, value) in request.parameters {
            html += "<input type=\"hidden\" name=\"\(e(name))\" value=\"\(e(value))\">\n"
        }
        html += "<input type=\"hidden\" name=\"\(Field.csrf)\" value=\"\(e(csrf))\">\n"
        html += "<fieldset><legend>Identity</legend>\n"
        let hinted = request.loginHint?.lowercased()
        let checkedIndex = choices.firstIndex { $0.email.lowercased() == hinted } ?? 0
        for (n, choice) in choices.enumerated() {
            let name = [choice.givenName, choice.familyName].compactMap { $0 }.joined(separator: " ")
            html += "<label><input type=\"radio\" name=\"\(Field.identity)\" value=\"\(e(choice.email))\"\(n == checkedIndex ? " checked" : "")> "
                + "\(e(choice.email))\(name.isEmpty ? "" : " (\(e(name)))")</label>\n"
        }
        html += """
            <label><input type="radio" name="\(Field.identity)" value=""\(choices.isEmpty ? " checked" : "")> A new identity:</label>
            <label>Email <input type="email" name="\(Field.email)" maxlength="254" autocomplete="off"></label>
            <label>Given name <input type="text" name="\(Field.givenName)" maxlength="100" autocomplete="off"></label>
            <label>Family name <input type="text" name="\(Field.familyName)" maxlength="100" autocomplete="off"></label>
            </fieldset>

            """
        if request.provider == .apple && request.scopes.contains("email") {
            html += "<label><input type=\"checkbox\" name=\"\(Field.hideEmail)\" value=\"1\"> Hide My Email "
                + "(share a stable @privaterelay.appleid.com address instead)</label>\n"
        }
        html += """
            <p><button type="submit" name="\(Field.action)" value="continue">Continue</button>
            <button type="submit" name="\(Field.action)" value="cancel">Cancel</button></p>
            </form></main></body></html>
            """
        return HTTPResponse(status: .ok, headers: PageStyle.headers(formTarget: request.redirectURI), body: Array(html.utf8))
    }
}
