import Foundation
import Testing

@Suite("osd inspect, schema, verify")
struct InspectTests {
    @Test("inspect lists models, attributes, relationships and row counts")
    func inspectText() throws {
        let directory = try TemporaryDirectory()
        let store = directory.path("trips.store")
        try ToolFixtures.makeStore(at: store)
        let result = try OSDTool.run("inspect", store)
        #expect(result.status == 0, "\(result.error)")
        print(result.output)
        #expect(result.output.contains("Voyage — 5 rows"))
        #expect(result.output.contains("Stop — 10 rows"))
        #expect(result.output.contains("stops: [Stop]  (delete rule cascade, inverse voyage"))
    }
}
