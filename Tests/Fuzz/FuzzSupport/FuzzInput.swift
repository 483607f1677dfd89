/// One fuzzer input and the choices a harness derives from it.
///
/// The choices (where to split the input, which limits to use) come from an FNV-1a hash of the
/// bytes rather than from a prefix, so seeds stay plain protocol bytes (a fixture, an SMTP
/// dialogue) and are read as such; every mutation then also tries another split. The hash is a
/// function of the input alone, so a crash reproduces from the file.
public struct FuzzInput {
    public let bytes: [UInt8]
    private let hash: UInt64

    public init(_ data: UnsafePointer<UInt8>, _ size: Int) {
        self.init(Array(UnsafeBufferPointer(start: data, count: size)))
    }

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        self.hash = hash
    }

    /// A position in `0...bytes.count`: the input is fed as `bytes[..<splitPoint]`, then the rest.
    public var splitPoint: Int {
        Int((hash >> 16) % UInt64(bytes.count + 1))
    }

    /// The two pieces of the input cut at `splitPoint`.
    public var halves: [ArraySlice<UInt8>] {
        [bytes[..<splitPoint], bytes[splitPoint...]]
    }

    /// The input one byte per piece.
    public var bytewise: [ArraySlice<UInt8>] {
        bytes.indices.map { bytes[$0...$0] }
    }

    /// Bit `index` (0-15) of the hash: selects a variant of the configuration.
    public func flag(_ index: Int) -> Bool {
        (hash >> UInt64(index & 15)) & 1 == 1
    }
}
