import Testing
@testable import UnderstudyJSON

@Test func UnderstudyJSONBuilds() {}
