import UnderstudyHTTP
import UnderstudyJOSE

/// The answer to the client's redirect URI (pure): a 302 with the parameters in the query or the
/// fragment, or for `form_post` a page whose form POSTs them there at once, as Apple's does.
public enum AuthorizationResponse {
    /// Parameters in the order given; nil values are left out.
    public static func make(redirectURI: String, mode: ResponseMode, _ parameters: [(String, String?)]) -> HTTPResponse {
        let pairs = parameters.compactMap { name, value in value.map { (name, $0) } }
        switch mode {
        case .query, .fragment:
            let encoded = pairs.map { URLEncoding.queryComponent($0.0) + "=" + URLEncoding.queryComponent($0.1) }.joined(separator: "&")
            let separator: String
            if mode == .fragment { separator = "#" } else { separator = redirectURI.contains("?") ? "&" : "?" }
            return HTTPResponse(status: .found, headers: ["Location": redirectURI + separator + encoded,
                                                          "Cache-Control": "no-store", "Content-Length": "0"])
        case .formPost:
            return formPost(action: redirectURI, pairs)
        }
    }

    static let submitScript = "document.forms[0].submit();"

    /// An HTML page that POSTs `pairs` to `action` on load (a button without JavaScript).
    static func formPost(action: String, _ pairs: [(String, String)]) -> HTTPResponse {
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Understudy: returning to the app</title>
            <style>\(PageStyle.css)</style></head>
            <body><main><h1>Returning to the app</h1>
            <form method="post" action="\(HTMLEscape.escape(action))">

            """
        for (name, value) in pairs {
            html += "<input type=\"hidden\" name=\"\(HTMLEscape.escape(name))\" value=\"\(HTMLEscape.escape(value))\">\n"
        }
        html += """
            <button type="submit">Continue to \(HTMLEscape.escape(PageStyle.origin(of: action)))</button>
            </form></main>
            <script>\(submitScript)</script>
            </body></html>
            """
        var headers = PageStyle.headers(formTarget: action)
        headers.replaceOrAdd(name: "Content-Security-Policy", value: PageStyle.policy(formTarget: action, script: submitScript))
        return HTTPResponse(status: .ok, headers: headers, body: Array(html.utf8))
    }
}
