import Testing
@testable import UnderstudyIO

@Test func UnderstudyIOBuilds() {}
