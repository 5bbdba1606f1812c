import Foundation
import OpenSwiftData

/// `osd import --from-apple`: the rows of a store Apple's Core Data or SwiftData wrote, into an
/// OpenSwiftData store (a file or a PostgreSQL namespace, made by the app or by the import), in one transaction.
package enum AppleImport {
    /// Imports the Apple store at `appleStore` into the store `store` names, or, when nothing is
    /// there yet, into a new store made for the Apple store's model (the one the classes
    /// `osd generate models --from-apple` writes open as their own), removed again when the import
    /// fails. Returns the rows imported per model, or `nil` when that Apple store was imported
    /// into the store before.
    /// Transformable attributes named in `archivedAsJSON` (`Model.property`) are read as keyed
    /// archives and imported as JSON (``AppleValueConversion/keyedArchive``).
    package static func run(
        appleStore: String, storeAt store: String, name: String, ignoring: Set<String>, archivedAsJSON: Set<String> = []
    ) throws -> [(model: String, rows: Int)]? {
        let conversions = Dictionary(uniqueKeysWithValues: archivedAsJSON.map { ($0, AppleValueConversion.keyedArchive) })
        if try StoreArgument.isVacant(store, name: name) {
            return try AppleStoreImport.run(appleStoreAt: appleStore, ignoring: ignoring, conversions: conversions) { schema, body in
                try StoreArgument.creatingStore(at: store, name: name, schema: schema, body)
            }?.rows
        }
        let target = try StoreArgument.open(store, name: name, access: .writing)
        return try AppleStoreImport.run(appleStoreAt: appleStore, into: target, ignoring: ignoring, conversions: conversions)?.rows
    }
}
