import UnderstudyCA
import UnderstudyJSON
import UnderstudyJOSE
import UnderstudyProviders
import UnderstudyWebFlows

/// Mail sink settings.
public struct MailSettings: Sendable {
    public var maxMessages = 5000
    public var maxMessageSize = 25 * 1024 * 1024
    public var maxRecipients = 100
    public var maxSessionsPerAddress = 32
    public var idleTimeoutBeforeMail = 30
    public var commandTimeLimit = 60
    public var messageTimeLimit = 600
    /// Offer STARTTLS, with certificates from the local CA.
    public var startTLS = true
    /// Refuse MAIL, RCPT, DATA and AUTH (530) before TLS.
    public var requireTLS = false
    public var username: String?
    public var password: String?
    /// Enforced by the HTTP email APIs when set.
    public var apiKey: String?
    public init() {}
}

/// The validated configuration: embedded defaults, overlaid by the configuration file, then the
/// `UNDERSTUDY_*` environment, then flags.
public struct Configuration: Sendable {
    public var http = "127.0.0.1:7080"
    public var smtp = "127.0.0.1:7025"
    public var dataPath: String?
    public var publicURL: String?
    public var keysDirectory: String?
    public var threads: Int?
    /// HTTPS listen address (the provider hosts over TLS, certificates from the local CA); nil: off.
    public var https: String? = "127.0.0.1:7443"
    /// The local CA's directory; nil: the user's data directory (`CertificateAuthority.defaultDirectory`).
    public var caDirectory: String?
    /// Implicit-TLS SMTP listen address (SMTPS, RFC 8314); nil: off.
    public var smtps: String?
    /// CONNECT to a host Understudy does not answer as is tunnelled to the real host (else 403).
    public var proxyPassthrough = false
    public var providers = ProviderSettings()
    public var mail = MailSettings()
    public var server = ServerSettings()
    public var log = LogSettings()
    /// Endpoint faults in force from the start, as `POST /api/faults` takes them (validated).
    public var faults: [JSONValue] = []
    /// The web sign-in flows: auto-approve and the configured clients.
    public var signIn = SignInSettings()

    static let settings: [SettingSpec] = [
        SettingSpec("http", .string, "HTTP listen address, host:port (port 0 picks a free port)"),
        SettingSpec("smtp", .string, "SMTP listen address, host:port"),
        SettingSpec("data", .string, nullable: true, "SQLite file for the inbox; null keeps a temporary store removed at exit"),
        SettingSpec("publicURL", .string, nullable: true, "base URL written into discovery documents; default http://<Host of each request>"),
        SettingSpec("keys", .string, nullable: true, "folder of signing keys (apple/<kid>.pem, google/<kid>.pem); default the embedded development keys"),
        SettingSpec("threads", .integer(1...256), nullable: true, "event loop threads; default one per core"),
        SettingSpec("https", .string, nullable: true, "HTTPS listen address, host:port: Apple's and Google's hosts over TLS with certificates from the local CA; null turns it off"),
        SettingSpec("ca", .string, nullable: true, "folder of the local CA (made there on first use); default $XDG_DATA_HOME/understudy/ca or ~/.local/share/understudy/ca"),
        SettingSpec("identitySeed", .string, "seed from which stable subjects are derived"),
        SettingSpec("apple.issuer", .string, "iss of Apple tokens and discovery"),
        SettingSpec("apple.teamId", .string, "Apple team id"),
        SettingSpec("apple.bundleIds", .stringList, "native app bundle ids (first is the default aud)"),
        SettingSpec("apple.servicesIds", .stringList, "Services IDs for the web flow (first is the default aud for platform web)"),
        SettingSpec("apple.tokenLifetime", .integer(1...31_622_400), "lifetime of Apple ID tokens, seconds"),
        SettingSpec("apple.booleanStyle", .choice(["string", "bool"]), "email_verified/is_private_email as \"true\" strings or booleans"),
        SettingSpec("apple.shuffleKeys", .boolean, "vary the order of /apple/auth/keys between fetches, as Apple does"),
        SettingSpec("google.issuer", .string, "iss of Google tokens and discovery"),
        SettingSpec("google.webClientId", .string, "web (server) client id: the default aud"),
        SettingSpec("google.iosClientId", .string, "iOS client id (azp for platform ios)"),
        SettingSpec("google.androidClientId", .string, "Android client id (azp for platform android)"),
        SettingSpec("google.tokenLifetime", .integer(1...31_622_400), "lifetime of Google ID tokens, seconds"),
        SettingSpec("google.certsMaxAge", .integer(0...31_622_400), "max-age of the certs responses, seconds"),
        SettingSpec("tokens.iatBackdate", .integer(0...3600), "seconds iat is set in the past (verifiers with no clock skew)"),
        SettingSpec("faults", .json, "endpoint faults from the start, as POST /api/faults takes them: [{\"target\": \"keys\", \"fault\": \"503\", \"count\": 2}]"),
        SettingSpec("tokens.rotationGrace", .integer(0...31_622_400), "seconds a rotated-out key stays published before it is retired"),
        SettingSpec("identities", .json, "predefined test identities: [{email, name, givenName, familyName, picture, sub}]"),
        SettingSpec("mail.maxMessages", .integer(1...10_000_000), alias: "--max-messages", "messages kept at most; past it the oldest 1% (up to 256) are pruned at once"),
        SettingSpec("mail.maxMessageSize", .integer(1024...1_073_741_824), "largest message accepted over SMTP, bytes"),
        SettingSpec("mail.maxRecipients", .integer(1...100_000), "recipients per message"),
        SettingSpec("mail.maxSessionsPerAddress", .integer(1...100_000), "SMTP sessions open at once from one client address (256 in all)"),
        SettingSpec("mail.idleTimeoutBeforeMail", .integer(1...3600), "seconds an SMTP session may idle before its first MAIL (300 after it)"),
        SettingSpec("mail.commandTimeLimit", .integer(1...3600), "seconds one SMTP command line may take from its first byte, however it trickles in"),
        SettingSpec("mail.messageTimeLimit", .integer(1...86_400), "seconds one message's DATA or BDAT content may take in all"),
        SettingSpec("proxyPassthrough", .boolean, "tunnel a CONNECT to any other host to that host (needs a network); default false: refused with 403, offline by design"),
        SettingSpec("smtps", .string, nullable: true, "SMTP over implicit TLS (SMTPS) listen address, host:port; null: off"),
        SettingSpec("mail.startTLS", .boolean, "offer STARTTLS on the SMTP port, with a certificate from the local CA"),
        SettingSpec("mail.requireTLS", .boolean, "refuse MAIL, RCPT, DATA and AUTH with 530 until the client has started TLS"),
        SettingSpec("mail.username", .string, nullable: true, "SMTP AUTH user; null accepts any credentials"),
        SettingSpec("mail.password", .string, nullable: true, "SMTP AUTH password"),
        SettingSpec("mail.apiKey", .string, nullable: true,
                    "the key the HTTP email APIs (Resend, SendGrid, Postmark, Mailgun; SES: the access key id) must be sent; null accepts any"),
        SettingSpec("server.allowHosts", .stringList, alias: "--allow-host", "Host names answered besides localhost, loopback, the public URL's and the provider hosts (repeatable; * allows any)"),
        SettingSpec("server.allowRemote", .boolean, alias: "--allow-remote", "allow listening beyond loopback without an API token"),
        SettingSpec("log.format", .choice(["text", "json"]), "request log lines on stderr: text (logfmt, key=value) or json (one object a line)"),
        SettingSpec("log.quiet", .boolean, alias: "--quiet", "no request log (start-up lines, warnings and errors are still written)"),
        SettingSpec("server.apiToken", .string, nullable: true, alias: "--api-token", "when set, /api/* requires Authorization: Bearer <token>; listening beyond loopback needs it or --allow-remote"),
        SettingSpec("signIn.autoApprove", .boolean, alias: "--auto-approve", "complete an authorize request at once for the identity its login_hint names (CI); default false shows the sign-in page"),
        SettingSpec("clients", .json, "web sign-in clients to enforce: [{provider, clientId, clientSecret, redirectUris, teamId, keyId, publicKey}]; empty accepts any client_id"),
    ]

    static func spec(forKey key: String) -> SettingSpec? { settings.first { $0.key == key } }
    static func spec(forFlag flag: String) -> SettingSpec? { settings.first { $0.flag == flag || $0.alias == flag } }

    /// Builds the configuration. `flags` maps setting flags (`--apple-team-id`) to their values.
    public static func load(configFile: String?, environment: [String: String], flags: [String: String])
        throws(ConfigurationError) -> Configuration
    {
        // The embedded defaults are valid JSON (EmbeddedDefaultsTests parses them through this path).
        var tree = (try? JSONValue.parse(EmbeddedDefaults.configuration))?.objectValue ?? JSONObject()
        let file = configFile ?? environment["UNDERSTUDY_CONFIG"]
        if let file {
            let bytes: [UInt8]
            do { bytes = try FileIO.read(file, limit: 4 * 1024 * 1024) } catch { throw .unreadable(file, error.description) }
            let parsed: JSONValue
            do { parsed = try JSONValue.parse(bytes) } catch { throw .unreadable(file, error.description) }
            guard case .object(let object) = parsed else { throw .unreadable(file, "the configuration must be a JSON object") }
            try overlay(object, prefix: [], onto: &tree, source: file)
        }
        for spec in settings {
            if let text = environment[spec.environmentVariable] {
                set(&tree, spec.path, try spec.parse(text, source: spec.environmentVariable))
            }
        }
        for (flag, text) in flags {
            guard let spec = spec(forFlag: flag) else {
                throw .unknownKey(flag, suggestion: suggestion(flag, among: settings.map(\.flag)), source: "command line")
            }
            set(&tree, spec.path, try spec.parse(text, source: flag))
        }
        var configuration = try decode(tree)
        if configuration.caDirectory == nil {
            configuration.caDirectory = CertificateAuthority.defaultDirectory(environment: environment)
        }
        return configuration
    }

    /// Copies a file's members onto the tree, refusing unknown keys and wrong types.
    static func overlay(_ object: JSONObject, prefix: [String], onto tree: inout JSONObject, source: String)
        throws(ConfigurationError)
    {
        for (key, value) in object {
            let path = prefix + [key]
            let dotted = path.joined(separator: ".")
            if let spec = spec(forKey: dotted) {
                try spec.validate(value, source: source)
                set(&tree, path, value)
            } else if settings.contains(where: { $0.path.count > path.count && Array($0.path.prefix(path.count)) == path }) {
                guard case .object(let inner) = value else {
                    throw .wrongType(key: dotted, expected: "an object", got: value.typeName, source: source)
                }
                try overlay(inner, prefix: path, onto: &tree, source: source)
            } else {
                throw .unknownKey(dotted, suggestion: suggestion(dotted, among: settings.map(\.key)), source: source)
            }
        }
    }

    static func set(_ tree: inout JSONObject, _ path: [String], _ value: JSONValue) {
        guard let first = path.first else { return }
        if path.count == 1 { tree[first] = value; return }
        var inner = tree[first]?.objectValue ?? JSONObject()
        set(&inner, Array(path.dropFirst()), value)
        tree[first] = .object(inner)
    }

    static func get(_ tree: JSONObject, _ key: String) -> JSONValue {
        var node: JSONValue = .object(tree)
        for part in key.split(separator: ".") { node = node[String(part)] ?? .null }
        return node
    }

    static func decode(_ tree: JSONObject) throws(ConfigurationError) -> Configuration {
        func string(_ k: String) -> String { get(tree, k).stringValue ?? "" }
        func optional(_ k: String) -> String? { get(tree, k).stringValue }
        func int(_ k: String) -> Int64 { get(tree, k).intValue ?? 0 }
        func list(_ k: String) -> [String] { get(tree, k).arrayValue?.compactMap(\.stringValue) ?? [] }

        var c = Configuration()
        c.http = string("http")
        c.smtp = string("smtp")
        for key in ["http", "smtp"] {
            guard ListenAddress(string(key)) != nil else {
                throw .invalid(key, "must be host:port, e.g. 127.0.0.1:7080 or [::1]:0, got '\(string(key))'")
            }
        }
        c.dataPath = optional("data")
        c.publicURL = optional("publicURL")
        c.keysDirectory = optional("keys")
        c.threads = get(tree, "threads").intValue.map { Int($0) }
        c.https = optional("https")
        if let https = c.https, ListenAddress(https) == nil {
            throw .invalid("https", "must be host:port, e.g. 127.0.0.1:7443, or null to turn HTTPS off, got '\(https)'")
        }
        c.caDirectory = optional("ca")
        c.smtps = optional("smtps")
        c.proxyPassthrough = get(tree, "proxyPassthrough").boolValue ?? false
        if let smtps = c.smtps, ListenAddress(smtps) == nil {
            throw .invalid("smtps", "must be host:port, e.g. 127.0.0.1:7465, or null to turn SMTPS off, got '\(smtps)'")
        }

        var p = ProviderSettings()
        p.identitySeed = string("identitySeed")
        p.apple.issuer = string("apple.issuer")
        p.apple.teamID = string("apple.teamId")
        p.apple.bundleIDs = list("apple.bundleIds")
        p.apple.servicesIDs = list("apple.servicesIds")
        p.apple.tokenLifetime = int("apple.tokenLifetime")
        p.apple.booleanStyle = AppleBooleanStyle(rawValue: string("apple.booleanStyle")) ?? .string
        p.apple.shuffleKeys = get(tree, "apple.shuffleKeys").boolValue ?? true
        p.google.issuer = string("google.issuer")
        p.google.webClientID = string("google.webClientId")
        p.google.iosClientID = string("google.iosClientId")
        p.google.androidClientID = string("google.androidClientId")
        p.google.tokenLifetime = int("google.tokenLifetime")
        p.google.certsMaxAge = int("google.certsMaxAge")
        p.iatBackdate = int("tokens.iatBackdate")
        p.rotationGrace = int("tokens.rotationGrace")
        let faults = get(tree, "faults")
        guard let faultList = faults.arrayValue else { throw .invalid("faults", "must be an array of faults like [{\"target\": \"keys\", \"fault\": \"503\"}]") }
        for f in faultList {
            do { _ = try Fault(json: f, now: 0) } catch { throw .invalid("faults", error.description) }
        }
        c.faults = faultList
        p.identities = try identities(get(tree, "identities"))
        c.providers = p

        c.mail.maxMessages = Int(int("mail.maxMessages"))
        c.mail.maxMessageSize = Int(int("mail.maxMessageSize"))
        c.mail.maxRecipients = Int(int("mail.maxRecipients"))
        c.mail.maxSessionsPerAddress = Int(int("mail.maxSessionsPerAddress"))
        c.mail.idleTimeoutBeforeMail = Int(int("mail.idleTimeoutBeforeMail"))
        c.mail.commandTimeLimit = Int(int("mail.commandTimeLimit"))
        c.mail.messageTimeLimit = Int(int("mail.messageTimeLimit"))
        c.mail.startTLS = get(tree, "mail.startTLS").boolValue ?? true
        c.mail.requireTLS = get(tree, "mail.requireTLS").boolValue ?? false
        if c.mail.requireTLS && !c.mail.startTLS && c.smtps == nil {
            throw .invalid("mail.requireTLS", "needs TLS to be possible: keep mail.startTLS on, or set smtps")
        }
        c.signIn.autoApprove = get(tree, "signIn.autoApprove").boolValue ?? false
        c.signIn.clients = ClientRegistry(try clients(get(tree, "clients")))
        c.mail.username = optional("mail.username")
        c.mail.password = optional("mail.password")
        c.mail.apiKey = optional("mail.apiKey")
        if (c.mail.username == nil) != (c.mail.password == nil) {
            throw .invalid("mail.username", "and mail.password must be set together (or both null to accept any credentials)")
        }
        c.server.allowHosts = list("server.allowHosts")
        c.server.allowRemote = get(tree, "server.allowRemote").boolValue ?? false
        c.server.apiToken = optional("server.apiToken")
        c.log.format = string("log.format") == "json" ? .json : .text
        c.log.quiet = get(tree, "log.quiet").boolValue ?? false
        if c.server.apiToken?.isEmpty == true {
            throw .invalid("server.apiToken", "must not be empty; give a long random string, or null for no token")
        }
        return c
    }

    static func identities(_ value: JSONValue) throws(ConfigurationError) -> [TestIdentity] {
        guard let items = value.arrayValue else {
            throw .invalid("identities", "must be an array of objects like {\"email\": \"alice@example.com\", \"name\": \"Alice\"}")
        }
        let fields = ["email", "name", "givenName", "familyName", "picture", "sub"]
        var out: [TestIdentity] = []
        for (n, item) in items.enumerated() {
            guard let o = item.objectValue else { throw .invalid("identities[\(n)]", "must be an object, got \(item.typeName)") }
            for (k, v) in o {
                guard fields.contains(k) else {
                    throw .invalid("identities[\(n)].\(k)", "is not a known field; known fields: \(fields.joined(separator: ", "))")
                }
                guard v.stringValue != nil || v.isNull else { throw .invalid("identities[\(n)].\(k)", "must be a string, got \(v.typeName)") }
            }
            guard let email = o["email"]?.stringValue, email.contains("@") else {
                throw .invalid("identities[\(n)].email", "is required and must be an email address")
            }
            out.append(TestIdentity(email: email, name: o["name"]?.stringValue, givenName: o["givenName"]?.stringValue,
                                    familyName: o["familyName"]?.stringValue, picture: o["picture"]?.stringValue,
                                    sub: o["sub"]?.stringValue))
        }
        return out
    }

    static func clients(_ value: JSONValue) throws(ConfigurationError) -> [OAuthClient] {
        if value.isNull { return [] }
        guard let items = value.arrayValue else {
            throw .invalid("clients", "must be an array of objects like {\"provider\": \"google\", \"clientId\": \"...\", \"redirectUris\": [\"...\"]}")
        }
        let fields = ["provider", "clientId", "clientSecret", "redirectUris", "teamId", "keyId", "publicKey"]
        var out: [OAuthClient] = []
        for (n, item) in items.enumerated() {
            guard let o = item.objectValue else { throw .invalid("clients[\(n)]", "must be an object, got \(item.typeName)") }
            for (k, v) in o {
                guard fields.contains(k) else {
                    throw .invalid("clients[\(n)].\(k)", "is not a known field; known fields: \(fields.joined(separator: ", "))")
                }
                if k == "redirectUris" {
                    guard let list = v.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                        throw .invalid("clients[\(n)].redirectUris", "must be an array of strings")
                    }
                } else if v.stringValue == nil && !v.isNull {
                    throw .invalid("clients[\(n)].\(k)", "must be a string, got \(v.typeName)")
                }
            }
            guard let providerName = o["provider"]?.stringValue, let provider = FlowProvider(rawValue: providerName) else {
                throw .invalid("clients[\(n)].provider", "is required: apple or google")
            }
            guard let clientID = o["clientId"]?.stringValue, !clientID.isEmpty else {
                throw .invalid("clients[\(n)].clientId", "is required (Google: the OAuth client id; Apple: the Services ID)")
            }
            var publicKey: JWS.ES256.PublicKey?
            if let pem = o["publicKey"]?.stringValue {
                do { publicKey = try JWS.ES256.PublicKey(pemRepresentation: pem) } catch {
                    throw .invalid("clients[\(n)].publicKey", "must be the P-256 public key of your .p8 key in PEM (-----BEGIN PUBLIC KEY-----): \(error)")
                }
            }
            out.append(OAuthClient(provider: provider, clientID: clientID, clientSecret: o["clientSecret"]?.stringValue,
                                   redirectURIs: o["redirectUris"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                                   teamID: o["teamId"]?.stringValue, keyID: o["keyId"]?.stringValue, publicKey: publicKey))
        }
        return out
    }

    /// The closest candidate by edit distance, if it is close enough to be a likely typo.
    static func suggestion(_ word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, editDistance(word.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(2, word.count / 3) else { return nil }
        return best.0
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }

    /// The configured base URL for discovery documents without a trailing slash; nil means "from the
    /// request's Host header".
    public var normalizedPublicURL: String? {
        publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    }
}

/// `host:port`, `[v6]:port`, or `:port` (loopback).
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init?(_ text: String) {
        let hostPart: Substring, portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        guard let port = Int(portPart), (0...65535).contains(port) else { return nil }
        self.host = hostPart.isEmpty ? "127.0.0.1" : String(hostPart)
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
