import Foundation
import UnderstudyJSON
@testable import UnderstudyJOSE

/// Reads a standard's test vector kept as a file under Vectors/.
enum Vectors {
    static func load(_ name: String) throws -> JSONValue {
        guard let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Vectors") else {
            throw VectorError.missing(name)
        }
        return try JSONValue.parse(Array(try Data(contentsOf: url)))
    }

    static func object(_ name: String) throws -> JSONObject {
        guard let object = try load(name).objectValue else { throw VectorError.missing(name) }
        return object
    }

    enum VectorError: Error { case missing(String) }
}

extension JSONObject {
    func string(_ key: String) -> String { self[key]?.stringValue ?? "" }
    func object(_ key: String) -> JSONObject { self[key]?.objectValue ?? [:] }
}
