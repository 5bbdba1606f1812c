import Foundation
import Testing
@testable import OpenSwiftData

/// Generated row coders through row types other than SQLite's: what a second store relies on.
@Suite struct RowCodingSeamTests {
    /// A row of stored values, as a store that is not SQLite could hand one over.
    final class ValueRow: _RowReader, _RowWriter {
        var values: [StoredValue]
        init(count: Int) { values = Array(repeating: .null, count: count) }

        func _isNull(_ column: Int32) -> Bool { values[Int(column)] == .null }
        func _int64(_ column: Int32) -> Int64 {
            if case .integer(let value) = values[Int(column)] { return value }
            return 0
        }
        func _double(_ column: Int32) -> Double {
            switch values[Int(column)] {
            case .real(let value): return value
            case .blob(let bytes) where bytes.count == 8:
                return Double(bitPattern: bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) })
            default: return 0
            }
        }
        func _string(_ column: Int32) -> String {
            if case .text(let value) = values[Int(column)] { return value }
            return ""
        }
        func _withBytes<R>(_ column: Int32, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            if case .blob(let bytes) = values[Int(column)] { return try bytes.withUnsafeBytes(body) }
            return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
        var _context: (model: String, property: String)? { nil }

        func _bindNull(_ column: Int32) { values[Int(column)] = .null }
        func _bind(_ value: Int64, _ column: Int32) { values[Int(column)] = .integer(value) }
        func _bind(_ value: Double, _ column: Int32) { values[Int(column)] = .real(value) }
        func _bind(_ value: String, _ column: Int32) { values[Int(column)] = .text(value) }
        func _bind(bytes: UnsafeRawBufferPointer, _ column: Int32) { values[Int(column)] = .blob(Array(bytes)) }
    }

    /// Every attribute type round-trips through a row that is not an SQLite statement.
    @Test func attributesRoundTripThroughAnotherRowType() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.container(Item.self))
        let item = Item(name: "naïve ☕", note: "x", count: -7, optionalCount: nil, score: .nan, optionalScore: -0.0, flag: true,
                        date: Date(timeIntervalSinceReferenceDate: 12.5), price: Decimal(string: "12.34")!, big: .max, code: UUID(), mood: .calm)
        let row = ValueRow(count: Item.schemaMetadata.count)
        let links = _DeferredLinks()
        try item._osdEncodeAll(to: row, startingAt: 0, deferring: links)
        #expect(links.isEmpty)

        let copy = Item._osdMake()
        try copy._osdDecodeAll(from: row, startingAt: 0, resolving: context)
        #expect(copy.name == item.name && copy.note == item.note && copy.count == item.count)
        #expect(copy.optionalCount == nil && copy.score.isNaN && copy.optionalScore?.sign == .minus)
        #expect(copy.flag && copy.date == item.date && copy.price == item.price && copy.big == item.big)
        #expect(copy.code == item.code && copy.mood == item.mood)
    }

    /// A to-one relationship decodes through the context passed in, and one to a model without a
    /// key yet is deferred in the links passed in, not on the row.
    @Test func relationshipsUseTheContextsPassedIn() throws {
        let store = TemporaryStore()
        let context = ModelContext(try store.graphContainer())
        let journey = Journey(name: "Saved")
        context.insert(journey)
        try context.save()

        let outing = Outing(title: "Walk", journey: journey)
        let row = ValueRow(count: Outing.schemaMetadata.count)
        let links = _DeferredLinks()
        try outing._osdEncodeAll(to: row, startingAt: 0, deferring: links)
        #expect(links.isEmpty, "the saved journey has its key")
        let copy = Outing._osdMake()
        try copy._osdDecodeAll(from: row, startingAt: 0, resolving: context)
        #expect(copy.journey === journey, "the context's own instance for the key")

        let unsaved = Outing(title: "Swim", journey: Journey(name: "New"))
        let second = ValueRow(count: Outing.schemaMetadata.count)
        try unsaved._osdEncodeAll(to: second, startingAt: 0, deferring: links)
        #expect(links.take().map(\.target).first === unsaved.journey)
    }
}
