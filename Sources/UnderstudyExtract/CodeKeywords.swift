/// Words that announce a one-time code, and words that say a number is something else.
enum CodeKeywords {
    /// Phrases that announce a one-time code, in the languages auth mail is commonly sent in.
    static let announcing = KeywordSet([
        // English
        "code", "codes", "otp", "one-time", "one time", "onetime", "passcode", "pass code", "verification",
        "verify", "security code", "pin", "pin code", "2fa", "two-factor", "two factor", "mfa", "login code",
        "sign-in code", "sign in code", "access code", "authentication", "token", "confirmation code", "enter",
        // "Type this in" verbs of other languages
        "saisissez", "saisir", "eingeben", "geben sie", "ingresa", "introduce", "digite", "insira", "inserisci",
        "voer", "введите", "输入", "輸入", "入力", "입력",
        // Chinese
        "验证码", "驗證碼", "校验码", "校驗碼", "动态码", "動態碼", "动态密码", "動態密碼", "确认码", "確認碼",
        "安全码", "安全碼", "激活码", "激活碼", "验证代码", "一次性密码", "短信码", "认证码", "認證碼", "口令",
        // Japanese
        "認証コード", "確認コード", "ワンタイム", "認証番号", "セキュリティコード", "コード", "パスコード",
        "暗証番号", "確認番号", "ログインコード",
        // Korean
        "인증번호", "인증 번호", "인증코드", "인증 코드", "확인 코드", "확인코드", "보안 코드", "보안코드",
        "일회용", "코드", "승인번호",
        // Spanish, Portuguese, Italian
        "código", "codigo", "códigos", "verificación", "verificacion", "clave", "verificação", "verificacao",
        "codice", "verifica", "uso único", "un solo uso", "usa e getta",
        // French
        "vérification", "code de sécurité", "usage unique", "code à usage unique",
        // German
        "bestätigungscode", "sicherheitscode", "verifizierungscode", "einmalcode", "anmeldecode",
        "zugangscode", "einmalpasswort", "prüfcode", "freigabecode", "tan", "bestätigung",
        // Dutch
        "verificatiecode", "beveiligingscode", "inlogcode", "eenmalige", "bevestigingscode",
        // Scandinavian, Polish, Turkish, Indonesian, Vietnamese
        "kod", "koden", "kode", "verifieringskod", "engångskod", "bekræftelseskode", "weryfikacyjny",
        "doğrulama", "verifikasi", "mã xác minh", "mã xác thực", "mã otp",
        // Russian, Ukrainian
        "код", "кода", "коду", "кодом", "подтверждения", "одноразовый", "пароль", "підтвердження",
        // Arabic, Hebrew, Thai, Greek
        "رمز", "التحقق", "קוד", "รหัส", "κωδικός",
    ])

    /// Phrases naming a number as something other than a one-time code. A keyword overlapping one
    /// of these (`zip code`, `code postal`) does not count as announcing.
    static let disqualifying = KeywordSet([
        // Compound "code" phrases that are not one-time codes
        "zip code", "zipcode", "postal code", "post code", "postcode", "area code", "promo code",
        "promotional code", "coupon code", "coupon", "discount code", "discount", "voucher code", "voucher",
        "gift code", "gift card", "referral code", "invite code", "invitation code", "country code",
        "source code", "qr code", "bar code", "barcode", "error code", "status code", "tracking code",
        "product code", "item code", "code postal", "code promo", "código postal", "codigo postal",
        "código promocional", "cupón", "cupom", "codice postale", "codice sconto", "rabattcode",
        "gutscheincode", "gutschein", "promotiecode", "kortingscode", "优惠码", "優惠碼", "邀请码", "邀請碼",
        "クーポンコード", "クーポン", "쿠폰", "할인 코드", "промокод", "почтовый индекс",
        // Orders, invoices, tickets, references, accounts
        "order", "orders", "order number", "order no", "invoice", "receipt", "ticket", "reference", "ref",
        "tracking", "tracking number", "shipment", "booking", "reservation", "account number", "account no",
        "customer", "transaction", "sku", "qty", "quantity",
        "serial", "no.", "nr.", "n°", "№", "confirmation number",
        // Money
        "amount", "total", "subtotal", "price", "balance", "vat",
        // Phones and addresses
        "phone", "tel", "tel.", "telephone", "mobile", "fax", "call us", "whatsapp", "zip", "postal",
        "suite", "street", "st.", "avenue", "ave", "road", "rd.", "p.o. box",
        // Chinese
        "订单", "訂單", "订单号", "发票", "發票", "运单", "運單", "快递", "快遞", "电话", "電話", "邮编", "郵編",
        "金额", "金額", "价格", "價格", "客服", "工单",
        // Japanese
        "注文番号", "注文", "請求書", "請求", "郵便番号", "お問い合わせ番号", "伝票番号", "電話番号", "〒",
        "料金", "価格", "合計",
        // Korean
        "주문번호", "주문", "송장", "운송장", "전화", "우편번호", "금액", "결제", "고객센터",
        // Spanish, Portuguese, Italian
        "pedido", "factura", "teléfono", "telefono", "importe", "precio", "seguimiento", "número de pedido",
        "fatura", "telefone", "cep", "valor", "preço", "rastreamento", "ordine", "fattura", "importo",
        "prezzo", "spedizione", "tracciamento",
        // French
        "commande", "facture", "téléphone", "montant", "prix", "suivi", "colis", "référence",
        // German
        "bestellung", "bestellnummer", "rechnung", "rechnungsnummer", "telefon", "plz", "postleitzahl",
        "betrag", "preis", "sendungsnummer", "kundennummer", "auftrag", "auftragsnummer",
        // Dutch
        "bestelling", "bestelnummer", "factuur", "telefoon", "bedrag", "prijs", "zending",
        // Russian
        "заказ", "заказа", "заказу", "счет", "счёт", "телефон", "индекс", "сумма", "цена", "трек",
    ])

    /// Words after a number that make it a quantity, duration or amount.
    static let units = KeywordSet([
        "minutes", "minute", "mins", "min", "hours", "hour", "hrs", "hr", "seconds", "second", "secs", "sec",
        "days", "day", "weeks", "months", "years", "items", "points", "pts", "users", "members", "people",
        "km", "mi", "kg", "lb", "lbs", "mb", "gb", "kb", "ms", "px",
        "usd", "eur", "gbp", "jpy", "cny", "rmb", "chf", "krw", "inr", "brl", "rub", "cad", "aud", "yen",
        "euro", "euros", "dollars", "dollar", "руб", "рублей",
        "分钟", "分鐘", "分", "秒", "小时", "小時", "天", "時間", "分間", "日", "円", "元", "块", "分内",
        "분", "초", "시간", "원", "minutos", "horas", "segundos", "minuten", "stunden", "sekunden", "minuti",
        "ore", "secondi", "heures", "минут", "минуты", "часов", "секунд",
    ])

    /// Words before a number that make it an amount.
    static let currencyPrefixes = KeywordSet([
        "usd", "eur", "gbp", "jpy", "cny", "rmb", "chf", "krw", "inr", "brl", "rub", "cad", "aud", "us$", "r$",
        "rs.", "rs",
    ])
}

extension CodeKeywords {
    /// Words of a marketing line: a code on the same line is a promotion, not a one-time code.
    static let promotional = KeywordSet([
        "% off", "off your", "off on", "off all", "off everything", "checkout", "promo", "coupon", "voucher",
        "discount", "sale", "shop now", "free shipping", "gutschein", "rabatt", "descuento", "cupón", "réduction",
        "remise", "sconto", "korting", "скидк", "промокод", "优惠", "折扣", "割引", "クーポン", "할인", "쿠폰",
    ], wordPrefixes: true)
}
