import Foundation
import OpenSwiftData

/// `osd import --from-apple`: the rows of a store Apple's Core Data or SwiftData wrote, into an
/// OpenSwiftData store (a file the app created, or a PostgreSQL namespace), in one transaction.
package enum AppleImport {
    /// Imports the Apple store at `appleStore` into the store `store` names; returns the rows
    /// imported per model, or `nil` when that Apple store was imported into it before.
    /// Transformable attributes named in `archivedAsJSON` (`Model.property`) are read as keyed
    /// archives and imported as JSON (``AppleValueConversion/keyedArchive``).
    package static func run(
        appleStore: String, storeAt store: String, name: String, ignoring: Set<String>, archivedAsJSON: Set<String> = []
    ) throws -> [(model: String, rows: Int)]? {
        // A store is made by the app's models (its tables, keys and schema record are theirs).
        if !store.contains("://"), !FileManager.default.fileExists(atPath: store) {
            throw ToolError("There is no store at \(store). Create it by opening a ModelContainer with the app's models at that path (for classes matching the Apple store, `osd generate models --from-apple \(appleStore)`), then import into it. Nothing was written.")
        }
        let target = try StoreArgument.open(store, name: name, access: .writing)
        let conversions = Dictionary(uniqueKeysWithValues: archivedAsJSON.map { ($0, AppleValueConversion.keyedArchive) })
        return try AppleStoreImport.run(appleStoreAt: appleStore, into: target, ignoring: ignoring, conversions: conversions)?.rows
    }
}
