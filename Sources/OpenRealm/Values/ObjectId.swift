// ObjectId.swift — ObjectId: a 12-byte unique identifier, as in Realm Swift.

import Foundation
import Synchronization

// MARK: - ObjectId

/// A 12-byte unique identifier (MongoDB's ObjectId), as Realm's `ObjectId`: a 4-byte timestamp,
/// 5 random bytes fixed per process and a 3-byte counter.
///
///     @Persisted(primaryKey: true) var _id: ObjectId
///     let id = ObjectId.generate()
///     let same = try ObjectId(string: id.stringValue)
public final class ObjectId: RealmCollectionValue, Comparable, CustomStringConvertible, Sendable {
    /// Twelve bytes, in order (the engine's `ce_object_id` holds the same).
    typealias Bytes = (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)

    /// The 12 bytes.
    let bytes: Bytes

    init(bytes: Bytes) { self.bytes = bytes }

    /// All twelve bytes 0.
    private static var zeroBytes: Bytes { (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) }

    /// The zero ObjectId (all twelve bytes 0), as Realm's `ObjectId()`.
    ///
    ///     ObjectId().stringValue == "000000000000000000000000"
    public convenience init() { self.init(bytes: ObjectId.zeroBytes) }

    /// Parses 24 hexadecimal digits; throws `Realm.Error` (`.fail`) otherwise.
    ///
    ///     let id = try ObjectId(string: "6054d1f5e5f8a2b3c4d5e6f7")
    public convenience init(string: String) throws {
        let utf8 = Array(string.utf8)
        guard utf8.count == 24 else { throw Realm.Error(code: .fail, message: "Invalid ObjectId string '\(string)'") }
        var raw = ObjectId.zeroBytes
        try withUnsafeMutableBytes(of: &raw) { target in
            for i in 0..<12 {
                guard let high = ObjectId.hexValue(utf8[2 * i]), let low = ObjectId.hexValue(utf8[2 * i + 1]) else {
                    throw Realm.Error(code: .fail, message: "Invalid ObjectId string '\(string)'")
                }
                target[i] = high << 4 | low
            }
        }
        self.init(bytes: raw)
    }

    /// Parses 24 hexadecimal digits of a static string (Realm's unlabelled initializer): a string
    /// that is not an ObjectId is a programmer error. Use `init(string:)` for strings read at run
    /// time.
    ///
    ///     let id = ObjectId("6054d1f5e5f8a2b3c4d5e6f7")
    public convenience init(_ str: StaticString) {
        let text = str.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
        guard let parsed = try? ObjectId(string: text) else { throwRealmException("Invalid ObjectId string '\(text)'") }
        self.init(bytes: parsed.bytes)
    }

    /// An ObjectId from its parts (big-endian timestamp in seconds, 5 machine/process bytes as in
    /// Realm's form of machineId and processId, and a counter).
    ///
    ///     let id = ObjectId(timestamp: Date(), machineId: 1, processId: 2)
    public convenience init(timestamp: Date, machineId: Int, processId: Int) {
        var raw = ObjectId.zeroBytes
        let seconds = UInt32(truncatingIfNeeded: Int(timestamp.timeIntervalSince1970))
        let counter = ObjectId.nextCounter()
        withUnsafeMutableBytes(of: &raw) { b in
            b[0] = UInt8(truncatingIfNeeded: seconds >> 24)
            b[1] = UInt8(truncatingIfNeeded: seconds >> 16)
            b[2] = UInt8(truncatingIfNeeded: seconds >> 8)
            b[3] = UInt8(truncatingIfNeeded: seconds)
            b[4] = UInt8(truncatingIfNeeded: machineId >> 16)
            b[5] = UInt8(truncatingIfNeeded: machineId >> 8)
            b[6] = UInt8(truncatingIfNeeded: machineId)
            b[7] = UInt8(truncatingIfNeeded: processId >> 8)
            b[8] = UInt8(truncatingIfNeeded: processId)
            b[9] = UInt8(truncatingIfNeeded: counter >> 16)
            b[10] = UInt8(truncatingIfNeeded: counter >> 8)
            b[11] = UInt8(truncatingIfNeeded: counter)
        }
        self.init(bytes: raw)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static let counter = Mutex<UInt32>(UInt32.random(in: 0..<0xFF_FFFF))
    private static let processBytes: (Int, Int) = (Int.random(in: 0..<0xFF_FFFF), Int.random(in: 0..<0xFFFF))

    private static func nextCounter() -> UInt32 {
        counter.withLock { value in
            value = (value &+ 1) & 0xFF_FFFF
            return value
        }
    }

    /// A new unique ObjectId: the current time, this process's random bytes, the next counter.
    ///
    ///     let id = ObjectId.generate()
    public static func generate() -> ObjectId {
        ObjectId(timestamp: Date(), machineId: processBytes.0, processId: processBytes.1)
    }

    /// The 24 lowercase hexadecimal digits.
    public var stringValue: String {
        withUnsafeBytes(of: bytes) { b in
            b.map { byte in
                let s = String(byte, radix: 16)
                return s.count == 1 ? "0" + s : s
            }.joined()
        }
    }

    /// The same as `stringValue`.
    public var description: String { stringValue }

    /// The creation time stored in the first four bytes (whole seconds).
    ///
    ///     ObjectId.generate().timestamp   // about now
    public var timestamp: Date {
        let seconds = withUnsafeBytes(of: bytes) { b in
            UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3])
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private var byteArray: [UInt8] { withUnsafeBytes(of: bytes) { Array($0) } }

    /// Equal bytes.
    public static func == (lhs: ObjectId, rhs: ObjectId) -> Bool { lhs.byteArray == rhs.byteArray }

    /// Byte order (hence creation time first).
    public static func < (lhs: ObjectId, rhs: ObjectId) -> Bool {
        lhs.byteArray.lexicographicallyPrecedes(rhs.byteArray)
    }

    /// Hashes the bytes.
    public func hash(into hasher: inout Hasher) { hasher.combine(byteArray) }
}
