import Testing
import UnderstudyProviders
@testable import UnderstudyApp

@Suite struct AuditTests {
    @Test func placeholdersAreFilledAndUnknownOnesNamed() {
        let text = #"{"idToken":"{{token}}","nonce":"{{rawNonce}}","a":"{{aud}}{{aud}}"}"#
        #expect(AuditTemplate.fill(text, ["token": "T", "rawNonce": "R", "aud": "A"]) == #"{"idToken":"T","nonce":"R","a":"AA"}"#)
        #expect(AuditTemplate.unknownPlaceholders(in: "x {{token}} {{idtoken}} {{email}} {{").map { $0 } == ["idtoken"])
    }

    @Test func acceptStatusPatterns() throws {
        let s = try AcceptStatus("2xx, 302,400-401")
        #expect(s.accepts(204) && s.accepts(302) && s.accepts(401) && !s.accepts(403) && !s.accepts(500))
        #expect(throws: UsageError.self) { try AcceptStatus("ok") }
        #expect(throws: UsageError.self) { try AcceptStatus("") }
    }

    @Test func theReportJudgesOnlyWhatItKnowsAndPassesOnlyWithoutFailures() {
        var report = AuditReport(provider: .apple, profile: nil)
        report.rows = [
            .init(scenario: "valid", expected: .accept, observed: .accepted, detail: "200", reason: ""),
            .init(scenario: "expired", expected: .reject, observed: .rejected, detail: "401", reason: ""),
            .init(scenario: "clock-skew-30s", expected: .depends, observed: .accepted, detail: "200", reason: "r"),
        ]
        #expect(report.passed && report.summary.hasPrefix("2 of 2 passed, 0 failed, 1 not judged"))
        report.rows.append(.init(scenario: "alg-none", expected: .reject, observed: .accepted, detail: "200", reason: "<unsigned>"))
        report.rows.append(.init(scenario: "wrong-audience", expected: .reject, observed: .error, detail: "refused", reason: ""))
        #expect(!report.passed && report.failures.map(\.scenario) == ["alg-none", "wrong-audience"])
        #expect(report.junit.contains(#"failures="2""#) && report.junit.contains("&lt;unsigned&gt;") && report.junit.contains("<skipped"))
        #expect(report.table.contains("alg-none") && report.table.contains("FAIL"))
    }

    @Test func usageErrorsNameTheFix() {
        for (args, says) in [
            (["audit"], "--provider apple"),
            (["audit", "--provider", "apple"], "--url"),
            (["audit", "--provider", "apple", "--url", "http://x:1/", "--command", "true"], "one of the two"),
            (["audit", "--provider", "apple", "--command", "true", "--profile", "nope"], "--profile takes"),
            (["audit", "--provider", "apple", "--url", "http://x:1/", "--accept-status", "yes"], "--accept-status"),
        ] {
            let r = runCLI(args)
            #expect(r.status == ExitCode.usage && r.err.contains(says), "\(args): \(r.err)")
        }
    }
}
