// CValue.swift — how Swift values cross the C boundary: _CArena (bytes kept alive for a C call),
// ce_value helpers, and unwrapping optionals boxed in Any.

import CEngine
import Foundation

// MARK: - Owned bytes for the duration of a C call

/// Keeps copies of strings and binaries alive while a C call reads the `ce_value`s that point
/// at them. Internal machinery of OpenRealm; not for use by applications.
///
/// Its bytes are freed when it is released, and an optimised build may release a local as soon
/// as its last Swift use (making a value) has run: a local arena is kept past the C calls that
/// read its values with `defer { withExtendedLifetime(arena) {} }` (a borrowed one is, by the
/// `defer { core.returnArena(arena) }` that gives it back).
public final class _CArena {
    /// Chunks of bytes handed out front to back; the first one is kept by `reset()`.
    @exclusivity(unchecked) private var chunks: [UnsafeMutableRawPointer] = []
    /// The last chunk (the one being filled), nil before the first copy.
    @exclusivity(unchecked) private var current: UnsafeMutableRawPointer?
    @exclusivity(unchecked) private var used = 0
    @exclusivity(unchecked) private var capacity = 0
    /// Whether there is more than the first chunk (`reset()` frees the others).
    @exclusivity(unchecked) private var hasMoreChunks = false

    private static let chunkSize = 4096

    init() {}

    deinit {
        for chunk in chunks { chunk.deallocate() }
    }

    /// A copy of `bytes` that lives until the arena is reset or released.
    @inline(__always)
    func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawPointer? {
        guard bytes.count > 0, let base = bytes.baseAddress else { return nil }
        // `capacity` is 0 before the first chunk.
        if used + bytes.count > capacity { addChunk(for: bytes.count) }
        let target = current.unsafelyUnwrapped + used
        target.copyMemory(from: base, byteCount: bytes.count)
        used += bytes.count
        return UnsafeRawPointer(target)
    }

    @inline(never)
    private func addChunk(for count: Int) {
        let size = Swift.max(_CArena.chunkSize, count)
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        chunks.append(chunk)
        hasMoreChunks = chunks.count > 1
        current = chunk
        used = 0
        capacity = size
    }

    /// Forgets every copy (the pointers handed out are no longer valid), keeping one chunk.
    @inline(__always)
    func reset() {
        used = 0
        if hasMoreChunks { dropChunks() }
    }

    @inline(never)
    private func dropChunks() {
        for chunk in chunks.dropFirst() { chunk.deallocate() }
        chunks.removeSubrange(1...)
        current = chunks[0]
        capacity = _CArena.chunkSize  // the first chunk holds at least this much
        hasMoreChunks = false
    }

    /// A string value whose bytes live as long as the arena.
    func string(_ string: String) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_STRING
        // A native string's bytes are read in place (no copy of the String, no retain).
        let copied: Void? = string.utf8.withContiguousStorageIfAvailable { utf8 in
            value.string.data = copy(UnsafeRawBufferPointer(utf8))?.assumingMemoryBound(to: CChar.self)
            value.string.size = utf8.count
        }
        if copied == nil {
            var text = string
            text.withUTF8 { utf8 in
                value.string.data = copy(UnsafeRawBufferPointer(utf8))?.assumingMemoryBound(to: CChar.self)
                value.string.size = utf8.count
            }
        }
        return value
    }

    /// A binary value whose bytes live as long as the arena.
    func binary(_ data: Data) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_BINARY
        data.withUnsafeBytes { bytes in
            value.binary.data = copy(bytes)?.assumingMemoryBound(to: UInt8.self)
            value.binary.size = bytes.count
        }
        return value
    }
}

extension ce_value {
    @usableFromInline static var null: ce_value { ce_value() }

    @usableFromInline static func int(_ integer: Int64) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_INT
        value.integer = integer
        return value
    }

    @usableFromInline static func bool(_ boolean: Bool) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_BOOL
        value.boolean = boolean
        return value
    }

    @usableFromInline static func float(_ float: Float) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_FLOAT
        value.float_value = float
        return value
    }

    @usableFromInline static func double(_ double: Double) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_DOUBLE
        value.double_value = double
        return value
    }

    static func link(_ table: ce_table_key, _ key: ce_object_key) -> ce_value {
        var value = ce_value()
        value.type = CE_TYPE_LINK
        value.link = ce_link(table: table, key: key)
        return value
    }

    var isNull: Bool { type == CE_TYPE_NULL }

    /// The string a string value points at (copied).
    var stringValue: String {
        guard string.size > 0, let data = string.data else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: string.size), as: UTF8.self)
    }

    /// The bytes a binary value points at (copied).
    var dataValue: Data {
        guard binary.size > 0, let data = binary.data else { return Data() }
        return Data(bytes: data, count: binary.size)
    }

    /// A readable form of the value, for messages: `'Ada'`, `5`, `null`.
    var debugText: String {
        switch type {
        case CE_TYPE_NULL: "null"
        case CE_TYPE_INT: "\(integer)"
        case CE_TYPE_BOOL: "\(boolean)"
        case CE_TYPE_FLOAT: "\(float_value)"
        case CE_TYPE_DOUBLE: "\(double_value)"
        case CE_TYPE_STRING: "'\(stringValue)'"
        case CE_TYPE_OBJECT_ID: "\(ObjectId(object_id))"
        case CE_TYPE_UUID: "\(UUID(ceUUID: uuid))"
        default: String(cString: ce_type_name(type))
        }
    }
}

/// The value inside an Optional boxed in Any, unwrapped through nested optionals (nil for nil);
/// any other value as it is.
/// A property's value as Realm's key-value coding gives it (`object[key]`,
/// `value(forKey:)`): nil for nil, a `PersistableEnum`'s raw value, a `CustomPersistable`
/// type's persisted value, what an `AnyRealmValue` holds; other values as they are.
func keyValueCodingValue(_ value: Any) -> Any? {
    guard let unwrapped = unwrapOptional(value) else { return nil }
    if let mixed = unwrapped as? AnyRealmValue { return mixed.keyValueCodingValue }
    if let custom = unwrapped as? any _CustomPersistable { return unwrapOptional(custom._rlmPersistableValue) }
    if let persistableEnum = unwrapped as? any PersistableEnum { return persistableEnum.rawValue }
    return unwrapped
}

func unwrapOptional(_ value: Any) -> Any? {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .optional else { return value }
    guard let child = mirror.children.first else { return nil }
    return unwrapOptional(child.value)
}
