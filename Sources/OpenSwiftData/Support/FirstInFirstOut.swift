/// A line of elements taken in the order they were added: appends at the end, and takes from the
/// front in constant amortized time (the elements already taken are dropped in batches, not one by
/// one).
struct FirstInFirstOut<Element> {
    private var elements: [Element] = []
    private var start = 0

    /// How many elements wait.
    var count: Int { elements.count - start }

    /// Adds an element at the end of the line.
    mutating func append(_ element: Element) {
        elements.append(element)
    }

    /// Takes the element at the front of the line, or `nil` when none waits.
    mutating func removeFirst() -> Element? {
        guard start < elements.count else { return nil }
        let first = elements[start]
        start += 1
        if start == elements.count || start >= 1_024 {
            elements.removeFirst(start)
            start = 0
        }
        return first
    }
}
