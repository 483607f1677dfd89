import Testing
@testable import UnderstudyHTTP

@Test func UnderstudyHTTPBuilds() {}
