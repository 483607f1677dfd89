import Testing
@testable import UnderstudyInbox

@Test func UnderstudyInboxBuilds() {}
