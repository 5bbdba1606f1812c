// SwiftData's clients use Foundation (`Date`, `#Predicate`, `SortDescriptor`) and Observation
// (`@Model` classes are observable) without importing them; so do ours.
@_exported import Foundation
@_exported import Observation
