/// A Date header: the raw text and, when it parses as an RFC 5322 date (obsolete forms included:
/// two-digit years, zone names such as "EST" or "UT", missing seconds, comments), the instant as
/// seconds since 1970-01-01T00:00:00Z.
public struct MIMEDate: Sendable, Hashable {
    public let raw: String
    public let secondsSince1970: Int64?

    public init(raw: String) {
        self.raw = raw
        self.secondsSince1970 = MIMEDate.parse(raw)
    }

    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let zones: [String: Int] = [
        "ut": 0, "utc": 0, "gmt": 0, "z": 0, "edt": -4 * 60, "est": -5 * 60, "cdt": -5 * 60, "cst": -6 * 60,
        "mdt": -6 * 60, "mst": -7 * 60, "pdt": -7 * 60, "pst": -8 * 60,
    ]

    static func parse(_ raw: String) -> Int64? {
        // Drop comments, split on whitespace and commas.
        let bytes = Array(raw.utf8)
        guard bytes.count < 256 else { return nil }
        var cleaned = [UInt8]()
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "(") { i = MIMEParameters.skipComment(bytes, i); cleaned.append(0x20); continue }
            cleaned.append(bytes[i] == UInt8(ascii: ",") ? 0x20 : bytes[i])
            i += 1
        }
        var words = String(decoding: cleaned, as: UTF8.self).lowercased()
            .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }).map(String.init)
        // Optional day name.
        if let first = words.first, ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].contains(String(first.prefix(3))) {
            words.removeFirst()
        }
        guard words.count >= 4 else { return nil }
        var day: Int
        var monthWord: String
        // "2 Dec 2026" or "Dec 2 2026" (asctime-like senders).
        if let d = Int(words[0]) { day = d; monthWord = words[1] } else if let d = Int(words[1]) { day = d; monthWord = words[0] } else { return nil }
        guard let month = months.firstIndex(where: { monthWord.hasPrefix($0) }).map({ $0 + 1 }) else { return nil }
        var rest = Array(words[2...])
        // Year, then time; asctime puts the year last.
        var yearWord = rest.removeFirst()
        var timeWord: String
        if yearWord.contains(":") {
            timeWord = yearWord
            guard !rest.isEmpty else { return nil }
            yearWord = rest.removeFirst()
        } else {
            guard !rest.isEmpty else { return nil }
            timeWord = rest.removeFirst()
        }
        guard var year = Int(yearWord), year >= 0 else { return nil }
        if yearWord.count <= 2 { year += year < 50 ? 2000 : 1900 } else if yearWord.count == 3 { year += 1900 }
        let timeParts = timeWord.split(separator: ":").map { Int($0) }
        guard timeParts.count == 2 || timeParts.count == 3, timeParts.allSatisfy({ $0 != nil }) else { return nil }
        let hour = timeParts[0]!, minute = timeParts[1]!, second = timeParts.count == 3 ? timeParts[2]! : 0
        guard (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
              year >= 1900, year <= 9999 else { return nil }
        var offsetMinutes = 0
        if let zone = rest.first {
            if let sign = zone.first, sign == "+" || sign == "-", zone.count == 5, let v = Int(zone.dropFirst()) {
                let m = (v / 100) * 60 + v % 100
                offsetMinutes = sign == "-" ? -m : m
            } else if let m = zones[zone] {
                offsetMinutes = m
            }
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Int64(days) * 86400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
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
