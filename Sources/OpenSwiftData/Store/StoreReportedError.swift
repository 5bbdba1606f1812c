/// An error a store raises itself while it takes a row's values (a full disk, a value the store
/// refuses), as opposed to an error a model's value raises while it is encoded: property encoding
/// passes it on unchanged instead of reporting it as the property's validation failure.
package protocol StoreReportedError: Error {}
