import Foundation
import Testing
import OpenSwiftData

// Models whose change and unloaded masks fill a packed word (`Wide32`: 32 properties, its last
// integer at bit 31), need a word each (`Wide40`: 40 properties), or belong to a hierarchy whose
// subclass adds bits (`WideBase`, `WideLeaf`: 41 in all).
@Model
final class Wide32 {
    var label: String = ""
    var p0: Int = 0
    var p1: Int = 0
    var p2: Int = 0
    var p3: Int = 0
    var p4: Int = 0
    var p5: Int = 0
    var p6: Int = 0
    var p7: Int = 0
    var p8: Int = 0
    var p9: Int = 0
    var p10: Int = 0
    var p11: Int = 0
    var p12: Int = 0
    var p13: Int = 0
    var p14: Int = 0
    var p15: Int = 0
    var p16: Int = 0
    var p17: Int = 0
    var p18: Int = 0
    var p19: Int = 0
    var p20: Int = 0
    var p21: Int = 0
    var p22: Int = 0
    var p23: Int = 0
    var p24: Int = 0
    var p25: Int = 0
    var p26: Int = 0
    var p27: Int = 0
    var p28: Int = 0
    var p29: Int = 0
    var p30: Int = 0

    init() {}
}

@Model
final class Wide40 {
    var label: String = ""
    var p0: Int = 0
    var p1: Int = 0
    var p2: Int = 0
    var p3: Int = 0
    var p4: Int = 0
    var p5: Int = 0
    var p6: Int = 0
    var p7: Int = 0
    var p8: Int = 0
    var p9: Int = 0
    var p10: Int = 0
    var p11: Int = 0
    var p12: Int = 0
    var p13: Int = 0
    var p14: Int = 0
    var p15: Int = 0
    var p16: Int = 0
    var p17: Int = 0
    var p18: Int = 0
    var p19: Int = 0
    var p20: Int = 0
    var p21: Int = 0
    var p22: Int = 0
    var p23: Int = 0
    var p24: Int = 0
    var p25: Int = 0
    var p26: Int = 0
    var p27: Int = 0
    var p28: Int = 0
    var p29: Int = 0
    var p30: Int = 0
    var p31: Int = 0
    var p32: Int = 0
    var p33: Int = 0
    var p34: Int = 0
    var p35: Int = 0
    var p36: Int = 0
    var p37: Int = 0
    var p38: Int = 0

    init() {}
}

@Model
class WideBase {
    var label: String = ""
    var p0: Int = 0
    var p1: Int = 0
    var p2: Int = 0
    var p3: Int = 0
    var p4: Int = 0
    var p5: Int = 0
    var p6: Int = 0
    var p7: Int = 0
    var p8: Int = 0
    var p9: Int = 0
    var p10: Int = 0
    var p11: Int = 0
    var p12: Int = 0
    var p13: Int = 0
    var p14: Int = 0
    var p15: Int = 0
    var p16: Int = 0
    var p17: Int = 0
    var p18: Int = 0
    var p19: Int = 0

    init() {}
}

@Model
final class WideLeaf: WideBase {
    var q20: Int = 0
    var q21: Int = 0
    var q22: Int = 0
    var q23: Int = 0
    var q24: Int = 0
    var q25: Int = 0
    var q26: Int = 0
    var q27: Int = 0
    var q28: Int = 0
    var q29: Int = 0
    var q30: Int = 0
    var q31: Int = 0
    var q32: Int = 0
    var q33: Int = 0
    var q34: Int = 0
    var q35: Int = 0
    var q36: Int = 0
    var q37: Int = 0
    var q38: Int = 0
    var q39: Int = 0

    override init() { super.init() }
}

/// Every property of a model keeps its own change and load state, at every bit position of the
/// masks: the last property of a packed shape (bit 31), of a wide one (bit 39), and of a subclass.
@Suite struct WideModelTests {
    let store = TemporaryStore()

    func container(_ backend: Backend) throws -> ModelContainer {
        try store.container(Wide32.self, Wide40.self, WideBase.self, WideLeaf.self, backend: backend)
    }

    /// Sets every property of `model` through its key paths to `base + position`.
    func fill<M: PersistentModel>(_ model: M, _ keyPaths: [ReferenceWritableKeyPath<M, Int>], base: Int) {
        for (position, keyPath) in keyPaths.enumerated() { model[keyPath: keyPath] = base + position }
    }

    func check<M: PersistentModel>(_ type: M.Type, _ keyPaths: [ReferenceWritableKeyPath<M, Int>], backend: Backend, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let context = ModelContext(try container(backend))
        let model = try #require(try context.fetch(FetchDescriptor<M>()).first, sourceLocation: sourceLocation)
        fill(model, keyPaths, base: 100)
        try context.save()

        // Partial fetches: only the first property loaded; each other one loads on first read.
        for changed in [keyPaths.count - 1, keyPaths.count / 2, 0] {
            let fresh = ModelContext(try container(backend))
            var descriptor = FetchDescriptor<M>()
            descriptor.propertiesToFetch = [keyPaths[0]]
            let partial = try #require(try fresh.fetch(descriptor).first, sourceLocation: sourceLocation)
            #expect(partial[keyPath: keyPaths[keyPaths.count - 1]] == 100 + keyPaths.count - 1, sourceLocation: sourceLocation)
            partial[keyPath: keyPaths[changed]] = -changed - 1
            #expect(partial.hasChanges, sourceLocation: sourceLocation)
            try fresh.save()
            #expect(!partial.hasChanges, sourceLocation: sourceLocation)
            let rereading = ModelContext(try container(backend))
            let reread = try #require(try rereading.fetch(FetchDescriptor<M>()).first, sourceLocation: sourceLocation)
            let values = keyPaths.map { reread[keyPath: $0] }
            let expected = keyPaths.indices.map { $0 == changed ? -changed - 1 : 100 + $0 }
            #expect(values == expected, "after changing property \(changed)", sourceLocation: sourceLocation)
            fill(reread, keyPaths, base: 100)
            try rereading.save()
        }

        // A rollback restores the last property, and only its change is forgotten.
        let last = keyPaths[keyPaths.count - 1]
        model[keyPath: last] = 7
        context.rollback()
        #expect(model[keyPath: last] == 100 + keyPaths.count - 1, sourceLocation: sourceLocation)
        #expect(!model.hasChanges, sourceLocation: sourceLocation)
    }

    @Test(arguments: Backend.allCases)
    func everyBitOfEveryShapeKeepsItsProperty(_ backend: Backend) throws {
        let context = ModelContext(try container(backend))
        context.insert(Wide32())
        context.insert(Wide40())
        context.insert(WideLeaf())
        try context.save()
        try check(Wide32.self, [\Wide32.p0, \Wide32.p1, \Wide32.p2, \Wide32.p3, \Wide32.p4, \Wide32.p5, \Wide32.p6, \Wide32.p7, \Wide32.p8, \Wide32.p9, \Wide32.p10, \Wide32.p11, \Wide32.p12, \Wide32.p13, \Wide32.p14, \Wide32.p15, \Wide32.p16, \Wide32.p17, \Wide32.p18, \Wide32.p19, \Wide32.p20, \Wide32.p21, \Wide32.p22, \Wide32.p23, \Wide32.p24, \Wide32.p25, \Wide32.p26, \Wide32.p27, \Wide32.p28, \Wide32.p29, \Wide32.p30], backend: backend)
        try check(Wide40.self, [\Wide40.p0, \Wide40.p1, \Wide40.p2, \Wide40.p3, \Wide40.p4, \Wide40.p5, \Wide40.p6, \Wide40.p7, \Wide40.p8, \Wide40.p9, \Wide40.p10, \Wide40.p11, \Wide40.p12, \Wide40.p13, \Wide40.p14, \Wide40.p15, \Wide40.p16, \Wide40.p17, \Wide40.p18, \Wide40.p19, \Wide40.p20, \Wide40.p21, \Wide40.p22, \Wide40.p23, \Wide40.p24, \Wide40.p25, \Wide40.p26, \Wide40.p27, \Wide40.p28, \Wide40.p29, \Wide40.p30, \Wide40.p31, \Wide40.p32, \Wide40.p33, \Wide40.p34, \Wide40.p35, \Wide40.p36, \Wide40.p37, \Wide40.p38], backend: backend)
        try check(WideLeaf.self, [\WideLeaf.p0, \WideLeaf.p1, \WideLeaf.p2, \WideLeaf.p3, \WideLeaf.p4, \WideLeaf.p5, \WideLeaf.p6, \WideLeaf.p7, \WideLeaf.p8, \WideLeaf.p9, \WideLeaf.p10, \WideLeaf.p11, \WideLeaf.p12, \WideLeaf.p13, \WideLeaf.p14, \WideLeaf.p15, \WideLeaf.p16, \WideLeaf.p17, \WideLeaf.p18, \WideLeaf.p19, \WideLeaf.q20, \WideLeaf.q21, \WideLeaf.q22, \WideLeaf.q23, \WideLeaf.q24, \WideLeaf.q25, \WideLeaf.q26, \WideLeaf.q27, \WideLeaf.q28, \WideLeaf.q29, \WideLeaf.q30, \WideLeaf.q31, \WideLeaf.q32, \WideLeaf.q33, \WideLeaf.q34, \WideLeaf.q35, \WideLeaf.q36, \WideLeaf.q37, \WideLeaf.q38, \WideLeaf.q39], backend: backend)
    }
}
