import Testing
@testable import UnderstudyMIME

@Test func UnderstudyMIMEBuilds() {}
