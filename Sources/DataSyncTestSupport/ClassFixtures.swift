package import JSONCore

/// Class definitions (the JSON of the class routes and `--classes` files) for this repository's
/// tests, built from short calls so a test shows what is particular to its class and not forty
/// lines of brackets. Package access: a test helper, not API.
package enum ClassFixtures {
    /// A property at `pointer` (`/payload/<name>` by default) of `type`, with `filtering` when given
    /// (`"full"`, `"simple"`, `"none"`; the service's default when nil).
    package static func property(
        _ name: String, _ type: String, filtering: String? = nil, pointer: String? = nil
    ) -> JSONValue {
        var property: JSONValue = [
            "name": .string(name), "pointer": .string(pointer ?? "/payload/\(name)"), "type": .string(type),
        ]
        if let filtering { property["filtering"] = .string(filtering) }
        return property
    }

    /// Version `number` of a class with `properties` and, when given, `projections` (name and
    /// pointers, in order).
    package static func version(
        _ properties: [JSONValue], number: Int = 1, projections: [(name: String, pointers: [String])] = []
    ) -> JSONValue {
        var version: JSONValue = ["version": .int(Int64(number)), "properties": .array(properties)]
        if !projections.isEmpty {
            version["projections"] = .array(
                projections.map { ["name": .string($0.name), "pointers": .array($0.pointers.map(JSONValue.string))] })
        }
        return version
    }

    /// An entity class definition.
    package static func entityClass(
        _ name: String, extends parent: String? = nil, eventsEnabled: Bool? = nil, versions: [JSONValue]
    ) -> JSONValue {
        var definition: JSONValue = ["name": .string(name), "versions": .array(versions)]
        if let parent { definition["extends"] = .string(parent) }
        if let eventsEnabled { definition["eventsEnabled"] = .bool(eventsEnabled) }
        return definition
    }

    /// A relationship class definition from `entityA` to `entityB`, with one version and no
    /// properties unless `versions` says otherwise.
    package static func relationshipClass(
        _ name: String, from entityA: String, to entityB: String, cardinality: String? = nil,
        eventsEnabled: Bool? = nil, versions: [JSONValue] = [["version": 1]]
    ) -> JSONValue {
        var definition: JSONValue = [
            "name": .string(name), "entityAClass": .string(entityA), "entityBClass": .string(entityB),
            "versions": .array(versions),
        ]
        if let cardinality { definition["cardinality"] = .string(cardinality) }
        if let eventsEnabled { definition["eventsEnabled"] = .bool(eventsEnabled) }
        return definition
    }

    /// `Product` with events on and one number property, `price`, and `Bought` (User to
    /// Product) with events on: what the realtime and live-view end-to-end tests write.
    package static let eventedProduct = entityClass(
        "Product", eventsEnabled: true, versions: [version([property("price", "number")])])
    package static let eventedBought = relationshipClass("Bought", from: "User", to: "Product", eventsEnabled: true)

    /// The `Course` entity class of the access and projection tests: `title`, `score` and
    /// `secret`, with the projections `stats` (score and status) and `admin` (secret and title).
    package static let courseClasses: JSONValue = [
        "entityClasses": [
            entityClass(
                "Course",
                versions: [
                    version(
                        [property("title", "string"), property("score", "number"), property("secret", "string")],
                        projections: [
                            (name: "stats", pointers: ["/payload/score", "/status"]),
                            (name: "admin", pointers: ["/payload/secret", "/payload/title"]),
                        ])
                ])
        ]
    ]
}
