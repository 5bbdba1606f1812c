/// The smallest or largest value of a `Double`, text or `Decimal` column, as Swift orders the
/// values the column holds: `MIN` or `MAX` over the values of the attribute's own type, with two
/// counts that say when the context must look at the values itself.
///
/// A `Double` NaN is stored as an 8-byte BLOB, which SQLite orders after every number: it is left
/// out, as `Double.minimum(_:_:)` leaves it out, and an extreme of NaNs alone is left to the
/// context. Text compares with the `OSD` collation (Swift's `<`; of equal values SQLite's `MIN` and
/// `MAX` keep the first, as the context does); `Decimal`s by their order-preserving bytes. A value
/// of another type (text another program wrote into a `Double` column) is left to the context,
/// whose read names the model and property.
struct ExtremeColumn {
    /// The quoted column.
    let column: String
    /// The condition of the values the extreme compares.
    let ordered: String
    /// The condition of every value the attribute's type reads.
    let readable: String
    /// The collation the extreme compares with, if not the column's own.
    let collation: String

    init?(column: String, storage: StorageClass) {
        self.column = column
        switch storage {
        case .real:
            ordered = "typeof(\(column)) IN ('real', 'integer')"
            readable = "\(ordered) OR (typeof(\(column)) = 'blob' AND length(\(column)) = 8)"
            collation = ""
        case .text:
            ordered = "typeof(\(column)) = 'text'"
            readable = ordered
            collation = " COLLATE \(SwiftSemantics.collationName)"
        case .decimal:
            ordered = "typeof(\(column)) = 'blob'"
            readable = ordered
            collation = ""
        default:
            return nil
        }
    }

    /// The selected columns: the extreme, the number of values the type cannot read, the number
    /// of values.
    func select(_ function: String) -> String {
        "\(function)(\(column)\(collation)) FILTER (WHERE \(ordered)), count(\(column)) FILTER (WHERE NOT (\(readable))), count(\(column))"
    }

    /// How many columns ``select(_:)`` selects.
    static let width: Int32 = 3

    /// Whether the columns of ``select(_:)``, from `first` on, give the extreme: every value is of
    /// the type, and an extreme is NULL only when there was no value.
    func isComplete(_ row: some _RowReader, from first: Int32) -> Bool {
        row._int64(first + 1) == 0 && (!row._isNull(first) || row._int64(first + 2) == 0)
    }
}
