import FuzzSupport
import UnderstudyHTTP

/// libFuzzer target for `HTTPRequestParser`: the input is what a client sends on one connection.
///
/// It is fed whole, cut in two at a point chosen by the input, and one byte at a time; the events
/// (requests with every field, 100-continue, errors with their message) and whether a partial
/// request is left must be the same each way. Half the inputs run with small limits so the 431
/// and 413 paths are reached by short inputs.
enum FuzzHTTP {
    static func run(_ bytes: [UInt8]) {
        let input = FuzzInput(bytes)
        let limits = input.flag(0)
            ? HTTPLimits(maxHeaderBytes: 256, maxHeaderCount: 4, maxBodyBytes: 64)
            : HTTPLimits()
        let whole = transcript([bytes[...]], limits: limits)
        FuzzCheck.same(whole, transcript(input.halves, limits: limits), "split at \(input.splitPoint)")
        FuzzCheck.same(whole, transcript(input.bytewise, limits: limits), "one byte at a time")
    }

    /// What the parser produced, draining `next()` after each piece and stopping at an error.
    static func transcript(_ pieces: [ArraySlice<UInt8>], limits: HTTPLimits) -> [String] {
        var parser = HTTPRequestParser(limits: limits)
        var events: [String] = []
        feeding: for piece in pieces {
            parser.feed(piece)
            while let event = parser.next() {
                events.append(describe(event))
                if case .error = event { break feeding }
            }
        }
        events.append("partial=\(parser.hasPartialRequest)")
        return events
    }

    static func describe(_ event: HTTPParserEvent) -> String {
        switch event {
        case .expectContinue:
            return "100-continue"
        case .request(let request):
            // What a handler reads from a request: none of it may trap.
            let json = (try? request.jsonBody()).map { $0.serialized() } ?? "-"
            let form = (try? request.formBody()).map { $0.map { "\($0.name)=\($0.value)" } } ?? []
            let multipart = (try? MultipartFormData(request: request)).map { $0.fields.map { "\($0.name)/\($0.filename ?? "-")=\($0.content)" } } ?? []
            let headers = request.headers.map { "\($0.name): \($0.value)" }
            return "\(request.method.rawValue) \(request.target) \(request.version) path=\(request.path) "
                + "query=\(request.query.map { "\($0.name)=\($0.value)" }) headers=\(headers) "
                + "body=\(request.body) keepAlive=\(request.keepAlive) type=\(request.mediaType ?? "-") "
                + "json=\(json) form=\(form) multipart=\(multipart)"
        case .error(let error):
            // The server sends this response before closing.
            let response = HTTPSerializer.serialize(error.response, requestMethod: .get, keepAlive: false)
            FuzzCheck.expect(!response.isEmpty, "error \(error) serialized to nothing")
            return "error \(error.status.code) \(error.errorCode): \(error.message)"
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzHTTP.run(FuzzInput(data, size).bytes)
    return 0
}

#if !FUZZING
/// Without libFuzzer (a plain `swift build`) the target replays the files it is given; see `FuzzReplay`.
@main enum FuzzHTTPReplay {
    static func main() { FuzzReplay.main(FuzzHTTP.run) }
}
#endif
