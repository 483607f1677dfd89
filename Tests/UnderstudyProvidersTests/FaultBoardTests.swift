import Testing
import UnderstudyJSON
import UnderstudyProviders

@Suite struct FaultBoardTests {
    @Test func aCountedFaultMeetsTheNextRequestsThenGoes() throws {
        let board = FaultBoard()
        board.add(try Fault(json: ["target": "keys", "fault": "503", "provider": "apple", "count": 2, "retryAfter": 7], now: 0))
        #expect(board.take(.keys, provider: .google, now: 0) == nil, "another provider is untouched")
        #expect(board.take(.discovery, provider: .apple, now: 0) == nil, "another endpoint is untouched")
        #expect(board.take(.keys, provider: .apple, now: 0)?.kind == .unavailable(retryAfter: 7))
        #expect(board.take(.keys, provider: .apple, now: 0)?.remaining == 1)
        #expect(board.take(.keys, provider: .apple, now: 0) == nil)
        #expect(board.list(now: 0).isEmpty)
    }

    @Test func aTimedFaultEndsAtItsTimeAndClearEndsAll() throws {
        let board = FaultBoard()
        board.add(try Fault(json: ["target": "token", "fault": "500", "duration": 60], now: 1000))
        board.add(try Fault(json: ["target": "keys", "fault": "hang", "seconds": 5], now: 1000))
        #expect(board.take(.token, provider: .google, now: 1059)?.kind == .serverError)
        #expect(board.take(.token, provider: .apple, now: 1060) == nil)
        #expect(board.take(.keys, provider: .apple, now: 99_999)?.kind == .hang(seconds: 5), "no count, no duration: until cleared")
        board.clear()
        #expect(board.take(.keys, provider: .apple, now: 0) == nil)
    }

    @Test(arguments: [
        (#"{"fault": "503"}"#, "target"),
        (#"{"target": "keys", "fault": "404"}"#, "fault"),
        (#"{"target": "keys", "fault": "hang"}"#, "seconds"),
        (#"{"target": "keys", "fault": "hang", "seconds": 100000}"#, "seconds"),
        (#"{"target": "discovery", "fault": "drop-key"}"#, "fault"),
        (#"{"target": "keys", "fault": "500", "provider": "azure"}"#, "provider"),
        (#"{"target": "keys", "fault": "500", "count": 0}"#, "count"),
        (#"{"target": "keys", "fault": "500", "every": 2}"#, "every"),
        (#"[]"#, "body"),
    ])
    func errorsNameTheField(_ json: String, _ field: String) throws {
        #expect { try Fault(json: try JSONValue.parse(json), now: 0) } throws: { ($0 as? FaultError)?.field == field }
    }

    @Test func atMostLimitFaultsAreInForce() throws {
        let board = FaultBoard()
        let fault = try Fault(json: ["target": "keys", "fault": "500"], now: 0)
        for _ in 0..<FaultBoard.limit { #expect(board.add(fault) != nil) }
        #expect(board.add(fault) == nil)
        board.clear()
        #expect(board.add(fault) != nil)
    }

    @Test func pathsAreClassifiedByEndpoint() {
        #expect(FaultBoard.classify(path: "/google/oauth2/v1/certs")! == (.keys, .google))
        #expect(FaultBoard.classify(path: "/apple/.well-known/openid-configuration")! == (.discovery, .apple))
        #expect(FaultBoard.classify(path: "/google/token")! == (.token, .google))
        #expect(FaultBoard.classify(path: "/api/messages") == nil)
    }
}
