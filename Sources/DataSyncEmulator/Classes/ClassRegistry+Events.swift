/// How real-time events apply a class's projections (Documentation/Emulator.md, "Real-time events").
extension ClassRegistry {
    /// The projections declared for objects of `key` at `version`: the version's own, then each
    /// ancestor's at its latest version; a name declared twice keeps the first declaration's
    /// place and gains the other's pointers.
    func declaredProjections(_ kind: ClassKind, _ key: ClassKey, version: Int?) -> [ProjectionDefinition] {
        var result: [ProjectionDefinition] = []
        var current: ClassKey? = key
        var requested = version
        var steps = 0
        while let candidate = current, let definition = classes(kind)[candidate], steps < 64 {
            let chosen = requested.flatMap(definition.version) ?? definition.version(definition.latestVersion)
            for projection in chosen?.projections ?? [] {
                if let index = result.firstIndex(where: { $0.name == projection.name }) {
                    for pointer in projection.pointers where !result[index].pointers.contains(pointer) {
                        result[index].pointers.append(pointer)
                    }
                } else {
                    result.append(projection)
                }
            }
            requested = nil
            current = definition.parent
            steps += 1
        }
        return result
    }

    /// The projections an event for an object of `key` at `version` is published under,
    /// `__default__` first, or nil when the class declares no properties or no projections (one
    /// unfiltered event then).
    ///
    /// - A named projection carries the pointers it lists.
    /// - `__default__` carries the pointers of an explicit `__default__` projection, or, when the
    ///   class declares none, every declared property not listed by a named projection.
    /// - `/status` when the class declares it nowhere (no property, no projection) falls back to
    ///   `__default__`.
    func eventProjections(_ kind: ClassKind, _ key: ClassKey, version: Int?) -> [ChangeEvent.Projection]? {
        let properties = self.properties(kind, key, version: version)
        let declared = declaredProjections(kind, key, version: version)
        guard !properties.isEmpty, !declared.isEmpty else { return nil }
        let defaultName = ChangeEvent.Projection.defaultName
        let named = declared.filter { $0.name != defaultName }
        var defaultPointers: [String]
        if let explicit = declared.first(where: { $0.name == defaultName }) {
            defaultPointers = explicit.pointers
        } else {
            let tagged = Set(named.flatMap(\.pointers))
            defaultPointers = properties.values.map(\.pointer).filter { !tagged.contains($0) }.sorted()
        }
        let statusDeclared =
            properties.values.contains { $0.pointer == "/status" }
            || declared.contains { $0.pointers.contains("/status") }
        if !statusDeclared { defaultPointers.append("/status") }
        return [ChangeEvent.Projection(name: defaultName, pointers: defaultPointers)]
            + named.map { ChangeEvent.Projection(name: $0.name, pointers: $0.pointers) }
    }
}
