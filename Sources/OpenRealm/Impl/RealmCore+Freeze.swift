// RealmCore+Freeze.swift — frozen RealmCores: the version a live instance reads, freezing and
// thawing. See RealmCore's comment for how threads read frozen data at once.

import CEngine
import Foundation

extension RealmCore {
    /// The version this (live) instance reads: its read transaction's, or in a write transaction
    /// the version the write began on (the latest committed one).
    var readVersion: UInt64 {
        if let frozen { return frozen.version }
        if isInWriteTransaction {
            var latest: UInt64 = 0
            guard ce_db_latest_version(engine.handle, &latest) else { engineFailure() }
            return latest
        }
        return ce_txn_version(currentTxn())
    }

    /// A frozen instance at the version this one reads (itself if frozen).
    func frozenCore() -> RealmCore {
        if frozen != nil { return self }
        checkThread()
        let version = readVersion
        if let last = lastFrozen, last.frozen?.version == version { return last }
        let core = RealmCore(freezing: self)
        lastFrozen = core
        return core
    }

    /// The live instance of this thread for the file, at `version` or later (refreshed if it
    /// reads an older one).
    static func liveCore(_ configuration: Realm.Configuration, atLeast version: UInt64) -> RealmCore {
        let core: RealmCore
        do {
            core = try RealmCore.instance(for: configuration)
        } catch {
            throwRealmException(error.message)
        }
        if !core.isInWriteTransaction && core.readVersion < version { _ = core.refresh() }
        return core
    }

    /// The object of this instance that `object` (of another instance of the same file) is: the
    /// same row, if it exists in this instance's version.
    func importObject(_ object: ObjectBase) -> ObjectBase? {
        if object._core === self { return object }
        guard let table = tableInfo(of: object),
            objectExists(epoch: epoch, table: table, key: object._key)
        else { return nil }
        return makeObject(table, object._key)
    }

    /// The object `key` of class `cls` (a `DynamicObject`: of the table `tableKey`) in this
    /// instance's version, if it exists.
    func importObject(of cls: ObjectBase.Type, table tableKey: TableKey, key: ObjectKey) -> ObjectBase? {
        let table = cls == DynamicObject.self ? dynamicTableInfo(forKey: tableKey) : tableInfo(for: cls)
        guard let table, objectExists(epoch: epoch, table: table, key: key) else { return nil }
        return makeObject(table, key)
    }

    /// The live instance of this thread that thawed values of this frozen instance belong to.
    func thawedCore() -> RealmCore {
        guard let frozen else { return self }
        return RealmCore.liveCore(configuration, atLeast: frozen.version)
    }
}
