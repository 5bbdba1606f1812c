import Foundation
import Testing

/// `swift run Demo`, the README's first command, runs to its end on the embedded default and
/// prints every step, the last read from the reopened store.
struct DemoTests {
    @Test func theDemoRunsEveryStep() throws {
        let (status, output) = try HelperProcess.run("Demo", [])
        #expect(status == 0, "\(output)")
        for step in ["Inserted 3 trips", "Beyond SwiftData, aggregates", "And batch updates: 1 free activity now costs 5.0",
                     "And predicates combined at run time", "[\"Louvre\", \"Seine cruise\"]", "Reopened the store and found:",
                     "Summer in Paris → Paris, rating 5"] {
            #expect(output.contains(step), "the demo's output lacks \"\(step)\": \(output)")
        }
    }
}
