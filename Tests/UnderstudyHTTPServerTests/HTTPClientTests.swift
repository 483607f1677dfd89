import Testing
import UnderstudyHTTP
import UnderstudyIO
import UnderstudyTestSupport
import UnderstudyHTTPServer

@Suite(.serialized)
struct HTTPClientTests {
    @Test func postsOnALoopAndReadsTheAnswer() throws {
        let server = HTTPServer(configuration: HTTPServerConfiguration(threads: 1), responder: TestResponder(events: Box([])))
        let address = try server.start()[0]
        defer { server.shutdown() }
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdownGracefully(timeout: .seconds(2)) }
        let result = Box<Result<HTTPResponse, HTTPClient.Failure>?>(nil)
        HTTPClient.send(method: "POST", host: "127.0.0.1", port: address.port, target: "/echo",
                        headers: [("Content-Type", "application/json")], body: Array(#"{"payload":"x"}"#.utf8),
                        on: group.next()) { r in result.update { $0 = r } }
        #expect(waitUntil { result.value != nil })
        let response = try #require(try result.value?.get())
        #expect(response.status.code == 200 && response.body == Array(#"{"payload":"x"}"#.utf8))

        let refused = Box<Result<HTTPResponse, HTTPClient.Failure>?>(nil)
        HTTPClient.send(method: "POST", host: "127.0.0.1", port: 1, target: "/", on: group.next()) { r in refused.update { $0 = r } }
        #expect(waitUntil { refused.value != nil })
        if case .success = refused.value! { Issue.record("port 1 answered") }
    }
}
