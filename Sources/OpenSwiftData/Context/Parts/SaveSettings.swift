import Foundation

/// How a context's saves are recorded and announced: the author and editing state stores and
/// history see, whether the history records them at all, and the `didSave` notification's
/// `userInfo`.
struct SaveSettings {
    /// The author the history records for the context's saves.
    var author: String?
    /// The identifier of the context's editing state, made on first use.
    var madeEditingStateID: UUID?
    /// Whether the saves are recorded in the store's history (a migration's are not).
    var recordsHistory = true
    /// Whether deletions by predicate of models with delete rules may run in the store (tests turn
    /// it off to compare with loading the models).
    var deleteRulesMayRunInStore = true
    /// Whether deletions apply the models' delete rules (`.cascade`, `.deny`); without, a deleted
    /// model's relationships are only emptied, as `.nullify` does. A replicator applying deletions
    /// made elsewhere turns them off: the deletions it applies already hold every model the
    /// rules reached where they were made.
    var appliesDeleteRules = true
    /// Records of an add-on the next save writes in its transaction (``ModelContext/save(writingCompanionRecords:)``).
    var companionRecords: (() throws -> [CompanionRecord])?
    /// The `userInfo` of the context's `didSave` notifications, reused from save to save.
    var didSaveUserInfo = DidSaveUserInfo()
}
