import Foundation
import OpenSwiftData

/// W11: live queries. `observers` results observers are open on a store of `rows` trips, each over
/// a different budget range (about 1% of the trips each), sorted by start date; another context
/// makes `saves` one-row saves (a new trip, or an existing trip's budget and rating changed, in
/// turn). After each save, every observer is brought up to date (what its actor does when the save
/// signal arrives, and what reading `results` does at once), and the time that takes is compared
/// with a full fetch of the same descriptors. At the end every observer must equal a fresh fetch.
enum ObserverWorkload {
    struct Report {
        var saveSeconds: [Double] = []
        var catchUpSeconds: [Double] = []
        var fullFetchSeconds: Double = 0
        var checksum = 0
    }

    static func descriptor(_ index: Int) -> FetchDescriptor<Trip> {
        let low = Double(index * 100)
        let high = low + 100
        return FetchDescriptor(predicate: #Predicate { $0.budget >= low && $0.budget < high },
                               sortBy: [SortDescriptor(\.startDate, order: .reverse)])
    }

    @MainActor
    static func run(rows: Int, observers observerCount: Int, saves: Int) throws -> Report {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("osd-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: folder.appendingPathComponent("bench.sqlite")))
        let seed = TripData.generate(count: rows)
        do {
            let context = ModelContext(container)
            for trip in seed { context.insert(Trip(trip)) }
            try context.save()
        }

        var report = Report()
        // A full fetch of each descriptor, in a fresh context each time: what refetching costs.
        let fetchStart = DispatchTime.now().uptimeNanoseconds
        for index in 0..<observerCount { report.checksum &+= try ModelContext(container).fetch(descriptor(index)).count }
        report.fullFetchSeconds = Double(DispatchTime.now().uptimeNanoseconds - fetchStart) / 1e9 / Double(observerCount)

        // The observers share one context, as the views of an app share its main context.
        let observerContext = ModelContext(container)
        let observers = try (0..<observerCount).map { index in
            try ResultsObserver<Trip, Never>(fetchDescriptor: descriptor(index), modelContext: observerContext)
        }
        let writer = ModelContext(container)
        let existing = try writer.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.persistentModelID)]))
        var random = SystemRandomNumberGenerator()
        let budgetRange = Double(observerCount * 100)
        for number in 0..<saves {
            if number % 2 == 0 {
                var data = seed[number % seed.count]
                data.name = "New \(number)"
                data.budget = Double.random(in: 0..<budgetRange, using: &random).rounded(.down)
                writer.insert(Trip(data))
            } else {
                let trip = existing[Int.random(in: 0..<existing.count, using: &random)]
                trip.budget = Double.random(in: 0..<budgetRange, using: &random).rounded(.down)
                trip.rating = 1 + (trip.rating % 5)
            }
            let saveStart = DispatchTime.now().uptimeNanoseconds
            try writer.save()
            let saved = DispatchTime.now().uptimeNanoseconds
            for observer in observers { _ = observer.results.count }
            let current = DispatchTime.now().uptimeNanoseconds
            report.saveSeconds.append(Double(saved - saveStart) / 1e9)
            report.catchUpSeconds.append(Double(current - saved) / 1e9)
        }

        let checker = ModelContext(container)
        for (index, observer) in observers.enumerated() {
            let expected = try checker.fetch(descriptor(index)).map(\.persistentModelID)
            guard observer.results.map(\.persistentModelID) == expected else {
                throw BenchError("observer \(index) differs from a fresh fetch after \(saves) saves")
            }
            report.checksum &+= expected.count
        }
        return report
    }

    /// Runs W11 and prints its figures.
    @MainActor
    static func main(arguments: [String]) throws {
        func value(_ name: String, _ fallback: Int) -> Int {
            guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return fallback }
            return Int(arguments[index + 1]) ?? fallback
        }
        let rows = value("--rows", 100_000)
        let observerCount = value("--observers", 100)
        let saves = value("--saves", 1_000)
        let report = try run(rows: rows, observers: observerCount, saves: saves)
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        func percentile(_ values: [Double], _ p: Double) -> Double { values.sorted()[min(values.count - 1, Int(Double(values.count) * p))] }
        let perObserver = median(report.catchUpSeconds) / Double(observerCount)
        print("W11: \(observerCount) observers on \(rows) trips (about \(rows / observerCount) each), \(saves) one-row saves")
        print(String(format: "  save(): median %.1f µs", median(report.saveSeconds) * 1e6))
        print(String(format: "  save() returned → all %d observers current: median %.1f µs, p90 %.1f µs, max %.1f µs",
                     observerCount, median(report.catchUpSeconds) * 1e6, percentile(report.catchUpSeconds, 0.9) * 1e6,
                     (report.catchUpSeconds.max() ?? 0) * 1e6))
        print(String(format: "  per observer: %.2f µs; one full fetch of the same descriptor: %.1f µs", perObserver * 1e6, report.fullFetchSeconds * 1e6))
        print(String(format: "  update cost per save and observer / full fetch: %.3f%% (goal: under 5%%)", perObserver / report.fullFetchSeconds * 100))
        print("  checksum \(report.checksum); every observer equals a fresh fetch")
    }
}
