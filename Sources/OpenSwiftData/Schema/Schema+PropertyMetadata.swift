extension Schema {
    /// The description of one persisted property of a model class, as ``Model()`` generates it.
    public struct PropertyMetadata {
        /// The property's name.
        public var name: String
        /// The key path of the property on its model class.
        public var keypath: AnyKeyPath
        /// The property's default value, if it has one.
        public var defaultValue: Any?
        /// The property's schema description.
        public var metadata: (any SchemaProperty)?

        /// Creates the metadata of a property.
        public init(name: String, keypath: AnyKeyPath, defaultValue: Any?, metadata: (any SchemaProperty)?) {
            self.name = name
            self.keypath = keypath
            self.defaultValue = defaultValue
            self.metadata = metadata
        }

        /// The metadata of a natively stored property. Called by generated code.
        public static func _persisted<M: PersistentModel, V: _PersistentScalar>(
            name: String, keypath: ReferenceWritableKeyPath<M, V>, metadata: Attribute?
        ) -> PropertyMetadata {
            _persisted(name: name, keypath: keypath as KeyPath<M, V>, metadata: metadata)
        }

        /// The metadata of a JSON-stored `Codable` property. Called by generated code.
        public static func _persisted<M: PersistentModel, V: Codable>(
            name: String, keypath: ReferenceWritableKeyPath<M, V>, metadata: Attribute?
        ) -> PropertyMetadata {
            attribute(name, keypath, metadata, V.self, storage: .json)
        }

        /// The metadata of a `.transformable(by:)` property of a type that is not `Codable`, stored
        /// as the bytes its transformer makes. Called by generated code.
        public static func _persisted<M: PersistentModel, V>(
            name: String, keypath: ReferenceWritableKeyPath<M, V>, metadata: Attribute?
        ) -> PropertyMetadata {
            attribute(name, keypath, metadata, V.self, storage: .blob)
        }

        /// The metadata of a natively stored `let` property. Called by generated code.
        public static func _persisted<M: PersistentModel, V: _PersistentScalar>(
            name: String, keypath: KeyPath<M, V>, metadata: Attribute?
        ) -> PropertyMetadata {
            attribute(name, keypath, metadata, V.self, storage: V._osdStorage)
        }

        /// The metadata of a JSON-stored `Codable` `let` property. Called by generated code.
        public static func _persisted<M: PersistentModel, V: Codable>(
            name: String, keypath: KeyPath<M, V>, metadata: Attribute?
        ) -> PropertyMetadata {
            attribute(name, keypath, metadata, V.self, storage: .json)
        }

        /// The metadata of a `.transformable(by:)` `let` property of a type that is not
        /// `Codable`. Called by generated code.
        public static func _persisted<M: PersistentModel, V>(
            name: String, keypath: KeyPath<M, V>, metadata: Attribute?
        ) -> PropertyMetadata {
            attribute(name, keypath, metadata, V.self, storage: .blob)
        }

        /// The metadata of an optional to-one relationship. Called by generated code.
        public static func _persisted<M: PersistentModel, R: PersistentModel>(
            name: String, keypath: ReferenceWritableKeyPath<M, R?>, metadata: Relationship?
        ) -> PropertyMetadata {
            relationship(name, keypath, metadata, R?.self, R.self, toOne: true, optional: true)
        }

        /// The metadata of a non-optional to-one relationship. Called by generated code.
        public static func _persisted<M: PersistentModel, R: PersistentModel>(
            name: String, keypath: ReferenceWritableKeyPath<M, R>, metadata: Relationship?
        ) -> PropertyMetadata {
            relationship(name, keypath, metadata, R.self, R.self, toOne: true, optional: false)
        }

        /// The metadata of a to-many relationship. Called by generated code.
        public static func _persisted<M: PersistentModel, R: PersistentModel>(
            name: String, keypath: ReferenceWritableKeyPath<M, [R]>, metadata: Relationship?
        ) -> PropertyMetadata {
            relationship(name, keypath, metadata, [R].self, R.self, toOne: false, optional: false)
        }

        /// The metadata of an optional to-many relationship. Called by generated code.
        public static func _persisted<M: PersistentModel, R: PersistentModel>(
            name: String, keypath: ReferenceWritableKeyPath<M, [R]?>, metadata: Relationship?
        ) -> PropertyMetadata {
            relationship(name, keypath, metadata, [R]?.self, R.self, toOne: false, optional: true)
        }

        private static func attribute<V>(
            _ name: String, _ keypath: AnyKeyPath, _ metadata: Attribute?, _ valueType: V.Type, storage: StorageClass
        ) -> PropertyMetadata {
            let attribute = Attribute(
                copying: metadata, name: name, valueType: V.self, storage: storage,
                isOptional: V.self is any _OptionalValue.Type)
            return PropertyMetadata(name: name, keypath: keypath, defaultValue: nil, metadata: attribute)
        }

        private static func relationship(
            _ name: String, _ keypath: AnyKeyPath, _ metadata: Relationship?, _ valueType: Any.Type,
            _ destination: any PersistentModel.Type, toOne: Bool, optional: Bool
        ) -> PropertyMetadata {
            let relationship = Relationship(
                copying: metadata, name: name, keypath: keypath, valueType: valueType, destination: destination,
                isToOne: toOne, isOptional: optional)
            return PropertyMetadata(name: name, keypath: keypath, defaultValue: nil, metadata: relationship)
        }
    }
}
