import ArgumentParser

/// The `constant-color` command line.
@main
struct ConstantColorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "constant-color",
        abstract: "Ambient-independent colors from a flash / no-flash pair of linear TIFFs.",
        subcommands: [])
}
