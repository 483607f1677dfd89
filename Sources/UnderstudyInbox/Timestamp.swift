import UnderstudyHTTP

/// RFC 3339 timestamps in UTC with milliseconds (`2026-12-02T16:40:05.123Z`), without a calendar library.
public enum Timestamp {
    public static func format(milliseconds: Int64) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let ms = milliseconds - seconds * 1000
        let days = CivilCalendar.days(fromEpochSeconds: seconds)
        let secs = seconds - days * 86_400
        let (y, m, d) = CivilCalendar.date(fromDays: days)
        func pad(_ n: Int64, _ w: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secs / 3600, 2)):\(pad(secs / 60 % 60, 2)):\(pad(secs % 60, 2)).\(pad(ms, 3))Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` into milliseconds since the epoch.
    public static func parse(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        func digits(_ at: Int, _ n: Int) -> Int64? {
            guard at + n <= b.count else { return nil }
            var v: Int64 = 0
            for i in at..<at + n {
                guard (48...57).contains(b[i]) else { return nil }
                v = v * 10 + Int64(b[i] - 48)
            }
            return v
        }
        guard b.count >= 20, let y = digits(0, 4), b[4] == 45, let mo = digits(5, 2), b[7] == 45, let d = digits(8, 2),
              b[10] == 84 || b[10] == 116 || b[10] == 32, let h = digits(11, 2), b[13] == 58, let mi = digits(14, 2),
              b[16] == 58, let s = digits(17, 2),
              (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61
        else { return nil }
        var i = 19
        var ms: Int64 = 0
        if i < b.count, b[i] == 46 {
            i += 1
            var scale: Int64 = 100
            let start = i
            while i < b.count, (48...57).contains(b[i]) {
                ms += Int64(b[i] - 48) * scale
                scale /= 10
                i += 1
            }
            if i == start { return nil }
        }
        guard i < b.count else { return nil }
        var offset: Int64 = 0
        if b[i] == 90 || b[i] == 122 {
            i += 1
        } else if b[i] == 43 || b[i] == 45, let oh = digits(i + 1, 2), i + 3 < b.count, b[i + 3] == 58, let om = digits(i + 4, 2) {
            offset = (oh * 60 + om) * 60 * (b[i] == 43 ? 1 : -1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = CivilCalendar.days(year: y, month: mo, day: d)
        return ((days * 86_400 + h * 3600 + mi * 60 + s) - offset) * 1000 + ms
    }
}
