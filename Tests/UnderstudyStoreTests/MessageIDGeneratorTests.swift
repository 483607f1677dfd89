import Testing
@testable import UnderstudyStore

@Suite struct MessageIDGeneratorTests {
    @Test func idsAreTimeOrderedAndStrictlyIncreasing() {
        var generator = MessageIDGenerator(after: nil)
        var previous = ""
        for time: Int64 in [1_000, 1_000, 1_000, 999, 2_000, 2_000] {
            let id = generator.next(nowMilliseconds: time)
            #expect(id.count == 26)
            #expect(id > previous)
            #expect(MessageIDGenerator.isValid(id))
            previous = id
        }
        #expect(MessageIDGenerator.timestamp(of: generator.next(nowMilliseconds: 1_733_000_000_123)) == 1_733_000_000_123)
    }

    @Test func randomPartsDifferBetweenGeneratorsAndFollowSplitMix64() {
        var a = MessageIDGenerator(after: nil)
        var b = MessageIDGenerator(after: nil)
        #expect(a.next(nowMilliseconds: 5_000) != b.next(nowMilliseconds: 5_000))
        // The reference sequence for seed 0.
        var mix = SplitMix64(seed: 0)
        #expect([mix.next(), mix.next(), mix.next()] == [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
    }

    @Test func knownULIDTimestampDecodes() {
        // The ULID specification's example id; 01ARZ3NDEK is 1469922850259 ms.
        #expect(MessageIDGenerator.timestamp(of: "01ARZ3NDEKTSV4RRFFQ69G5FAV") == 1_469_922_850_259)
        #expect(MessageIDGenerator.normalize("01arz3ndektsv4rrffq69g5fav") == "01ARZ3NDEKTSV4RRFFQ69G5FAV")
    }

    @Test func seededGeneratorContinuesAfterTheStoredID() {
        var generator = MessageIDGenerator(after: "7ZZZZZZZZZZZZZZZZZZZZZZZZY")
        let next = generator.next(nowMilliseconds: 0)
        #expect(next == "7ZZZZZZZZZZZZZZZZZZZZZZZZZ")
    }
}

@Suite struct StringListCodingTests {
    @Test(arguments: [[], [""], ["a@example.com", "B <b@example.com>"], ["quote\" back\\ nl\n tab\t ctl\u{1} é 验 😀"]])
    func roundTrips(_ list: [String]) throws {
        #expect(try StringListCoding.decode(StringListCoding.encode(list)) == list)
    }

    @Test func readsEscapesOtherWritersUse() throws {
        #expect(try StringListCoding.decode(#" [ "\u00e9\ud83d\ude00\/" ] "#) == ["é😀/"])
        #expect(throws: DatabaseError.self) { try StringListCoding.decode("[\"a\"") }
        #expect(throws: DatabaseError.self) { try StringListCoding.decode("[1]") }
    }
}
