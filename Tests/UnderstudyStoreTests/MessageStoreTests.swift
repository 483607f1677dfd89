import Testing
@testable import UnderstudyStore
