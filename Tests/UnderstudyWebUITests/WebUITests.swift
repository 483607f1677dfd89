import Testing
import UnderstudyHTTP
@testable import UnderstudyWebUI

/// The embedded UI: what is served, with which headers, and the rules its script keeps.
@Suite struct WebUITests {
    static let router: FrozenRouter = {
        var router = Router()
        WebUI().register(on: &router)
        return router.freeze()
    }()

    static func get(_ target: String) -> HTTPResponse {
        switch router.respond(to: HTTPRequest(method: .get, target: target, headers: ["Host": "127.0.0.1"])) {
        case .response(let response): response
        default: HTTPResponse(status: .internalServerError)
        }
    }

    @Test(arguments: [("/", "text/html"), ("/ui/app.js", "text/javascript"), ("/ui/app.css", "text/css")])
    func assetsAreServedWithTheirTypeAndSecurityHeaders(_ path: String, _ type: String) {
        let r = Self.get(path)
        #expect(r.status == .ok)
        #expect(r.headers["Content-Type"]?.hasPrefix(type) == true)
        #expect(r.headers["X-Content-Type-Options"] == "nosniff")
        let csp = r.headers["Content-Security-Policy"] ?? ""
        #expect(csp.contains("frame-ancestors 'none'"))
        #expect(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"))
        #expect(csp.contains("default-src 'none'"))
        #expect(r.headers["Access-Control-Allow-Origin"] == nil)
        #expect(!r.body.isEmpty)
    }

    /// Works offline: nothing is loaded from another origin, and no inline script or style
    /// (which the CSP would refuse anyway).
    @Test func thePageLoadsOnlyItsOwnAssets() {
        let page = WebPage.html
        #expect(page.contains(#"<script src="/ui/app.js" defer></script>"#))
        #expect(page.contains(#"<link rel="stylesheet" href="/ui/app.css">"#))
        for text in [page, WebScript.source, WebStyle.css] {
            #expect(!text.contains("//cdn") && !text.contains("https://") && !text.contains("@import"))
        }
        #expect(!page.contains("style=") && !page.contains("onclick="))
        #expect(page.split(separator: "<script", omittingEmptySubsequences: false).count == 2)
    }

    /// Every value reaches the page as text: the script never writes markup.
    @Test func theScriptNeverWritesMarkup() {
        let script = WebScript.source
        for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "setAttribute('style'"] {
            #expect(!script.contains(sink), "\(sink)")
        }
        // Mail is framed sandboxed with no permission at all, from the inert parts route.
        #expect(script.contains("sandbox: ''"))
        #expect(script.contains("?view=1&frame=1"))
        #expect(!script.contains("allow-scripts") && !script.contains("allow-same-origin"))
    }

    @Test func faviconIsEmpty() {
        #expect(Self.get("/favicon.ico").status == .noContent)
    }
}
