import Foundation
import Testing

/// The layers of docs/ARCHITECTURE.md, checked on the source tree: a layer that names what is below
/// its seam fails here, so the picture and the code cannot drift apart.
@Suite struct LayerTests {
    /// The package's root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The Swift files under `folder` (relative to the root), with their code: comments removed.
    static func sources(in folder: String) throws -> [(path: String, code: String)] {
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        var files: [(String, String)] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            let code = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
                let trimmed = line.drop { $0 == " " }
                if trimmed.hasPrefix("//") { return "" }
                if let comment = line.range(of: " // ") { return line[..<comment.lowerBound] }
                return line
            }.joined(separator: "\n")
            files.append((String(url.path.dropFirst(root.path.count + 1)), code))
        }
        return files
    }

    /// The files under `folder`, outside the folders in `except`, whose code matches `pattern`.
    static func offenders(in folder: String, except: [String] = [], matching pattern: String) throws -> [String] {
        let expression = try NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
        return try sources(in: folder).filter { file in
            !except.contains { file.path.hasPrefix($0) }
                && expression.firstMatch(in: file.code, range: NSRange(file.code.startIndex..., in: file.code)) != nil
        }.map(\.path).sorted()
    }

    @Test func theSQLiteLibraryIsCalledOnlyFromTheSQLiteStore() throws {
        #expect(try Self.offenders(in: "Sources/OpenSwiftData", except: ["Sources/OpenSwiftData/Store/SQLite/"], matching: #"\bsqlite3_|^import CSQLite"#) == [])
        #expect(try Self.offenders(in: "Sources/OpenSwiftDataPostgres", matching: #"\bsqlite3_|^import CSQLite"#) == [])
    }

    @Test func nothingAboveTheSeamNamesTheSQLiteStoresTypes() throws {
        let sqliteTypes = #"\b(SQLiteStore|SQLiteConnection|SQLiteStatement|SQLiteError|SQLCompiler|MigrationJournal|StoreFileInspection|SQLitePlanMigration)\b"#
        #expect(try Self.offenders(in: "Sources/OpenSwiftData", except: ["Sources/OpenSwiftData/Store/SQLite/"], matching: sqliteTypes) == [])
        #expect(try Self.offenders(in: "Sources/OpenSwiftDataPostgres", matching: sqliteTypes) == [])
    }

    @Test func onlyTheStoresWriteSQL() throws {
        let sql = #""[^"\n]*\b(SELECT [^"\n]* FROM|INSERT INTO|DELETE FROM|UPDATE [a-z_"]+ SET|CREATE TABLE|ALTER TABLE)\b"#
        for layer in ["Model", "Schema", "Query", "Context", "History", "Migration", "LiveQueries", "Concurrency", "Support", "Store/Records", "Store/DataStore", "Store/Adapter"] {
            #expect(try Self.offenders(in: "Sources/OpenSwiftData/\(layer)", matching: sql) == [], "\(layer)")
        }
        #expect(try Self.offenders(in: "Sources/OpenSwiftDataToolbox", matching: sql) == [])
    }

    @Test func theToolsWriteNoSQLAndOpenStoresInOnePlace() throws {
        let sql = #"\b(SELECT|INSERT|UPDATE|DELETE FROM|PRAGMA)\b|_pk\b"#
        #expect(try Self.offenders(in: "Sources/OSDKit", matching: sql) == [])
        #expect(try Self.offenders(in: "Sources/osd", matching: sql) == [])
        // The registration line of the kinds of store the tools open is the only place that names them.
        let storeTypes = #"\b(StoreFile|PostgresStoreAccess|SQLiteStore|PostgresBackend)\b|^import OpenSwiftDataPostgres$"#
        #expect(try Self.offenders(in: "Sources/OSDKit", except: ["Sources/OSDKit/Store/StoreArgument.swift"], matching: storeTypes) == [])
    }

    @Test func theToolboxDependsOnNoStore() throws {
        #expect(try Self.offenders(in: "Sources/OpenSwiftDataToolbox", matching: #"^import (OpenSwiftData|OpenSwiftDataPostgres|CSQLite|PostgresNIO)$"#) == [])
    }

    @Test func theStoreNeutralFolderNamesNoStore() throws {
        #expect(try Self.offenders(in: "Sources/OpenSwiftData/Store/Records", matching: #"\b(SQLite\w*|Postgres\w*)\b"#) == [])
    }
}
