import Foundation
import Testing
@testable import OpenSwiftData

// `let` stored properties, as apps declare them: set once in `init`, stored like any other.

@Model
final class Device {
    @Attribute(.unique) let id: String
    public let uuid: UUID
    let registered: Date
    let nickname: String?
    var name: String
    var owner: DeviceOwner?

    init(id: String, name: String, nickname: String? = nil) {
        self.id = id
        self.uuid = UUID()
        self.registered = Date(timeIntervalSinceReferenceDate: 1_000.5)
        self.nickname = nickname
        self.name = name
    }
}

@Model
final class DeviceOwner {
    var name: String
    @Relationship(inverse: \Device.owner) var devices: [Device] = []
    init(name: String) { self.name = name }
}

@Model
class Instrument {
    let serial: Int
    var label: String
    init(serial: Int, label: String) {
        self.serial = serial
        self.label = label
    }
}

@Model
final class Violin: Instrument {
    let maker: String
    init(serial: Int, label: String, maker: String) {
        self.maker = maker
        super.init(serial: serial, label: label)
    }
}

@Suite struct LetPropertyTests {
    let store = TemporaryStore()

    func container(_ backend: Backend = .sqlite) throws -> ModelContainer {
        try ModelContainer(for: Schema([Device.self, DeviceOwner.self, Instrument.self, Violin.self]),
                           configurations: [backend.configuration(url: store.url)])
    }

    @Test(arguments: Backend.allCases) func letPropertiesAreStoredFetchedAndFiltered(_ backend: Backend) throws {
        let uuid: UUID
        do {
            let context = ModelContext(try container(backend))
            let phone = Device(id: "a-1", name: "Phone", nickname: "pocket")
            uuid = phone.uuid
            context.insert(phone)
            context.insert(Device(id: "b-2", name: "Tablet"))
            try context.save()
        }
        let context = ModelContext(try container(backend))
        let phone = try #require(try context.fetch(FetchDescriptor<Device>(predicate: #Predicate { $0.id == "a-1" })).first)
        #expect(phone.uuid == uuid)
        #expect(phone.registered == Date(timeIntervalSinceReferenceDate: 1_000.5))
        #expect(phone.nickname == "pocket")
        #expect(phone.name == "Phone")
        let sorted = try context.fetch(FetchDescriptor<Device>(sortBy: [SortDescriptor(\.id, order: .reverse)]))
        #expect(sorted.map(\.id) == ["b-2", "a-1"])
        #expect(sorted.first?.nickname == nil)
        phone.name = "Phone 2"
        try context.save()
        let again = try ModelContext(try container(backend)).fetch(FetchDescriptor<Device>(predicate: #Predicate { $0.uuid == uuid }))
        #expect(again.map(\.name) == ["Phone 2"])
        #expect(again.map(\.id) == ["a-1"])
    }

    @Test(arguments: Backend.allCases) func aModelMadeBeforeItsRowIsReadHasItsLetValues(_ backend: Backend) throws {
        let id: PersistentIdentifier
        do {
            let context = ModelContext(try container(backend))
            let owner = DeviceOwner(name: "Ann")
            context.insert(owner)
            let device = Device(id: "c-3", name: "Watch")
            owner.devices.append(device)
            try context.save()
            id = device.persistentModelID
        }
        let context = ModelContext(try container(backend))
        let resolved = try #require(context.model(for: id) as? Device)
        #expect(resolved.id == "c-3")
        #expect(resolved.name == "Watch")
        let owner = try #require(try context.fetch(FetchDescriptor<DeviceOwner>()).first)
        #expect(owner.devices.map(\.id) == ["c-3"])
        #expect(owner.devices.first === resolved)
    }

    @Test func propertiesToFetchWithoutALetStillGivesItsValue() throws {
        do {
            let context = ModelContext(try container())
            context.insert(Device(id: "d-4", name: "Speaker", nickname: "loud"))
            try context.save()
        }
        var descriptor = FetchDescriptor<Device>()
        descriptor.propertiesToFetch = [\.name]
        let device = try #require(try ModelContext(try container()).fetch(descriptor).first)
        #expect(device.name == "Speaker")
        #expect(device.id == "d-4")
        #expect(device.nickname == "loud")
    }

    @Test func aUniqueLetUpsertsLikeAUniqueVar() throws {
        let context = ModelContext(try container())
        context.insert(Device(id: "e-5", name: "Old"))
        try context.save()
        context.insert(Device(id: "e-5", name: "New"))
        try context.save()
        let all = try ModelContext(try container()).fetch(FetchDescriptor<Device>())
        #expect(all.map(\.name) == ["New"])
    }

    @Test(arguments: Backend.allCases) func letPropertiesOfAClassHierarchy(_ backend: Backend) throws {
        do {
            let context = ModelContext(try container(backend))
            context.insert(Instrument(serial: 1, label: "drum"))
            context.insert(Violin(serial: 2, label: "fiddle", maker: "Amati"))
            try context.save()
        }
        let context = ModelContext(try container(backend))
        let all = try context.fetch(FetchDescriptor<Instrument>(sortBy: [SortDescriptor(\.serial)]))
        #expect(all.map(\.serial) == [1, 2])
        let violin = try #require(all.last as? Violin)
        #expect(violin.maker == "Amati")
        #expect(violin.label == "fiddle")
        #expect(try context.fetch(FetchDescriptor<Violin>(predicate: #Predicate { $0.maker == "Amati" && $0.serial == 2 })).count == 1)
    }
}
