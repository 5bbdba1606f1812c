/// A fetch in store terms: an entity's rows, a filter, an order and a page.
struct StoreFetch {
    let entity: Schema.Entity
    var filter: QueryExpression?
    var sort: [QuerySort] = []
    var limit: Int?
    var offset: Int?
}
