import Testing
@testable import UnderstudySMTP

@Test func UnderstudySMTPBuilds() {}
