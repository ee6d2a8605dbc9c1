"""errors.py — the engine's errors as Python exceptions.

Every failure the engine reports, and every misuse the package detects
itself (a closed database, an ended transaction, a value of the wrong
type), raises an OpenRealmError carrying a code (ErrorCode, the values of
cengine.h's ce_error_code) and the message. Each family of codes in
cengine.h has its class, and a few codes have their own subclass (which also
derives from the matching built-in exception: IndexOutOfBoundsError is an
IndexError, WrongTypeError a TypeError, ...).

    OpenRealmError                  base; CE_ERR_FAIL and unknown codes
      FileError                     2-13: the file, opening it, its format
        InvalidDatabaseError        12: not a database, damaged, or a wrong key
      EngineError                   20-27: arguments and states
        InvalidArgumentError        20 (ValueError)
        WrongTransactionStateError  21: also a closed database, an ended transaction
        ReadOnlyError               24
        IndexOutOfBoundsError       27 (IndexError)
      ObjectStoreError              40-49: schema, objects and values
        NoSuchTableError            40 (KeyError)
        NoSuchPropertyError         41 (AttributeError)
        NoSuchObjectError           42
        WrongTypeError              43 (TypeError)
        NullNotAllowedError         44 (ValueError)
        DuplicatePrimaryKeyError    45
      QueryError                    60: a predicate, key path or argument

Owns: the code enumeration, the classes and the choice of class for a code.
Never: calls the engine.
"""

import enum


class ErrorCode(enum.IntEnum):
    OK = 0
    FAIL = 1
    FILE_ACCESS = 2
    FILE_PERMISSION_DENIED = 3
    FILE_EXISTS = 4
    FILE_NOT_FOUND = 5
    INCOMPATIBLE_LOCK_FILE = 6
    FILE_FORMAT_UPGRADE_REQUIRED = 7
    ADDRESS_SPACE_EXHAUSTED = 8
    SCHEMA_MISMATCH = 9
    INCOMPATIBLE_SESSION = 10
    OUT_OF_DISK_SPACE = 11
    INVALID_DATABASE = 12
    ALREADY_OPEN = 13
    INVALID_ARGUMENT = 20
    WRONG_TRANSACTION_STATE = 21
    TOO_MANY_VERSIONS = 22
    TOO_MANY_READERS = 23
    READ_ONLY = 24
    OUT_OF_MEMORY = 25
    CORRUPT = 26
    INDEX_OUT_OF_BOUNDS = 27
    NO_SUCH_TABLE = 40
    NO_SUCH_PROPERTY = 41
    NO_SUCH_OBJECT = 42
    WRONG_TYPE = 43
    NULL_NOT_ALLOWED = 44
    DUPLICATE_PRIMARY_KEY = 45
    PRIMARY_KEY_IMMUTABLE = 46
    DUPLICATE_NAME = 47
    INVALID_SCHEMA = 48
    EMBEDDED_OBJECT = 49
    INVALID_QUERY = 60


class OpenRealmError(Exception):
    """An error of the engine or of the package: `code` (an ErrorCode, or
    the number when the package does not know it) and `message`."""

    def __init__(self, code, message):
        try:
            code = ErrorCode(code)
        except ValueError:
            pass
        self.code = code
        self.message = message
        super().__init__(message)

    def __str__(self):
        return self.message

    def __repr__(self):
        name = self.code.name if isinstance(self.code, ErrorCode) else str(self.code)
        return f"{type(self).__name__}({name}, {self.message!r})"

    def __reduce__(self):
        return (error_for, (int(self.code), self.message))


class FileError(OpenRealmError):
    """The file: access, permissions, existence, format, locks (codes 2-13)."""


class InvalidDatabaseError(FileError):
    """Not a database, damaged, or the wrong encryption key."""


class EngineError(OpenRealmError):
    """Arguments, transaction states, limits (codes 20-27)."""


class InvalidArgumentError(EngineError, ValueError):
    pass


class WrongTransactionStateError(EngineError):
    """A call in the wrong state: a write outside a write transaction, a
    closed database, an ended transaction or an object of one."""


class ReadOnlyError(EngineError):
    pass


class IndexOutOfBoundsError(EngineError, IndexError):
    pass


class ObjectStoreError(OpenRealmError):
    """Schema, objects and values (codes 40-49)."""


class NoSuchTableError(ObjectStoreError, KeyError):
    def __str__(self):  # KeyError would quote the message
        return self.message


class NoSuchPropertyError(ObjectStoreError, AttributeError):
    pass


class NoSuchObjectError(ObjectStoreError):
    pass


class WrongTypeError(ObjectStoreError, TypeError):
    pass


class NullNotAllowedError(ObjectStoreError, ValueError):
    pass


class DuplicatePrimaryKeyError(ObjectStoreError):
    pass


class QueryError(OpenRealmError):
    """A predicate, key path or argument that does not parse or bind; the
    message names the position and the token."""


_BY_CODE = {
    ErrorCode.INVALID_DATABASE: InvalidDatabaseError,
    ErrorCode.INVALID_ARGUMENT: InvalidArgumentError,
    ErrorCode.WRONG_TRANSACTION_STATE: WrongTransactionStateError,
    ErrorCode.READ_ONLY: ReadOnlyError,
    ErrorCode.INDEX_OUT_OF_BOUNDS: IndexOutOfBoundsError,
    ErrorCode.NO_SUCH_TABLE: NoSuchTableError,
    ErrorCode.NO_SUCH_PROPERTY: NoSuchPropertyError,
    ErrorCode.NO_SUCH_OBJECT: NoSuchObjectError,
    ErrorCode.WRONG_TYPE: WrongTypeError,
    ErrorCode.NULL_NOT_ALLOWED: NullNotAllowedError,
    ErrorCode.DUPLICATE_PRIMARY_KEY: DuplicatePrimaryKeyError,
}


def error_class(code):
    """The class an error of `code` raises."""
    if code in _BY_CODE:
        return _BY_CODE[code]
    if 2 <= code <= 13:
        return FileError
    if 20 <= code <= 39:
        return EngineError
    if 40 <= code <= 59:
        return ObjectStoreError
    if code == ErrorCode.INVALID_QUERY:
        return QueryError
    return OpenRealmError


def error_for(code, message):
    return error_class(code)(code, message)
