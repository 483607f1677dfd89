import Testing
@testable import UnderstudyJOSE

@Suite struct Base64Tests {
    // RFC 4648 section 10 test vectors.
    static let rfc4648: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ]

    @Test(arguments: rfc4648)
    func base64RFC4648Vectors(plain: String, encoded: String) {
        #expect(Base64.encode(plain.utf8) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
        let unpadded = String(encoded.prefix { $0 != "=" })
        #expect(Base64URL.encode(plain.utf8) == unpadded)
        #expect(Base64URL.decode(unpadded) == Array(plain.utf8))
    }

    @Test func urlAlphabetUsesDashAndUnderscore() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF]
        #expect(Base64.encode(bytes) == "+/+/")
        #expect(Base64URL.encode(bytes) == "-_-_")
        #expect(Base64URL.decode("-_-_") == bytes)
        #expect(Base64URL.decode("+/+/") == nil)
        #expect(Base64.decode("-_-_") == nil)
    }

    @Test(arguments: ["Zg=", "Z", "Zm9v!", "Zm 9v", "Zh", "Zm9=v", "Zg===", "====", "Zm9vYg=\n"])
    func invalidInputIsRejected(input: String) {
        #expect(Base64URL.decode(input) == nil)
        #expect(Base64.decode(input) == nil)
    }

    @Test func everyLengthRoundTrips() {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
            #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        }
    }

    @Test func hexIsLowercase() {
        #expect(Hex.encode([0x00, 0xAB, 0x0F, 0xFF]) == "00ab0fff")
        #expect(Hex.decode("00AB0fff") == [0x00, 0xAB, 0x0F, 0xFF])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
    }
}
