import Testing
@testable import UnderstudyExtract

@Suite struct HTMLTextExtractorTests {
    static func text(_ html: String) -> String {
        let document = HTMLTextExtractor.extract(html).document
        return document.string(0..<document.count)
    }

    @Test func blocksBecomeLinesAndWhitespaceCollapses() {
        let html = "<div>Hello\n   <b>world</b></div><p>Second&nbsp;&nbsp;line</p>Third<br>Fourth<table><tr><td>a</td><td>b</td></tr></table>"
        #expect(Self.text(html) == "Hello world\nSecond line\nThird\nFourth\na b")
    }

    @Test func invisibleContentIsDropped() {
        let html = """
        <!DOCTYPE html><html><head><meta charset="utf-8"><title>T</title>
        <style>p { color: red }</style><script type="text/javascript">if (a < b) { x = "</p>" }</script></head>
        <body><!-- hidden <p>comment</p> --><p>Visible</p><?xml version="1.0"?><SCRIPT>x</SCRIPT></body></html>
        """
        #expect(Self.text(html) == "Visible")
    }

    @Test func entitiesDecode() {
        let html = "&amp; &lt;&gt; &quot;&#39;&#x4E2D;&#25991; &eacute;&Eacute; &euro;&hellip; &#150; &bogus; & &#; &#xZZ;"
        #expect(Self.text(html) == "& <> \"'中文 éÉ €… – &bogus; & &#; &#xZZ;")
    }

    @Test func invisibleCharactersAreRemoved() {
        #expect(Self.text("5&#8203;8&zwnj;3&shy;9\u{FEFF}2\u{200B}0") == "583920")
    }

    @Test func emphasisIsMarked() {
        let cases = [
            "<strong>X</strong>", "<b>X</b>", "<code>X</code>", "<h1>X</h1>", "<span style=\"font-size: 28px\">X</span>",
            "<td style=\"letter-spacing:6px\">X</td>", "<div style=\"font-weight:700\">X</div>",
            "<p style='font-family: Courier New, monospace'>X</p>", "<font size=\"6\">X</font>",
            "<div style=\"color:#000; FONT-SIZE: 32px !important\">X</div>",
        ]
        for html in cases {
            let document = HTMLTextExtractor.extract(html).document
            let index = document.scalars.firstIndex(of: "X")
            #expect(index.map { document.flags[$0] & TextDocument.emphasis != 0 } == true, "\(html)")
        }
        let plain = HTMLTextExtractor.extract("<p style=\"font-size:12px;letter-spacing:0\"><b>a</b>X</p>").document
        let index = plain.scalars.firstIndex(of: "X")!
        #expect(plain.flags[index] & TextDocument.emphasis == 0)
    }

    @Test func anchorsAreCollected() {
        let parsed = HTMLTextExtractor.extract(#"<p>Click <a href="https://a.test/?x=1&amp;y=2">here <b>now</b></a> or <A HREF='https://b.test'>there</A><a name="x">no href</a></p>"#)
        #expect(parsed.anchors.map(\.href) == ["https://a.test/?x=1&y=2", "https://b.test"])
        #expect(parsed.anchors.map(\.text) == ["here now", "there"])
    }

    @Test(arguments: [
        "<", "<<<<", "<a", "<a href=", "<a href=\"https://x.test", "<style>", "<script>never closed", "<!--",
        "<!-- never closed", "&", "&#", "&#x", "&#x110000;", "&#0;", "&#99999999999;", "</b></b></div>",
        "<b><i><u>unclosed", "<p attr=\"a > b\">text</p>", "<p attr='unterminated>text", "<???>", "<!DOCTYPE",
        "<a href=\"https://x.test\"><a href=\"https://y.test\">nested</a></a>", "\u{0}\u{1}<b>\u{7F}</b>",
    ])
    func malformedInputNeverCrashes(_ html: String) {
        let parsed = HTMLTextExtractor.extract(html)
        #expect(parsed.document.count <= html.unicodeScalars.count)
        _ = Extractor.extract(subject: html, text: html, html: html)
    }

    @Test func deepNestingIsBounded() {
        let html = String(repeating: "<div><b>", count: 5000) + "Your code 583920" + String(repeating: "</b></div>", count: 5000)
        let extraction = Extractor.extract(subject: nil, text: nil, html: html)
        #expect(extraction.bestCode?.value == "583920")
    }

    @Test func inputIsCapped() {
        let html = "<p>Your code is <b>583920</b></p>" + String(repeating: "<p>filler text line</p>", count: 200_000)
        let parsed = HTMLTextExtractor.extract(html)
        #expect(parsed.document.count <= TextDocument.maximumScalars)
        #expect(Extractor.extract(subject: nil, text: nil, html: html).bestCode?.value == "583920")

        let text = String(repeating: "word ", count: 100_000) + "\nYour code is 583920"
        #expect(TextDocument(plainText: text).count <= TextDocument.maximumScalars)
        #expect(Extractor.extract(subject: nil, text: text, html: nil).codes.isEmpty) // beyond the cap
    }

    @Test func manyLinksAreBounded() {
        let html = (0..<2000).map { "<a href=\"https://x.test/\($0)\">l</a>" }.joined()
        #expect(Extractor.extract(subject: nil, text: nil, html: html).links.count == 500)
    }
}
