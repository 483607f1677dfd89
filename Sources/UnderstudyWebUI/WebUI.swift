import UnderstudyHTTP

/// The web UI at `/`: one page, a script and a style sheet, embedded in the binary as constants
/// (no CDN, no build step), reading the same `/api` scripts read. The script builds every element
/// with `textContent` and attributes, never `innerHTML`, so nothing from a mail becomes markup on
/// this origin; HTML mail is shown in a sandboxed frame from `/api/messages/{id}/parts/{n}`
/// (`sandbox` CSP, opaque origin, no script).
public struct WebUI: Sendable {
    public init() {}

    /// Only this origin's script and style, no inline code, no plugins, no framing by others;
    /// frames only from this origin (the sandboxed mail parts).
    public static let contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; "
        + "img-src 'self' data:; connect-src 'self'; frame-src 'self'; form-action 'none'; base-uri 'none'; "
        + "frame-ancestors 'none'"

    public func register(on router: inout Router) {
        let page = Self.asset(WebPage.html, type: "text/html; charset=utf-8")
        let script = Self.asset(WebScript.source, type: "text/javascript; charset=utf-8")
        let style = Self.asset(WebStyle.css, type: "text/css; charset=utf-8")
        router.add(.get, "/") { _, _ in .response(page) }
        router.add(.get, "/ui/app.js") { _, _ in .response(script) }
        router.add(.get, "/ui/app.css") { _, _ in .response(style) }
        // Browsers ask for it on every page; an empty answer keeps the log and console quiet.
        router.add(.get, "/favicon.ico") { _, _ in .response(HTTPResponse(status: .noContent)) }
    }

    static func asset(_ text: String, type: String) -> HTTPResponse {
        HTTPResponse(status: .ok, headers: [
            "Content-Type": type,
            "Content-Security-Policy": contentSecurityPolicy,
            "X-Content-Type-Options": "nosniff",
            "X-Frame-Options": "DENY",
            "Referrer-Policy": "no-referrer",
            "Cross-Origin-Opener-Policy": "same-origin",
            "Cache-Control": "no-cache",
        ], body: Array(text.utf8))
    }
}
