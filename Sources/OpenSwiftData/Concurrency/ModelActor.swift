/// An interface for providing mutually-exclusive access to the attributes of a conforming model.
///
/// Apply the ``ModelActor()`` macro to an actor to conform it. The actor's code runs on a
/// ``DefaultSerialModelExecutor`` that owns the actor's ``modelContext``:
///
/// ```swift
/// @ModelActor
/// actor Importer {
///     func importTrips(_ rows: [TripRow]) throws {
///         for row in rows { modelContext.insert(Trip(row)) }
///         try modelContext.save()
///     }
/// }
///
/// let importer = Importer(modelContainer: container)
/// try await importer.importTrips(rows)
/// ```
public protocol ModelActor: Actor {
    /// The container that manages the app's schema and model storage configuration.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor that coordinates access to the model actor.
    ///
    /// Don't use the executor to access the model context; use ``modelContext`` instead.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The optimized, unowned reference to the model actor's executor.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        guard let executor = modelExecutor as? any SerialExecutor else {
            preconditionFailure("OpenSwiftData: the modelExecutor of \(Self.self) must be a SerialModelExecutor")
        }
        return executor.asUnownedSerialExecutor()
    }

    /// The context that serializes any code running on the model actor.
    public var modelContext: ModelContext {
        modelExecutor.modelContext
    }

    /// Returns the model for the specified identifier, downcast to the appropriate class, or `nil`
    /// if there is no such model. When the store cannot be read, it returns `nil` too, and the
    /// context's next fetch or save throws the error.
    public subscript<T>(id: PersistentIdentifier, as as: T.Type) -> T? where T: PersistentModel {
        modelContext.existingModel(for: id)
    }
}
