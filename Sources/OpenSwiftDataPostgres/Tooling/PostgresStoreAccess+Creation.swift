import Foundation
import OpenSwiftData
import PostgresNIO

/// A PostgreSQL store the tools create from a schema record alone, with no model classes: the
/// namespace the app's models (those `osd generate models` writes for that record) open as their
/// own.
extension PostgresStoreAccess {
    package static func isVacant(_ location: String, name: String) throws -> Bool {
        let place = try configuration(location, name: name)
        let session = try PostgresSession(place)
        defer { session.close() }
        return try !namespaceExists(place, on: session)
    }

    package static func creatingStore<R>(at location: String, name: String, schema: StoredSchema, _ body: (any StoreTooling) throws -> R) throws -> R {
        let place = try configuration(location, name: name)
        try create(at: place, schema: schema)
        do {
            return try body(try PostgresStoreAccess(location: place, writable: true))
        } catch {
            // The namespace is this call's own and holds nothing that was kept: remove it whole.
            do {
                let session = try PostgresSession(place)
                defer { session.close() }
                try session.execute("DROP SCHEMA \(PostgresSQL.quote(place.namespace)) CASCADE")
            } catch let removal {
                throw SwiftDataError(.storeFailure, reason: "\(error) Removing the store created for it at \(place.displayName) failed too (\(removal)); drop the PostgreSQL schema \(place.namespace) before trying again.")
            }
            throw error
        }
    }

    /// Creates the namespace at `location`: its tables from `schema`, and its records, in one
    /// transaction under the lock a store's opening takes, so that it is never made twice.
    private static func create(at location: PostgresLocation, schema: StoredSchema) throws {
        let session = try PostgresSession(location)
        defer { session.close() }
        try session.begin()
        do {
            try session.execute("SELECT pg_advisory_xact_lock(hashtext(\(PostgresSQL.literal("osd-open:" + location.namespace))))")
            guard try !namespaceExists(location, on: session) else {
                throw SwiftDataError(.storeIsReadOnly, reason: "A store cannot be created at \(location.displayName): the PostgreSQL schema \(location.namespace) already exists; a new store is created only where there is nothing. Nothing was changed.")
            }
            let namespace = PostgresSQL.quote(location.namespace)
            let tables = schema.entities.map { PostgresTableDDL(TableDefinition($0, in: schema), namespace: namespace) }
            try PostgresBackend.create(session, tables: tables, schema: schema, identifier: UUID().uuidString, historyFields: nil, namespace: namespace)
            try session.commit()
        } catch {
            session.rollback()
            throw error
        }
    }

    /// The configuration `name` of the server at `location`.
    private static func configuration(_ location: String, name: String) throws -> PostgresLocation {
        guard let url = URL(string: location) else {
            throw SwiftDataError(.invalidStoreURL, reason: "\(location) is not a URL.")
        }
        return try PostgresLocation(PostgresStoreConfiguration(name: name, url: url, allowsSave: true, maximumReadConnections: 0))
    }

    /// Whether the database has the configuration's PostgreSQL schema.
    private static func namespaceExists(_ location: PostgresLocation, on session: PostgresSession) throws -> Bool {
        var bindings = PostgresBindings()
        bindings.append(location.namespace)
        return try !session.query("SELECT 1::int8 FROM pg_namespace WHERE nspname = $1", bindings).isEmpty
    }
}
