import Testing
@testable import UnderstudyStore

@Test func UnderstudyStoreBuilds() {}
