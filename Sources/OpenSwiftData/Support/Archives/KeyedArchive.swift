/// An `NSKeyedArchiver` archive read as the graph it is: objects that refer to each other by
/// number (`CF$UID`), each with the name of its class. No class is instantiated; callers read the
/// fields they know (Core Data's model cache, ``AppleModel``).
package struct KeyedArchive {
    /// Why an archive could not be read.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    private let objects: [PropertyListValue]
    /// The archive's root object.
    package let root: Int

    /// Reads the archive a binary property list holds.
    package init(_ list: PropertyListValue) throws(Failure) {
        guard list["$archiver"]?.string == "NSKeyedArchiver", let objects = list["$objects"]?.array else {
            throw Failure(description: "not an NSKeyedArchiver archive")
        }
        guard let root = list["$top"]?["root"]?.uid, root > 0, root < objects.count else { throw Failure(description: "an archive without a root object") }
        self.objects = objects
        self.root = root
    }

    /// The object a reference names, or `nil` for `$null` and references outside the archive.
    package func object(_ reference: Int) -> PropertyListValue? {
        guard reference > 0, reference < objects.count else { return nil }
        return objects[reference]
    }

    /// The class name of an object.
    package func className(of reference: Int) -> String? {
        guard let type = object(reference)?["$class"]?.uid else { return nil }
        return object(type)?["$classname"]?.string
    }

    /// The reference an object holds under `key`, when it holds one.
    package func reference(_ key: String, of reference: Int) -> Int? {
        object(reference)?[key]?.uid
    }

    /// The value an object holds under `key`: a referenced object resolved, a plain value as it is.
    package func value(_ key: String, of reference: Int) -> PropertyListValue? {
        guard let value = object(reference)?[key] else { return nil }
        if case .uid(let target) = value { return object(target) }
        return value
    }

    /// The text an object holds under `key` (an `NSString` object, or text inline).
    package func string(_ key: String, of reference: Int) -> String? {
        guard let value = value(key, of: reference) else { return nil }
        return value.string ?? value["NS.string"]?.string
    }

    /// The elements of an `NSArray` or `NSSet` object, as references.
    package func elements(of reference: Int?) -> [Int] {
        guard let reference, let items = object(reference)?["NS.objects"]?.array else { return [] }
        return items.compactMap(\.uid)
    }

    /// The arrays and sets an object refers to under any of its keys, as references, in key order.
    package func referencedArrays(of reference: Int) -> [Int] {
        guard case .dictionary(let fields)? = object(reference) else { return [] }
        return fields.sorted { $0.key < $1.key }.compactMap { _, value in
            guard let target = value.uid, object(target)?["NS.objects"]?.array != nil, object(target)?["NS.keys"] == nil else { return nil }
            return target
        }
    }

    /// The entries of an `NSDictionary` object, as references to keys and values.
    package func entries(of reference: Int?) -> [(key: Int, value: Int)] {
        guard let reference, let keys = object(reference)?["NS.keys"]?.array, let values = object(reference)?["NS.objects"]?.array,
              keys.count == values.count
        else { return [] }
        return zip(keys, values).compactMap { key, value in key.uid.flatMap { k in value.uid.map { (k, $0) } } }
    }

    /// The text of a string object.
    package func text(_ reference: Int) -> String? {
        guard let value = object(reference) else { return nil }
        return value.string ?? value["NS.string"]?.string
    }
}
