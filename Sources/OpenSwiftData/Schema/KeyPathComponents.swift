/// Takes a key path apart into the properties it reads, for chains through a relationship such as
/// `\Activity.trip?.name`, which Swift offers no way to decompose.
///
/// Swift does not expose key path components; their description does, naming each property's
/// accessor by address (`\Activity.<computed 0x… (Optional<Trip>)>?.<computed 0x… (String)>`), the
/// same address as in the key path `@Model` generated for that property. When the description has
/// another form, the answer is `nil` and the caller sorts in Swift instead: never a wrong result,
/// only a slower one.
enum KeyPathComponents {
    /// One property a key path reads, by the identity of its accessor.
    struct Component: Hashable {
        let accessor: String
    }

    /// The properties `keyPath` reads, in order, or `nil` if they cannot be told apart.
    static func components(of keyPath: AnyKeyPath) -> [Component]? {
        // `debugDescription` is what interpolation prints, without the dynamic casts to
        // `TextOutputStreamable` and `CustomStringConvertible` it tries first: each a miss of the
        // conformance cache for a new key path type, which scans every conformance in the binary.
        parse(keyPath.debugDescription)
    }

    private static func parse(_ description: String) -> [Component]? {
        // `\Root.<computed 0xADDR (Type)>?.<computed 0xADDR (Type)>`
        var components: [Component] = []
        var rest = Substring(description)
        while let start = rest.range(of: "<computed ") {
            guard let end = rest[start.upperBound...].firstIndex(of: " ") else { return nil }
            let accessor = String(rest[start.upperBound..<end])
            guard accessor.hasPrefix("0x") else { return nil }
            components.append(Component(accessor: accessor))
            guard let close = rest[end...].firstIndex(of: ">") else { return nil }
            rest = rest[rest.index(after: close)...]
        }
        return components.isEmpty ? nil : components
    }
}
