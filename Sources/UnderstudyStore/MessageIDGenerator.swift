/// Makes message ids: 26 characters of Crockford base32 (ULID layout) holding 48 bits of
/// milliseconds since the epoch then 80 random bits.
///
/// Ids are strictly increasing: within one millisecond (or if the clock steps back) the random
/// part of the previous id is incremented. The store seeds the generator with the highest stored
/// id, so string order of ids equals insertion order across restarts, and "after this id" is a
/// plain `id > ?` that works even when that message has since been deleted.
struct MessageIDGenerator {
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    static let length = 26

    private var lastTime: UInt64 = 0
    private var lastHigh: UInt16 = 0  // top 16 of the 80 random bits
    private var lastLow: UInt64 = 0  // low 64 random bits
    /// Seeded once from the system: the random part only has to make ids from different stores
    /// unlikely to collide, and a system call per millisecond of mail was measurable.
    private var random: SplitMix64 = {
        var system = SystemRandomNumberGenerator()
        return SplitMix64(seed: system.next())
    }()

    init(after id: String?) {
        if let id, let parts = Self.parse(id) {
            (lastTime, lastHigh, lastLow) = parts
        }
    }

    mutating func next(nowMilliseconds: Int64) -> String {
        let now = UInt64(max(0, min(nowMilliseconds, (1 << 48) - 1)))
        if now > lastTime {
            lastTime = now
            // Keep the top random bit clear so increments never overflow into the time part.
            lastHigh = UInt16.random(in: 0...0x7FFF, using: &random)
            lastLow = random.next()
        } else {
            lastLow &+= 1
            if lastLow == 0 { lastHigh &+= 1 }
            if lastHigh == 0 && lastLow == 0 { lastTime += 1 }
        }
        return Self.encode(time: lastTime, high: lastHigh, low: lastLow)
    }

    /// The milliseconds an id carries, or nil when `id` is not a well-formed id.
    static func timestamp(of id: String) -> Int64? {
        parse(id).map { Int64($0.0) }
    }

    /// The smallest id with a time of `milliseconds` or later: "arrived after T" is the range
    /// `id >= firstID(atOrAfter: T + 1)` of the id index. An id's time is the arrival time, except
    /// after the clock steps back: then it stays at the previous id's time, so a message that
    /// came later is never placed before one that came earlier.
    static func firstID(atOrAfter milliseconds: Int64) -> String {
        encode(time: UInt64(max(0, min(milliseconds, (1 << 48) - 1))), high: 0, low: 0)
    }

    /// True when `id` has the shape of an id (any case).
    static func isValid(_ id: String) -> Bool { parse(id) != nil }

    private static func encode(time: UInt64, high: UInt16, low: UInt64) -> String {
        // 128 bits: 48 time | 16 high | 64 low, written as 26 groups of 5 bits (top 2 bits zero).
        let hi64 = (time << 16) | UInt64(high)
        var out = [UInt8](repeating: 0, count: length)
        for position in 0..<length {
            let shift = (length - 1 - position) * 5  // bit offset of this group in the 130-bit value
            var group: UInt64
            if shift >= 64 {
                group = hi64 >> UInt64(shift - 64)
            } else if shift + 5 <= 64 {
                group = low >> UInt64(shift)
            } else {
                group = (low >> UInt64(shift)) | (hi64 << UInt64(64 - shift))
            }
            group &= 0x1F
            out[position] = alphabet[Int(group)]
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func parse(_ id: String) -> (UInt64, UInt16, UInt64)? {
        let bytes = Array(id.utf8)
        guard bytes.count == length else { return nil }
        var hi64: UInt64 = 0
        var low: UInt64 = 0
        for (position, byte) in bytes.enumerated() {
            guard let value = decodeDigit(byte) else { return nil }
            if position == 0 && value > 7 { return nil }  // would exceed 128 bits
            // Shift the 128-bit (hi64, low) left by 5 and add the digit.
            hi64 = (hi64 << 5) | (low >> 59)
            low = (low << 5) | UInt64(value)
        }
        return (hi64 >> 16, UInt16(truncatingIfNeeded: hi64), low)
    }

    private static func decodeDigit(_ byte: UInt8) -> UInt8? {
        let upper = (byte >= 0x61 && byte <= 0x7A) ? byte - 0x20 : byte
        guard let index = alphabet.firstIndex(of: upper) else { return nil }
        return UInt8(index)
    }

    /// Uppercases a valid id so lookups match however the caller spelled it.
    static func normalize(_ id: String) -> String? {
        guard isValid(id) else { return nil }
        return String(decoding: id.utf8.map { ($0 >= 0x61 && $0 <= 0x7A) ? $0 - 0x20 : $0 }, as: UTF8.self)
    }
}

/// SplitMix64 (Steele, Lea and Flood, 2014): a fast, well-mixed 64-bit generator, not for secrets.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
