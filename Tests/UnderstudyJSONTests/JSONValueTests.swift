import Testing
import UnderstudyJSON

@Suite struct JSONValueTests {
    @Test func roundTripKeepsOrder() throws {
        let text = #"{"z":1,"a":[true,false,null],"m":{"k":"v"},"d":1.5,"neg":-3}"#
        let v = try JSONValue.parse(text)
        #expect(v.serialized() == text)
        #expect(v["z"]?.intValue == 1)
        #expect(v["m"]?["k"]?.stringValue == "v")
        #expect(v["d"]?.doubleValue == 1.5)
        #expect(v.serialized(sortedKeys: true) == #"{"a":[true,false,null],"d":1.5,"m":{"k":"v"},"neg":-3,"z":1}"#)
    }

    @Test func stringEscapes() throws {
        let v = try JSONValue.parse(#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#)
        #expect(v.stringValue == "a\"b\\c/d\n\té😀")
        #expect(JSONValue.string("q\"\u{1}\n").serialized() == #""q\"\u0001\n""#)
        #expect(JSONValue.string("验证码").serialized() == "\"验证码\"")
        // Escapes at the start, the end, back to back and between runs; every control character.
        #expect(JSONValue.string("\"a\\b\t\r\u{8}\u{C}c\u{1F}").serialized() == #""\"a\\b\t\r\b\fc\u001f""#)
        #expect(JSONValue.string("").serialized() == #""""#)
        #expect(JSONValue.string("no escapes at all, / included").serialized() == #""no escapes at all, / included""#)
        for control in 0..<0x20 {
            let text = JSONValue.string("x" + String(UnicodeScalar(UInt8(control))) + "y").serialized()
            #expect((try? JSONValue.parse(text)) == .string("x" + String(UnicodeScalar(UInt8(control))) + "y"))
        }
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "tru", "\"abc", "\"\\x\"", "\"\\ud800\"",
        "{\"a\":1}x", "\"\u{1}\"", "[1 2]", "1e", "{1:2}",
    ])
    func rejectsMalformed(_ text: String) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
    }

    @Test func errorNamesOffset() {
        do {
            _ = try JSONValue.parse("[1,]")
            Issue.record("expected an error")
        } catch {
            #expect(error.offset == 3)
            #expect(error.description.contains("byte 3"))
        }
    }

    @Test func depthIsLimited() throws {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
        let ok = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        _ = try JSONValue.parse(ok)
    }

    @Test func invalidUTF8IsRejected() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xff, 0x22]) }
    }

    @Test func numbers() throws {
        #expect(try JSONValue.parse("9223372036854775807") == .integer(Int64.max))
        #expect(try JSONValue.parse("1e3").intValue == 1000)
        #expect(try JSONValue.parse("-0.25") == .double(-0.25))
        #expect(JSONValue.double(3.0).serialized() == "3")
        #expect(JSONValue.double(.nan).serialized() == "null")
    }

    @Test func objectEditing() {
        var o: JSONObject = ["a": 1, "b": 2]
        o["a"] = "x"
        o["c"] = true
        o["b"] = nil
        #expect(JSONValue.object(o).serialized() == #"{"a":"x","c":true}"#)
        var v: JSONValue = ["k": 1]
        v["k"] = 2
        #expect(v["k"] == 2)
        #expect(JSONValue.object(["a": 1, "b": 2]) == JSONValue.object(["b": 2, "a": 1]))
    }
}

@Test func manyKeysParseInLinearTime() throws {
    let body = (0..<50_000).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
    let v = try JSONValue.parse("{" + body + ",\"k7\":\"last\"}")
    #expect(v.objectValue?.count == 50_000)
    #expect(v["k7"] == "last")
}

@Suite struct JSONObjectMergeTests {
    @Test func mergeOverridesInPlaceAndAppendsNewKeysInOrder() {
        var base: JSONObject = ["iss": "a", "aud": "b", "exp": 1]
        base.merge(["exp": 2, "extra": true, "iss": "c"])
        #expect(base.keys == ["iss", "aud", "exp", "extra"])
        #expect(base["iss"] == "c" && base["exp"] == 2 && base["extra"] == true)
    }

    /// 60,000 keys, half of them overriding: the result is exact (linear work: a position table,
    /// not a search per key; a quadratic merge took seconds here).
    @Test func aLargeMergeIsExact() {
        let n = 60_000
        var base = JSONObject((0..<n).map { ("k\($0)", JSONValue.integer(Int64($0))) })
        #expect(base.count == n)
        let other = JSONObject((n / 2..<n + n / 2).map { ("k\($0)", JSONValue.integer(-Int64($0))) })
        base.merge(other)
        #expect(base.count == n + n / 2)
        #expect(base.keys == (0..<n + n / 2).map { "k\($0)" })
        #expect(base.members[n / 2 - 1].value == .integer(Int64(n / 2 - 1)))
        #expect(base.members[n / 2].value == .integer(-Int64(n / 2)))
        #expect(base.members.last?.value == .integer(-Int64(n + n / 2 - 1)))
        // Duplicates within one literal: the later value, the first position.
        let dup = JSONObject([("a", JSONValue.integer(1)), ("b", 2), ("a", 3)])
        #expect(dup.keys == ["a", "b"] && dup["a"] == 3)
        #expect(base == base && base != other)
    }
}
