/// Text put into a command that `baton` prints for the person to type: quoted for a POSIX
/// shell when it holds anything but letters, digits and `@%+=:,./_-`, so a name with spaces
/// or quotes still reaches `baton` as one argument.
enum ShellWord {
    static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "@%+=:,./_-".unicodeScalars.contains(scalar))
        }
        if plain { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
