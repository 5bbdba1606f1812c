extension ModelContainer {
    /// Returns the identifier of the store of the configuration with the given name.
    ///
    /// A store's identifier is not its configuration's name: it is the identifier the store keeps
    /// (an SQLite file records one when it is created), found in the ``PersistentIdentifier``s of
    /// its models and in its history tokens. Use this method to filter history or route
    /// identifiers when you know the configuration's name.
    ///
    /// - Parameter name: The `name` of the configuration the store was opened with.
    /// - Returns: The store's identifier, or `nil` if no configuration of the container has that name.
    public func storeIdentifier(forConfigurationNamed name: String) -> String? {
        stores.first { $0.configuration.name == name }?.store.identifier
    }

    /// Returns the name of the configuration whose store has the given identifier.
    ///
    /// - Parameter identifier: A store identifier, from a ``PersistentIdentifier/storeIdentifier``
    ///   or a history token's ``HistoryToken/storeIdentifier``.
    /// - Returns: The `name` of the configuration, or `nil` if no store of the container has that
    ///   identifier.
    public func configurationName(forStoreIdentifier identifier: String) -> String? {
        stores.first { $0.store.identifier == identifier }?.configuration.name
    }
}
