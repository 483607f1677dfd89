import Testing
@testable import UnderstudyExtract

/// Each rule of the code scanner, one line at a time. Negative lines put an announcing word
/// next to the number on purpose, so a scanner that only looked for keywords would fail them.
@Suite struct CodeRuleTests {
    static func codes(text: String) -> [String] {
        Extractor.extract(subject: nil, text: text, html: nil).codes.map(\.value)
    }

    static func codes(html: String) -> [String] {
        Extractor.extract(subject: nil, text: nil, html: html).codes.map(\.value)
    }

    // MARK: Long tokens

    /// Runs of more than 8 that mix letters and digits are skipped before grouping: they are
    /// never codes and never join one, so codes beside them are found as before.
    @Test func longTokensMixingLettersAndDigitsNeitherHideNorFakeACode() {
        #expect(Self.codes(text: "Your verification code is 482913. Ref 9F8E7D6C5B4A3928 session a1b2c3d4e5f6a7b8") == ["482913"])
        #expect(Self.codes(text: "Your code: 7F3K9Q (request A1B2C3D4E5F6G7H8)") == ["7F3K9Q"])
        #expect(Self.codes(text: "Verification code\n" + (1...40).map { "\($0)XXXXXXXXXXXXXXXXXXXXXXXXXXXX" }.joined(separator: "\n")).isEmpty)
    }

    // MARK: Never a code

    @Test(arguments: [
        "Your verification code was sent in 2026.",
        "Verification code: 1999",
        "Code sent on 2026-12-02.",
        "Code sent on 02/12/2026.",
        "Code sent on 02.12.2026.",
        "Your code reference date 20261202",
        "Your code was requested at 12:30.",
        "Your code was requested at 12:30:45.",
        "Your code was requested 09:30-17:30.",
    ])
    func yearsDatesAndTimes(_ line: String) {
        #expect(Self.codes(text: line).isEmpty)
    }

    @Test(arguments: [
        "Your code costs $12.99 per month.",
        "Your code plan: 1,299 per year.",
        "Verification code fee 99€ 1299€",
        "Verification code fee ¥1500 or ￥2800",
        "Verification code fee 1500 EUR",
        "Verification code fee USD 4500",
        "Verification code: 1 299,00",
    ])
    func prices(_ line: String) {
        #expect(Self.codes(text: line).isEmpty)
    }

    @Test(arguments: [
        "Code questions? Call +1 555 123 4567.",
        "Code questions? Call (555) 123-4567.",
        "인증 코드 문의: 010-1234-5678",
        "Verification code help line 555-1234",
        "Code hotline +49 30 1234567",
        "Code hotline 0 8 0 0 1 2 3 4 5 6 7",
        "Code line 12 34 56 78 90",
    ])
    func phoneNumbers(_ line: String) {
        #expect(Self.codes(text: line).isEmpty)
    }

    @Test(arguments: [
        "Your verification code for Order #123456",
        "Order number: 384756",
        "Invoice No. 884422",
        "Verification of ticket 553311",
        "Reference 884422 for your code",
        "Tracking code 483920",
        "订单号 583920",
        "注文番号：583920",
        "주문번호 583920",
        "Bestellnummer 583920",
        "Numéro de commande 583920",
        "Número de pedido 583920",
        "Номер заказа 583920",
    ])
    func orderInvoiceTicketAndReferenceNumbers(_ line: String) {
        #expect(Self.codes(text: line).isEmpty)
    }

    @Test(arguments: [
        "Zip code 94103",
        "Postal code: 100083",
        "Code postal 750041",
        "Código postal 280134",
        "1600 Amphitheatre Pkwy, Mountain View, CA 94043",
        "Postcode 1012 AB Amsterdam",
    ])
    func postalCodes(_ line: String) {
        #expect(Self.codes(text: line).isEmpty)
    }

    @Test func cssColoursInStyleElementsAndAttributesAndText() {
        let html = """
        <html><head><style>.code { color: #123456; background: #654321 }</style></head>
        <body><p style="color:#112233">Your verification code</p><p>Colour code #445566</p></body></html>
        """
        #expect(Self.codes(html: html).isEmpty)
        #expect(Self.codes(text: "Brand code #123456 and code #ABC123").isEmpty)
    }

    @Test func scriptTitleAndCommentsAreNotRead() {
        let html = """
        <html><head><title>Code 583920</title><script>var code = 774411;</script></head>
        <body><!-- code 992211 --><p>Hello</p></body></html>
        """
        #expect(Self.codes(html: html).isEmpty)
    }

    @Test(arguments: [
        "Your code &#12345; here",
        "Your code &#x12345; here",
        "Verification code at https://example.com/verify/583920",
        "Verification code at https://example.com/verify?code=583920",
        "Verification code sent to 583920@example.com",
        "Verification code: see www.example.com/583920",
        "Verification code in C:\\codes\\583920",
    ])
    func entitiesURLsAndEmailAddresses(_ line: String) {
        #expect(Self.codes(text: line).isEmpty)
    }

    @Test(arguments: [
        "The code expires in 1440 minutes.",
        "Your code is valid for 3600 seconds.",
        "验证码 1000 分钟内有效",
        "Der Code ist 1440 Minuten gültig.",
    ])
    func durations(_ line: String) {
        #expect(Self.codes(text: line).isEmpty)
    }

    @Test func promotionalCodes() {
        #expect(Self.codes(text: "Use code SAVE2026 for 20% off your next order.").isEmpty)
        #expect(Self.codes(text: "Promo code WINTER25 at checkout").isEmpty)
        #expect(Self.codes(text: "Coupon code 583920").isEmpty)
    }

    @Test func unannouncedNumbersInLongMessagesAreIgnored() {
        let filler = String(repeating: "We shipped a new dashboard and improved search. ", count: 60)
        #expect(Self.codes(text: "\(filler)\n\n583920\n\n\(filler)").isEmpty)
        #expect(Self.codes(text: "We have 583920 happy users.").isEmpty)
    }

    @Test func alphanumericCodesNeedAnAnnouncement() {
        #expect(Self.codes(text: "Meet us at booth B2K7QX.").isEmpty)
        #expect(Self.codes(text: "Your code: ABCDEF").isEmpty) // letters only: indistinguishable from words
        #expect(Self.codes(text: "YOUR CODE IS HERE").isEmpty)
    }

    // MARK: Codes

    @Test(arguments: [
        ("Your code is 641-028", "641028", "641-028"),
        ("Your code is 641 028", "641028", "641 028"),
        ("Your code is 12 34 56", "123456", "12 34 56"),
        ("Verification code: D2KQ-7XHP", "D2KQ7XHP", "D2KQ-7XHP"),
        ("Verification code: D2KQ 7XHP", "D2KQ7XHP", "D2KQ 7XHP"),
        ("Verification code: 4821 9934", "48219934", "4821 9934"),
        ("G-742019 is your Google verification code.", "742019", "742019"),
        ("Your code: 5 8 3 9 2 0", "583920", "5 8 3 9 2 0"),
    ])
    func groupedCodesLoseTheirSeparators(_ line: String, _ value: String, _ raw: String) {
        let best = Extractor.extract(subject: nil, text: line, html: nil).bestCode
        #expect(best?.value == value)
        #expect(best?.raw == raw)
    }

    @Test(arguments: [
        ("Your code is 123456", "123456"),
        ("123456 is your verification code", "123456"),
        ("Your Acme OTP: 8841", "8841"),
        ("Your one-time passcode: 55102938", "55102938"),
        ("Security code 903211", "903211"),
        ("PIN: 7264", "7264"),
        ("【腾讯云】验证码：583920，5分钟内有效。", "583920"),
        ("您的驗證碼為 583920", "583920"),
        ("校验码 583920", "583920"),
        ("动态码583920", "583920"),
        ("認証コードは 583920 です。", "583920"),
        ("確認コード：５８３９２０", "583920"),
        ("ワンタイムパスワード: 583920", "583920"),
        ("인증번호 [583920]", "583920"),
        ("확인 코드: 583920", "583920"),
        ("Tu código es 583920", "583920"),
        ("Votre code de vérification : 583920", "583920"),
        ("Ihr Bestätigungscode: 583920", "583920"),
        ("Dein Code lautet 583920", "583920"),
        ("Seu código de verificação é 583920", "583920"),
        ("Il tuo codice è 583920", "583920"),
        ("Je verificatiecode: 583920", "583920"),
        ("Ваш код: 583920", "583920"),
        ("Twój kod weryfikacyjny: 583920", "583920"),
        ("Doğrulama kodunuz: 583920", "583920"),
        ("Kode verifikasi Anda: 583920", "583920"),
        ("Enter 583920 on the sign-in page", "583920"),
        ("请输入 583920 完成登录", "583920"),
    ])
    func announcedCodes(_ line: String, _ value: String) {
        #expect(Self.codes(text: line).first == value)
    }

    // MARK: Shapes real services send

    @Test(arguments: [
        ("Your sign-in code is listed below.\n\nKQFB-ZXWT\n\nThanks", "KQFBZXWT", "KQFB-ZXWT"),
        ("Your code is KQFB-ZXWT.", "KQFBZXWT", "KQFB-ZXWT"),
        ("Verification code: KQFB ZXWT", "KQFBZXWT", "KQFB ZXWT"),
        ("Your code:\n\nBCDFGH", "BCDFGH", "BCDFGH"),
        ("Your code is listed below.\n\n123-456-789", "123456789", "123-456-789"),
        ("Your code is 123 456 789", "123456789", "123 456 789"),
        ("Your code is 123 456", "123456", "123 456"),
        ("Your login code: 7KQ2M9XW4R", "7KQ2M9XW4R", "7KQ2M9XW4R"),
        ("Your code: A7B2", "A7B2", "A7B2"),
        ("验证码：K7Q2M9", "K7Q2M9", "K7Q2M9"),
        ("OTP 48AB29", "48AB29", "48AB29"),
    ])
    func realServiceShapes(_ text: String, _ value: String, _ raw: String) {
        let best = Extractor.extract(subject: nil, text: text, html: nil).bestCode
        #expect(best?.value == value)
        #expect(best?.raw == raw)
    }

    @Test func lettersInABigCellOrInTheSubject() {
        let html = "<p>Enter this code:</p><p style=\"font-size:32px\">QWRT-PLKM</p>"
        #expect(Self.codes(html: html) == ["QWRTPLKM"])
        let subject = Extractor.extract(subject: "KQFB-ZXWT is your sign-in code", text: "Hi", html: nil).bestCode
        #expect(subject?.value == "KQFBZXWT")
    }

    /// Capital words never pass for letter codes, even right after an announcement.
    @Test(arguments: [
        "Your verification code:\n\nHELLO",
        "Your verification code:\n\nACTION REQUIRED",
        "Your code:\n\nUSA",
        "Your code is for the USA only",
        "Your code is HELLO WORLD",
        "Your code:\n\nWELCOME",
        "Your code:\n\nCONFIRM",
        "Your code:\n\nIMPORTANT",
        "Verification code ACTION REQUIRED",
        "HELLO\n\nACTION REQUIRED\n\nBCDFGH",
        "Your code: BCDFGH",
    ])
    func capitalWordsAreNotCodes(_ text: String) {
        #expect(Self.codes(text: text).isEmpty)
    }

    @Test func capitalButtonTextIsNotACode() {
        #expect(Self.codes(html: "<p>Your verification code:</p><p><a href=\"https://x.test/\">BCDFGHJK</a></p>").isEmpty)
    }

    @Test(arguments: [
        "Code questions? Call 1-800-555-0199.",
        "Code line 555 123 4567",
        "Your code plan: 123-456-7890",
    ])
    func groupedPhoneNumbers(_ line: String) {
        #expect(Self.codes(text: line).isEmpty)
    }

    // MARK: Why not

    @Test func rejectedCandidatesSayWhy() {
        let rejected = Extractor.rejectedCandidates(
            subject: "Your code", text: "Your verification code was sent in 2026.\nPrice 1299€\nWe have 583920 users.\nHELLO", html: nil)
        let reasons = Dictionary(rejected.map { ($0.raw, $0.reason) }, uniquingKeysWith: { a, _ in a })
        #expect(reasons["2026"] == "looks like a year")
        #expect(reasons["1299"] == "before a currency or percent sign")
        #expect(reasons["583920"] == "followed by a unit (minutes, EUR...)" || reasons["583920"] == "no announcing word")
        #expect(rejected.allSatisfy { $0.source == .text })
        #expect(Extractor.rejectedCandidates(subject: nil, text: "Your code is 482913", html: nil).isEmpty)
    }

    @Test func subjectCodes() {
        let first = Extractor.extract(subject: "Your code is 123456", text: "Welcome", html: nil).bestCode
        #expect(first?.value == "123456")
        #expect(first?.source == .subject)
        let second = Extractor.extract(subject: "123456 is your verification code", text: nil, html: nil).bestCode
        #expect(second?.value == "123456")
        #expect(Extractor.extract(subject: "Order #123456 shipped", text: nil, html: nil).codes.isEmpty)
    }

    @Test func keywordOnThePreviousLine() {
        #expect(Self.codes(text: "Your verification code:\n\n  583920\n\nThanks") == ["583920"])
        #expect(Self.codes(text: "Enter the code below.\n\n583920") == ["583920"])
    }

    @Test func emphasisedElementAfterTheAnnouncement() {
        let html = """
        <p>Enter this code to continue. It is valid for 10 minutes and should not be shared with anyone.</p>
        <table><tr><td style="letter-spacing:8px;font-size:32px">583920</td></tr></table>
        <p>Call 555-0142 if you need help, quoting 771204.</p>
        """
        let extraction = Extractor.extract(subject: nil, text: nil, html: html)
        #expect(extraction.bestCode?.value == "583920")
        #expect(extraction.bestCode?.source == .html)
        #expect(!extraction.codes.contains { $0.value == "771204" })
    }

    @Test func bestCodeComesFirst() {
        let text = """
        Your account code 4821 was created last week.
        Your verification code:
        583920
        """
        let codes = Self.codes(text: text)
        #expect(codes.first == "583920")
        #expect(codes.contains("4821"))
    }

    @Test func emphasisOutranksPlainText() {
        let html = "<p>Code 111222 (old) — your code: <strong>583920</strong></p>"
        #expect(Self.codes(html: html).first == "583920")
    }

    @Test func codeInSeveralPartsIsOneResultWithBestSource() {
        let extraction = Extractor.extract(
            subject: "Your code is 583920", text: "Your code is 583920",
            html: "<p>Your code is <b>583920</b></p>")
        #expect(extraction.codes.count == 1)
        #expect(extraction.bestCode?.source == .html)
        #expect(extraction.bestCode.map { $0.confidence > 0.8 } == true)
    }

    @Test func unannouncedStandaloneSixDigitsInAShortMessageIsALowConfidenceCandidate() {
        let extraction = Extractor.extract(subject: "Hi", text: "Here it is:\n\n583920\n\nBye", html: nil)
        #expect(extraction.bestCode?.value == "583920")
        #expect(extraction.bestCode.map { $0.confidence < 0.4 } == true)
        let announced = Extractor.extract(subject: "Hi", text: "Your code:\n\n583920", html: nil)
        #expect(announced.bestCode.map { $0.score > extraction.bestCode!.score } == true)
    }

    @Test func subjectAnnouncementLiftsAStandaloneBodyCode() {
        let body = "Hi,\n\n7391\n\nEnter it in the app."
        #expect(Extractor.extract(subject: "Your verification code", text: body, html: nil).bestCode?.value == "7391")
        #expect(Extractor.extract(subject: "Hello", text: body, html: nil).codes.isEmpty)
        #expect(Extractor.extract(subject: "Your order code", text: body, html: nil).codes.isEmpty)
    }

    @Test func emptyAndMissingInputs() {
        #expect(Extractor.extract(subject: nil, text: nil, html: nil) == Extraction())
        #expect(Extractor.extract(subject: "", text: "", html: "") == Extraction())
    }
}
