"""openrealm — OpenRealm's embedded object database from Python.

    import openrealm

    with openrealm.open("people.realm") as db:
        with db.write() as txn:
            txn.update_schema({"Person": {"id": openrealm.Property(int, primary_key=True),
                                          "name": "string", "age": "int"}})
            txn.create("Person", {"id": 1, "name": "Ann", "age": 34}, update="modified")
        with db.read() as txn:
            for person in txn.query("Person", "age >= $0", 18).sorted("name"):
                print(person.name, person.age)

The package calls the engine's C library (libcengine) through ctypes; see
README.md ("Python") for how it finds the library.

Owns: the public names of the package.
Never: holds state of its own.
"""

from ._ffi import lib as _lib
from .containers import Dictionary, List, Set
from .database import Database, Transaction, delete_files, open
from .errors import (DuplicatePrimaryKeyError, EngineError, ErrorCode, FileError, IndexOutOfBoundsError,
                     InvalidArgumentError, InvalidDatabaseError, NoSuchObjectError, NoSuchPropertyError,
                     NoSuchTableError, NullNotAllowedError, ObjectStoreError, OpenRealmError, QueryError,
                     ReadOnlyError, WrongTransactionStateError, WrongTypeError)
from .objects import Object, Results
from .types import Collection, ObjectId, ObjectSchema, Property, Type

__version__ = "0.1.0"
engine_version = _lib.ce_engine_version().decode("ascii")
library_path = _lib.path

__all__ = [
    "open", "delete_files", "Database", "Transaction", "Object", "Results", "List", "Set", "Dictionary",
    "ObjectId", "Property",
    "ObjectSchema", "Type", "Collection", "ErrorCode", "OpenRealmError", "FileError", "InvalidDatabaseError",
    "EngineError", "InvalidArgumentError", "WrongTransactionStateError", "ReadOnlyError", "IndexOutOfBoundsError",
    "ObjectStoreError", "NoSuchTableError", "NoSuchPropertyError", "NoSuchObjectError", "WrongTypeError",
    "NullNotAllowedError", "DuplicatePrimaryKeyError", "QueryError", "engine_version", "library_path",
]
