import UnderstudyHTTP
import UnderstudyJOSE

/// What every page of the sign-in flows shares: Understudy's own plain styling (never Apple's or
/// Google's look), and the headers that lock a page down: a Content-Security-Policy allowing only
/// its own inline style (and script, by hash), forms to itself and the client's redirect URI,
/// no framing; nosniff; no caching; no referrer.
enum PageStyle {
    static let css = """
        body{font:16px/1.45 system-ui,sans-serif;background:#f4f1ea;color:#222;margin:0}\
        main{max-width:34rem;margin:2rem auto;background:#fff;border:2px dashed #8a6d3b;padding:1.25rem 1.5rem}\
        h1{font-size:1.3rem;margin:.2rem 0 .8rem}.badge{display:inline-block;background:#8a6d3b;color:#fff;\
        padding:.1rem .5rem;font-size:.8rem;letter-spacing:.05em}dl{display:grid;grid-template-columns:auto 1fr;\
        gap:.2rem .8rem}dt{font-weight:600}dd{margin:0;word-break:break-all}fieldset{border:1px solid #ccc;margin:.8rem 0}\
        label{display:block;margin:.25rem 0}input[type=text],input[type=email]{width:95%;padding:.3rem}\
        button{font:inherit;padding:.4rem 1rem;margin-right:.6rem}.error{color:#a00}
        """

    static func hash(_ text: String) -> String { "'sha256-" + Base64.encode(SHA256.hash(Array(text.utf8))) + "'" }

    /// `https://app.example.com` of `https://app.example.com/cb?x`; a custom scheme's `com.example.app:`.
    static func origin(of uri: String) -> String {
        guard let colon = uri.firstIndex(of: ":") else { return uri }
        let scheme = uri[..<colon].lowercased()
        let rest = uri[uri.index(after: colon)...]
        guard scheme == "http" || scheme == "https", rest.hasPrefix("//") else { return scheme + ":" }
        let authority = rest.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        return scheme + "://" + authority
    }

    /// The CSP: nothing by default; the page's own style (and script) by hash; forms to itself
    /// and to the redirect URI's origin (a form's redirect is checked against form-action too).
    static func policy(formTarget: String?, script: String? = nil) -> String {
        var formAction = "'self'"
        if let formTarget {
            let origin = origin(of: formTarget)
            // Only a plain origin goes into the header: no spaces, quotes, semicolons or commas.
            if origin.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && !"';,\"".unicodeScalars.contains($0) }) {
                formAction += " " + origin
            }
        }
        var p = "default-src 'none'; style-src \(hash(css)); img-src 'self' data:; form-action \(formAction); "
            + "frame-ancestors 'none'; base-uri 'none'"
        if let script { p += "; script-src \(hash(script))" }
        return p
    }

    static func headers(formTarget: String?) -> HTTPHeaders {
        [
            "Content-Type": "text/html; charset=utf-8",
            "Content-Security-Policy": policy(formTarget: formTarget),
            "X-Content-Type-Options": "nosniff",
            "X-Frame-Options": "DENY",
            "Referrer-Policy": "no-referrer",
            "Cache-Control": "no-store",
        ]
    }

    /// A provider-hosted error page (the request could not go back to the client).
    static func errorPage(_ error: FlowError, provider: FlowProvider) -> HTTPResponse {
        let html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Understudy: sign-in error</title>
            <style>\(css)</style></head>
            <body><main><span class="badge">UNDERSTUDY · \(provider.rawValue.uppercased()) STAND-IN</span>
            <h1 class="error">Error 400: \(HTMLEscape.escape(error.code))</h1>
            <p>\(HTMLEscape.escape(error.message))</p></main></body></html>
            """
        return HTTPResponse(status: error.status == .unauthorized ? .unauthorized : .badRequest,
                            headers: headers(formTarget: nil), body: Array(html.utf8))
    }
}
