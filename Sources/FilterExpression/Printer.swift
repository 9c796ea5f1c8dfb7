/// Prints a ``FilterNode`` as canonical expression text.
///
/// The canonical form: one space around binary operators, operators in their symbolic spelling
/// (`&&`, `||`, `!`, upper-case `LIKE`/`SLIKE`/`ILIKE`), literals lower-case (`true`, `false`,
/// `null`), strings in double quotes, and parentheses only where the tree needs them. `!` always
/// wraps its operand in parentheses: `!(status == "discontinued")`.
///
/// For every tree the parser produces, and every tree built with ``Filter`` whose property names
/// are valid, `FilterParser().parse(FilterPrinter.print(tree)).root == tree`.
public enum FilterPrinter {
    /// The canonical text of `node`.
    public static func print(_ node: FilterNode) -> String {
        var output = ""
        write(node, into: &output)
        return output
    }

    /// The canonical text of one value: strings quoted and escaped, numbers in a form that parses
    /// back to the same kind and value.
    public static func format(_ value: FilterValue) -> String {
        switch value {
        case .string(let text): return quote(text)
        case .int(let number): return String(number)
        case .double(let number):
            // Swift's description is the shortest text that round-trips and always has a '.' or
            // an exponent, so it parses back as a double. Non-finite values have no literal form:
            // `inf`/`nan` are printed as is so the text fails loudly instead of changing meaning.
            return number.description
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        }
    }

    /// Quotes `text` as a double-quoted string literal that the tokenizer decodes back to `text`.
    ///
    /// `"` and `\` are escaped, except that a backslash directly before `*` is written as is (the
    /// tokenizer keeps `\*` as two characters, so it means the same thing); control characters use
    /// `\n`, `\r`, `\t` or `\uXXXX`.
    public static func quote(_ text: String) -> String {
        var output = "\""
        var scalars = text.unicodeScalars.makeIterator()
        var pending = scalars.next()
        while let scalar = pending {
            pending = scalars.next()
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += pending == "*" ? "\\" : "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        return output + "\""
    }

    private static func write(_ node: FilterNode, into output: inout String) {
        switch node {
        case .condition(let condition):
            output += condition.property
            output += " "
            output += condition.op.symbol
            output += " "
            output += format(condition.value)
        case .and(let operands):
            // Any group inside `&&` came from parentheses: `||` binds looser, and a nested `&&`
            // would otherwise merge into this chain.
            writeGroup(operands, separator: " && ", into: &output) { operand in
                switch operand {
                case .and, .or: return true
                case .condition, .not: return false
                }
            }
        case .or(let operands):
            writeGroup(operands, separator: " || ", into: &output) { operand in
                if case .or = operand { return true }
                return false
            }
        case .not(let operand):
            output += "!("
            write(operand, into: &output)
            output += ")"
        }
    }

    private static func writeGroup(
        _ operands: [FilterNode], separator: String, into output: inout String,
        needsParentheses: (FilterNode) -> Bool
    ) {
        for (index, operand) in operands.enumerated() {
            if index > 0 { output += separator }
            if needsParentheses(operand) {
                output += "("
                write(operand, into: &output)
                output += ")"
            } else {
                write(operand, into: &output)
            }
        }
    }
}
