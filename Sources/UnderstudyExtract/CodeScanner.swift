/// Finds one-time code candidates in a `TextDocument` with one linear pass over "atoms"
/// (runs of ASCII letters and digits), grouping atoms joined by single separators so that
/// `641-028` becomes one code and `(555) 123-4567` one phone number.
struct CodeScanner {
    struct Candidate {
        var value: String
        var raw: String
        var score: Int
        var position: Int
    }

    /// A code-shaped run that was not taken, and why (see `Extractor.rejectedCandidates`).
    struct Rejection {
        var raw: String
        var reason: String
        var position: Int
    }

    /// What one scan found; rejections are only collected when asked for (they cost strings).
    private struct Findings {
        var candidates: [Candidate] = []
        var rejections: [Rejection]?

        mutating func reject(_ document: TextDocument, _ start: Int, _ end: Int, _ reason: String) {
            guard rejections != nil, rejections!.count < 64 else { return }
            rejections!.append(Rejection(raw: document.string(start..<end), reason: reason, position: start))
        }
    }

    /// Documents shorter than this may yield an unannounced standalone 6-digit number.
    static let shortDocumentScalars = 2500

    private struct Atom {
        var start: Int
        var end: Int
        var hasDigit = false
        var hasUpper = false
        var hasLower = false
        var length: Int { end - start }
        var isDigits: Bool { hasDigit && !hasUpper && !hasLower }
        var isUpperish: Bool { !hasLower }
    }

    let document: TextDocument

    /// True when the subject announces a code ("Your verification code") without giving it:
    /// a standalone or emphasised number in the body then counts as announced.
    let subjectAnnounces: Bool

    init(_ document: TextDocument, subjectAnnounces: Bool = false) {
        self.document = document
        self.subjectAnnounces = subjectAnnounces
    }

    /// Whether `document` (a subject) holds a word announcing a code that no disqualifying
    /// phrase ("promo code", "order") overrides.
    static func announces(_ document: TextDocument) -> Bool {
        let all = 0..<document.count
        let negatives = CodeKeywords.disqualifying.matches(in: document.folded, all)
        guard negatives.isEmpty,
              CodeKeywords.promotional.matches(in: document.folded, all).isEmpty else { return false }
        return !CodeKeywords.announcing.matches(in: document.folded, all).isEmpty
    }

    func scan() -> [Candidate] {
        var findings = Findings()
        scan(into: &findings)
        return findings.candidates
    }

    /// The candidates, and the code-shaped runs that were rejected with the reason for each.
    func diagnose() -> (candidates: [Candidate], rejections: [Rejection]) {
        var findings = Findings(rejections: [])
        scan(into: &findings)
        return (findings.candidates, findings.rejections ?? [])
    }

    private func scan(into candidates: inout Findings) {
        let atoms = collectAtoms()
        var k = 0
        while k < atoms.count {
            var group = [atoms[k]]
            var separators: [Unicode.Scalar] = []
            var numeric: Bool? = nil
            while k + group.count < atoms.count, group.count < 64 {
                let last = group[group.count - 1]
                let next = atoms[k + group.count]
                guard let separator = joinSeparator(from: last.end, to: next.start) else { break }
                let digitJoin = last.isDigits && next.isDigits && numericSeparators.contains(separator)
                let alnumJoin = last.isUpperish && next.isUpperish && (3...5).contains(last.length)
                    && (3...5).contains(next.length) && (separator == "-" || separator == " ")
                if numeric == nil {
                    if digitJoin { numeric = true } else if alnumJoin { numeric = false } else { break }
                } else if numeric == true ? !digitJoin : !alnumJoin {
                    break
                }
                separators.append(separator)
                group.append(next)
            }
            k += group.count
            evaluate(group, separators: separators, numeric: numeric ?? group[0].isDigits, into: &candidates)
        }
    }

    // MARK: Atoms and groups

    private func collectAtoms() -> [Atom] {
        // One pass over every scalar of every ingested message: plain buffer reads, and a run of
        // letters and digits is consumed by an inner loop.
        document.scalars.withUnsafeBufferPointer { scalars in
            var atoms: [Atom] = []
            let n = scalars.count
            // Digits and letters as ASCII values (fullwidth forms narrowed); 0 for anything else.
            @inline(__always) func ascii(_ i: Int) -> UInt32 {
                let v = scalars[i].value
                if v < 0x80 { return v }
                switch v {
                case 0xFF10...0xFF19: return v - 0xFF10 + 0x30
                case 0xFF21...0xFF3A: return v - 0xFF21 + 0x41
                case 0xFF41...0xFF5A: return v - 0xFF41 + 0x61
                default: return 0
                }
            }
            /// 1 for a digit, 2 for an uppercase letter, 4 for a lowercase one, 0 for anything else.
            @inline(__always) func kind(_ c: UInt32) -> UInt8 {
                if c &- 0x30 < 10 { return 1 }
                if (c | 0x20) &- 0x61 < 26 { return c < 0x60 ? 2 : 4 }
                return 0
            }
            var i = 0
            while i < n {
                var bits = kind(ascii(i))
                guard bits != 0 else {
                    i &+= 1
                    continue
                }
                let start = i
                i &+= 1
                while i < n {
                    let k = kind(ascii(i))
                    if k == 0 { break }
                    bits |= k
                    i &+= 1
                }
                var atom = Atom(start: start, end: i)
                atom.hasDigit = bits & 1 != 0
                atom.hasUpper = bits & 2 != 0
                atom.hasLower = bits & 4 != 0
                // Runs of more than 10 that mix letters and digits (tokens, hashes, base64) are
                // never codes and never join one, and neither are lower-case words or words
                // longer than 10: skip them early. Long runs of digits stay, because they keep
                // their neighbours from passing for codes ("12345678901-123456").
                if atom.hasDigit ? (atom.length <= 10 || !atom.hasUpper && !atom.hasLower)
                    : atom.length <= 4 || !atom.hasLower && atom.length <= 10 {
                    atoms.append(atom)
                }
            }
            return atoms
        }
    }

    private let numericSeparators: Set<Unicode.Scalar> = ["-", " ", ".", ":", "/", ",", "(", "+"]

    /// The separator joining two atoms: one scalar, or `(` standing for `) ` in `(555) 123`.
    private func joinSeparator(from end: Int, to start: Int) -> Unicode.Scalar? {
        let gap = start - end
        if gap == 1 {
            let c = document.narrow(end)
            if c == ")" || c == "+" { return "(" }
            return c
        }
        if gap == 2, document.scalars[end] == ")", document.scalars[end + 1] == " " { return "(" }
        if gap == 2, document.scalars[end] == " ", document.scalars[end + 1] == "(" { return "(" }
        return nil
    }

    private func evaluate(_ group: [Atom], separators: [Unicode.Scalar], numeric: Bool,
                          into candidates: inout Findings) {
        if group.count == 1 {
            consider(group[0].start, group[0].end, numeric: numeric, atoms: group, into: &candidates)
            return
        }
        let lengths = group.map(\.length)
        let total = lengths.reduce(0, +)
        let equal = lengths.allSatisfy { $0 == lengths[0] }
        if numeric {
            // Times, dates, decimals, prices and phone numbers.
            if separators.contains(where: { ":/.,(+".unicodeScalars.contains($0) }) {
                if (4...10).contains(total) {
                    candidates.reject(document, group[0].start, group[group.count - 1].end,
                                      "looks like a time, date, price or phone number (joined by \"\(separators[0])\")")
                }
                return
            }
            // Three groups of three (`123-456-789`, django-allauth's numeric codes).
            if lengths == [3, 3, 3] {
                consider(group[0].start, group[2].end, numeric: true, atoms: group, into: &candidates)
                return
            }
            if total > 8 {
                if total <= 12 {
                    candidates.reject(document, group[0].start, group[group.count - 1].end,
                                      "too many digits for a code; looks like a phone or account number")
                }
                return
            }
            // One digit per box ("5 8 3 9 2 0", digits in separate table cells) or even groups.
            let boxes = lengths[0] == 1 && separators.allSatisfy { $0 == " " }
            if equal, (2...4).contains(lengths[0]) || boxes, (4...8).contains(total) {
                if looksLikeDate(group) {
                    candidates.reject(document, group[0].start, group[group.count - 1].end, "looks like a date")
                } else {
                    consider(group[0].start, group[group.count - 1].end, numeric: true, atoms: group, into: &candidates)
                }
                return
            }
            // Space-separated numbers that are not one grouped code are read one by one.
            if separators.allSatisfy({ $0 == " " }) {
                for atom in group {
                    consider(atom.start, atom.end, numeric: true, atoms: [atom], into: &candidates)
                }
            }
            return
        }
        if equal, (6...10).contains(total) {
            consider(group[0].start, group[group.count - 1].end, numeric: false, atoms: group, into: &candidates)
        } else {
            for atom in group {
                consider(atom.start, atom.end, numeric: atom.isDigits, atoms: [atom], into: &candidates)
            }
        }
    }

    private func looksLikeDate(_ group: [Atom]) -> Bool {
        let numbers = group.map { Int(digits($0.start, $0.end)) ?? 0 }
        if zip(group, numbers).contains(where: { $0.length == 4 && isYear($1) }) { return true }
        if numbers.count == 3, group.allSatisfy({ $0.length == 2 }) {
            let (a, b) = (numbers[0], numbers[1])
            return (1...31).contains(a) && (1...12).contains(b) || (1...12).contains(a) && (1...31).contains(b)
        }
        return false
    }

    // MARK: One candidate

    private func consider(_ start: Int, _ end: Int, numeric: Bool, atoms: [Atom],
                          into candidates: inout Findings) {
        let length = atoms.reduce(0) { $0 + $1.length }
        let lettersOnly = !atoms.contains(where: \.hasDigit)
        let longest = numeric ? (atoms.count == 3 && length == 9 ? 9 : 8) : 10
        guard ((lettersOnly ? 6 : 4)...longest).contains(length) else { return }
        if numeric {
            guard atoms.allSatisfy(\.isDigits) else { return }
        } else {
            guard atoms.allSatisfy(\.isUpperish), atoms.contains(where: \.hasUpper) else { return }
        }
        var value = ""
        for atom in atoms { value += digits(atom.start, atom.end) }
        if numeric {
            let number = Int(value) ?? 0
            if length == 4, isYear(number) { return candidates.reject(document, start, end, "looks like a year") }
            if length == 8, isCompactDate(value) { return candidates.reject(document, start, end, "looks like a date (YYYYMMDD)") }
        }
        if lettersOnly, let reason = wordReason(value) { return candidates.reject(document, start, end, reason) }
        if let reason = negativeSurroundings(start, end) { return candidates.reject(document, start, end, reason) }
        switch score(start, end, length: length, numeric: numeric, lettersOnly: lettersOnly, grouped: atoms.count > 1) {
        case .accepted(let score):
            candidates.candidates.append(Candidate(value: value, raw: document.string(start..<end), score: score, position: start))
        case .rejected(let reason):
            candidates.reject(document, start, end, reason)
        }
    }

    /// Upper-case words that stand on a line of their own in auth mail (headings, buttons).
    private static let capitalWords: Set<String> = [
        "CONFIRM", "SUBMIT", "VERIFY", "LOGIN", "SIGNIN", "SIGNUP", "CANCEL", "RESET", "URGENT", "NOTICE",
        "WARNING", "HTTPS", "STRONG", "SCHRITT", "SPRING", "THANKS", "SCHNELL",
    ]

    /// Why a run of capital letters is a word rather than a code: codes drawn from a consonant
    /// alphabet (django-allauth) or from A-Z hold few vowels; words hold many.
    private func wordReason(_ value: String) -> String? {
        if Self.capitalWords.contains(value) { return "a common word in capitals" }
        let vowels = value.unicodeScalars.filter { "AEIOU".unicodeScalars.contains($0) }.count
        if vowels * 4 > value.unicodeScalars.count { return "letters only, with the vowels of a word" }
        return nil
    }

    /// URLs, e-mail addresses, paths, entities, CSS colours, amounts and quantities.
    private func negativeSurroundings(_ start: Int, _ end: Int) -> String? {
        let n = document.count
        // The surrounding run of printable ASCII (a URL, e-mail address, path or identifier).
        var left = start
        while left > 0, isRunScalar(document.narrow(left - 1)), start - left < 512 { left -= 1 }
        var right = end
        while right < n, isRunScalar(document.narrow(right)), right - end < 512 { right += 1 }
        if left < start || right > end {
            var slashes = 0
            for i in left..<right where i < start || i >= end {
                let c = document.narrow(i)
                if "@=&?_\\#$%+|~".unicodeScalars.contains(c) { return "part of a URL, e-mail address or identifier" }
                if c == "/" { slashes += 1 }
            }
            if slashes > 0 { return "part of a URL or path" }
            var i = left
            while i + 4 <= right {
                if document.folded[i] == "w", document.folded[i + 1] == "w", document.folded[i + 2] == "w",
                   document.folded[i + 3] == "." { return "part of a web address" }
                i += 1
            }
        }
        // A currency or number sign right before, a currency or percent sign right after.
        if let before = neighbour(before: start), "$€£¥￥₩₹₽¢#№".unicodeScalars.contains(before) { return "after a currency or number sign" }
        if let after = neighbour(after: end), "%€£¥￥₩₹₽¢円元원‰".unicodeScalars.contains(after) { return "before a currency or percent sign" }
        // A unit after ("10 minutes", "1500 EUR") or a currency code before ("USD 1299").
        var unitStart = end
        if unitStart < n, document.scalars[unitStart] == " " { unitStart += 1 }
        if CodeKeywords.units.matches(in: document.folded, unitStart..<min(unitStart + 1, n)).contains(where: { $0.start == unitStart }) {
            return "followed by a unit (minutes, EUR...)"
        }
        let prefixRange = max(0, start - 5)..<start
        for match in CodeKeywords.currencyPrefixes.matches(in: document.folded, prefixRange)
            where match.end == start || (match.end == start - 1 && document.scalars[match.end] == " ") {
            return "after a currency code"
        }
        return nil
    }

    private func neighbour(before index: Int) -> Unicode.Scalar? {
        var i = index - 1
        if i >= 0, document.scalars[i] == " " { i -= 1 }
        return i >= 0 ? document.scalars[i] : nil
    }

    private func neighbour(after index: Int) -> Unicode.Scalar? {
        var i = index
        if i < document.count, document.scalars[i] == " " { i += 1 }
        return i < document.count ? document.scalars[i] : nil
    }

    // MARK: Scoring

    private enum Verdict {
        case accepted(Int)
        case rejected(String)
    }

    private static let disqualified = "a word nearby says it is something else (order, phone, zip code...)"

    private func score(_ start: Int, _ end: Int, length: Int, numeric: Bool, lettersOnly: Bool, grouped: Bool) -> Verdict {
        let lineStart = document.lineStart(start)
        let lineEnd = document.lineEnd(end)
        let folded = document.folded

        let beforeRange = max(lineStart, start - 100)..<start
        let afterRange = end..<min(lineEnd, end + 60)
        let negatives = CodeKeywords.disqualifying.matches(in: folded, max(lineStart, start - 40)..<min(lineEnd, end + 20))
        func announcing(_ range: Range<Int>) -> [KeywordSet.Match] {
            CodeKeywords.announcing.matches(in: folded, range).filter { match in
                !negatives.contains { $0.start < match.end && match.start < $0.end }
            }
        }

        var best = 0
        var positiveBeforeDistance: Int?
        if let match = announcing(beforeRange).last(where: { $0.end <= start }) {
            let distance = start - match.end
            positiveBeforeDistance = distance
            best = 60 - min(25, distance / 4)
        }
        if let match = announcing(afterRange).first {
            best = max(best, 50 - min(25, (match.start - end) / 3))
        }
        let negativeBefore = negatives.filter { $0.end <= start }.map { start - $0.end }.min()
        let negativeAfter = negatives.filter { $0.start >= end }.map { $0.start - end }.min()
        if let negative = negativeBefore {
            if positiveBeforeDistance.map({ negative < $0 }) ?? true { return .rejected(Self.disqualified) }
        }
        if negativeAfter != nil, positiveBeforeDistance == nil { return .rejected(Self.disqualified) }

        let standalone = isStandalone(start, end, lineStart: lineStart, lineEnd: lineEnd)
        var emphasised = false
        var anchored = false
        for i in start..<end {
            if document.flags[i] & TextDocument.emphasis != 0 { emphasised = true }
            if document.flags[i] & TextDocument.insideAnchor != 0 { anchored = true }
        }

        if best == 0, standalone || emphasised || start - lineStart < 12 {
            // The announcing words may sit on one of the two lines before ("Your code:\n\n123456").
            var previousEnd = lineStart - 1
            for bonus in [45, 32] where previousEnd > 0 {
                let previousStart = document.lineStart(previousEnd)
                let range = max(previousStart, previousEnd - 160)..<previousEnd
                let positives = CodeKeywords.announcing.matches(in: folded, range)
                let previousNegatives = CodeKeywords.disqualifying.matches(in: folded, range)
                let kept = positives.filter { match in
                    !previousNegatives.contains { $0.start < match.end && match.start < $0.end }
                }
                if let last = kept.last {
                    if previousNegatives.contains(where: { $0.start >= last.end }) { return .rejected(Self.disqualified) }
                    best = bonus
                    break
                }
                if !previousNegatives.isEmpty { return .rejected(Self.disqualified) }
                previousEnd = previousStart - 1
            }
        }

        // A code on a marketing line ("Use code SAVE20 for 20% off") is a promotion.
        let lineWindow = max(lineStart, start - 200)..<min(lineEnd, end + 200)
        if !CodeKeywords.promotional.matches(in: folded, lineWindow).isEmpty { return .rejected("on a promotional line") }

        if best == 0, subjectAnnounces, standalone || emphasised {
            best = 35
        }
        if best == 0 {
            // Unannounced: only a standalone or emphasised 6-digit number in a short message.
            guard numeric, length == 6, standalone || emphasised else { return .rejected("no announcing word") }
            guard document.count < Self.shortDocumentScalars else {
                return .rejected("no announcing word, and the message is too long for an unannounced number")
            }
            return .accepted(15 + (emphasised ? 10 : 0) + (standalone ? 5 : 0))
        }
        // Capital letters alone are a code only in the shape codes take: groups (`KQFB-ZXWT`), or
        // a line or emphasised cell of their own, never a word inside a sentence or a button.
        if lettersOnly {
            if anchored { return .rejected("letters only, inside a link") }
            if !grouped, !standalone, !emphasised { return .rejected("letters only, inside a sentence") }
        }
        var score = best
        if emphasised { score += 20 }
        if standalone { score += 15 }
        if anchored { score -= 15 }
        switch length {
        case 6: score += 10
        case 8: score += 4
        case 5, 7: score += 2
        default: break
        }
        return .accepted(score)
    }

    private func isStandalone(_ start: Int, _ end: Int, lineStart: Int, lineEnd: Int) -> Bool {
        for i in lineStart..<lineEnd where i < start || i >= end {
            if !" []()【】「」『』<>:：'\"“”‘’.。-–—*•|".unicodeScalars.contains(document.scalars[i]) { return false }
        }
        return true
    }

    // MARK: Helpers

    private func digits(_ start: Int, _ end: Int) -> String {
        TextDocument.makeString((start..<end).lazy.map { document.narrow($0) })
    }

    private func isAlnum(_ c: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(c) || ("A"..."Z").contains(c) || ("a"..."z").contains(c)
    }

    private func isRunScalar(_ c: Unicode.Scalar) -> Bool {
        c.value > 0x20 && c.value < 0x7F && !"()[]{}<>\"'`,;".unicodeScalars.contains(c)
    }

    private func isYear(_ number: Int) -> Bool { (1900...2099).contains(number) }

    private func isCompactDate(_ value: String) -> Bool {
        guard let number = Int(value) else { return false }
        let year = number / 10000, month = number / 100 % 100, day = number % 100
        return isYear(year) && (1...12).contains(month) && (1...31).contains(day)
    }
}
