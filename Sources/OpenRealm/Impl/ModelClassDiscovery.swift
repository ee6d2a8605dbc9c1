// ModelClassDiscovery.swift — every Object and EmbeddedObject subclass of the program, found
// by reading the Swift runtime's type metadata records of each loaded image (what Realm finds
// with the Objective-C runtime on Apple platforms).
//
// The compiler records each nominal type's context descriptor in the `swift5_type_metadata`
// section of its image; the runtime keeps the list of images and their sections, and
// `swift_enumerateAllMetadataSections` walks it (the runtime function Swift Testing uses to
// discover tests). Each non-generic class with a superclass has its metadata from its accessor
// function (what the runtime calls when the type is first used: no code of the program runs),
// and is a model class if it is a subclass of ObjectBase. The layouts
// read here are the runtime's ABI (stable since Swift 5): `MetadataSections` and
// `TargetClassDescriptor` in the compiler's include/swift/ABI/Metadata.h.

import Synchronization

/// `swift5_type_metadata` and the other sections of one image, as the runtime hands them over.
/// Only the fields read here are spelled out.
private struct MetadataSectionRange {
    var start: UInt
    var length: Int
}

private struct MetadataSectionsPrefix {
    var version: UInt
    var baseAddress: UnsafeRawPointer?
    var unused0: UnsafeRawPointer?
    var unused1: UnsafeRawPointer?
    var protocols: MetadataSectionRange
    var protocolConformances: MetadataSectionRange
    var typeMetadata: MetadataSectionRange
}

@_silgen_name("swift_enumerateAllMetadataSections")
private func _enumerateAllMetadataSections(
    _ body: @convention(c) (UnsafeRawPointer, UnsafeMutableRawPointer?) -> Bool, _ context: UnsafeMutableRawPointer?)

/// A type metadata accessor of a non-generic type: `MetadataResponse (MetadataRequest)`. Its
/// first result register is the metadata; request 0 asks for complete metadata.
private typealias MetadataAccessor = @convention(c) (Int) -> UnsafeRawPointer?

enum ModelClassDiscovery {
    /// The model classes of every image loaded when first asked, in no particular order (Object,
    /// EmbeddedObject and DynamicObject themselves left out).
    static var all: [ObjectBase.Type] { discovered }

    private static let discovered: [ObjectBase.Type] = {
        var descriptors: [UnsafeRawPointer] = []
        withUnsafeMutablePointer(to: &descriptors) { pointer in
            _enumerateAllMetadataSections({ sections, context in
                let prefix = sections.loadUnaligned(as: MetadataSectionsPrefix.self)
                let list = context!.assumingMemoryBound(to: [UnsafeRawPointer].self)
                let range = prefix.typeMetadata
                guard range.start != 0, let start = UnsafeRawPointer(bitPattern: range.start) else { return true }
                // Each record: a 32-bit relative pointer whose low two bits are its kind
                // (0: to the descriptor, 1: to a pointer to it).
                for offset in stride(from: 0, to: range.length, by: 4) {
                    let record = start + offset
                    let raw = record.loadUnaligned(as: Int32.self)
                    let kind = raw & 3
                    let target = record + Int(raw & ~3)
                    let descriptor: UnsafeRawPointer?
                    switch kind {
                    case 0: descriptor = target
                    case 1: descriptor = target.loadUnaligned(as: UnsafeRawPointer?.self)
                    default: descriptor = nil
                    }
                    guard let descriptor else { continue }
                    let flags = descriptor.loadUnaligned(as: UInt32.self)
                    // Kind 16 is a class; 0x80 marks a generic one (never a model class).
                    guard flags & 0x1F == 16, flags & 0x80 == 0 else { continue }
                    list.pointee.append(descriptor)
                }
                return true
            }, UnsafeMutableRawPointer(pointer))
        }
        var found: [ObjectBase.Type] = []
        for descriptor in descriptors {
            guard hasSuperclass(descriptor), let cls = metadata(of: descriptor) as? ObjectBase.Type else { continue }
            if cls == Object.self || cls == EmbeddedObject.self || cls == DynamicObject.self { continue }
            found.append(cls)
        }
        return found
    }()

    /// Whether the class `descriptor` describes has a superclass (TargetClassDescriptor:
    /// flags, parent, name, access function, fields, superclass type).
    private static func hasSuperclass(_ descriptor: UnsafeRawPointer) -> Bool {
        (descriptor + 5 * 4).loadUnaligned(as: Int32.self) != 0
    }

    /// The metadata of the non-generic class `descriptor` describes, from its access function.
    private static func metadata(of descriptor: UnsafeRawPointer) -> Any.Type? {
        let field = descriptor + 3 * 4
        let offset = field.loadUnaligned(as: Int32.self)
        guard offset != 0 else { return nil }
        let accessor = unsafeBitCast(field + Int(offset), to: MetadataAccessor.self)
        guard let metadata = accessor(0) else { return nil }
        return unsafeBitCast(metadata, to: Any.Type.self)
    }
}

extension ObjectSchemaInfo {
    /// The schema of a Realm whose configuration has no `objectTypes`: every model class of
    /// the program whose `_realmIgnoreClass()` is false and `shouldIncludeInDefaultSchema()`
    /// true, with the classes they link to, less
    /// the classes whose name another of them has (nested types, or two modules, may share one:
    /// each is checked when first used instead) and those that link to them. Discovered once;
    /// each class checked as Realm checks its schema.
    static var defaultSchema: [ObjectSchemaInfo] { defaultSchemaClasses }

    private static let defaultSchemaClasses: [ObjectSchemaInfo] = {
        let included = ModelClassDiscovery.all.filter { !$0._realmIgnoreClass() && $0.shouldIncludeInDefaultSchema() }
        let classes = RealmCore.closure(included.map(ObjectSchemaInfo.of))
        // A name two classes have has no one class: leave both out, and the classes that link
        // to either (their tables would link to a table the schema does not describe).
        var left = Set(Dictionary(grouping: classes, by: \.className).filter { $0.value.count > 1 }.keys)
        var unique = classes.filter { !left.contains($0.className) }
        while let linking = unique.first(where: { $0.linkedClasses.contains { left.contains(ObjectSchemaInfo.className(of: $0)) } }) {
            left.insert(linking.className)
            unique.removeAll { $0 === linking }
        }
        for info in unique { info.validateLinkingObjects() }
        return unique
    }()
}
