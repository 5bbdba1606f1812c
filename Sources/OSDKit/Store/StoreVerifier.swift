import Foundation
import OpenSwiftData

/// `osd verify`: whether a store is sound. On a file: SQLite's integrity check, the tables
/// matching the schema the file records, and every relationship pointing at a row that exists. On
/// PostgreSQL: the tables and their column types matching the recorded schema, every relationship
/// pointing at a row that exists, and the key sequences and the history counter ahead of the keys
/// and history numbers in use (behind them, the next saves would collide).
package struct StoreVerifier {
    package var store: String
    package var name: String

    /// Verifies the store file at `store`, or the PostgreSQL store of the configuration `name`
    /// when `store` is a server's URL.
    package init(store: String, name: String = "default") {
        self.store = store
        self.name = name
    }

    /// The problems found (empty when the store is sound), and the store's name for messages
    /// (without a password).
    package func check() throws -> (store: String, problems: [String]) {
        let store = try StoreArgument.open(self.store, name: name)
        return (store.displayName, try store.reading { try store.verificationProblems() })
    }
}
