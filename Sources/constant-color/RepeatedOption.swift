/// Options given more than once. ArgumentParser keeps the last value of a single-valued option
/// without a word: `fuse -o a.tif -o b.tif` wrote only b.tif, `--camera sigma.json --camera
/// nikon.json` fused with the Nikon's, and `--colorimetric-uncertainty --no-colorimetric-uncertainty`
/// was taken as the latter (a probe, session 50). Every option of this tool takes one value or is
/// one flag, but `synth --light` (`repeatable`); the rest are refused when repeated, as the JSON
/// reader refuses duplicate keys.
enum RepeatedOption {
    /// Options that may be given more than once.
    static let repeatable: Set<String> = ["--light"]
    /// Names of one option: a short name or a second long name, and its long name.
    static let aliases: [String: String] = ["-o": "--output", "--capture-exposure": "--exposure"]

    /// The first option of `arguments` (the command line without the program's name) given a second
    /// time — `--name=value` and `--name value` alike, `--no-x` as `--x` — with the spelling it had
    /// the second time; nil when none is. Arguments after `--` are not options.
    static func first(in arguments: [String]) -> String? {
        var seen = Set<String>()
        for argument in arguments {
            if argument == "--" { break }
            guard argument.hasPrefix("-"), argument.count > 1, !argument.dropFirst().allSatisfy({ $0.isNumber || $0 == "." || $0 == "e" }) else {
                continue
            }
            var name = String(argument.split(separator: "=", maxSplits: 1)[0])
            name = aliases[name] ?? name
            if name.hasPrefix("--no-") { name = "--" + name.dropFirst(5) }
            guard name.hasPrefix("--"), !repeatable.contains(name), !["--help", "--version"].contains(name) else { continue }
            if !seen.insert(name).inserted { return argument.split(separator: "=", maxSplits: 1).map(String.init)[0] }
        }
        return nil
    }
}
