"""containers.py — property values: reading and writing a property as a
Python value, and the live views of collections (List, Set, Dictionary).

A list, set or dictionary property reads as a live view of the collection
in the object's transaction, as Realm's List, MutableSet and Map: reading
it reads the database, and changing it (in a write transaction) changes
the database:

    dog.tags.append("good")          # stored
    "good" in dog.tags, len(dog.tags), dog.tags[0], list(dog.tags)
    person.scores["math"] = 3        # a dictionary
    person.dogs = [rex, fido]        # assigning replaces the contents

The views compare equal to lists, sets and dicts holding the same values,
and belong to their transaction like objects. A list or dictionary nested
in a mixed value reads as a view too (of the element it is). An embedded
object is created by giving a dict where it goes: `part.inner = {...}`,
`parts.append({...})`.

Owns: reading and writing properties (several of an existing object all
or nothing: write_properties), filling collections, List, Set, Dictionary,
and plain (deep) copies of values.
Never: keeps a collection handle across calls: each operation opens the
collection, uses it and closes it within the transaction's guard.
"""

import collections.abc
import ctypes

from . import _ffi
from ._ffi import Value, lib
from ._values import is_nested, to_python, to_value
from .errors import ErrorCode, IndexOutOfBoundsError, InvalidArgumentError, WrongTypeError
from .types import Collection, Type


# ---------------------------------------------------------------------------
# Opening collections
# ---------------------------------------------------------------------------

def _open_nested(collection, at, keep):
    where = Value()
    if isinstance(at, int):
        where.type = Type.INT
        where.integer = at
    else:
        where = to_value(None, at, Type.STRING, keep)
    nested = ctypes.c_void_p()
    _ffi.check(lib.ce_collection_open_nested(collection, ctypes.byref(where), ctypes.byref(nested)))
    return nested


def _nested_value(value):
    marker = Value()
    marker.type = Type.DICTIONARY if isinstance(value, collections.abc.Mapping) else Type.LIST
    return marker


# ---------------------------------------------------------------------------
# Writing: filling collections, embedded objects and properties
# ---------------------------------------------------------------------------

def _materialize(value, kind, where):
    """The values to write, read out first (so that a view of the same
    collection, or a generator, can be assigned)."""
    if kind == Collection.DICTIONARY:
        if not isinstance(value, collections.abc.Mapping):
            raise WrongTypeError(ErrorCode.WRONG_TYPE, f"{where} takes a dict, not {type(value).__name__}")
        return list(value.items())
    if isinstance(value, (str, bytes, bytearray, collections.abc.Mapping)) or \
            not isinstance(value, collections.abc.Iterable):
        expected = "a set" if kind == Collection.SET else "a list"
        raise WrongTypeError(ErrorCode.WRONG_TYPE,
                             f"{where} takes {expected} (an iterable), not {type(value).__name__}")
    return list(value)


def _encode_key(name, where):
    if not isinstance(name, str):
        raise WrongTypeError(ErrorCode.WRONG_TYPE, f"{where}: dictionary keys are strings, not "
                                                   f"{type(name).__name__} {name!r:.60}")
    try:
        return name.encode("utf-8")  # passed with its length: a NUL is part of the key
    except UnicodeEncodeError as error:
        raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT, f"{where}: a dictionary key is not valid UTF-8: "
                                                               f"{error}") from None


def _put(txn, handle, collection, kind, element, embedded_table, at, item, where, replace=False):
    """Stores one element: at an index of a list (inserted, or replacing
    the element there), in a set, or under a key of a dictionary."""
    keep = []
    if kind == Collection.SET:
        converted = to_value(txn, item, element, keep, where)
        _ffi.check(lib.ce_set_insert(collection, ctypes.byref(converted), None))
        return
    if kind == Collection.DICTIONARY:
        encoded = _encode_key(at, where)
        if embedded_table is not None and item is not None:
            created = ctypes.c_int64()
            _ffi.check(lib.ce_dictionary_insert_embedded(collection, encoded, len(encoded), ctypes.byref(created)))
            fill_object(txn, handle, embedded_table, created.value, item, where)
        elif element == Type.MIXED and is_nested(item):
            items = _materialize(item, _kind_of_nested(item), where)
            _ffi.check(lib.ce_dictionary_set(collection, encoded, len(encoded), ctypes.byref(_nested_value(item))))
            _fill_nested_at(txn, handle, collection, at, item, items, keep)
        else:
            converted = to_value(txn, item, element, keep, where)
            _ffi.check(lib.ce_dictionary_set(collection, encoded, len(encoded), ctypes.byref(converted)))
        return
    if embedded_table is not None:
        created = ctypes.c_int64()
        make = lib.ce_list_set_embedded if replace else lib.ce_list_insert_embedded
        _ffi.check(make(collection, at, ctypes.byref(created)))
        fill_object(txn, handle, embedded_table, created.value, item, where)
    elif element == Type.MIXED and is_nested(item):
        items = _materialize(item, _kind_of_nested(item), where)
        store = lib.ce_list_set if replace else lib.ce_list_insert
        _ffi.check(store(collection, at, ctypes.byref(_nested_value(item))))
        _fill_nested_at(txn, handle, collection, at, item, items, keep)
    else:
        converted = to_value(txn, item, element, keep, where)
        store = lib.ce_list_set if replace else lib.ce_list_insert
        _ffi.check(store(collection, at, ctypes.byref(converted)))


def _kind_of_nested(value):
    return Collection.DICTIONARY if isinstance(value, collections.abc.Mapping) else Collection.LIST


def _fill_nested_at(txn, handle, collection, at, value, items, keep):
    nested = _open_nested(collection, at, keep)
    try:
        _fill(txn, handle, nested, _kind_of_nested(value), Type.MIXED, None, items, "a nested collection")
    finally:
        lib.ce_collection_close(nested)


def _fill(txn, handle, collection, kind, element, embedded_table, items, where):
    """Fills an empty collection with materialized items."""
    for index, item in enumerate(items):
        if kind == Collection.DICTIONARY:
            name, item = item
            _put(txn, handle, collection, kind, element, embedded_table, name, item, where)
        else:
            _put(txn, handle, collection, kind, element, embedded_table, index, item, where)


def fill_object(txn, handle, table, key, values, where):
    """Sets the properties of a new embedded object from a dict."""
    if not isinstance(values, collections.abc.Mapping):
        raise WrongTypeError(ErrorCode.WRONG_TYPE,
                             f"{where}: an embedded object is given as a dict of its properties, "
                             f"not {type(values).__name__}")
    loaded = txn._class_by_key(handle, table)
    for name, item in values.items():
        write_property(txn, handle, loaded, key, loaded.column(name), item)


def _open_property(handle, loaded, key, column, mixed):
    opened = ctypes.c_void_p()
    opener = lib.ce_collection_open_mixed if mixed else lib.ce_collection_open
    _ffi.check(opener(handle, loaded.table, key, column.key, ctypes.byref(opened)))
    return opened


def write_property(txn, handle, loaded, key, column, value):
    where = f"'{loaded.name}.{column.name}'"
    embedded_table = column.target if column.target_embedded else None
    if column.collection != Collection.NONE:
        if value is None:
            value = {} if column.collection == Collection.DICTIONARY else ()
        items = _materialize(value, column.collection, where)
        opened = _open_property(handle, loaded, key, column, False)
        try:
            _ffi.check(lib.ce_collection_clear(opened))
            _fill(txn, handle, opened, column.collection, column.type, embedded_table, items, where)
        finally:
            lib.ce_collection_close(opened)
        return
    if embedded_table is not None and isinstance(value, collections.abc.Mapping):
        created = ctypes.c_int64()
        _ffi.check(lib.ce_object_create_embedded(handle, loaded.table, key, column.key, ctypes.byref(created)))
        fill_object(txn, handle, embedded_table, created.value, value, where)
        return
    if column.type == Type.MIXED and is_nested(value):
        items = _materialize(value, _kind_of_nested(value), where)
        _ffi.check(lib.ce_object_set(handle, loaded.table, key, column.key, ctypes.byref(_nested_value(value))))
        opened = _open_property(handle, loaded, key, column, True)
        try:
            _fill(txn, handle, opened, _kind_of_nested(value), Type.MIXED, None, items, where)
        finally:
            lib.ce_collection_close(opened)
        return
    keep = []
    converted = to_value(txn, value, column.type, keep, where)
    _ffi.check(lib.ce_object_set(handle, loaded.table, key, column.key, ctypes.byref(converted)))


def _checked_in_advance(txn, column, value, where):
    """Converts `value` for `column` without writing it, raising what
    writing it would raise for a wrong type. Returns (checked, value):
    checked when the write can then no longer be refused part-way (a
    scalar, or a collection of scalars without nulls), not when only
    writing it tells (embedded objects, nested mixed values, null
    elements); the value to write (the items of a list or set read out, so
    that a generator is read once)."""
    keep = []
    if column.collection == Collection.NONE:
        if column.target_embedded or column.type == Type.MIXED and is_nested(value):
            return False, value
        to_value(txn, value, column.type, keep, where)
        return True, value
    if value is None:
        return True, value
    items = _materialize(value, column.collection, where)
    if column.collection != Collection.DICTIONARY:
        value = items
    if column.target_embedded or column.type == Type.MIXED:
        return False, value
    for item in items:
        if column.collection == Collection.DICTIONARY:
            name, item = item
            _encode_key(name, where)
        if item is None:
            return False, value
        to_value(txn, item, column.type, keep, where)
    return True, value


def _restorable(txn, handle, value):
    """A copy of a value read from a property that write_property writes
    back as it was: views as lists, sets and dicts, embedded objects as
    dicts of their properties (deeply); links stay Objects."""
    from .objects import Object
    if isinstance(value, Set):
        return set(value)
    if isinstance(value, (List, list, tuple)):
        return [_restorable(txn, handle, item) for item in value]
    if isinstance(value, (Dictionary, dict)):
        return {name: _restorable(txn, handle, item) for name, item in value.items()}
    if isinstance(value, Object):
        loaded = txn._class_by_key(handle, value._table)
        if loaded.embedded:
            return {c.name: _restorable(txn, handle, read_property(txn, handle, loaded, value._key, c))
                    for c in loaded.columns.values() if not c.backlink}
    return value


def write_properties(txn, handle, loaded, key, pairs):
    """Writes (column, value) pairs to an existing object, all or nothing:
    every value is checked before the first write (a wrong type changes
    nothing), and a value the engine refuses part-way puts back what was
    written before it (the old values; an embedded object as a new one with
    the old properties). The error is the caller's; the transaction stays
    usable."""
    checked = []
    for index, (column, value) in enumerate(pairs):
        ok, value = _checked_in_advance(txn, column, value, f"'{loaded.name}.{column.name}'")
        checked.append(ok)
        pairs[index] = (column, value)
    # One checked value alone cannot fail part-way: nothing to put back.
    if len(pairs) == 1 and checked[0]:
        write_property(txn, handle, loaded, key, pairs[0][0], pairs[0][1])
        return
    written = []
    try:
        for column, value in pairs:
            old = _restorable(txn, handle, read_property(txn, handle, loaded, key, column))
            written.append((column, old))
            write_property(txn, handle, loaded, key, column, value)
    except BaseException:
        for column, old in reversed(written):
            try:
                write_property(txn, handle, loaded, key, column, old)
            except Exception:  # best effort: the original error is the one to report
                pass
        raise


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------

def read_property(txn, handle, loaded, key, column):
    """A property's value: a Python value, or a view of a collection."""
    if column.collection != Collection.NONE:
        return _VIEWS[column.collection](txn, loaded.table, key, column, False, ())
    value = Value()
    _ffi.check(lib.ce_object_get(handle, loaded.table, key, column.key, ctypes.byref(value)))
    if value.type == Type.LIST:
        return List(txn, loaded.table, key, column, True, ())
    if value.type == Type.DICTIONARY:
        return Dictionary(txn, loaded.table, key, column, True, ())
    return to_python(txn, value)


def plain(value):
    """A value with every view replaced by a list, set or dict (deeply)."""
    if isinstance(value, List):
        return [plain(item) for item in value]
    if isinstance(value, Set):
        return set(value)
    if isinstance(value, Dictionary):
        return {name: plain(item) for name, item in value.items()}
    return value


# ---------------------------------------------------------------------------
# Views
# ---------------------------------------------------------------------------

class _View:
    """A collection of an object's property (or nested in its mixed
    value, `path` naming the elements on the way)."""

    __slots__ = ("_txn", "_table", "_key", "_column", "_mixed", "_path")
    _kind = Collection.NONE

    def __init__(self, txn, table, key, column, mixed, path):
        self._txn = txn
        self._table = table
        self._key = key
        self._column = column
        self._mixed = mixed
        self._path = path

    @property
    def _element(self):
        return Type.MIXED if self._mixed else self._column.type

    @property
    def _embedded_table(self):
        return self._column.target if (self._column.target_embedded and not self._mixed) else None

    @property
    def _where(self):
        path = "".join(f"[{step!r}]" for step in self._path)
        return f"'{self._column.name}'{path}"

    def _use(self, run, write=False):
        """run(handle, collection) with the collection open and the
        transaction's guard held."""
        if write:
            self._txn._require_write(f"changing {self._where}")
        with self._txn._guard() as handle:
            loaded = self._txn._class_by_key(handle, self._table)
            keep = []
            opened = _open_property(handle, loaded, self._key, self._column, self._mixed)
            try:
                for step in self._path:
                    nested = _open_nested(opened, step, keep)
                    lib.ce_collection_close(opened)
                    opened = nested
                return run(handle, opened)
            finally:
                lib.ce_collection_close(opened)

    def _nested(self, step, kind):
        view = List if kind == Type.LIST else Dictionary
        return view(self._txn, self._table, self._key, self._column, self._mixed, self._path + (step,))

    def _convert(self, value, step):
        if value.type in (Type.LIST, Type.DICTIONARY):
            return self._nested(step, value.type)
        return to_python(self._txn, value)

    def _size(self, collection):
        size = ctypes.c_size_t()
        _ffi.check(lib.ce_collection_size(collection, ctypes.byref(size)))
        return size.value

    def __len__(self):
        return self._use(lambda handle, collection: self._size(collection))

    def _values(self, handle, collection):
        value = Value()
        key = Value()
        items = []
        for index in range(self._size(collection)):
            step = index
            if self._kind == Collection.DICTIONARY:
                _ffi.check(lib.ce_dictionary_key_at(collection, index, ctypes.byref(key)))
                step = to_python(self._txn, key)
            _ffi.check(lib.ce_collection_get(collection, index, ctypes.byref(value)))
            items.append((step, self._convert(value, step)))
        return items

    def _snapshot(self):
        return self._use(self._values)

    def clear(self):
        self._use(lambda handle, collection: _ffi.check(lib.ce_collection_clear(collection)), write=True)

    @property
    def transaction(self):
        return self._txn

    __hash__ = None


class List(_View, collections.abc.MutableSequence):
    """A live list property (Realm's List): indexing, len, iteration,
    append / insert / extend / pop / remove / clear, assignment to an
    index, move(from, to). Equal to a list or tuple of the same values."""

    __slots__ = ()
    _kind = Collection.LIST

    def _index(self, index, size, inserting=False):
        if not isinstance(index, int):
            raise TypeError(f"list indices are integers, not {type(index).__name__}")
        if inserting:
            if index < 0:
                index = max(0, index + size)
            return min(index, size)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexOutOfBoundsError(ErrorCode.INDEX_OUT_OF_BOUNDS,
                                        f"Index {index} is out of bounds (must be less than {size}).")
        return index

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [item for _, item in self._snapshot()][index]

        def get(handle, collection):
            at = self._index(index, self._size(collection))
            value = Value()
            _ffi.check(lib.ce_collection_get(collection, at, ctypes.byref(value)))
            return self._convert(value, at)
        return self._use(get)

    def __setitem__(self, index, item):
        def put(handle, collection):
            at = self._index(index, self._size(collection))
            _put(self._txn, handle, collection, Collection.LIST, self._element, self._embedded_table, at, item,
                 self._where, replace=True)
        self._use(put, write=True)

    def __delitem__(self, index):
        def erase(handle, collection):
            _ffi.check(lib.ce_list_erase(collection, self._index(index, self._size(collection))))
        self._use(erase, write=True)

    def insert(self, index, item):
        def put(handle, collection):
            at = self._index(index, self._size(collection), inserting=True)
            _put(self._txn, handle, collection, Collection.LIST, self._element, self._embedded_table, at, item,
                 self._where)
        self._use(put, write=True)

    def move(self, source, destination):
        """Moves the element at `source` so that it ends at `destination`."""
        def run(handle, collection):
            size = self._size(collection)
            _ffi.check(lib.ce_list_move(collection, self._index(source, size), self._index(destination, size)))
        self._use(run, write=True)

    def __iter__(self):
        return iter([item for _, item in self._snapshot()])

    def index(self, item, start=0, stop=None):
        items = [value for _, value in self._snapshot()]
        return items.index(item, start, len(items) if stop is None else stop)

    def count(self, item):
        return [value for _, value in self._snapshot()].count(item)

    def __eq__(self, other):
        if isinstance(other, (list, tuple, List)):
            return list(self) == list(other)
        return NotImplemented

    def __repr__(self):
        return repr(list(self))


class Set(_View, collections.abc.MutableSet):
    """A live set property (Realm's MutableSet): len, iteration (in the
    engine's value order), `in`, add / discard / remove / clear, and the
    set operators (which give Python sets). Equal to a set of the same
    values."""

    __slots__ = ()
    _kind = Collection.SET

    @classmethod
    def _from_iterable(cls, iterable):
        return set(iterable)

    def _converted(self, item):
        return to_value(self._txn, item, self._element, [], self._where)

    def __contains__(self, item):
        def find(handle, collection):
            keep = []
            try:
                converted = to_value(self._txn, item, self._element, keep, self._where)
            except WrongTypeError:
                return False
            index = ctypes.c_size_t()
            found = ctypes.c_bool()
            _ffi.check(lib.ce_collection_find(collection, ctypes.byref(converted), ctypes.byref(index),
                                              ctypes.byref(found)))
            return found.value
        return self._use(find)

    def add(self, item):
        self._use(lambda handle, collection: _put(self._txn, handle, collection, Collection.SET, self._element, None,
                                                  None, item, self._where), write=True)

    def discard(self, item):
        def erase(handle, collection):
            keep = []
            converted = to_value(self._txn, item, self._element, keep, self._where)
            _ffi.check(lib.ce_set_erase(collection, ctypes.byref(converted), None))
        self._use(erase, write=True)

    def __iter__(self):
        return iter([item for _, item in self._snapshot()])

    def __repr__(self):
        items = [item for _, item in self._snapshot()]
        return "{" + ", ".join(repr(item) for item in items) + "}" if items else "set()"


class Dictionary(_View, collections.abc.MutableMapping):
    """A live dictionary property (Realm's Map): string keys (in byte
    order) to values; d[key], d[key] = value, del d[key], `in`, len,
    keys / values / items, get, pop, update, clear. Equal to a dict of
    the same items."""

    __slots__ = ()
    _kind = Collection.DICTIONARY

    def __getitem__(self, name):
        def get(handle, collection):
            encoded = _encode_key(name, self._where)
            value = Value()
            found = ctypes.c_bool()
            _ffi.check(lib.ce_dictionary_get(collection, encoded, len(encoded), ctypes.byref(value),
                                             ctypes.byref(found)))
            if not found.value:
                raise KeyError(name)
            return self._convert(value, name)
        return self._use(get)

    def __setitem__(self, name, item):
        self._use(lambda handle, collection: _put(self._txn, handle, collection, Collection.DICTIONARY,
                                                  self._element, self._embedded_table, name, item, self._where),
                  write=True)

    def __delitem__(self, name):
        def erase(handle, collection):
            encoded = _encode_key(name, self._where)
            erased = ctypes.c_bool()
            _ffi.check(lib.ce_dictionary_erase(collection, encoded, len(encoded), ctypes.byref(erased)))
            if not erased.value:
                raise KeyError(name)
        self._use(erase, write=True)

    def __iter__(self):
        return iter([name for name, _ in self._snapshot()])

    def __contains__(self, name):
        if not isinstance(name, str):
            return False
        try:
            self[name]
            return True
        except KeyError:
            return False

    def items(self):
        """The (key, value) pairs, read in one pass."""
        return list(self._snapshot())

    def values(self):
        return [item for _, item in self._snapshot()]

    def __eq__(self, other):
        if isinstance(other, collections.abc.Mapping):
            return dict(self.items()) == dict(other.items())
        return NotImplemented

    def __repr__(self):
        return repr(dict(self.items()))


_VIEWS = {Collection.LIST: List, Collection.SET: Set, Collection.DICTIONARY: Dictionary}
