import SwiftSyntaxMacros

/// A macro whose code is written already laid out, which the plugin hands to the compiler as
/// written.
///
/// With swift-syntax's default (`FormatMode.auto`) the plugin lays out every token of every
/// expansion again, which took more than half of its time on a model class, and the plugin's time
/// was about half of the compiler's on a file of models.
protocol LaidOutMacro: Macro {}

extension LaidOutMacro {
    /// The expansion is passed on as written.
    public static var formatMode: FormatMode { .disabled }
}

extension ModelMacro: LaidOutMacro {}
extension PersistedPropertyMacro: LaidOutMacro {}
extension ModelActorMacro: LaidOutMacro {}
extension MarkerMacro: LaidOutMacro {}
extension UniqueMacro: LaidOutMacro {}
extension IndexMacro: LaidOutMacro {}
