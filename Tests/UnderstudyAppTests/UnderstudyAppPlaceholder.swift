import Testing
@testable import UnderstudyApp

@Test func UnderstudyAppBuilds() {}
