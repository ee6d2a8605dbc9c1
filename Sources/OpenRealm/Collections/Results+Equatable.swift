// Results+Equatable.swift — when two Results are equal, as in Realm Swift.

extension Results: Equatable {
    /// Whether two Results are the same results: of the same Realm instance, over the same
    /// class (or collection of values, sorted or distinct the same way), with the same query (the one a filter or sort
    /// made: Results made by two calls are different results, as in Realm).
    ///
    ///     let dogs = realm.objects(Dog.self)
    ///     dogs == realm.objects(Dog.self)   // true
    public static func == (lhs: Results, rhs: Results) -> Bool {
        guard lhs.core === rhs.core else { return false }
        switch (lhs.source, rhs.source) {
        case (.table(let left), .table(let right)): return left == right
        case (.query(let left), .query(let right)): return left === right
        case (.values(let left, let leftSteps), .values(let right, let rightSteps)):
            return left === right && leftSteps == rightSteps
        default: return false
        }
    }
}
