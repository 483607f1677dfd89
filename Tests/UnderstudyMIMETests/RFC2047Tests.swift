import Testing
@testable import UnderstudyMIME

@Suite struct RFC2047Tests {
    @Test func section8Table() throws {
        let blocks = try Fixture.blocks("rfc2047-section8.txt")
        #expect(blocks.count == 8)
        for block in blocks {
            let input = block.dropLast().joined(separator: "\r\n")
            #expect(RFC2047.decode(input) == block.last!, "input: \(input)")
        }
    }

    @Test func section8MessageA() throws {
        let m = MIMEMessage(parsing: try Fixture.bytes("rfc2047-section8-a.eml"))
        #expect(m.from == [MIMEAddress(name: "Keith Moore", address: "moore@cs.utk.edu")])
        #expect(m.to == [MIMEAddress(name: "Keld Jørn Simonsen", address: "keld@dkuug.dk")])
        #expect(m.cc == [MIMEAddress(name: "André Pirard", address: "PIRARD@vm1.ulg.ac.be")])
        #expect(m.subject == "If you can read this you understand the example.")
    }

    @Test func section8MessagesBToD() throws {
        let b = MIMEMessage(parsing: try Fixture.bytes("rfc2047-section8-b.eml"))
        #expect(b.from == [MIMEAddress(name: "Olle Järnefors", address: "ojarnef@admin.kth.se")])
        #expect(b.to.map(\.address) == ["ietf-822@dimacs.rutgers.edu", "ojarnef@admin.kth.se"])
        #expect(b.subject == "Time for ISO 10646?")

        let c = MIMEMessage(parsing: try Fixture.bytes("rfc2047-section8-c.eml"))
        #expect(c.from == [MIMEAddress(name: "Patrik Fältström", address: "paf@nada.kth.se")])
        #expect(c.to == [MIMEAddress(name: "Dave Crocker", address: "dcrocker@mordor.stanford.edu")])
        #expect(c.cc.count == 2)

        let d = MIMEMessage(parsing: try Fixture.bytes("rfc2047-section8-d.eml"))
        #expect(d.from == [MIMEAddress(name: "Nathaniel Borenstein", address: "nsb@thumper.bellcore.com")])
        #expect(d.headers["from"]?.contains("םולש ןב ילטפנ") == true)
        #expect(d.to == [
            MIMEAddress(name: "Greg Vaudreuil", address: "gvaudre@NRI.Reston.VA.US"),
            MIMEAddress(name: "Ned Freed", address: "ned@innosoft.com"),
            MIMEAddress(name: "Keith Moore", address: "moore@cs.utk.edu"),
        ])
    }

    @Test func multibyteCharacterSplitAcrossWords() {
        // "€" is E2 82 AC in UTF-8: split after the first byte, in B and Q words.
        #expect(RFC2047.decode("=?UTF-8?B?4g==?= =?UTF-8?B?gqw=?=") == "€")
        #expect(RFC2047.decode("=?utf-8?q?=E2=82?=\r\n =?UTF-8?Q?=AC_ok?=") == "€ ok")
        #expect(RFC2047.decode("=?utf-8?b?4oI=?= =?utf-8?q?=AC?=") == "€")
    }

    @Test(arguments: [
        ("=?utf-8?Q?broken", "=?utf-8?Q?broken"),
        ("=?utf-8?X?abc?=", "=?utf-8?X?abc?="),
        ("=??Q?abc?=", "=??Q?abc?="),
        ("=?utf-8?Q?a b?=", "=?utf-8?Q?a b?="),
        ("plain =? text ?=", "plain =? text ?="),
        ("=?no-such-charset?Q?caf=E9?=", "café"),
        ("before=?utf-8?Q?X?=after", "beforeXafter"),
        ("a =?utf-8?Q?X?= b", "a X b"),
        ("=?utf-8?B?!!!?=", ""),
    ])
    func malformedWordsStayReadable(input: String, expected: String) {
        #expect(RFC2047.decode(input) == expected)
    }

    @Test func hostileHeaderStaysLinear() {
        let hostile = String(repeating: "=?utf-8?q?aaaa", count: 50_000)
        #expect(RFC2047.decode(hostile) == hostile)
        let many = String(repeating: "=?utf-8?B?YQ==?= ", count: 20_000)
        #expect(RFC2047.decode(many) == String(repeating: "a", count: 20_000) + " ")
    }
}
