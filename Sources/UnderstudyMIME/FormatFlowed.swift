/// RFC 3676 format=flowed text/plain: soft line breaks (a line ending in a space) are joined with the
/// next line of the same quote depth, space-stuffing is removed, and with DelSp=yes the trailing space
/// of a flowed line is deleted. Quote markers (">") of joined lines are dropped; "-- " stays hard.
public enum FormatFlowed {
    public static func unwrap(_ text: String, deleteSpace: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var paragraph = ""      // the logical line being built
        var paragraphDepth = -1  // quote depth of `paragraph`; -1 when none is open
        func close() {
            if paragraphDepth >= 0 {
                out += String(repeating: ">", count: paragraphDepth)
                if paragraphDepth > 0 && !paragraph.isEmpty { out += " " }
                out += paragraph
                out += "\n"
            }
            paragraph = ""
            paragraphDepth = -1
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, rawLine) in lines.enumerated() {
            if index == lines.count - 1 && rawLine.isEmpty { break }  // text ended with a newline
            var line = rawLine
            var depth = 0
            while line.first == ">" { depth += 1; line = line.dropFirst() }
            if line.first == " " { line = line.dropFirst() }  // space-stuffing (or the space after ">")
            let isSignature = line == "-- "
            if paragraphDepth >= 0 && depth != paragraphDepth { close() }
            if paragraphDepth < 0 { paragraphDepth = depth }
            if !isSignature && line.last == " " {
                paragraph += deleteSpace ? String(line.dropLast()) : String(line)
            } else {
                paragraph += line
                close()
            }
        }
        close()
        if !text.hasSuffix("\n"), out.hasSuffix("\n") { out.removeLast() }
        return out
    }
}
