// The `SwiftData` module on platforms without Apple's framework (Linux, Windows): OpenSwiftData
// under SwiftData's own name, so that `import SwiftData`, `SwiftData.ModelContainer` and
// `#if canImport(SwiftData)` in unchanged SwiftData code compile and run. On Apple platforms the
// package does not offer this product, and `import SwiftData` keeps meaning Apple's framework.

@_exported import OpenSwiftData
