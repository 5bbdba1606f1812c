import Foundation

/// The order of models that tie on every sort descriptor, the same in every store and in Swift:
/// the order they were first saved (their primary keys), and the reverse of it when the last
/// descriptor is in reverse order (``QuerySort/keysDescend(after:)``). Models not saved yet come
/// after every saved one, in the order they were inserted, as they will once saved (a save
/// gives its new rows keys in that order).
enum TieOrder {
    /// The direction of ties after `descriptors`: the last descriptor's, forward when there is
    /// none.
    static func order<Model>(after descriptors: [SortDescriptor<Model>]) -> SortOrder {
        descriptors.last?.order == .reverse ? .reverse : .forward
    }

    /// Whether saved model `lhs` comes before saved model `rhs` when they tie, ties in `order`.
    static func precedes(_ lhs: any PersistentModel, _ rhs: any PersistentModel, in order: SortOrder) -> Bool {
        let (left, right) = (lhs._osdState.primaryKey, rhs._osdState.primaryKey)
        return order == .reverse ? right < left : left < right
    }

    /// Where a model stands among tied ones, in forward order: saved ones (group 0) by key, then
    /// unsaved ones (group 1) by `position`, their place in a list that holds them in the order
    /// they were inserted.
    static func rank(_ model: any PersistentModel, position: Int) -> (group: Int, number: Int64) {
        let key = model._osdState.primaryKey
        return key != 0 ? (0, key) : (1, Int64(position))
    }
}

extension Array where Element: PersistentModel {
    /// Sorts models by `descriptors` as a store does, ties in ``TieOrder``; unsaved models must
    /// be in the order they were inserted.
    mutating func sortAsStored(by descriptors: [SortDescriptor<Element>]) {
        let descending = TieOrder.order(after: descriptors) == .reverse
        var ranked = enumerated().map { position, model in (model: model, tie: TieOrder.rank(model, position: position)) }
        ranked.sort { lhs, rhs in
            for descriptor in descriptors {
                switch descriptor.compare(lhs.model, rhs.model) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return descending ? rhs.tie < lhs.tie : lhs.tie < rhs.tie
        }
        self = ranked.map(\.model)
    }
}
