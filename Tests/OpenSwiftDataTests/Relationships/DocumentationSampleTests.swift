import Foundation
import Testing
@testable import OpenSwiftData

// The relationship shapes of Apple's SwiftData sample code: a trip with a cascading bucket list and
// a cascading one-to-one accommodation, each inverse declared on the parent's side only.

@Model
final class SampleTrip {
    var name: String
    var destination: String
    @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
    var bucketList: [BucketListItem] = [BucketListItem]()
    @Relationship(deleteRule: .cascade, inverse: \LivingAccommodation.trip)
    var livingAccommodation: LivingAccommodation?

    init(name: String, destination: String) {
        self.name = name
        self.destination = destination
    }
}

@Model
final class BucketListItem {
    var title: String
    var details: String
    var hasReservation: Bool
    var isInPlan: Bool
    var trip: SampleTrip?

    init(title: String, details: String, hasReservation: Bool = false, isInPlan: Bool = false) {
        self.title = title
        self.details = details
        self.hasReservation = hasReservation
        self.isInPlan = isInPlan
    }
}

@Model
final class LivingAccommodation {
    var address: String
    var placeName: String
    var trip: SampleTrip?

    init(address: String, placeName: String) {
        self.address = address
        self.placeName = placeName
    }
}

struct DocumentationSampleTests {
    let store = TemporaryStore()

    func container() throws -> ModelContainer {
        try ModelContainer(
            for: Schema([SampleTrip.self, BucketListItem.self, LivingAccommodation.self]),
            configurations: [store.configuration()])
    }

    @Test func bucketListEditsAndCascadingDeletes() throws {
        let context = ModelContext(try container())
        let trip = SampleTrip(name: "Paris", destination: "France")
        context.insert(trip)
        trip.bucketList.append(BucketListItem(title: "Eiffel Tower", details: "at night"))
        trip.bucketList.append(BucketListItem(title: "Louvre", details: "Mona Lisa", hasReservation: true))
        trip.bucketList.insert(BucketListItem(title: "Croissant", details: "first"), at: 0)
        trip.livingAccommodation = LivingAccommodation(address: "1 Rue", placeName: "Hôtel")
        try context.save()
        #expect(trip.bucketList.map(\.title) == ["Croissant", "Eiffel Tower", "Louvre"])

        // Reorder, remove one, and query the children by their parent.
        trip.bucketList.sort { $0.title > $1.title }
        let removed = trip.bucketList.removeLast()
        #expect(removed.trip == nil)
        try context.save()
        let paris = trip.persistentModelID
        let items = try context.fetch(FetchDescriptor<BucketListItem>(
            predicate: #Predicate { $0.trip?.persistentModelID == paris }, sortBy: [SortDescriptor(\.title)]))
        #expect(items.map(\.title) == ["Eiffel Tower", "Louvre"])
        let reserved = try context.fetch(FetchDescriptor<SampleTrip>(
            predicate: #Predicate { trip in trip.bucketList.contains { $0.hasReservation } }))
        #expect(reserved.map(\.name) == ["Paris"])

        context.delete(trip)
        try context.save()
        let reopened = ModelContext(try container())
        #expect(try reopened.fetchCount(FetchDescriptor<SampleTrip>()) == 0)
        #expect(try reopened.fetchCount(FetchDescriptor<LivingAccommodation>()) == 0, "cascade through a to-one")
        #expect(try reopened.fetch(FetchDescriptor<BucketListItem>()).map(\.title) == ["Croissant"],
                "the removed item was not in the relationship any more, so the cascade spared it")
    }

    @Test func aChildRelatedInItsInitializerIsLinkedWhenInserted() throws {
        let context = ModelContext(try container())
        let trip = SampleTrip(name: "Kyoto", destination: "Japan")
        context.insert(trip)
        let item = BucketListItem(title: "Temple", details: "")
        item.trip = trip
        #expect(trip.bucketList.map(\.title) == ["Temple"])
        #expect(item.modelContext === context)
        try context.save()
        let reopened = ModelContext(try container())
        #expect(try reopened.fetch(FetchDescriptor<SampleTrip>()).first?.bucketList.map(\.title) == ["Temple"])
    }
}
