import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A process that meets storage faults on purpose, each its own: a full disk (`diskfull`: a
// file-size limit), and I/O calls that fail (`ioerror`: a SQLite VFS that fails the n-th read,
// write, sync, truncation or shared-memory mapping). It prints one line per check and exits 1
// when a check fails. The tests run it; its faults are its own.
//
//   FaultProbe FOLDER diskfull|ioerror

nonisolated(unsafe) var failures: [String] = []   // one thread
func check(_ condition: Bool, _ message: String) {
    print("\(condition ? "ok" : "FAILED"): \(message)")
    if !condition { failures.append(message) }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, ["diskfull", "ioerror"].contains(arguments[2]) else {
    print("usage: FaultProbe FOLDER diskfull|ioerror")
    exit(2)
}
let folder = URL(fileURLWithPath: arguments[1])
do {
    if arguments[2] == "diskfull" {
        try runDiskFullChecks(in: folder)
    } else {
        try runIOErrorChecks(in: folder)
    }
} catch {
    print("FAILED: \(error)")
    exit(1)
}
exit(failures.isEmpty ? 0 : 1)
