import Foundation
import OpenSwiftDataToolbox
import Testing

@Suite struct MemoryCacheTests {
    @Test func theLeastRecentlyUsedEntryGoesFirstPastEitherLimit() {
        let cache = MemoryCache<String, Int>(limits: .init(count: 3, totalCost: 100))
        cache.setValue(1, forKey: "a", cost: 10)
        cache.setValue(2, forKey: "b", cost: 10)
        cache.setValue(3, forKey: "c", cost: 10)
        #expect(cache.value(forKey: "a") == 1)
        cache.setValue(4, forKey: "d", cost: 10)
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.value(forKey: "a") == 1)
        cache.setValue(5, forKey: "e", cost: 85)
        #expect(cache.totalCost <= 100)
        #expect(cache.value(forKey: "e") == 5)
        #expect(cache.value(forKey: "c") == nil)
        #expect(cache.value(forKey: "d") == nil)
    }

    @Test func expiredEntriesAreNotReturned() {
        let cache = MemoryCache<String, Int>()
        cache.setValue(1, forKey: "old", expiry: Date().addingTimeInterval(-1))
        cache.setValue(2, forKey: "new", expiry: Date().addingTimeInterval(60))
        #expect(cache.value(forKey: "old") == nil)
        #expect(cache.value(forKey: "new") == 2)
        #expect(cache.count == 1)
    }

    /// Random operations against a plain model of a least-recently-used list.
    @Test func randomOperationsMatchAModelOfTheLeastRecentlyUsedOrder() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let limit = Int.random(in: 1...8, using: &random)
            let cache = MemoryCache<Int, Int>(limits: .init(count: limit))
            var order: [Int] = []  // least recently used first
            var values: [Int: Int] = [:]
            for _ in 0..<400 {
                let key = Int.random(in: 0..<12, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    let value = Int.random(in: 0..<1_000, using: &random)
                    cache.setValue(value, forKey: key)
                    order.removeAll { $0 == key }
                    order.append(key)
                    values[key] = value
                    while order.count > limit { values[order.removeFirst()] = nil }
                case 1:
                    #expect(cache.value(forKey: key) == values[key])
                    if values[key] != nil {
                        order.removeAll { $0 == key }
                        order.append(key)
                    }
                default:
                    #expect(cache.removeValue(forKey: key) == values[key])
                    order.removeAll { $0 == key }
                    values[key] = nil
                }
                #expect(cache.count == values.count)
            }
        }
    }
}

@Suite struct DiskCacheTests {
    @Test func entriesSurviveANewInstanceAndExpire() throws {
        let directory = try TemporaryDirectory()
        let cache = try DiskCache(directory: directory.url)
        try cache.setData(Data("one".utf8), forKey: "https://example.com/1")
        try cache.setData(Data("gone".utf8), forKey: "short", lifetime: -1)
        let reopened = try DiskCache(directory: directory.url)
        #expect(try reopened.data(forKey: "https://example.com/1") == Data("one".utf8))
        #expect(try reopened.data(forKey: "short") == nil)
        #expect(try reopened.data(forKey: "never written") == nil)
        try reopened.removeData(forKey: "https://example.com/1")
        #expect(try cache.data(forKey: "https://example.com/1") == nil)
    }

    @Test func fileNamesAreAStableHashOfTheKey() throws {
        let directory = try TemporaryDirectory()
        let cache = try DiskCache(directory: directory.url)
        try cache.setData(Data([1]), forKey: "a")
        // The first 16 bytes of SHA-256("a"), the same in every process and on every platform.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["ca978112ca1bbdcafac231b39a23dc4d"])
    }

    @Test func aDamagedOrForeignFileReadsAsAMiss() throws {
        let directory = try TemporaryDirectory()
        let cache = try DiskCache(directory: directory.url)
        try cache.setData(Data(repeating: 7, count: 1_000), forKey: "a")
        try cache.setData(Data(repeating: 8, count: 1_000), forKey: "b")
        let fileA = directory.file("ca978112ca1bbdcafac231b39a23dc4d")
        var bytes = try Data(contentsOf: fileA)
        bytes[bytes.count - 1] ^= 0xFF
        try bytes.write(to: fileA)
        #expect(try cache.data(forKey: "a") == nil)
        #expect(!FileManager.default.fileExists(atPath: fileA.path))
        try Data(bytes.prefix(30)).write(to: fileA)
        #expect(try cache.data(forKey: "a") == nil)
        // An entry of key "b" under key "a"'s name: another key's data is never returned.
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        let fileB = directory.file(try #require(names.first { $0 != fileA.lastPathComponent }))
        try FileManager.default.copyItem(at: fileB, to: fileA)
        #expect(try cache.data(forKey: "a") == nil)
        #expect(try cache.data(forKey: "b") == Data(repeating: 8, count: 1_000))
    }

    @Test func passingTheSizeLimitRemovesTheLeastRecentlyUsed() throws {
        let directory = try TemporaryDirectory()
        let cache = try DiskCache(directory: directory.url, limits: .init(size: 10_000))
        for index in 0..<8 {
            try cache.setData(Data(repeating: UInt8(index), count: 1_000), forKey: "k\(index)")
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(try cache.data(forKey: "k0") != nil)  // k0 becomes the most recently used
        Thread.sleep(forTimeInterval: 0.01)
        for index in 8..<12 {
            try cache.setData(Data(repeating: UInt8(index), count: 1_000), forKey: "k\(index)")
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(try cache.totalSize() <= 10_000)
        #expect(try cache.data(forKey: "k0") != nil)
        #expect(try cache.data(forKey: "k11") != nil)
        #expect(try cache.data(forKey: "k1") == nil)
    }

    @Test func aWriteKilledBeforeItsRenameLeavesATemporaryFileThatTrimRemoves() throws {
        let directory = try TemporaryDirectory()
        let cache = try DiskCache(directory: directory.url)
        let abandoned = directory.file(".osd-write-abc")
        try Data("partial".utf8).write(to: abandoned)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-600)], ofItemAtPath: abandoned.path)
        try cache.setData(Data([1]), forKey: "a")
        #expect(try cache.totalSize() < 100)
        try cache.trim()
        #expect(!FileManager.default.fileExists(atPath: abandoned.path))
        #expect(try cache.data(forKey: "a") == Data([1]))
    }
}

@Suite struct TwoTierCacheTests {
    struct Thumbnail: Codable, Sendable, Equatable {
        var width: Int
        var pixels: [UInt8]
    }

    @Test func valuesComeFromMemoryThenDiskAndSurviveANewCache() throws {
        let directory = try TemporaryDirectory()
        let cache = try Cache<Thumbnail>(directory: directory.url)
        let thumbnail = Thumbnail(width: 2, pixels: [1, 2, 3, 4])
        try cache.setValue(thumbnail, forKey: "photo-1")
        #expect(try cache.value(forKey: "photo-1") == thumbnail)
        let reopened = try Cache<Thumbnail>(directory: directory.url)
        #expect(reopened.memory.count == 0)
        #expect(try reopened.value(forKey: "photo-1") == thumbnail)
        #expect(reopened.memory.count == 1)
        try reopened.removeValue(forKey: "photo-1")
        #expect(try Cache<Thumbnail>(directory: directory.url).value(forKey: "photo-1") == nil)
    }

    @Test func anEntryThatDoesNotDecodeIsAMiss() throws {
        let directory = try TemporaryDirectory()
        try Cache<Data>(directory: directory.url).setValue(Data("not json".utf8), forKey: "photo-1")
        let cache = try Cache<Thumbnail>(directory: directory.url)
        #expect(try cache.value(forKey: "photo-1") == nil)
        #expect(try cache.disk?.data(forKey: "photo-1") == nil)
    }
}

@Suite struct DiskCacheConcurrencyTests {
    /// Four tasks with caches of their own on one directory (as four processes would have) write
    /// and read the same keys: a read gives nothing or the whole data some writer stored for that
    /// key, never another key's, never a mix.
    @Test func concurrentWritersAndReadersNeverSeeATornOrForeignEntry() async throws {
        let directory = try TemporaryDirectory()
        let url = directory.url
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    let cache = try DiskCache(directory: url, limits: .init(size: 200_000))
                    var problems = 0
                    for step in 0..<150 {
                        let key = "key \((writer + step) % 10)"
                        if step % 3 == 0, let data = try cache.data(forKey: key) {
                            let text = String(decoding: data, as: UTF8.self)
                            let parts = text.split(separator: "|", omittingEmptySubsequences: false)
                            if parts.count != 3 || parts[0] != key || Int(parts[1]) != parts[2].count { problems += 1 }
                        } else {
                            let filler = String(repeating: "x", count: (writer * 997 + step * 31) % 4_000)
                            try cache.setData(Data("\(key)|\(filler.count)|\(filler)".utf8), forKey: key)
                        }
                    }
                    return problems
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(results == 0)
    }
}
