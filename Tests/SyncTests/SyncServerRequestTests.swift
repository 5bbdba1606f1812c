import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OpenSwiftData
import OpenSwiftDataSync
import Testing

/// Requests a client would never send, sent by hand: each refused with its status and a message
/// naming what is wrong, and nothing written.
@Suite(.enabled(if: SyncPostgres.isAvailable, SyncPostgres.skipMessage), .stopsSyncServers, .serialized)
struct SyncServerRequestTests {
    /// Sends `body` (JSON text) to `path`, returning the status and the answer's `message`.
    private func send(_ server: RunningSyncServer, _ method: String, _ path: String, token: String? = "token-a", body: String? = nil) async throws -> (Int, String) {
        var request = URLRequest(url: try #require(URL(string: server.url.absoluteString + path)))
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        return (status, object?["message"] as? String ?? String(decoding: data, as: UTF8.self))
    }

    private func hello(_ server: RunningSyncServer, client: String, token: String = "token-a") async throws {
        let schema = String(decoding: try JSONEncoder().encode(SyncSchema(StoredSchema(Schema(syncModels)))), as: UTF8.self)
        let (status, message) = try await send(server, "POST", "/v1/hello", token: token, body: "{\"client\": \"\(client)\", \"schema\": \(schema)}")
        #expect(status == 200, "\(message)")
    }

    private func push(_ server: RunningSyncServer, client: String, sequence: Int = 1, changes: String, token: String = "token-a") async throws -> (Int, String) {
        try await send(server, "POST", "/v1/push", token: token, body: "{\"client\": \"\(client)\", \"sequence\": \(sequence), \"changes\": [\(changes)]}")
    }

    /// A new trip: its name, and the values a new `Trip` must have (its code is its identifier).
    private func trip(_ id: String, name: String = "{\"text\": \"Lisbon\"}") -> String {
        let values = ["name": name, "code": "{\"text\": \"\(id)\"}", "price": "{\"real\": 10}", "start": "{\"date\": 0}"]
        return change("Trip", id, values: values)
    }

    /// A change of a model: its values, each with a clock of client c1.
    private func change(_ entity: String, _ id: String, values: [String: String]) -> String {
        let names = values.keys.sorted()
        let valueText = names.map { "\"\($0)\": \(values[$0] ?? "null")" }.joined(separator: ", ")
        let clockText = names.map { "\"\($0)\": {\"t\": 1, \"c\": 0, \"n\": \"c1\"}" }.joined(separator: ", ")
        return "{\"entity\": \"\(entity)\", \"id\": \"\(id)\", \"deleted\": false, \"values\": {\(valueText)}, \"clocks\": {\(clockText)}}"
    }

    /// Deletes a trip from client c2 and trims every deletion, so that the server holds nothing of it.
    private func deleteOnAnotherClientAndTrim(_ server: RunningSyncServer, _ id: String) async throws {
        let deletion = "{\"entity\": \"Trip\", \"id\": \"\(id)\", \"deleted\": true, \"values\": {}, \"clocks\": {\"\": {\"t\": 3, \"c\": 0, \"n\": \"c2\"}}}"
        #expect(try await push(server, client: "c2", sequence: 1, changes: deletion).0 == 200)
        _ = try await server.server.trimHistory(olderThan: .zero)
    }

    private func rowCount(_ server: RunningSyncServer, token: String = "token-a") async throws -> Int {
        let (status, _) = try await send(server, "GET", "/v1/changes?after=0&limit=100", token: token)
        #expect(status == 200)
        var request = URLRequest(url: try #require(URL(string: server.url.absoluteString + "/v1/changes?after=0&limit=100")))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, _) = try await URLSession.shared.data(for: request)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return (object["rows"] as? [Any])?.count ?? -1
    }

    /// The JSON object of a push's answer.
    private func answer(_ body: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any], "\(body)")
    }

    /// The two clients' hellos and a first push of the trip `t1` from `c1`.
    private func twoClientsAfterAPushOfT1(_ server: RunningSyncServer) async throws {
        try await hello(server, client: "c1")
        try await hello(server, client: "c2")
        #expect(try await push(server, client: "c1", sequence: 1, changes: trip("t1")).0 == 200)
    }

    @Test func requestsWithoutAValidTokenGet401() async throws {
        let server = try await RunningSyncServer.start()
        let (missing, _) = try await send(server, "GET", "/v1/changes?after=0&limit=10", token: nil)
        #expect(missing == 401)
        let (wrong, message) = try await send(server, "POST", "/v1/push", token: "nope", body: "{}")
        #expect(wrong == 401)
        #expect(message.contains("token"))
    }

    @Test func malformedAndHostilePushesGet400NamingTheProblemAndWriteNothing() async throws {
        let server = try await RunningSyncServer.start()
        try await hello(server, client: "c1")

        let cases: [(changes: String, expected: String)] = [
            (trip("t1", name: "{\"integer\": 5}"), "Trip.name"),
            ("{\"entity\": \"Nope\", \"id\": \"x\", \"deleted\": false, \"values\": {}, \"clocks\": {}}", "Nope"),
            ("{\"entity\": \"Trip\", \"id\": \"t1\", \"deleted\": false, \"values\": {\"altitude\": {\"real\": 1}}, \"clocks\": {\"altitude\": {\"t\": 1, \"c\": 0, \"n\": \"c1\"}}}", "Trip.altitude"),
            ("{\"entity\": \"Trip\", \"id\": \"t1\", \"deleted\": false, \"values\": {\"name\": {\"text\": \"a\"}}, \"clocks\": {}}", "clock"),
            (trip("t1") + ", " + trip("t1"), "twice"),
            ("{\"entity\": \"Stop\", \"id\": \"s1\", \"deleted\": false, \"values\": {\"trip\": {\"ref\": \"missing\"}}, \"clocks\": {\"trip\": {\"t\": 1, \"c\": 0, \"n\": \"c1\"}}}", "does not hold"),
            ("{\"entity\": 7}", "PushRequest"),
        ]
        for (changes, expected) in cases {
            let (status, message) = try await push(server, client: "c1", changes: changes)
            #expect(status == 400, "\(changes)")
            #expect(message.contains(expected), "\(message)")
        }
        let (notJSON, _) = try await send(server, "POST", "/v1/push", body: "not json")
        #expect(notJSON == 400)
        #expect(try await rowCount(server) == 0)
    }

    /// A new model without a value its model requires (neither optional nor given an initial
    /// value) would stop every device that pulled it: the push is refused, naming the property,
    /// and nothing is written. An update need not carry it, and an optional or defaulted property
    /// may be left out of a new model.
    @Test func aNewModelWithoutARequiredValueGets400AndWritesNothing() async throws {
        let server = try await RunningSyncServer.start()
        try await hello(server, client: "c1")
        let withoutPrice = change("Trip", "t1", values: ["name": "{\"text\": \"Lisbon\"}", "code": "{\"text\": \"t1\"}", "start": "{\"date\": 0}"])
        let (status, message) = try await push(server, client: "c1", changes: trip("t0") + ", " + withoutPrice)
        #expect(status == 400)
        #expect(message.contains("Trip.price"), "\(message)")
        #expect(message.contains("t1"), "\(message)")
        #expect(try await rowCount(server) == 0)

        // Leaving out `notes` (optional) and `cost` (an initial value) is fine, and so is an update
        // that changes only the name.
        #expect(try await push(server, client: "c1", sequence: 1, changes: trip("t1")).0 == 200)
        let rename = String(change("Trip", "t1", values: ["name": "{\"text\": \"Porto\"}"]).replacingOccurrences(of: "\"t\": 1,", with: "\"t\": 2,").dropLast())
            + ", \"isNew\": false}"
        #expect(try await push(server, client: "c1", sequence: 2, changes: rename).0 == 200)
        #expect(try await rowCount(server) == 1)
    }

    /// A batch in parts: nothing is applied until its last part, which applies the whole batch;
    /// the last part sent again is answered without applying anything twice; a last part whose
    /// earlier parts the server lacks, part numbers out of range, and a model in two parts are
    /// refused.
    @Test func aBatchInPartsIsAppliedWholeWhenItsLastPartArrives() async throws {
        let server = try await RunningSyncServer.start()
        try await hello(server, client: "c1")
        func part(_ number: Int, of parts: Int, sequence: Int = 4, _ changes: String) async throws -> (Int, String) {
            try await send(
                server, "POST", "/v1/push",
                body: "{\"client\": \"c1\", \"sequence\": \(sequence), \"part\": \(number), \"parts\": \(parts), \"changes\": [\(changes)]}")
        }
        #expect(try await part(0, of: 3, trip("t1")).0 == 200)
        #expect(try await part(1, of: 3, trip("t2") + ", " + trip("t3")).0 == 200)
        // Sent again (its answer lost): kept once.
        #expect(try await part(1, of: 3, trip("t2") + ", " + trip("t3")).0 == 200)
        #expect(try await rowCount(server) == 0)
        let (status, body) = try await part(2, of: 3, trip("t4"))
        #expect(status == 200, "\(body)")
        #expect(try await rowCount(server) == 4)
        let (again, _) = try await part(2, of: 3, trip("t4"))
        #expect(again == 200)
        #expect(try await rowCount(server) == 4)

        let (missing, message) = try await part(1, of: 2, sequence: 5, trip("t5"))
        #expect(missing == 400)
        #expect(message.contains("Part 0"), "\(message)")
        for (number, parts) in [(2, 2), (0, 1), (-1, 3)] {
            #expect(try await part(number, of: parts, sequence: 6, trip("t6")).0 == 400, "part \(number) of \(parts)")
        }
        #expect(try await part(0, of: 2, sequence: 7, trip("t7")).0 == 200)
        let (twice, twiceMessage) = try await part(1, of: 2, sequence: 7, trip("t7"))
        #expect(twice == 400)
        #expect(twiceMessage.contains("twice"), "\(twiceMessage)")
        #expect(try await rowCount(server) == 4)
        // The parts of batch 4 gave way to those of batch 7; its last part sent again is still
        // answered as a batch the server applied, and applies nothing.
        let (late, lateBody) = try await part(2, of: 3, trip("t4"))
        #expect(late == 200, "\(lateBody)")
        #expect(try await rowCount(server) == 4)
    }

    @Test func anotherUsersRowsCannotBeWrittenOrReferred() async throws {
        let server = try await RunningSyncServer.start()
        try await hello(server, client: "alice-1")
        let (created, _) = try await push(server, client: "alice-1", changes: trip("alices-trip"))
        #expect(created == 200)

        try await hello(server, client: "bob-1", token: "token-b")
        let (overwrite, message) = try await push(server, client: "bob-1", changes: trip("alices-trip", name: "{\"text\": \"Bob was here\"}"), token: "token-b")
        #expect(overwrite == 400)
        #expect(message.contains("another user"))
        let stop = "{\"entity\": \"Stop\", \"id\": \"s1\", \"deleted\": false, \"values\": {\"trip\": {\"ref\": \"alices-trip\"}}, \"clocks\": {\"trip\": {\"t\": 1, \"c\": 0, \"n\": \"c1\"}}}"
        let (refer, _) = try await push(server, client: "bob-1", changes: stop, token: "token-b")
        #expect(refer == 400)
        // Bob cannot push as Alice's client either.
        let (impersonate, _) = try await push(server, client: "alice-1", sequence: 2, changes: trip("b2"), token: "token-b")
        #expect(impersonate == 400)
        #expect(try await rowCount(server, token: "token-b") == 0)
    }

    @Test func anOversizedBatchIsRefused() async throws {
        let server = try await RunningSyncServer.start()
        try await hello(server, client: "c1")
        let changes = (0..<10_001).map { trip("t\($0)") }.joined(separator: ", ")
        let (status, message) = try await push(server, client: "c1", changes: changes)
        #expect(status == 400)
        #expect(message.contains("at most"))
    }

    @Test func aBatchSentTwiceIsAppliedOnce() async throws {
        let server = try await RunningSyncServer.start()
        try await hello(server, client: "c1")
        let (first, _) = try await push(server, client: "c1", sequence: 5, changes: trip("t1"))
        #expect(first == 200)
        // The same sequence with other content (a retry after a lost answer) changes nothing.
        let (again, _) = try await push(server, client: "c1", sequence: 5, changes: trip("t2"))
        #expect(again == 200)
        #expect(try await rowCount(server) == 1)
    }

    /// A batch sent again after its answer was lost, whose model another device deleted since and
    /// whose deletion the server trimmed: the answer tells of the deletion, so that the model does
    /// not live on on the device that sent it.
    @Test func aBatchSentAgainAfterItsModelWasDeletedAndTrimmedIsAnsweredWithTheDeletion() async throws {
        let server = try await RunningSyncServer.start()
        try await twoClientsAfterAPushOfT1(server)
        let update = String(trip("t1", name: "{\"text\": \"Porto\"}").replacingOccurrences(of: "\"t\": 1,", with: "\"t\": 2,").dropLast())
            + ", \"isNew\": false}"
        #expect(try await push(server, client: "c1", sequence: 2, changes: update).0 == 200)
        try await deleteOnAnotherClientAndTrim(server, "t1")

        let (status, body) = try await push(server, client: "c1", sequence: 2, changes: update)
        #expect(status == 200)
        let corrections = try #require(try answer(body)["corrections"] as? [[String: Any]])
        #expect(corrections.count == 1)
        #expect(corrections.first?["id"] as? String == "t1")
        #expect(corrections.first?["deleted"] as? Bool == true)
    }

    /// A batch sent again after its answer was lost, whose new model another device deleted since
    /// and whose deletion the server trimmed: the answer tells of the deletion, so that the model
    /// does not live on on the device that made it.
    @Test func aBatchSentAgainAfterItsNewModelWasDeletedAndTrimmedIsAnsweredWithTheDeletion() async throws {
        let server = try await RunningSyncServer.start()
        try await twoClientsAfterAPushOfT1(server)
        try await deleteOnAnotherClientAndTrim(server, "t1")

        let (status, body) = try await push(server, client: "c1", sequence: 1, changes: trip("t1"))
        #expect(status == 200)
        let corrections = try #require(try answer(body)["corrections"] as? [[String: Any]])
        #expect(corrections.map { $0["id"] as? String } == ["t1"], "\(body)")
        #expect(corrections.first?["deleted"] as? Bool == true)
        #expect(try await rowCount(server) == 0)
    }

    /// A new model in a later batch that covers more than the one the server applied (its answer
    /// lost), whose model another device deleted since and whose deletion the server trimmed: the
    /// change names the batch that made the model, which the server applied, so the answer tells
    /// of the deletion rather than the model being made again. A model new in the later batch is
    /// made.
    @Test func aNewModelSentAgainInALaterBatchAfterItWasDeletedAndTrimmedIsAnsweredWithTheDeletion() async throws {
        let server = try await RunningSyncServer.start()
        try await hello(server, client: "c1")
        try await hello(server, client: "c2")
        let made = String(trip("t1").dropLast()) + ", \"isNew\": true, \"insertedIn\": 1}"
        #expect(try await push(server, client: "c1", sequence: 1, changes: made).0 == 200)
        try await deleteOnAnotherClientAndTrim(server, "t1")

        let later = String(trip("t2", name: "{\"text\": \"Porto\"}").dropLast()) + ", \"isNew\": true, \"insertedIn\": 3}"
        let (status, body) = try await push(server, client: "c1", sequence: 3, changes: made + ", " + later)
        #expect(status == 200)
        let corrections = try #require(try answer(body)["corrections"] as? [[String: Any]])
        #expect(corrections.map { $0["id"] as? String } == ["t1"], "\(body)")
        #expect(corrections.first?["deleted"] as? Bool == true)
        // Only t2 is held: t1 was not made again.
        #expect(try await rowCount(server) == 1)
    }

    /// A new model the rules refuse, in a batch sent again after its answer was lost: the answer
    /// repeats the refusal and the deletion, so that the model does not live on on its device.
    @Test func aRefusedNewModelSentAgainIsRefusedAgain() async throws {
        let server = try await RunningSyncServer.start(rules: TripRules())
        try await hello(server, client: "c1")
        let forbidden = trip("t1", name: "{\"text\": \"Forbidden\"}")
        for attempt in 1...2 {
            let (status, body) = try await push(server, client: "c1", sequence: 1, changes: forbidden)
            #expect(status == 200)
            let reply = try answer(body)
            let refusals = try #require(reply["refusals"] as? [[String: Any]], "attempt \(attempt): \(body)")
            #expect(refusals.map { $0["reason"] as? String } == ["no trip is named Forbidden"])
            let corrections = try #require(reply["corrections"] as? [[String: Any]])
            #expect(corrections.map { $0["id"] as? String } == ["t1"], "attempt \(attempt): \(body)")
            #expect(corrections.first?["deleted"] as? Bool == true)
        }
        #expect(try await rowCount(server) == 0)
    }

    @Test func aClientWhoseModelsTheServerLacksGetsASchemaError() async throws {
        let server = try await RunningSyncServer.start()
        var schema = SyncSchema(StoredSchema(Schema(syncModels)))
        schema.version = "2.0.0"
        schema.entities[0].properties.append(SyncSchema.Property(name: "rating", kind: "integer", destination: nil, isOptional: true))
        let text = String(decoding: try JSONEncoder().encode(schema), as: UTF8.self)
        let (status, message) = try await send(server, "POST", "/v1/hello", body: "{\"client\": \"c9\", \"schema\": \(text)}")
        #expect(status == 409)
        #expect(message.contains("2.0.0"))
        #expect(message.contains("1.0.0"))
        #expect(message.contains("rating"))
    }

    /// A client whose model lacks a property the server requires in every new model would make
    /// models no other device can: its hello is refused, naming both versions and the property.
    @Test func aClientLackingAPropertyTheServerRequiresGetsASchemaError() async throws {
        let server = try await RunningSyncServer.start()
        var schema = SyncSchema(StoredSchema(Schema(syncModels)))
        schema.version = "0.9.0"
        let trip = try #require(schema.entities.firstIndex { $0.name == "Trip" })
        let served = SyncSchema(StoredSchema(Schema(syncModels))).entities[trip].properties
        #expect(served.first { $0.name == "price" }?.requiresValue == true)
        #expect(served.first { $0.name == "cost" }?.requiresValue == false)
        #expect(served.first { $0.name == "notes" }?.requiresValue == false)
        // Leaving out a defaulted property is fine; leaving out a required one is not.
        schema.entities[trip].properties.removeAll { $0.name == "cost" }
        let fine = String(decoding: try JSONEncoder().encode(schema), as: UTF8.self)
        #expect(try await send(server, "POST", "/v1/hello", body: "{\"client\": \"c8\", \"schema\": \(fine)}").0 == 200)
        schema.entities[trip].properties.removeAll { $0.name == "price" }
        let text = String(decoding: try JSONEncoder().encode(schema), as: UTF8.self)
        let (status, message) = try await send(server, "POST", "/v1/hello", body: "{\"client\": \"c9\", \"schema\": \(text)}")
        #expect(status == 409)
        #expect(message.contains("0.9.0"))
        #expect(message.contains("1.0.0"))
        #expect(message.contains("Trip.price"))
    }
}
