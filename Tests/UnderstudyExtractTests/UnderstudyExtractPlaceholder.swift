import Testing
@testable import UnderstudyExtract

@Test func UnderstudyExtractBuilds() {}
