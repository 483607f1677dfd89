/// Base64 (RFC 4648 section 4) as SASL uses it in SMTP AUTH (RFC 4954): strict alphabet, padding required
/// when the length is not a multiple of four, no whitespace.
enum SMTPBase64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index < input.count {
            let b0 = UInt32(input[index])
            let b1 = index + 1 < input.count ? UInt32(input[index + 1]) : 0
            let b2 = index + 2 < input.count ? UInt32(input[index + 2]) : 0
            let triple = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(triple >> 18 & 63)])
            out.append(alphabet[Int(triple >> 12 & 63)])
            out.append(index + 1 < input.count ? alphabet[Int(triple >> 6 & 63)] : UInt8(ascii: "="))
            out.append(index + 2 < input.count ? alphabet[Int(triple & 63)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// nil when `text` is not valid base64.
    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        let input = Array(text)
        guard input.count % 4 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            var values: [UInt32] = [0, 0, 0, 0]
            var padding = 0
            for offset in 0..<4 {
                let byte = input[index + offset]
                if byte == UInt8(ascii: "=") {
                    // Padding only at the end of the last group, at most two, nothing after it.
                    guard isLast, offset >= 2 else { return nil }
                    padding += 1
                    continue
                }
                guard padding == 0 else { return nil }
                let value = decodeTable[Int(byte)]
                guard value != 0xFF else { return nil }
                values[offset] = UInt32(value)
            }
            let triple = values[0] << 18 | values[1] << 12 | values[2] << 6 | values[3]
            out.append(UInt8(triple >> 16 & 0xFF))
            if padding < 2 { out.append(UInt8(triple >> 8 & 0xFF)) }
            if padding < 1 { out.append(UInt8(triple & 0xFF)) }
            index += 4
        }
        return out
    }
}
