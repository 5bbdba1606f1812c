/// A type that describes the configuration of an app's schema or a specific group of models.
///
/// By default the store is an SQLite file named `default.store` in the user's application-support
/// folder (on Linux, `~/.local/share`). Pass `url:` to choose the file, or `isStoredInMemoryOnly:`
/// for a store that disappears with its container.
public struct ModelConfiguration: Identifiable, Hashable, Sendable {
    /// The name of the configuration; also the default file's name.
    public let name: String
    /// The models the configuration stores, or `nil` for all of the container's models.
    public var schema: Schema?
    /// The location of the store file.
    public let url: URL
    /// Whether the store lives in memory only.
    public let isStoredInMemoryOnly: Bool
    /// Whether contexts may save to the store. A read-only store needs `false`.
    public let allowsSave: Bool
    /// The app group container (Apple platforms; accepted for source compatibility).
    public let groupContainer: GroupContainer
    /// The CloudKit database (Apple platforms; accepted for source compatibility, never used).
    public let cloudKitDatabase: CloudKitDatabase
    /// Whether opening the store may run a lightweight migration that deletes stored data: the
    /// rows of a model, or the values of a property or relationship, that the models no longer
    /// declare. `true` by default, as in SwiftData.
    ///
    /// Set it to `false` so that such an open throws ``SwiftDataError/destructiveMigration``
    /// naming each model, property and relationship that still holds data, with nothing changed;
    /// remove them in a ``SchemaMigrationPlan`` stage instead, whose changes are always made. A
    /// migration that deletes only empty columns and tables runs either way. (An OpenSwiftData
    /// addition; the PostgreSQL store's configuration has the same option, off by default.)
    public var allowsDestructiveMigration = true
    /// Whether the store file is named after the configuration (no `url:` was given).
    private(set) var fileIsNamedAfterConfiguration = false

    /// The configuration's identity: its name.
    public var id: String { name }

    /// Creates a configuration for a store in the default location, or in memory.
    public init(
        _ name: String? = nil,
        schema: Schema? = nil,
        isStoredInMemoryOnly: Bool = false,
        allowsSave: Bool = true,
        groupContainer: GroupContainer = .automatic,
        cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        let name = name ?? "default"
        self.init(name: name, schema: schema, url: ModelConfiguration.defaultURL(name: name),
                  isStoredInMemoryOnly: isStoredInMemoryOnly, allowsSave: allowsSave,
                  groupContainer: groupContainer, cloudKitDatabase: cloudKitDatabase)
        fileIsNamedAfterConfiguration = !isStoredInMemoryOnly
    }

    /// Creates a configuration for a store file at a URL.
    public init(
        _ name: String? = nil,
        schema: Schema? = nil,
        url: URL,
        allowsSave: Bool = true,
        cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        self.init(name: name ?? url.deletingPathExtension().lastPathComponent, schema: schema, url: url,
                  isStoredInMemoryOnly: false, allowsSave: allowsSave, groupContainer: .automatic,
                  cloudKitDatabase: cloudKitDatabase)
    }

    /// Creates a configuration for the given model classes.
    @_disfavoredOverload
    public init(for forTypes: any PersistentModel.Type..., isStoredInMemoryOnly: Bool = false) {
        self.init(schema: Schema(forTypes), isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    private init(name: String, schema: Schema?, url: URL, isStoredInMemoryOnly: Bool, allowsSave: Bool,
                 groupContainer: GroupContainer, cloudKitDatabase: CloudKitDatabase) {
        self.name = name
        self.schema = schema
        self.url = url
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.groupContainer = groupContainer
        self.cloudKitDatabase = cloudKitDatabase
    }

    private static func defaultURL(name: String) -> URL {
        let folder = (try? FileManager.default.url(for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: false))
            ?? FileManager.default.temporaryDirectory
        return folder.appendingPathComponent("\(name).store")
    }

    /// Configurations are equal when their names, locations and options match.
    public static func == (lhs: ModelConfiguration, rhs: ModelConfiguration) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.isStoredInMemoryOnly == rhs.isStoredInMemoryOnly
            && lhs.allowsSave == rhs.allowsSave && lhs.allowsDestructiveMigration == rhs.allowsDestructiveMigration
    }

    /// Hashes the configuration's name and location.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
    }
}

extension ModelConfiguration {
    /// An app group container (Apple platforms). Accepted for source compatibility.
    public struct GroupContainer: Hashable, Sendable {
        let identifier: String?
        /// The app's default group container.
        public static let automatic = GroupContainer(identifier: nil)
        /// No group container.
        public static let none = GroupContainer(identifier: nil)
        /// A named group container.
        public static func identifier(_ groupName: String) -> GroupContainer { GroupContainer(identifier: groupName) }
    }

    /// A CloudKit database (Apple platforms). Accepted for source compatibility; OpenSwiftData never syncs through CloudKit.
    public struct CloudKitDatabase: Hashable, Sendable {
        let identifier: String?
        /// The app's default CloudKit container.
        public static let automatic = CloudKitDatabase(identifier: nil)
        /// No CloudKit database.
        public static let none = CloudKitDatabase(identifier: nil)
        /// A private CloudKit database.
        public static func `private`(_ dbName: String) -> CloudKitDatabase { CloudKitDatabase(identifier: dbName) }
    }

    /// The identifier of the configuration's app group container, when it names one
    /// (``GroupContainer/identifier(_:)``).
    public var groupAppContainerIdentifier: String? { groupContainer.identifier }

    /// The identifier of the configuration's CloudKit container, when it names one
    /// (``CloudKitDatabase/private(_:)``). OpenSwiftData never syncs through CloudKit.
    public var cloudKitContainerIdentifier: String? { cloudKitDatabase.identifier }
}
