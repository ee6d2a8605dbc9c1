// ThreadSafe.swift — @ThreadSafe: a property that holds an object or collection across threads,
// as in Realm Swift.

import Foundation

/// A property wrapper that holds a thread-confined value (an object, results, a list, ...) so
/// that any thread can read it: each read resolves it in a Realm of the reading thread, with the
/// configuration of the Realm it came from (Realm's `@ThreadSafe`). Reads nil once the object is
/// deleted.
///
///     final class Worker {
///         @ThreadSafe var dog: Dog?
///     }
///     worker.dog = rex
///     DispatchQueue.global().async { print(worker.dog?.name ?? "gone") }
@propertyWrapper
public final class ThreadSafe<T: ThreadConfined> {
    private let lock = NSLock()
    private var reference: ThreadSafeReference<T>?
    private var configuration: Realm.Configuration?

    /// The value, resolved in a Realm of the calling thread; nil if none was set, or the object
    /// was deleted since. Setting a managed value keeps a reference to it; an unmanaged one stops
    /// with Realm's message.
    public var wrappedValue: T? {
        get {
            lock.lock()
            defer { lock.unlock() }
            guard let reference, let configuration else { return nil }
            let realm: Realm
            do {
                realm = try Realm(configuration: configuration)
            } catch {
                throwRealmException("Cannot resolve the value of a @ThreadSafe property: \(error)")
            }
            guard let value = realm.resolve(reference) else {
                self.reference = nil
                return nil
            }
            // A reference resolves once: keep one to the value just read.
            self.reference = ThreadSafeReference(to: value)
            return value
        }
        set {
            lock.lock()
            defer { lock.unlock() }
            guard let newValue else {
                reference = nil
                configuration = nil
                return
            }
            if newValue.isInvalidated { throwRealmException("Cannot construct reference to invalidated object") }
            guard let realm = newValue.realm else {
                throwRealmException("Cannot construct reference to unmanaged object, which can be passed across threads directly")
            }
            configuration = realm.configuration
            reference = ThreadSafeReference(to: newValue)
        }
    }

    /// A property holding `wrappedValue` (nil for none).
    ///
    ///     @ThreadSafe var dogs = realm.objects(Dog.self)
    public init(wrappedValue: T?) {
        self.wrappedValue = wrappedValue
    }
}

extension ThreadSafe: @unchecked Sendable {}
