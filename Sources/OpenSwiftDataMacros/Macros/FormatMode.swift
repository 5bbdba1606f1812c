import SwiftSyntaxMacros

// The macros write their code already laid out, so the plugin hands it to the compiler as written.
// With swift-syntax's default (`FormatMode.auto`) the plugin lays out every token of every
// expansion again, which took more than half of its time on a model class, and the plugin's time
// was about half of the compiler's on a file of models.

extension ModelMacro {
    /// The expansion is passed on as written.
    public static var formatMode: FormatMode { .disabled }
}

extension PersistedPropertyMacro {
    /// The expansion is passed on as written.
    public static var formatMode: FormatMode { .disabled }
}

extension ModelActorMacro {
    /// The expansion is passed on as written.
    public static var formatMode: FormatMode { .disabled }
}

extension MarkerMacro {
    /// The expansion is passed on as written.
    public static var formatMode: FormatMode { .disabled }
}

extension UniqueMacro {
    /// The expansion is passed on as written.
    public static var formatMode: FormatMode { .disabled }
}

extension IndexMacro {
    /// The expansion is passed on as written.
    public static var formatMode: FormatMode { .disabled }
}
