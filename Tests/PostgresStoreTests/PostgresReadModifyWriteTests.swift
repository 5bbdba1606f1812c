import Foundation
import Testing
import OpenSwiftData
import OpenSwiftDataPostgres

@Model final class Wallet {
    #Unique<Wallet>([\.owner])
    var owner: String
    var balance: Int
    init(owner: String, balance: Int) { self.owner = owner; self.balance = balance }
}

/// Read-modify-write without lost updates, as docs/Postgres.md's "Coming from Fluent" shows it:
/// a compare-and-set through an update by predicate, retried when another writer got there
/// first. Four containers (server instances) deposit at once; every deposit lands.
@Suite(.enabled(if: PostgresServer.isAvailable, PostgresServer.skipMessage))
struct PostgresReadModifyWriteTests {
    /// Adds `amount` to the owner's balance: reads it, then sets it only if it is still what was read.
    static func deposit(_ amount: Int, to owner: String, in context: ModelContext) throws {
        for _ in 0..<10_000 {
            let read = try context.fetch(FetchDescriptor<Wallet>(predicate: #Predicate { $0.owner == owner }))
            guard let balance = read.first?.balance else { throw SwiftDataError.modelNotFound }
            let changed = try context.update(
                model: Wallet.self, where: #Predicate { $0.owner == owner && $0.balance == balance },
                set: \.balance, to: balance + amount)
            if changed == 1 { return }
        }
        throw SwiftDataError.storeFailure   // the read never caught up with the other writers
    }

    @Test func compareAndSetDepositsFromFourInstancesAllLand() throws {
        let configuration = try PostgresServer.freshConfiguration("rmw")
        let setup = ModelContext(try ModelContainer(for: Wallet.self, configurations: configuration))
        setup.insert(Wallet(owner: "ada", balance: 0))
        try setup.save()

        let instances = 4, deposits = 25
        let failures = LockedErrors()
        let group = DispatchGroup()
        for _ in 0..<instances {
            let container = try ModelContainer(for: Wallet.self, configurations: configuration)
            group.enter()
            Thread {
                defer { group.leave() }
                let context = ModelContext(container)
                do {
                    for _ in 0..<deposits { try Self.deposit(1, to: "ada", in: context) }
                } catch {
                    failures.append(error)
                }
            }.start()
        }
        group.wait()
        #expect(failures.errors.isEmpty, "\(failures.errors)")
        let check = ModelContext(try ModelContainer(for: Wallet.self, configurations: configuration))
        #expect(try check.fetch(FetchDescriptor<Wallet>()).first?.balance == instances * deposits)
    }
}

/// Errors gathered from several threads.
final class LockedErrors: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [any Error] = []
    var errors: [any Error] { lock.withLock { stored } }
    func append(_ error: any Error) { lock.withLock { stored.append(error) } }
}
