import FuzzSupport
import UnderstudyJSON

/// libFuzzer target for `JSONValue.parse`: the input is a JSON text (a request body, a config file,
/// a JWS header).
///
/// A text that parses must serialize to a text that parses again and serializes to the same bytes
/// (serialization is a fixed point after one round: `1e2` becomes `100`, then stays), with and
/// without sorted keys, and parsing the same text given as a String must agree. The two halves of
/// the input, cut where the input says, are parsed too (a body cut short).
enum FuzzJSON {
    static func run(_ bytes: [UInt8]) {
        let input = FuzzInput(bytes)
        if let value = try? JSONValue.parse(bytes) {
            roundTrip(value, sortedKeys: false)
            roundTrip(value, sortedKeys: true)
            if let text = String(validating: bytes, as: UTF8.self) {
                let fromString = try? JSONValue.parse(text)
                FuzzCheck.same(value.serialized(), fromString?.serialized() ?? "<error>", "as a String")
            }
        }
        for half in input.halves {
            if let value = try? JSONValue.parse(half) { roundTrip(value, sortedKeys: false) }
        }
    }

    static func roundTrip(_ value: JSONValue, sortedKeys: Bool) {
        let once = value.serializedBytes(sortedKeys: sortedKeys)
        let reparsed: JSONValue
        do {
            reparsed = try JSONValue.parse(once)
        } catch {
            fatalError("serialized JSON does not parse (\(error)): \(String(decoding: once.prefix(2000), as: UTF8.self))")
        }
        FuzzCheck.same(once, reparsed.serializedBytes(sortedKeys: sortedKeys),
                       "serialized, parsed and serialized again (sortedKeys: \(sortedKeys))")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzJSON.run(FuzzInput(data, size).bytes)
    return 0
}

#if !FUZZING
/// Without libFuzzer (a plain `swift build`) the target replays the files it is given; see `FuzzReplay`.
@main enum FuzzJSONReplay {
    static func main() { FuzzReplay.main(FuzzJSON.run) }
}
#endif
