import Foundation
import Testing
import OpenSwiftData

/// What a schema tells about its models, in the shapes SwiftData's `Schema`, `Schema.Entity` and
/// `Schema.Relationship` have.
@Suite struct SchemaDescriptionTests {
    @Test func anEntityListsItsPropertiesByNameAndItsInheritedOnes() throws {
        let schema = Schema([MediaItem.self, Picture.self, Clip.self])
        let media = try #require(schema.entitiesByName["MediaItem"])
        let picture = try #require(schema.entitiesByName["Picture"])

        #expect(media.superentityName == nil)
        #expect(media.inheritedProperties.isEmpty)
        #expect(media.properties.map(\.name) == ["title", "rating", "album"])
        #expect(Set(media.propertiesByName.keys) == ["title", "rating", "album"])
        #expect(media.propertiesByName["album"]?.isRelationship == true)
        #expect(media.relationshipsByName["album"]?.destination == "Album")

        #expect(picture.superentityName == "MediaItem")
        #expect(Set(picture.inheritedPropertiesByName.keys) == ["title", "rating", "album"])
        #expect(Set(picture.propertiesByName.keys) == ["title", "rating", "album", "resolution"])
        #expect(Set(picture.storedPropertiesByName.keys) == Set(picture.propertiesByName.keys))
        #expect(picture.propertiesByName["resolution"]?.isAttribute == true)
    }

    @Test func aRelationshipKnowsItsKeyPath() throws {
        let schema = Schema([Journey.self])
        let journey = try #require(schema.entitiesByName["Journey"])
        let outings = try #require(journey.relationshipsByName["outings"])
        #expect(outings.keypath == \Journey.outings)
        let outing = try #require(schema.entitiesByName["Outing"])
        #expect(outing.relationshipsByName["journey"]?.keypath == \Outing.journey)
        #expect(schema.encodingVersion == Schema.schemaEncodingVersion)
    }

    @Test func aConfigurationNamesItsContainers() {
        let named = ModelConfiguration("shared", groupContainer: .identifier("group.example"), cloudKitDatabase: .private("iCloud.example"))
        #expect(named.groupAppContainerIdentifier == "group.example")
        #expect(named.cloudKitContainerIdentifier == "iCloud.example")
        let plain = ModelConfiguration(isStoredInMemoryOnly: true)
        #expect(plain.groupAppContainerIdentifier == nil)
        #expect(plain.cloudKitContainerIdentifier == nil)
    }
}
