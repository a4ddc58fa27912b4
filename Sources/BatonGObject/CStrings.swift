/// The strings of a `NULL`-terminated C array of C strings (a `const char *const *`).
func strings(_ array: UnsafePointer<UnsafePointer<CChar>?>) -> [String] {
    var result: [String] = []
    var index = 0
    while let string = array[index] {
        result.append(String(cString: string))
        index += 1
    }
    return result
}
