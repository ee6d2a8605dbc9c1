// ProgrammerErrors.swift — the programmer errors that stop the program with Realm's messages.

import CEngine
import Foundation

// MARK: - Programmer errors

/// Stops the program with Realm's message for a programmer error (Realm throws an exception).
func throwRealmException(_ message: String, file: StaticString = #file, line: UInt = #line) -> Never {
    // fatalError, not preconditionFailure: an optimised build drops a precondition's message, and
    // Realm's messages are what users see (Realm reports these with an exception in every build).
    fatalError(message, file: file, line: line)
}

/// Realm's message for an object that was deleted, or whose Realm was invalidated.
let invalidatedObjectMessage = "Object has been deleted or invalidated."

/// Realm's message for a change outside a write transaction.
let writeOutsideTransactionMessage =
    "Attempting to modify object outside of a write transaction - call beginWriteTransaction on an RLMRealm instance first."

/// Stops with the message that fits the engine's last error, after a call on an object or a
/// collection failed: a deleted object reads as Realm's "Object has been deleted or invalidated."
func engineFailure(_ context: @autoclosure () -> String = "", file: StaticString = #file, line: UInt = #line) -> Never {
    let code = ce_last_error_code()
    let message = String(cString: ce_last_error_message())
    switch code {
    case CE_ERR_NO_SUCH_OBJECT where !message.contains("linked object"):
        throwRealmException(invalidatedObjectMessage, file: file, line: line)
    case CE_ERR_NO_SUCH_OBJECT:
        // A link (a property, or an element of a list, set or map) to a deleted object: Realm
        // refuses the deleted object as it refuses adding one.
        throwRealmException("Adding a deleted or invalidated object to a Realm is not permitted", file: file, line: line)
    case CE_ERR_PRIMARY_KEY_IMMUTABLE:
        throwRealmException("Primary key can't be changed after an object is inserted.", file: file, line: line)
    case CE_ERR_INDEX_OUT_OF_BOUNDS:
        let extra = context()
        throwRealmException(extra.isEmpty ? "Index out of bounds: \(message)" : extra, file: file, line: line)
    default:
        let extra = context()
        throwRealmException(extra.isEmpty ? message : "\(extra): \(message)", file: file, line: line)
    }
}
