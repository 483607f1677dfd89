/// A Date header: the raw text and, when it parses as an RFC 5322 date (obsolete forms included:
/// two-digit years, zone names such as "EST" or "UT", missing seconds, comments), the instant as
/// seconds since 1970-01-01T00:00:00Z.
public struct MIMEDate: Sendable, Hashable {
    public let raw: String
    /// Parsed when asked: the sink stores the raw text of every message's Date header and reads
    /// the instant rarely.
    public var secondsSince1970: Int64? { MIMEDate.parse(raw) }

    public init(raw: String) {
        self.raw = raw
    }

    static let months: [[UInt8]] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        .map { Array($0.utf8) }
    static let dayNames: [[UInt8]] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map { Array($0.utf8) }
    static let zones: [String: Int] = [
        "ut": 0, "utc": 0, "gmt": 0, "z": 0, "edt": -4 * 60, "est": -5 * 60, "cdt": -5 * 60, "cst": -6 * 60,
        "mdt": -6 * 60, "mst": -7 * 60, "pdt": -7 * 60, "pst": -8 * 60,
    ]

    /// Parses over bytes (every ingested message has a Date header): words are split on white
    /// space, commas and comments, and lowercased.
    static func parse(_ raw: String) -> Int64? {
        let bytes = Array(raw.utf8)
        guard bytes.count < 256 else { return nil }
        var ranges: [Range<Int>] = []
        var lowered = [UInt8]()
        lowered.reserveCapacity(bytes.count)
        var wordStart = 0
        var i = 0
        while i <= bytes.count {
            let byte: UInt8 = i < bytes.count ? bytes[i] : 0x20
            let separator = byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A || byte == UInt8(ascii: ",")
                || byte == UInt8(ascii: "(")
            if separator {
                if lowered.count > wordStart { ranges.append(wordStart..<lowered.count) }
                i = byte == UInt8(ascii: "(") ? MIMEParameters.skipComment(bytes, i) : i + 1
                wordStart = lowered.count
                continue
            }
            lowered.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
            i += 1
        }
        var words = ranges.map { lowered[$0] }
        if let first = words.first, first.count >= 3, dayNames.contains(where: { first.starts(with: $0) }) {
            words.removeFirst()
        }
        guard words.count >= 4 else { return nil }
        let day: Int
        let monthWord: ArraySlice<UInt8>
        // "2 Dec 2026" or "Dec 2 2026" (asctime-like senders).
        if let d = number(words[0]) { day = d; monthWord = words[1] } else if let d = number(words[1]) { day = d; monthWord = words[0] } else { return nil }
        guard let month = months.firstIndex(where: { monthWord.starts(with: $0) }).map({ $0 + 1 }) else { return nil }
        var rest = words[2...]
        // Year, then time; asctime puts the year last.
        var yearWord = rest.removeFirst()
        var timeWord: ArraySlice<UInt8>
        if yearWord.contains(UInt8(ascii: ":")) {
            timeWord = yearWord
            guard !rest.isEmpty else { return nil }
            yearWord = rest.removeFirst()
        } else {
            guard !rest.isEmpty else { return nil }
            timeWord = rest.removeFirst()
        }
        guard var year = number(yearWord) else { return nil }
        if yearWord.count <= 2 { year += year < 50 ? 2000 : 1900 } else if yearWord.count == 3 { year += 1900 }
        let timeParts = timeWord.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false).map(number)
        guard timeParts.count == 2 || timeParts.count == 3, timeParts.allSatisfy({ $0 != nil }) else { return nil }
        let hour = timeParts[0]!, minute = timeParts[1]!, second = timeParts.count == 3 ? timeParts[2]! : 0
        guard (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
              year >= 1900, year <= 9999 else { return nil }
        var offsetMinutes = 0
        if let zone = rest.first {
            if let sign = zone.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), zone.count == 5,
               let v = number(zone.dropFirst()) {
                let m = (v / 100) * 60 + v % 100
                offsetMinutes = sign == UInt8(ascii: "-") ? -m : m
            } else if zone.count <= 3, let m = zones[String(decoding: zone, as: UTF8.self)] {
                offsetMinutes = m
            }
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Int64(days) * 86400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
    }

    /// A run of 1 to 9 ASCII digits as a number.
    static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 9 else { return nil }
        var value = 0
        for d in digits {
            guard d >= 0x30 && d <= 0x39 else { return nil }
            value = value * 10 + Int(d - 0x30)
        }
        return value
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }
}
