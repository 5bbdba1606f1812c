import Foundation
import Testing

/// The layers of docs/ARCHITECTURE.md, checked on the source tree: a layer that names what is below
/// its seam fails here, so the picture and the code cannot drift apart.
@Suite struct LayerTests {
    /// The package's root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The Swift files under `folder` (relative to the root; or the one file it names), with their
    /// code: comments removed. A place that does not exist is an error, so that a moved folder
    /// cannot make a rule pass by checking nothing.
    static func sources(in folder: String) throws -> [(path: String, code: String)] {
        let base = root.appendingPathComponent(folder)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: base.path, isDirectory: &isFolder) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: base.path])
        }
        let urls: [URL]
        if isFolder.boolValue {
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
            urls = walker.compactMap { $0 as? URL }
        } else {
            urls = [base]
        }
        var files: [(String, String)] = []
        for url in urls where url.pathExtension == "swift" {
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
        for layer in ["Model", "Schema", "Query", "Context", "History", "Migration", "LiveQueries", "Concurrency", "Support", "Store/Records", "Store/Tooling", "Store/DataStore", "Store/Adapter"] {
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

    @Test func theStoreNeutralFoldersNameNoStore() throws {
        for folder in ["Store/Records", "Store/Tooling", "Context/Parts"] {
            #expect(try Self.offenders(in: "Sources/OpenSwiftData/\(folder)", matching: #"\b(SQLite\w*|Postgres\w*|StoreFile)\b"#) == [], "\(folder)")
        }
        // The core seam and its capabilities name no store either.
        for file in ["Store/StoreBackend.swift", "Store/StoreCapabilities.swift"] {
            #expect(try Self.offenders(in: "Sources/OpenSwiftData/\(file)", matching: #"\b(SQLite\w*|Postgres\w*)\b"#) == [], "\(file)")
        }
    }
}
