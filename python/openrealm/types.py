"""types.py — the package's own value and schema types: ObjectId, the
property types, and Property / ObjectSchema (a schema to define, and the
schema read back).

A property is written as a Property, a Python type, or a string in the
form Realm's SDKs use:

    "int" "bool" "float" (32-bit) "double" "string" "data" "date"
    "decimal128" "objectId" "uuid" "mixed"      a value
    "Dog"                                       a link to an object of class Dog (always optional)
    "string?"                                   optional (may hold None)
    "int[]"  "int<>"  "int{}"                   a list, a set, a dictionary (string keys)
    "Dog[]"  "int?{}"                           of links, of optional values

    int -> "int", bool -> "bool", float -> "double", str -> "string",
    bytes -> "data", datetime -> "date", Decimal -> "decimal128",
    ObjectId -> "objectId", uuid.UUID -> "uuid"

Owns: ObjectId, Type, Collection, Property, ObjectSchema, parsing specs.
Never: calls the engine.
"""

import datetime
import decimal
import enum
import functools
import os
import threading
import time
import uuid

from .errors import ErrorCode, InvalidArgumentError


@functools.total_ordering
class ObjectId:
    """A 12-byte object id (MongoDB's ObjectId): a 4-byte big-endian
    timestamp, 5 random bytes and a 3-byte counter when generated.

        ObjectId()                              a new one
        ObjectId("5f8d0d55b54764421b7156c3")    from 24 hex digits
        ObjectId(b"twelve bytes")               from 12 bytes
    """

    __slots__ = ("_bytes",)
    _lock = threading.Lock()
    _counter = int.from_bytes(os.urandom(3), "big")
    _random = os.urandom(5)

    def __init__(self, value=None):
        if value is None:
            with ObjectId._lock:
                ObjectId._counter = (ObjectId._counter + 1) & 0xFFFFFF
                counter = ObjectId._counter
            value = int(time.time()).to_bytes(4, "big") + ObjectId._random + counter.to_bytes(3, "big")
        elif isinstance(value, ObjectId):
            value = value._bytes
        elif isinstance(value, str):
            try:
                parsed = bytes.fromhex(value)
            except ValueError:
                parsed = b""
            if len(value) != 24 or len(parsed) != 12:
                raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT,
                                           f"an ObjectId is 24 hex digits, not {value!r}")
            value = parsed
        elif isinstance(value, (bytes, bytearray, memoryview)):
            value = bytes(value)
            if len(value) != 12:
                raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT,
                                           f"an ObjectId is 12 bytes, not {len(value)}")
        else:
            raise TypeError(f"an ObjectId is made from None, a hex string or 12 bytes, not {type(value).__name__}")
        self._bytes = value

    @property
    def binary(self):
        """The 12 bytes."""
        return self._bytes

    @property
    def generation_time(self):
        """The timestamp of its first 4 bytes, an aware UTC datetime."""
        return datetime.datetime.fromtimestamp(int.from_bytes(self._bytes[:4], "big"), datetime.timezone.utc)

    def __str__(self):
        return self._bytes.hex()

    def __repr__(self):
        return f"ObjectId('{self._bytes.hex()}')"

    def __eq__(self, other):
        return isinstance(other, ObjectId) and other._bytes == self._bytes

    def __lt__(self, other):
        if not isinstance(other, ObjectId):
            return NotImplemented
        return self._bytes < other._bytes

    def __hash__(self):
        return hash(("ObjectId", self._bytes))


class Type(enum.IntEnum):
    """cengine.h's ce_type (the types a property or value can have)."""
    NULL = 0
    INT = 1
    BOOL = 2
    FLOAT = 3
    DOUBLE = 4
    STRING = 5
    BINARY = 6
    TIMESTAMP = 7
    DECIMAL128 = 8
    OBJECT_ID = 9
    UUID = 10
    MIXED = 11
    LINK = 12
    LIST = 13
    DICTIONARY = 14


class Collection(enum.IntEnum):
    NONE = 0
    LIST = 1
    SET = 2
    DICTIONARY = 3


_TYPE_NAMES = {
    "int": Type.INT, "bool": Type.BOOL, "float": Type.FLOAT, "double": Type.DOUBLE, "string": Type.STRING,
    "data": Type.BINARY, "date": Type.TIMESTAMP, "decimal128": Type.DECIMAL128, "objectId": Type.OBJECT_ID,
    "uuid": Type.UUID, "mixed": Type.MIXED,
}
_SPEC_NAMES = {value: name for name, value in _TYPE_NAMES.items()}
_PYTHON_TYPES = {
    int: Type.INT, bool: Type.BOOL, float: Type.DOUBLE, str: Type.STRING, bytes: Type.BINARY,
    datetime.datetime: Type.TIMESTAMP, decimal.Decimal: Type.DECIMAL128, ObjectId: Type.OBJECT_ID,
    uuid.UUID: Type.UUID,
}
_COLLECTION_SUFFIXES = {"[]": Collection.LIST, "<>": Collection.SET, "{}": Collection.DICTIONARY}
_COLLECTION_NAMES = {Collection.LIST: "list", Collection.SET: "set", Collection.DICTIONARY: "dictionary"}


def _invalid(message):
    return InvalidArgumentError(ErrorCode.INVALID_ARGUMENT, message)


class Property:
    """A property of a class.

    To define one: Property("string?", indexed=True), Property(int,
    primary_key=True), Property("Dog[]"). Read back (ObjectSchema.properties)
    every field is set: `name`, `type` (a Type), `optional`, `collection` (a
    Collection), `target` (the class a link targets), `primary_key`,
    `indexed`, and for the engine's backlink properties ("@links.Person.dogs")
    `backlink` = ("Person", "dogs").
    """

    def __init__(self, type, *, optional=False, primary_key=False, indexed=False, collection=None, target=None):
        self.name = None
        self.backlink = None
        self.primary_key = bool(primary_key)
        self.indexed = bool(indexed)
        self.optional = bool(optional)
        self.collection = Collection(collection) if collection is not None else Collection.NONE
        self.target = target
        if isinstance(type, str):
            self._parse(type)
        elif isinstance(type, Type):
            self.type = type
        elif type in _PYTHON_TYPES:
            self.type = _PYTHON_TYPES[type]
        else:
            raise _invalid(f"a property type is a spec string, a Type or one of int, bool, float, str, bytes, "
                           f"datetime, Decimal, ObjectId, UUID; not {type!r}")
        if self.type == Type.LINK and not self.target:
            raise _invalid("a link property needs its target class")
        if self.type == Type.MIXED or (self.type == Type.LINK and self.collection in (Collection.NONE,
                                                                                   Collection.DICTIONARY)):
            self.optional = True  # a to-one link, a dictionary of links and mixed values may hold None

    def _parse(self, spec):
        text = spec.strip()
        for suffix, collection in _COLLECTION_SUFFIXES.items():
            if text.endswith(suffix):
                if self.collection != Collection.NONE:
                    raise _invalid(f"property spec {spec!r}: a collection of collections")
                self.collection = collection
                text = text[:-2]
                break
        if text.endswith("?"):
            self.optional = True
            text = text[:-1]
        if not text:
            raise _invalid(f"property spec {spec!r} names no type")
        if text in _TYPE_NAMES:
            self.type = _TYPE_NAMES[text]
        else:
            self.type = Type.LINK
            self.target = text

    @property
    def spec(self):
        """The property as a spec string ("int?", "Dog[]", ...)."""
        text = self.target if self.type == Type.LINK else _SPEC_NAMES.get(self.type, self.type.name.lower())
        if self.optional and not (self.type == Type.LINK and self.collection != Collection.LIST
                                  and self.collection != Collection.SET) and self.type != Type.MIXED:
            text += "?"
        for suffix, collection in _COLLECTION_SUFFIXES.items():
            if collection == self.collection:
                text += suffix
        return text

    def _key(self):
        return (self.type, self.optional, self.collection, self.target, self.primary_key, self.indexed)

    def __eq__(self, other):
        return isinstance(other, Property) and self._key() == other._key() and self.backlink == other.backlink

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        flags = "".join(f", {flag}=True" for flag in ("primary_key", "indexed") if getattr(self, flag))
        if self.backlink:
            return f"Property(backlink={self.backlink!r})"
        return f"Property({self.spec!r}{flags})"


def as_property(value):
    """A Property from what a schema definition gives."""
    if isinstance(value, Property):
        return value
    return Property(value)


class ObjectSchema:
    """A class as the file defines it: `name`, `embedded`, `properties` (a
    dict of name to Property, in column order, backlinks included) and
    `primary_key` (the name, or None)."""

    def __init__(self, name, properties, embedded=False):
        self.name = name
        self.properties = properties
        self.embedded = embedded
        self.primary_key = next((n for n, p in properties.items() if p.primary_key), None)

    def __repr__(self):
        kind = "embedded class" if self.embedded else "class"
        inner = ", ".join(f"{n}: {p.spec}" for n, p in self.properties.items() if not p.backlink)
        return f"<{kind} {self.name} {{{inner}}}>"


def collection_name(collection):
    return _COLLECTION_NAMES.get(collection, "value")
