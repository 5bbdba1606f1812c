/// The plugin's entry point. The compiler runs it with no arguments and speaks the compiler-plugin
/// protocol over standard input and output; `--expand` prints instead what the macros make of the
/// Swift source on standard input (``ExpansionPrinter``), which the macro tests read.
@main
enum PluginEntry {
    static func main() throws {
        let arguments = CommandLine.arguments.dropFirst()
        if arguments.first == "--expand" {
            ExpansionPrinter(options: Array(arguments.dropFirst())).run()
        } else {
            try OpenSwiftDataMacrosPlugin.main()
        }
    }
}
