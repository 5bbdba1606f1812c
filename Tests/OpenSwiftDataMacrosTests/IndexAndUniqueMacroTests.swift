import Testing

/// What `#Index` and `#Unique` record, in every form SwiftData accepts, and what they refuse.
@Suite struct IndexAndUniqueMacroTests {
    @Test func indexKindsRecordTheirKeyPathsInOrder() {
        let expansion = Expansion("""
            #Index<Trip>(.binary([\\.name]), .rtree([\\.startDate, \\.endDate]), Schema.Index<Trip>.Types<Trip>.binary([\\Trip.rating]))
            """)
        #expect(expansion.diagnostics.isEmpty)
        #expect(expansion.contains(
            "public static var _osdIndexes: [[Swift.AnyKeyPath]] { [[\\Trip.name], [\\Trip.startDate, \\Trip.endDate], [\\Trip.rating]] }"),
            "\(expansion.source)")
    }

    @Test func arraysOfKeyPathsAreBinaryIndexes() {
        let expansion = Expansion("#Index<Trip>([\\.name], [\\.startDate, \\.endDate])")
        #expect(expansion.diagnostics.isEmpty)
        #expect(expansion.contains("{ [[\\Trip.name], [\\Trip.startDate, \\Trip.endDate]] }"), "\(expansion.source)")
    }

    /// The macro reads source text: an argument it cannot read is an error at compile time, not a
    /// constraint or index silently left out.
    @Test func anArgumentThatIsNotWrittenOutIsRefused() {
        let unique = Expansion("#Unique<Trip>([\\.name], Trip.keys)")
        #expect(unique.diagnostics == [
            "#Unique needs each argument written out as an array literal of key paths, such as '[\\.name]': the macro reads the source, not values",
        ])
        #expect(unique.contains("{ [[\\Trip.name]] }"), "\(unique.source)")
        let index = Expansion("#Index<Trip>(.binary(keys), .hash([\\.name]))")
        #expect(index.diagnostics.count == 2)
        #expect(index.diagnostics.first?.contains("'.binary([\\.name])' or '.rtree([\\.name])'") == true, "\(index.diagnostics)")
        let kindInUnique = Expansion("#Unique<Trip>(.binary([\\.name]))")
        #expect(kindInUnique.diagnostics.count == 1, "#Unique takes no index kinds")
    }
}
