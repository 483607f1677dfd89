import UnderstudyJSON
import UnderstudyProviders

/// What the audit found: per scenario, the verdict expected, what the verifier did, and whether
/// that passes. Rendered as a table, JSON or JUnit XML.
struct AuditReport {
    enum Observed: String {
        case accepted, rejected, error
    }

    struct Row {
        var scenario: String
        var expected: ScenarioVerdict
        var observed: Observed
        /// The status or exit code, or what went wrong.
        var detail: String
        var reason: String

        /// nil: not judged (a `depends` row without a profile verdict).
        var passed: Bool? {
            switch expected {
            case .accept: return observed == .accepted
            case .reject: return observed == .rejected
            case .depends: return nil
            }
        }
        var result: String { passed.map { $0 ? "pass" : "FAIL" } ?? "info" }
    }

    var provider: ProviderName
    var profile: String?
    var rows: [Row] = []

    var failures: [Row] { rows.filter { $0.passed == false } }
    var passed: Bool { failures.isEmpty }

    var summary: String {
        let judged = rows.filter { $0.passed != nil }
        return "\(judged.count - failures.count) of \(judged.count) passed, \(failures.count) failed, "
            + "\(rows.count - judged.count) not judged (depends\(profile == nil ? "; pick a verdict with --profile" : ""))"
    }

    var table: String {
        Table.render([["scenario", "expected", "observed", "result"]]
                     + rows.map { [$0.scenario, $0.expected.rawValue, "\($0.observed.rawValue) (\($0.detail))", $0.result] })
            + summary + "\n"
    }

    var json: JSONValue {
        [
            "provider": .string(provider.rawValue),
            "profile": profile.map { .string($0) } ?? .null,
            "passed": .bool(passed),
            "summary": .string(summary),
            "results": .array(rows.map { r in
                ["scenario": .string(r.scenario), "expected": .string(r.expected.rawValue), "observed": .string(r.observed.rawValue),
                 "detail": .string(r.detail), "result": .string(r.result), "reason": .string(r.reason)]
            }),
        ]
    }

    var junit: String {
        let name = "understudy audit \(provider.rawValue)" + (profile.map { " (\($0))" } ?? "")
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuite name=\"\(Self.xml(name))\" tests=\"\(rows.count)\" failures=\"\(failures.count)\" skipped=\"\(rows.filter { $0.passed == nil }.count)\">\n"
        for r in rows {
            out += "  <testcase classname=\"understudy.audit.\(provider.rawValue)\" name=\"\(Self.xml(r.scenario))\">"
            switch r.passed {
            case false?:
                out += "<failure message=\"expected \(r.expected.rawValue), the verifier \(r.observed.rawValue) (\(Self.xml(r.detail)))\">\(Self.xml(r.reason))</failure>"
            case nil:
                out += "<skipped message=\"depends: \(Self.xml(r.reason))\"/>"
            default: break
            }
            out += "</testcase>\n"
        }
        return out + "</testsuite>\n"
    }

    static func xml(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }
}
