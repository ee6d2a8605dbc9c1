"""_values.py — Python values to and from ce_value.

    None <-> null           int <-> int (64-bit)       bool <-> bool
    float <-> float, double str <-> string (UTF-8)     bytes <-> data
    datetime <-> date       Decimal <-> decimal128     ObjectId <-> objectId
    uuid.UUID <-> uuid      Object <-> link

Dates: a naive datetime is taken as UTC; dates read back are aware UTC
datetimes. The engine keeps nanoseconds, a datetime microseconds: reading
drops the nanoseconds below a microsecond (rounding toward the past).
Decimals go through the engine's text form (34 significant digits, half to
even beyond); a finite Decimal above decimal128's range is an
InvalidArgumentError. A value is checked against the property's type before it
reaches the engine, so that a mismatch is a WrongTypeError naming both.

Owns: the conversions, and keeping the bytes a ce_value points at alive
until the call that reads it returns (the `keep` lists).
Never: reads or writes the database.
"""

import collections.abc
import ctypes
import datetime
import decimal
import uuid

from . import _ffi
from ._ffi import Value, lib
from .errors import ErrorCode, InvalidArgumentError, WrongTypeError
from .types import ObjectId, Type

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1
_TYPE_WORDS = {
    Type.INT: "an int", Type.BOOL: "a bool", Type.FLOAT: "a float", Type.DOUBLE: "a double",
    Type.STRING: "a string", Type.BINARY: "data (bytes)", Type.TIMESTAMP: "a date (datetime)",
    Type.DECIMAL128: "a decimal128 (Decimal)", Type.OBJECT_ID: "an ObjectId", Type.UUID: "a UUID",
    Type.LINK: "a link (an Object)", Type.MIXED: "a mixed value",
}


def c_text(text, what):
    """`text` as the UTF-8 bytes of a C string parameter (a class or
    property name, a predicate, a key path). A NUL would end the C string
    early: the engine would use a shorter name or predicate than the one
    given (another class, another query), so it is refused, as are a value
    that is not a str and one that UTF-8 cannot encode."""
    if not isinstance(text, str):
        raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT, f"{what} is a string, not {type(text).__name__} "
                                                               f"{text!r:.60}")
    if "\0" in text:
        raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT, f"{what} cannot contain a NUL character: {text!r:.60}")
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT, f"{what} is not valid UTF-8: {error}") from None


def wrong_type(value, expected, where):
    return WrongTypeError(ErrorCode.WRONG_TYPE,
                          f"{where} takes {_TYPE_WORDS.get(expected, expected.name)}, not "
                          f"{type(value).__name__} {value!r:.60}")


# ---------------------------------------------------------------------------
# Dates and decimals
# ---------------------------------------------------------------------------

def datetime_to_timestamp(value):
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.timezone.utc)
    delta = value - EPOCH
    microseconds = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    total = microseconds * 1000
    seconds = abs(total) // 1_000_000_000
    nanoseconds = abs(total) % 1_000_000_000
    if total < 0:
        seconds, nanoseconds = -seconds, -nanoseconds
    return seconds, nanoseconds


def timestamp_to_datetime(seconds, nanoseconds):
    total = seconds * 1_000_000_000 + nanoseconds
    try:
        return EPOCH + datetime.timedelta(microseconds=total // 1000)
    except OverflowError:
        raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT,
                                   f"the date {seconds} s {nanoseconds} ns after 1970 is outside Python's "
                                   f"datetime (years 1 to 9999)") from None


DECIMAL128_LARGEST = "9.999999999999999999999999999999999E+6144"


def decimal_to_engine(value):
    """A Decimal as decimal128, rounded to 34 digits (half to even); one
    whose magnitude is above decimal128's largest (it would round to an
    infinity) is an InvalidArgumentError, not an infinity stored in its
    place. NaN and the infinities themselves are kept."""
    finite = value.is_finite()
    if value.is_nan():
        text = "nan"
    elif value.is_infinite():
        text = "-inf" if value < 0 else "inf"
    else:
        text = str(value)
    out = _ffi.Decimal128()
    _ffi.check(lib.ce_decimal128_from_string(text.encode("ascii"), ctypes.byref(out)))
    if finite and decimal_from_engine(out).is_infinite():
        raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT,
                                   f"the Decimal {text:.60} is outside decimal128's range (the largest magnitude is "
                                   f"{DECIMAL128_LARGEST})")
    return out


def decimal_from_engine(value):
    buffer = ctypes.create_string_buffer(64)
    lib.ce_decimal128_to_string(value, buffer, 64)
    return decimal.Decimal(buffer.value.decode("ascii"))


# ---------------------------------------------------------------------------
# ce_value to Python
# ---------------------------------------------------------------------------

def to_python(txn, value):
    """A scalar or link value as Python (not LIST or DICTIONARY: the caller
    opens those)."""
    kind = value.type
    if kind == Type.NULL:
        return None
    if kind == Type.INT:
        return value.integer
    if kind == Type.BOOL:
        return bool(value.boolean)
    if kind == Type.FLOAT:
        return float(value.float_value)
    if kind == Type.DOUBLE:
        return value.double_value
    if kind == Type.STRING:
        return ctypes.string_at(value.string.data, value.string.size).decode("utf-8") if value.string.size else ""
    if kind == Type.BINARY:
        return ctypes.string_at(value.binary.data, value.binary.size) if value.binary.size else b""
    if kind == Type.TIMESTAMP:
        return timestamp_to_datetime(value.timestamp.seconds, value.timestamp.nanoseconds)
    if kind == Type.DECIMAL128:
        return decimal_from_engine(value.decimal)
    if kind == Type.OBJECT_ID:
        return ObjectId(bytes(value.object_id))
    if kind == Type.UUID:
        return uuid.UUID(bytes=bytes(value.uuid))
    if kind == Type.LINK:
        from .objects import Object
        return Object(txn, value.link.table, value.link.key)
    raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT, f"a value of type {kind} has no Python form here")


# ---------------------------------------------------------------------------
# Python to ce_value
# ---------------------------------------------------------------------------

def infer_type(value):
    """The type a Python value has when nothing says which to use (query
    arguments, mixed properties); None for lists and dicts (nested
    collections)."""
    from .objects import Object
    if value is None:
        return Type.NULL
    if isinstance(value, bool):
        return Type.BOOL
    if isinstance(value, int):
        return Type.INT
    if isinstance(value, float):
        return Type.DOUBLE
    if isinstance(value, str):
        return Type.STRING
    if isinstance(value, (bytes, bytearray, memoryview)):
        return Type.BINARY
    if isinstance(value, datetime.datetime):
        return Type.TIMESTAMP
    if isinstance(value, decimal.Decimal):
        return Type.DECIMAL128
    if isinstance(value, ObjectId):
        return Type.OBJECT_ID
    if isinstance(value, uuid.UUID):
        return Type.UUID
    if isinstance(value, Object):
        return Type.LINK
    if isinstance(value, collections.abc.Mapping):
        return Type.DICTIONARY
    if isinstance(value, collections.abc.Sequence):  # a list, a tuple, a List view
        return Type.LIST
    raise WrongTypeError(ErrorCode.WRONG_TYPE, f"a {type(value).__name__} cannot be stored: {value!r:.60}")


def to_value(txn, value, expected, keep, where="this value"):
    """`value` as a ce_value for a place of type `expected` (MIXED or None:
    any). Bytes it points at are appended to `keep`."""
    out = Value()
    if value is None:
        out.type = Type.NULL
        return out
    actual = infer_type(value)
    kind = actual if expected in (None, Type.MIXED) else expected
    if kind == Type.INT:
        if actual != Type.INT:
            raise wrong_type(value, kind, where)
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT, f"{value} does not fit in 64 bits")
        out.integer = value
    elif kind == Type.BOOL:
        if actual != Type.BOOL:
            raise wrong_type(value, kind, where)
        out.boolean = value
    elif kind in (Type.FLOAT, Type.DOUBLE):
        if actual not in (Type.INT, Type.DOUBLE):
            raise wrong_type(value, kind, where)
        try:
            number = float(value)
        except OverflowError:
            raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT,
                                       f"{where}: {value!r:.40} does not fit in a double") from None
        if kind == Type.FLOAT:
            out.float_value = number
        else:
            out.double_value = number
    elif kind == Type.STRING:
        if actual != Type.STRING:
            raise wrong_type(value, kind, where)
        try:
            data = value.encode("utf-8")
        except UnicodeEncodeError as error:
            raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT, f"{where}: not valid UTF-8: {error}") from None
        buffer = ctypes.create_string_buffer(data, len(data))
        keep.append(buffer)
        out.string.data = ctypes.cast(buffer, ctypes.c_void_p)
        out.string.size = len(data)
    elif kind == Type.BINARY:
        if actual != Type.BINARY:
            raise wrong_type(value, kind, where)
        data = bytes(value)
        buffer = ctypes.create_string_buffer(data, len(data))
        keep.append(buffer)
        out.binary.data = ctypes.cast(buffer, ctypes.c_void_p)
        out.binary.size = len(data)
    elif kind == Type.TIMESTAMP:
        if actual != Type.TIMESTAMP:
            raise wrong_type(value, kind, where)
        out.timestamp.seconds, out.timestamp.nanoseconds = datetime_to_timestamp(value)
    elif kind == Type.DECIMAL128:
        if actual == Type.INT:
            value = decimal.Decimal(value)
        elif actual != Type.DECIMAL128:
            raise wrong_type(value, kind, where)
        out.decimal = decimal_to_engine(value)
    elif kind == Type.OBJECT_ID:
        if actual != Type.OBJECT_ID:
            raise wrong_type(value, kind, where)
        ctypes.memmove(out.object_id, value.binary, 12)
    elif kind == Type.UUID:
        if actual != Type.UUID:
            raise wrong_type(value, kind, where)
        ctypes.memmove(out.uuid, value.bytes, 16)
    elif kind == Type.LINK:
        if actual != Type.LINK:
            raise wrong_type(value, kind, where)
        value._check_usable_in(txn)
        out.link.table = value._table
        out.link.key = value._key
    elif kind in (Type.LIST, Type.DICTIONARY):
        # A nested collection in a mixed place: the engine stores it empty;
        # the caller fills it.
        if expected not in (None, Type.MIXED):
            raise wrong_type(value, expected, where)
        if expected is None:
            raise wrong_type(value, Type.MIXED, where)
    else:
        raise wrong_type(value, expected, where)
    out.type = kind
    return out


def is_nested(value):
    """Whether a value for a mixed place is a collection to nest in it."""
    return isinstance(value, (collections.abc.Mapping, collections.abc.Sequence)) and \
        not isinstance(value, (str, bytes, bytearray, memoryview))
