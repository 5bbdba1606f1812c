/// Errors found where SwiftData's API cannot throw (a property getter, `insert`, a merge, a model
/// actor's subscript), kept for the next call that can: the next fetch or save throws them.
struct DeferredFailures {
    /// The error of a store read made where the API cannot throw.
    var readFailure: (any Error)?
    /// The error the next save throws because a relationship was given a model of another context.
    var crossContextRelationship: (any Error)?
    /// The error the next save throws because `insert` was given a model it cannot take (one of
    /// another context, or of a class the container's schema lacks).
    var refusedInsert: (any Error)?

    /// Keeps the first error of a read made where the API cannot throw.
    mutating func deferRead(_ error: any Error) {
        if readFailure == nil { readFailure = error }
    }

    /// Keeps the first model `insert` did not take.
    mutating func refuseInsert(_ error: any Error) {
        if refusedInsert == nil { refusedInsert = error }
    }
}
