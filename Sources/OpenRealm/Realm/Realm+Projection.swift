// Realm+Projection.swift — reading projections of a class's objects, as in Realm Swift.

extension Realm {
    /// A projection of every object of the projection's class, as a live `Results` (in
    /// creation order): Realm's `objects(_:)` of a `Projection` type.
    ///
    ///     let people = realm.objects(PersonProjection.self)
    ///     people.first?.dogNames
    public func objects<Root: Object, Element: Projection<Root>>(_ type: Element.Type) -> Results<Element> {
        core.checkThread()
        return Results(core: core, objectClass: Root.self)
    }
}
