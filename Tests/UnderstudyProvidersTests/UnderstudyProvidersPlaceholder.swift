import Testing
@testable import UnderstudyProviders

@Test func UnderstudyProvidersBuilds() {}
