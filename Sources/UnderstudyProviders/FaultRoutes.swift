import UnderstudyHTTP
import UnderstudyJSON

/// `POST /api/faults` (add one), `GET /api/faults` (those in force), `DELETE /api/faults` (clear all).
public struct FaultRoutes: Sendable {
    public let board: FaultBoard
    let clock: UnixClock

    public init(board: FaultBoard, clock: @escaping UnixClock) {
        self.board = board
        self.clock = clock
    }

    public func register(on router: inout Router) {
        router.add(.get, "/api/faults") { [self] _, _ in .response(.json(["faults": .array(board.list(now: clock()).map(\.json))])) }
        router.add(.post, "/api/faults") { [self] request, _ in .response(add(request)) }
        router.add(.delete, "/api/faults") { [self] _, _ in
            board.clear()
            return .response(.json(["faults": []]))
        }
    }

    func add(_ request: HTTPRequest) -> HTTPResponse {
        let body: JSONValue
        do { body = try request.jsonBody() } catch { return error.response }
        do {
            guard let fault = board.add(try Fault(json: body, now: clock())) else {
                return .problem(.conflict, error: "too_many_faults",
                                message: "\(FaultBoard.limit) faults are already in force; clear them with DELETE /api/faults")
            }
            return .json(fault.json, status: .created)
        } catch {
            return .problem(.badRequest, error: "invalid_request", message: error.description)
        }
    }
}
