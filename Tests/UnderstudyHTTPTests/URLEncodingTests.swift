import Testing
import UnderstudyHTTP

@Suite struct URLEncodingTests {
    @Test(arguments: ["alice@example.com", "a b+c&d=e", "验证码", "2026-12-02T10:00:00+01:00", "~._-", ""])
    func queryComponentRoundTrips(_ value: String) {
        let encoded = URLEncoding.queryComponent(value)
        #expect(encoded.utf8.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "&") && $0 != UInt8(ascii: "+") })
        #expect(URLEncoding.formDecoded(Array("v=\(encoded)".utf8)).first?.value ?? "" == value)
    }

    @Test func keepsUnreservedAndEncodesTheRest() {
        #expect(URLEncoding.queryComponent("a-Z_0.9~") == "a-Z_0.9~")
        #expect(URLEncoding.queryComponent("a@b c") == "a%40b%20c")
    }
}
