import Testing
@testable import UnderstudyHTTPServer

@Test func UnderstudyHTTPServerBuilds() {}
