import DataSyncTestSupport
import JSONCore
import JSONPatch

/// Random JSON documents and random edits of them, biased towards the shapes patches deal with:
/// few distinct keys (so members collide), keys that need escaping, equal numbers of both kinds.
struct RandomDocuments {
    var generator: SeededRandomNumberGenerator

    static let keys = ["a", "b", "c", "", "d/e", "f~g", "~1", "0", "-", "user.name"]

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }

    mutating func chance(_ percent: Int) -> Bool { int(1...100) <= percent }

    mutating func key() -> String { Self.keys[int(0...(Self.keys.count - 1))] }

    mutating func scalar() -> JSONValue {
        switch int(0...7) {
        case 0: return .null
        case 1: return .bool(chance(50))
        case 2: return .int(Int64(int(-3...3)))
        case 3: return .double(Double(int(-3...3)))  // equal to an .int by JSON equality
        case 4: return .double(Double(int(-100...100)) / 8)
        case 5: return .string(["x", "y", "", "1"][int(0...3)])
        case 6: return .int(Int64(int(0...1_000_000)))
        default: return .string(String(int(0...50)))
        }
    }

    mutating func value(depth: Int) -> JSONValue {
        if depth <= 0 || chance(35) { return scalar() }
        if chance(50) {
            return .array((0..<int(0...5)).map { _ in value(depth: depth - 1) })
        }
        var members: [String: JSONValue] = [:]
        for _ in 0..<int(0...5) { members[key()] = value(depth: depth - 1) }
        return .object(members)
    }

    /// `value` with a few random edits applied somewhere inside it.
    mutating func edited(_ value: JSONValue, depth: Int = 0) -> JSONValue {
        if depth > 4 || chance(10) { return self.value(depth: 3) }
        switch value {
        case .object(var members):
            for _ in 0..<int(1...2) {
                let key = key()
                switch int(0...3) {
                case 0: members[key] = nil
                case 1: members[key] = self.value(depth: 2)
                default:
                    if let child = members[key] { members[key] = edited(child, depth: depth + 1) }
                }
            }
            return .object(members)
        case .array(var elements):
            switch int(0...6) {
            case 0: elements.append(self.value(depth: 2))
            case 1: if !elements.isEmpty { elements.removeLast() }
            case 2: if !elements.isEmpty { elements.removeFirst() }
            case 3: elements.insert(self.value(depth: 2), at: int(0...elements.count))
            case 4: if !elements.isEmpty { elements.remove(at: int(0...(elements.count - 1))) }
            case 5: elements.shuffle(using: &generator)
            default:
                if !elements.isEmpty {
                    let index = int(0...(elements.count - 1))
                    elements[index] = edited(elements[index], depth: depth + 1)
                }
            }
            return .array(elements)
        default:
            return chance(50) ? scalar() : self.value(depth: 2)
        }
    }

    /// Pointers to values that exist in `value`, plus a few that do not.
    mutating func pointer(in value: JSONValue) -> JSONPointer {
        var tokens: [String] = []
        var current = value
        while chance(70) {
            switch current {
            case .object(let members):
                guard let key = members.keys.sorted().randomElement(using: &generator) else { break }
                tokens.append(key)
                current = members[key] ?? .null
                continue
            case .array(let elements):
                guard !elements.isEmpty else { break }
                let index = int(0...(elements.count - 1))
                tokens.append(String(index))
                current = elements[index]
                continue
            default:
                break
            }
            break
        }
        if chance(15) { tokens.append(chance(50) ? key() : String(int(0...6))) }
        return JSONPointer(tokens: tokens)
    }

    /// A random operation on `value`; it may or may not apply.
    mutating func operation(on value: JSONValue) -> PatchOperation {
        let path = pointer(in: value).description
        switch int(0...5) {
        case 0: return .add(path: chance(20) ? path + "/-" : path, value: self.value(depth: 2))
        case 1: return .remove(path: path)
        case 2: return .replace(path: path, value: self.value(depth: 2))
        case 3: return .move(from: pointer(in: value).description, path: path)
        case 4: return .copy(from: pointer(in: value).description, path: path)
        default: return .test(path: path, value: chance(50) ? (JSONPointer.root.value(in: value) ?? .null) : scalar())
        }
    }
}
