import UnderstudyHTTP
import UnderstudyJOSE
import UnderstudyJSON
import UnderstudyWebFlows

/// `understudy login apple|google`: drives a whole web sign-in against a running server, as a
/// browser would (authorize, the sign-in page, Continue), and prints what the provider sends the
/// app's callback, for debugging a callback handler.
enum LoginCommand {
    static let options = [
        OptionSpec("--client-id", "ID", "The client id (Google) or Services ID (Apple)."),
        OptionSpec("--redirect-uri", "URI", "The app's callback URL."),
        OptionSpec("--email", "ADDR", "The identity to sign in as (default: the first configured identity)."),
        OptionSpec("--scope", "SCOPES", "Scopes (default: Google \"openid email profile\", Apple \"name email\")."),
        OptionSpec("--state", "STATE", "state to send (default: a random one)."),
        OptionSpec("--nonce", "NONCE", "nonce to send."),
        OptionSpec("--response-type", "TYPE", "Apple: code or \"code id_token\" (default code id_token)."),
        OptionSpec("--response-mode", "MODE", "query, fragment or form_post (default: Google query, Apple form_post)."),
        OptionSpec("--hide-email", nil, "Apple: share a Hide My Email relay address."),
        OptionSpec("--pkce", nil, "Google: send an S256 code challenge and print its code_verifier."),
        OptionSpec("--offline", nil, "Google: access_type=offline (a refresh token on the exchange)."),
        OptionSpec("--json", nil, "Print the callback parameters as one JSON object."),
        MailCommands.serverOption,
        OptionSpec("--config", "FILE", "Configuration file, to find the server's address."),
    ]

    static func run(_ arguments: [String], environment: [String: String], output: CommandOutput) throws -> Int32 {
        let help = HelpText(overview: "Sign in through a running server's web flow and print the parameters the app's callback "
                            + "receives (code, state, id_token, user...), one name=value per line.",
                            usage: "understudy login apple|google --client-id <id> --redirect-uri <uri> [--email <addr>] [<options>]",
                            epilogue: "\nEXIT STATUS: 0 a code came back, 1 the provider answered an error, 64 usage error, 69 server unreachable.\n")
        guard let parsed = try ParsedArguments.parse(arguments, options: options, command: "understudy login",
                                                     output: output, help: help) else { return ExitCode.success }
        guard parsed.positionals.count == 1, let provider = FlowProvider(rawValue: parsed.positionals[0]) else {
            throw UsageError("say which provider: understudy login apple|google --client-id ID --redirect-uri URI")
        }
        guard let clientID = parsed.value("--client-id"), let redirect = parsed.value("--redirect-uri") else {
            throw UsageError("login needs --client-id and --redirect-uri, e.g. understudy login \(provider.rawValue) --client-id web-client --redirect-uri http://localhost:3000/callback")
        }
        let configuration = try UnderstudyCLI.configuration(parsed, environment: environment)
        let client = try MailCommands.server(parsed, environment: environment)
        let email = parsed.value("--email") ?? configuration.providers.identities.first?.email ?? "alice@example.com"
        let state = parsed.value("--state") ?? Base64URL.encode(SecureRandom.bytes(12))
        var query: [(String, String)] = [("client_id", clientID), ("redirect_uri", redirect), ("state", state), ("login_hint", email)]
        var verifier: String?
        let path: String
        switch provider {
        case .google:
            path = "/google/o/oauth2/v2/auth"
            query += [("response_type", "code"), ("scope", parsed.value("--scope") ?? "openid email profile")]
            if let mode = parsed.value("--response-mode") { query.append(("response_mode", mode)) }
            if parsed.has("--offline") { query.append(("access_type", "offline")) }
            if parsed.has("--pkce") {
                let v = Base64URL.encode(SecureRandom.bytes(32))
                verifier = v
                query += [("code_challenge", PKCE.challenge(for: v, method: .s256)), ("code_challenge_method", "S256")]
            }
        case .apple:
            path = "/apple/auth/authorize"
            query += [("response_type", parsed.value("--response-type") ?? "code id_token"),
                      ("response_mode", parsed.value("--response-mode") ?? "form_post"), ("scope", parsed.value("--scope") ?? "name email")]
        }
        if let nonce = parsed.value("--nonce") { query.append(("nonce", nonce)) }
        let target = path + "?" + query.map { URLEncoding.queryComponent($0.0) + "=" + URLEncoding.queryComponent($0.1) }.joined(separator: "&")
        var response = try client.get(target)
        let page = HTMLForm(html: response.text)
        if response.status == 200, let csrf = page.value(SignInPage.Field.csrf) {
            // The sign-in page: Continue as the identity, as a browser would.
            let cookie = response.header("Set-Cookie")?.split(separator: ";").first.map(String.init) ?? "understudy_csrf=\(csrf)"
            var fields = page.fields
            fields += [(SignInPage.Field.action, "continue"), (SignInPage.Field.email, email)]
            if parsed.has("--hide-email") { fields.append((SignInPage.Field.hideEmail, "1")) }
            let body = fields.map { URLEncoding.queryComponent($0.name) + "=" + URLEncoding.queryComponent($0.value) }.joined(separator: "&")
            response = try client.request("POST", path, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", cookie)],
                                          body: Array(body.utf8))
        }
        let log = Logger(output: output)
        var callback: [(name: String, value: String)]
        if response.status == 302, let location = response.header("Location") {
            guard let mark = location.firstIndex(where: { $0 == "?" || $0 == "#" }) else {
                log.error("the provider redirected to \(location) without parameters"); return ExitCode.failure
            }
            log.info("the browser is sent to \(location)")
            callback = URLEncoding.formDecoded(Array(location[location.index(after: mark)...].utf8))
        } else if response.status == 200, let action = HTMLForm(html: response.text).action {
            log.info("the browser POSTs this form to \(action) (response_mode=form_post)")
            callback = HTMLForm(html: response.text).fields
        } else {
            let message = response.json?["error_description"]?.stringValue ?? errorPageMessage(response.text) ?? String(response.text.prefix(400))
            log.error("the provider answered HTTP \(response.status): \(message)")
            return ExitCode.failure
        }
        if let verifier { callback.append(("code_verifier", verifier)) }
        if parsed.has("--json") {
            output.out(JSONValue.object(JSONObject(callback.map { ($0.name, JSONValue.string($0.value)) })).serialized() + "\n")
        } else {
            for (name, value) in callback { output.out("\(name)=\(value)\n") }
        }
        return callback.contains { $0.name == "code" } ? ExitCode.success : ExitCode.failure
    }

    /// "invalid_request: <message>" from the provider's HTML error page.
    static func errorPageMessage(_ html: String) -> String? {
        guard let h1 = html.firstRange("<h1 class=\"error\">"), let p = html.firstRange("<p>") else { return nil }
        let title = html[h1.upperBound...].prefix { $0 != "<" }
        let text = html[p.upperBound...].prefix { $0 != "<" }
        return HTMLForm.unescape(String(title)) + ": " + HTMLForm.unescape(String(text))
    }
}
