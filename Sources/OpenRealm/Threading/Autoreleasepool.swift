// Autoreleasepool.swift — `autoreleasepool(invoking:)` where the Objective-C runtime, which
// declares it, is absent, so that Realm Swift code that wraps Realm work in it compiles.

#if !canImport(ObjectiveC)
/// Runs `body` and returns its result, as the Objective-C runtime's `autoreleasepool(invoking:)`
/// does on Apple platforms. Realm Swift's documentation wraps the Realms a background thread opens
/// in an autorelease pool so that they close when the pool drains; without Objective-C there is
/// no autorelease, and a Realm (like every object) is released when its last reference goes, so
/// the pool is the block itself. Defined only where the Objective-C runtime is absent.
///
///     DispatchQueue.global().async {
///         autoreleasepool {
///             let realm = try! Realm()
///             try! realm.write { realm.add(Dog()) }
///         }   // the Realm is closed here
///     }
@inlinable
public func autoreleasepool<Result>(invoking body: () throws -> Result) rethrows -> Result {
    try body()
}
#endif
