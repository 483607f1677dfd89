/// Decides what a link is for from its URL, its anchor text and the words just before it.
///
/// Order of evidence: explicit parameters (`type=magiclink` in Supabase, `mode=resetPassword` in
/// Firebase), then words in the URL path, then the anchor text, then the preceding text. Words
/// only count for verify / sign-in / reset links when the URL carries something token-like, so a
/// plain "Log in" link to a login page stays `other`.
enum LinkClassifier {
    static func classify(url: String, text: String?, context: [Unicode.Scalar]) -> LinkPurpose {
        classify(url: url, text: text) { context }
    }

    /// - Parameter context: the folded text before the link; only computed when URL and anchor
    ///   text say nothing.
    static func classify(url: String, text: String?, context: () -> [Unicode.Scalar]) -> LinkPurpose {
        let parts = URLParts(url)
        if let purpose = explicitPurpose(parts) { return purpose }
        let tokenish = parts.isTokenish
        if let purpose = pathPurpose(parts) {
            // `/verify` also ends sign-in links (Clerk's `/v1/verify?token=`): anchor text saying
            // "sign in" decides between the two.
            if purpose == .verifyEmail, let text,
               textPurpose(text.unicodeScalars.map(TextDocument.fold), tokenish: tokenish) == .magicLink {
                return .magicLink
            }
            return purpose
        }
        if let text {
            let folded = text.unicodeScalars.map(TextDocument.fold)
            if let purpose = textPurpose(folded, tokenish: tokenish) { return purpose }
        }
        if let purpose = textPurpose(context(), tokenish: tokenish) { return purpose }
        return .other
    }

    // MARK: URL

    struct URLParts {
        var host = ""
        var path = ""
        var query: [(name: String, value: String)] = []

        init(_ url: String) {
            // Lowercase ASCII bytes; everything after the scheme, up to the fragment.
            var bytes = url.utf8.prefix(URLScanner.maximumLength).map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
            if let hash = bytes.firstIndex(of: UInt8(ascii: "#")) { bytes.removeSubrange(hash...) }
            var start = 0
            if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon + 2 < bytes.count,
               bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/") {
                start = colon + 3
            }
            let queryStart = bytes[start...].firstIndex(of: UInt8(ascii: "?")) ?? bytes.count
            let slash = bytes[start..<queryStart].firstIndex(of: UInt8(ascii: "/")) ?? queryStart
            host = String(decoding: bytes[start..<slash], as: UTF8.self)
            path = slash < queryStart ? String(decoding: bytes[slash..<queryStart], as: UTF8.self) : "/"
            if queryStart < bytes.count {
                for pair in bytes[(queryStart + 1)...].split(separator: UInt8(ascii: "&")).prefix(64) {
                    let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
                    let value = equals < pair.endIndex ? pair[(equals + 1)...] : []
                    query.append((String(decoding: pair[..<equals], as: UTF8.self), String(decoding: value, as: UTF8.self)))
                }
            }
        }

        func value(_ name: String) -> String? { query.first { $0.name == name }?.value }

        private static let secretNames: Set<String> = [
            "token", "code", "key", "otp", "t", "hash", "sig", "signature", "oobcode", "token_hash",
            "confirmation_token", "jwt", "ticket", "k",
        ]

        /// True when the URL carries something that looks like a one-time secret.
        var isTokenish: Bool {
            for (name, value) in query where Self.secretNames.contains(name) ? value.count >= 6 : Self.isSecret(value) {
                return true
            }
            return path.split(separator: "/").contains { Self.isSecret($0) }
        }

        /// At least 16 characters mixing letters and digits, and not a URL or a hyphenated slug
        /// such as `keeping-your-account-secure-2026`.
        static func isSecret(_ s: some StringProtocol) -> Bool {
            guard s.utf8.count >= 16, !s.contains("%2f"), !s.contains("/") else { return false }
            var letters = 0, digits = 0
            for byte in s.utf8 {
                if (0x30...0x39).contains(byte) { digits += 1 } else if (0x61...0x7A).contains(byte) { letters += 1 }
            }
            guard letters > 0, digits > 0 else { return false }
            let words = s.split(separator: "-")
            let sluglike = words.count >= 3 && words.allSatisfy { word in word.utf8.count < 12 }
            return !sluglike
        }
    }

    private static func explicitPurpose(_ parts: URLParts) -> LinkPurpose? {
        // Supabase GoTrue `/auth/v1/verify?type=...` and `token_hash` links.
        if let type = parts.value("type") {
            switch type {
            case "signup", "email", "email_change", "invite": return .verifyEmail
            case "magiclink": return .magicLink
            case "recovery": return .resetPassword
            default: break
            }
        }
        // Firebase Auth action links.
        if let mode = parts.value("mode") {
            switch mode {
            case "verifyemail", "verifyandchangeemail": return .verifyEmail
            case "signin": return .magicLink
            case "resetpassword": return .resetPassword
            default: break
            }
        }
        return nil
    }

    private static func pathPurpose(_ parts: URLParts) -> LinkPurpose? {
        var bytes = Array(parts.path.utf8)
        for (name, _) in parts.query {
            bytes.append(0x20)
            bytes.append(contentsOf: name.utf8)
        }
        func has(_ words: [[UInt8]]) -> Bool { words.contains { bytes.containsBytes($0) } }
        if has(PathWords.unsubscribe) || parts.host.utf8.count > 13 && Array(parts.host.utf8).containsBytes(PathWords.listManage) {
            return .unsubscribe
        }
        if has(PathWords.magic) { return .magicLink }
        if has(PathWords.reset) { return .resetPassword }
        if has(PathWords.verify) { return .verifyEmail }
        // Keycloak's `/login-actions/action-token` carries every purpose in its token: the words
        // around the link decide.
        if parts.isTokenish, has(PathWords.login), !bytes.containsBytes(PathWords.keycloakActions) { return .magicLink }
        return nil
    }

    /// Lowercase words looked for in URL paths and query parameter names, as bytes.
    private enum PathWords {
        static let unsubscribe = bytes(["unsubscribe", "unsub", "optout", "opt-out", "opt_out", "/preferences",
                                        "email-preferences", "email_preferences"])
        static let listManage = Array("list-manage.".utf8)
        static let keycloakActions = Array("/login-actions/".utf8)
        static let magic = bytes(["magic-link", "magiclink", "magic_link", "/magic", "email-login", "login-link",
                                  "loginlink", "passwordless"])
        static let reset = bytes(["reset", "forgot", "recover", "password", "passwort"])
        static let verify = bytes(["verify", "verification", "confirm", "activate", "activation", "validate"])
        static let login = bytes(["login", "signin", "sign-in", "sign_in", "log-in", "/auth/"])

        private static func bytes(_ words: [String]) -> [[UInt8]] { words.map { Array($0.utf8) } }
    }

    // MARK: Words

    private static let unsubscribeWords = KeywordSet([
        "unsubscribe", "opt out", "opt-out", "email preferences", "manage preferences", "update your preferences",
        "退订", "退訂", "取消订阅", "取消訂閱", "配信停止", "購読解除", "配信解除", "수신거부", "수신 거부",
        "darse de baja", "darte de baja", "date de baja", "cancelar suscripción", "cancelar la suscripción",
        "désabonner", "désinscrire", "désinscription", "abbestellen", "abmelden", "cancelar inscrição",
        "descadastrar", "cancelar assinatura", "annulla iscrizione", "disiscriviti", "cancella iscrizione",
        "afmelden", "uitschrijven", "отписаться", "отписк",
    ], wordPrefixes: true)

    private static let resetWords = KeywordSet([
        "reset", "forgot", "recover", "change password", "new password", "set password", "choose a new password",
        "重置", "找回密码", "重设密码", "忘记密码", "重設密碼", "忘記密碼", "再設定", "リセット", "비밀번호 재설정",
        "비밀번호 변경", "재설정", "restablecer", "recuperar", "réinitialis", "mot de passe oublié",
        "zurücksetzen", "passwort vergessen", "neues passwort", "redefinir", "reimposta", "password dimenticata",
        "opnieuw instellen", "resetten", "wachtwoord herstellen", "сброс", "восстанов",
    ], wordPrefixes: true)

    private static let magicWords = KeywordSet([
        "magic link", "sign in", "sign-in", "signin", "log in", "log-in", "login", "sign me in", "log me in",
        "登录", "登入", "登錄", "ログイン", "로그인", "iniciar sesión", "inicia sesión", "acceder", "se connecter",
        "connexion", "connectez", "anmelden", "einloggen", "entrar", "fazer login", "accedi", "accesso",
        "inloggen", "log in", "войти", "вход",
    ], wordPrefixes: true)

    private static let verifyWords = KeywordSet([
        "verif", "confirm", "activat", "activer", "activar", "activeer", "validat", "validez", "accept the invit",
        "accept invit", "accept your invit", "验证", "驗證", "确认", "確認", "激活", "認証", "有効化", "인증", "확인",
        "bestätig", "verifizier", "aktivier", "ativar", "conferma", "attiva", "bevestig", "подтверд", "активир",
    ], wordPrefixes: true)

    /// Unsubscribe first: the others only count for token-like URLs.
    private static let wordSets: [(KeywordSet, LinkPurpose)] = [
        (unsubscribeWords, .unsubscribe), (resetWords, .resetPassword), (magicWords, .magicLink),
        (verifyWords, .verifyEmail),
    ]

    /// The purpose whose words appear last (nearest the link); unsubscribe wins without a token.
    private static func textPurpose(_ text: [Unicode.Scalar], tokenish: Bool) -> LinkPurpose? {
        let range = 0..<text.count
        var best: (position: Int, purpose: LinkPurpose)?
        for (words, purpose) in wordSets {
            if purpose != .unsubscribe, !tokenish { break }
            if let last = words.matches(in: text, range).last, best.map({ last.start > $0.position }) ?? true {
                best = (last.start, purpose)
            }
        }
        return best?.purpose
    }
}

extension Array where Element == UInt8 {
    /// Plain substring search; needles here are a few bytes long and haystacks a URL.
    func containsBytes(_ needle: [UInt8]) -> Bool {
        guard let first = needle.first, count >= needle.count else { return false }
        var i = 0
        let last = count - needle.count
        while i <= last {
            if self[i] == first {
                var k = 1
                while k < needle.count, self[i + k] == needle[k] { k += 1 }
                if k == needle.count { return true }
            }
            i += 1
        }
        return false
    }
}
