import Testing
@testable import UnderstudySMTPServer

@Test func UnderstudySMTPServerBuilds() {}
