// UpdatePolicy.swift — UpdatePolicy: what adding an object whose primary key exists does.

import Foundation

/// What adding an object whose primary key exists does (Realm's `UpdatePolicy`).
///
///     realm.add(dog, update: .modified)
public enum UpdatePolicy: Int, Sendable {
    /// Adding an object whose primary key exists is a programmer error.
    case error = 1
    /// The existing object's properties that differ are written.
    case modified = 3
    /// Every property of the existing object is written.
    case all = 2
}
