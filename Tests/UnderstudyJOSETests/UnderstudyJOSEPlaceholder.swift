import Testing
@testable import UnderstudyJOSE

@Test func UnderstudyJOSEBuilds() {}
