// OptionalProtocol.swift — OptionalProtocol: Optional seen through a protocol, so that generic
// code (and Query's extensions for optional properties) can name the wrapped type.

/// `Optional` seen through a protocol, as Realm Swift's `OptionalProtocol`: a constraint such as
/// `T: OptionalProtocol, T.Wrapped: PersistableEnum` names the type an optional wraps. Only
/// `Optional` conforms.
///
///     func describe<T: OptionalProtocol>(_ value: T) -> String { "\(T.Wrapped.self)?" }
public protocol OptionalProtocol {
    /// The type the optional wraps.
    associatedtype Wrapped
    /// The optional itself.
    var _rlmOptional: Wrapped? { get }
}

extension Optional: OptionalProtocol {
    /// The optional itself.
    public var _rlmOptional: Wrapped? { self }
}
