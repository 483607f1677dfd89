import Testing
@testable import UnderstudyExtract

@Suite struct LinkTests {
    static func links(text: String? = nil, html: String? = nil) -> [ExtractedLink] {
        Extractor.extract(subject: nil, text: text, html: html).links
    }

    @Test func bareURLsLoseTrailingPunctuation() {
        let text = """
        Go to https://example.com/a. Or https://example.com/b, or (https://example.com/c).
        See https://en.wikipedia.org/wiki/Foo_(bar) and "https://example.com/d"! Also https://example.com/e?
        Angle form: <https://example.com/f?x=1&y=2>
        """
        #expect(Self.links(text: text).map(\.url) == [
            "https://example.com/a", "https://example.com/b", "https://example.com/c",
            "https://en.wikipedia.org/wiki/Foo_(bar)", "https://example.com/d", "https://example.com/e",
            "https://example.com/f?x=1&y=2",
        ])
    }

    @Test func mailtoTelJavascriptAndFragmentsAreLeftOut() {
        let html = """
        <a href="mailto:help@example.com">Mail</a> <a href="tel:+15551234567">Call</a>
        <a href="javascript:void(0)">JS</a> <a href="#top">Top</a> <a href="ftp://example.com/x">FTP</a>
        <a href="HTTPS://Example.com/Upper">Upper</a>
        """
        #expect(Self.links(html: html).map(\.url) == ["HTTPS://Example.com/Upper"])
        #expect(Self.links(text: "mailto:help@example.com tel:+15551234567").isEmpty)
    }

    @Test func imagesPixelsAndStylesheetsAreLeftOut() {
        let html = """
        <head><link rel="stylesheet" href="https://example.com/email.css"></head>
        <img src="https://example.com/logo.png"><img src="https://t.example.com/open?id=1" width="1" height="1">
        <a href="https://cdn.example.com/banner.jpg">banner</a>
        <a href="https://example.com/ok">ok</a>
        """
        #expect(Self.links(html: html).map(\.url) == ["https://example.com/ok"])
        #expect(Self.links(text: "Logo: https://example.com/logo.gif?v=2").isEmpty)
    }

    /// Found by the extraction fuzzer (its invariant looked at the whole URL): a page whose query
    /// ends in `.gif` is a link, not an image; only the path's extension tells.
    @Test func aQueryEndingLikeAnImageIsStillALink() {
        #expect(Self.links(text: "Verify: https://example.com/verify?token.gif").map(\.url)
                == ["https://example.com/verify?token.gif"])
        #expect(Self.links(text: "Pixel: https://example.com/p.gif#x").isEmpty)
    }

    @Test func anchorsDecodeEntitiesAndKeepVisibleText() {
        let html = """
        <p><a href=" https://example.com/verify?token=abcdef0123456789&amp;next=%2F " class="btn">
          <span>Verify&nbsp;your   email</span></a></p>
        <a href='https://example.com/x?a=1&#38;b=2'>Single quoted</a>
        <a href=https://example.com/unquoted>Unquoted</a>
        <a href="https://example.com/img"><img src="https://example.com/i.png" alt="Logo"></a>
        """
        let links = Self.links(html: html)
        #expect(links.map(\.url) == [
            "https://example.com/verify?token=abcdef0123456789&next=%2F", "https://example.com/x?a=1&b=2",
            "https://example.com/unquoted", "https://example.com/img",
        ])
        #expect(links.map(\.text) == ["Verify your email", "Single quoted", "Unquoted", "Logo"])
        #expect(links[0].purpose == .verifyEmail)
    }

    @Test func duplicatesKeepTheCopyWithVisibleText() {
        let text = "Verify: https://example.com/v/abc123def456ghi789\nHome: https://example.com/"
        let html = """
        <p>https://example.com/v/abc123def456ghi789</p>
        <a href="https://example.com/">Home</a>
        <a href="https://example.com/v/abc123def456ghi789">Verify my email</a>
        <a href="https://example.com/">Home again</a>
        """
        let links = Extractor.extract(subject: nil, text: text, html: html).links
        #expect(links.map(\.url) == ["https://example.com/v/abc123def456ghi789", "https://example.com/"])
        #expect(links.map(\.text) == ["Verify my email", "Home"])
        #expect(links[0].purpose == .verifyEmail)
    }

    @Test func bareURLsInsideAnchorTextAreNotSeparateLinks() {
        let html = #"<a href="https://example.com/verify?token=0123456789abcdef0123">https://example.com/verify?token=0123…</a>"#
        let links = Self.links(html: html)
        #expect(links.count == 1)
        #expect(links.first?.text == "https://example.com/verify?token=0123…")
    }

    @Test(arguments: [
        // URL evidence
        ("https://x.supabase.co/auth/v1/verify?token=abc123&type=signup&redirect_to=http://localhost:3000", nil, "", LinkPurpose.verifyEmail),
        ("https://x.supabase.co/auth/v1/verify?token=abc123&type=magiclink&redirect_to=http://localhost:3000/reset", nil, "", .magicLink),
        ("https://x.supabase.co/auth/v1/verify?token=abc123&type=recovery", nil, "", .resetPassword),
        ("https://x.supabase.co/auth/v1/verify?token=abc123&type=email_change", nil, "", .verifyEmail),
        ("https://app.firebaseapp.com/__/auth/action?mode=resetPassword&oobCode=Xy12Ab34Cd&apiKey=k", nil, "", .resetPassword),
        ("https://app.firebaseapp.com/__/auth/action?mode=verifyEmail&oobCode=Xy12Ab34Cd", nil, "", .verifyEmail),
        ("https://app.firebaseapp.com/__/auth/action?mode=signIn&oobCode=Xy12Ab34Cd", nil, "", .magicLink),
        ("http://localhost:3000/api/auth/magic-link/verify?token=abc&callbackURL=/", nil, "", .magicLink),
        ("http://localhost:3000/api/auth/verify-email?token=abc&callbackURL=/", nil, "", .verifyEmail),
        ("http://localhost:3000/api/auth/reset-password/tok123?callbackURL=/r", nil, "", .resetPassword),
        ("http://localhost:8000/accounts/confirm-email/Mg:1tQx:abc/", nil, "", .verifyEmail),
        ("http://localhost:8000/accounts/password/reset/key/1-set-password/", nil, "", .resetPassword),
        ("https://github.com/password_reset/abc", nil, "", .resetPassword),
        ("https://example.com/account/activate/u7/t8", nil, "", .verifyEmail),
        ("https://list.example.com/unsubscribe?u=1", nil, "", .unsubscribe),
        ("https://example.us1.list-manage.com/profile?u=1&id=2", nil, "", .unsubscribe),
        ("https://example.com/email/preferences?u=1", nil, "", .unsubscribe),
        ("https://example.com/login?token=0123456789abcdefAB", nil, "", .magicLink),
        // Anchor text (needs a token-like URL, except unsubscribe)
        ("https://example.com/e/Xk2pQ7rT9wLm4nBv8cZs", "Verify email address", "", .verifyEmail),
        ("https://example.com/e/Xk2pQ7rT9wLm4nBv8cZs", "Sign in to Example", "", .magicLink),
        ("https://example.com/e/Xk2pQ7rT9wLm4nBv8cZs", "Choose a new password", "", .resetPassword),
        ("https://example.com/e/Xk2pQ7rT9wLm4nBv8cZs", "メールアドレスを確認する", "", .verifyEmail),
        ("https://example.com/e/Xk2pQ7rT9wLm4nBv8cZs", "ログイン", "", .magicLink),
        ("https://example.com/e/Xk2pQ7rT9wLm4nBv8cZs", "Passwort zurücksetzen", "", .resetPassword),
        ("https://example.com/e/Xk2pQ7rT9wLm4nBv8cZs", "Confirmer mon adresse", "", .verifyEmail),
        ("https://example.com/x?u=1", "退订", "", .unsubscribe),
        ("https://example.com/x?u=1", "配信停止はこちら", "", .unsubscribe),
        ("https://example.com/x?u=1", "Darse de baja", "", .unsubscribe),
        ("https://example.com/x?u=1", "Se désinscrire", "", .unsubscribe),
        ("https://example.com/x?u=1", "Opt out", "", .unsubscribe),
        // Nearby text
        ("https://example.com/e/Xk2pQ7rT9wLm4nBv8cZs", "click here", "To confirm your email address, ", .verifyEmail),
        ("https://example.com/e/Xk2pQ7rT9wLm4nBv8cZs", nil, "Use this link to sign in: ", .magicLink),
        ("https://example.com/e/Xk2pQ7rT9wLm4nBv8cZs", nil, "请点击以下链接重置密码：", .resetPassword),
        // Other
        ("https://example.com/login", "Log in", "", .other),
        ("https://example.com/", "Example", "Confirm your email", .other),
        ("https://docs.example.com/articles/keeping-your-account-secure-2026/", nil, "verify devices", .other),
        ("https://example.com/privacy", "Privacy policy", "", .other),
    ] as [(String, String?, String, LinkPurpose)])
    func purposes(_ url: String, _ text: String?, _ context: String, _ expected: LinkPurpose) {
        let folded = context.unicodeScalars.map(TextDocument.fold)
        #expect(LinkClassifier.classify(url: url, text: text, context: folded) == expected)
    }

    @Test func purposeFromTheWholeMessage() {
        let text = """
        Welcome! Please verify your email address by opening the link below:

        https://example.com/e/Xk2pQ7rT9wLm4nBv8cZs

        Home page: https://example.com/
        Unsubscribe: https://example.com/u/42
        """
        let links = Self.links(text: text)
        #expect(links.map(\.purpose) == [.verifyEmail, .other, .unsubscribe])
        #expect(links.allSatisfy { $0.text == nil })
    }

    @Test func purposeRawValues() {
        #expect(LinkPurpose.allCases.map(\.rawValue) == ["verify-email", "magic-link", "reset-password", "unsubscribe", "other"])
    }
}
