import Testing
@testable import UnderstudyInbox

@Suite struct TimestampTests {
    @Test func formatsUTCWithMilliseconds() {
        #expect(Timestamp.format(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.format(milliseconds: 1_796_227_614_123) == "2026-12-02T16:06:54.123Z")
        #expect(Timestamp.format(milliseconds: 951_782_400_000) == "2000-02-29T00:00:00.000Z")
    }

    @Test(arguments: [
        ("2026-12-02T16:06:54.123Z", Int64(1_796_227_614_123)),
        ("2026-12-02T16:06:54Z", Int64(1_796_227_614_000)),
        ("2026-12-02T17:06:54+01:00", Int64(1_796_227_614_000)),
        ("2026-12-02t16:06:54.5z", Int64(1_796_227_614_500)),
        ("1970-01-01T00:00:00Z", Int64(0)),
    ])
    func parses(_ text: String, _ ms: Int64) {
        #expect(Timestamp.parse(text) == ms)
    }

    @Test(arguments: ["", "2026-12-02", "2026-13-02T00:00:00Z", "2026-12-02T25:00:00Z", "2026-12-02T16:06:54", "2026-12-02T16:06:54.Z",
                      "2026-12-02T16:06:54Zjunk", "yesterday"])
    func rejects(_ text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test func roundTrips() {
        for ms in stride(from: Int64(-86_400_000 * 400), to: 4_102_444_800_000, by: 86_400_000 * 37 + 12_345) {
            #expect(Timestamp.parse(Timestamp.format(milliseconds: ms)) == ms)
        }
    }
}
