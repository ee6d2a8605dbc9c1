"""objects.py — objects and results views: objects with their properties
as attributes, creating, updating and deleting them, and the results of
queries with their filters, sorts, limits and aggregates.

    dog = txn.create("Dog", {"name": "Rex", "age": 3, "tags": ["good"]})
    dog.age += 1                         # or dog["age"] = 4
    dog.tags.append("good")              # a live list (containers.py)
    old = txn.query("Dog", "age > $0", 2).sorted("name").limit(10)
    [d.name for d in old], len(old), old.average("age")

Properties are read and written by containers.py (collections as live
views). An embedded object reads as an Object.

Owns: Object, Results, creating objects and finding them by primary key.
Never: uses a transaction without its guard.
"""

import collections.abc
import ctypes

from . import _ffi
from ._ffi import Value, lib
from ._values import c_text, to_python, to_value
from .containers import plain, read_property, write_properties, write_property
from .errors import ErrorCode, InvalidArgumentError, ObjectStoreError, WrongTransactionStateError, WrongTypeError

_CHUNK = 256
_SIZE_MAX = (1 << (8 * ctypes.sizeof(ctypes.c_size_t))) - 1  # larger ints reach C modulo 2**64
_AGGREGATE_MIN, _AGGREGATE_MAX, _AGGREGATE_SUM, _AGGREGATE_AVG, _AGGREGATE_COUNT = range(5)


def _same(current, new):
    """Whether writing `new` over `current` would change nothing (for
    update="modified")."""
    if isinstance(current, set) and isinstance(new, (set, frozenset, list, tuple)):
        return current == set(new)
    if isinstance(current, list) and isinstance(new, tuple):
        new = list(new)
    if isinstance(current, bool) != isinstance(new, bool) or type(current) is not type(new) and \
            not (isinstance(current, (int, float)) and isinstance(new, (int, float))):
        return False
    try:
        return bool(current == new)
    except Exception:
        return False


# ---------------------------------------------------------------------------
# Creating and finding objects
# ---------------------------------------------------------------------------

def create_object(txn, handle, class_name, values, update):
    loaded = txn._class(handle, class_name)
    columns = [(loaded.column(name), value) for name, value in values.items()]
    if loaded.embedded:
        raise ObjectStoreError(ErrorCode.EMBEDDED_OBJECT,
                               f"'{class_name}' is an embedded class: its objects are created through their "
                               f"parent (assign a dict to the parent's property)")
    primary = loaded.primary_key
    keep = []
    key = ctypes.c_int64()
    created = True
    if primary is not None:
        if primary.name in values:
            primary_value = values[primary.name]
        elif primary.nullable:
            primary_value = None
        else:
            raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT,
                                       f"creating a '{class_name}' needs its primary key '{primary.name}'")
        converted = to_value(txn, primary_value, primary.type, keep, f"'{class_name}.{primary.name}'")
        if update:
            found = ctypes.c_bool()
            _ffi.check(lib.ce_object_find_primary_key(handle, loaded.table, ctypes.byref(converted),
                                                      ctypes.byref(key), ctypes.byref(found)))
            created = not found.value
        if created:
            _ffi.check(lib.ce_object_create(handle, loaded.table, ctypes.byref(converted), ctypes.byref(key)))
    else:
        if update:
            raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT,
                                       f"update needs a class with a primary key; '{class_name}' has none")
        _ffi.check(lib.ce_object_create(handle, loaded.table, None, ctypes.byref(key)))
    if not created:
        # An update of an existing object: all or nothing (write_properties).
        changed = [(column, value) for column, value in columns if column is not primary and not (
            update == "modified" and _same(plain(read_property(txn, handle, loaded, key.value, column)), value))]
        write_properties(txn, handle, loaded, key.value, changed)
        return Object(txn, loaded.table, key.value)
    try:
        for column, value in columns:
            if column is primary:
                continue
            write_property(txn, handle, loaded, key.value, column, value)
    except BaseException:
        # A refused value (wrong type, null for a required property, a bad
        # element) leaves no half-created object: the new one goes, its
        # embedded objects with it, and the error is the caller's.
        lib.ce_object_delete(handle, loaded.table, key.value)
        raise
    return Object(txn, loaded.table, key.value)


def find_by_primary_key(txn, handle, class_name, primary_key):
    loaded = txn._class(handle, class_name)
    if loaded.primary_key is None:
        raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT, f"'{class_name}' has no primary key")
    keep = []
    converted = to_value(txn, primary_key, loaded.primary_key.type, keep,
                         f"'{class_name}.{loaded.primary_key.name}'")
    key = ctypes.c_int64()
    found = ctypes.c_bool()
    _ffi.check(lib.ce_object_find_primary_key(handle, loaded.table, ctypes.byref(converted), ctypes.byref(key),
                                              ctypes.byref(found)))
    return Object(txn, loaded.table, key.value) if found.value else None


# ---------------------------------------------------------------------------
# Objects
# ---------------------------------------------------------------------------

class Object:
    """An object of a class, read in one transaction. Its properties read
    as attributes or items (dog.name, dog["name"]) and, in a write
    transaction, are written the same way. It cannot be used after its
    transaction ends (WrongTransactionStateError): find it again in the
    next one (txn.object(class, primary_key))."""

    __slots__ = ("_txn", "_table", "_key", "__weakref__")

    def __init__(self, txn, table, key):
        object.__setattr__(self, "_txn", txn)
        object.__setattr__(self, "_table", table)
        object.__setattr__(self, "_key", key)

    @property
    def key(self):
        """The object's key within its class (stable, never reused)."""
        return self._key

    @property
    def transaction(self):
        return self._txn

    @property
    def class_name(self):
        with self._txn._guard() as handle:
            return self._txn._class_by_key(handle, self._table).name

    @property
    def is_valid(self):
        """Whether the transaction is active and the object not deleted."""
        if not self._txn.active:
            return False
        with self._txn._guard() as handle:
            exists = ctypes.c_bool()
            _ffi.check(lib.ce_object_exists(handle, self._table, self._key, ctypes.byref(exists)))
            return exists.value

    def _check_usable_in(self, txn):
        if self._txn is txn:
            return
        if self._txn._db is not txn._db:
            raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT, "an object of another database cannot be linked")
        raise WrongTransactionStateError(ErrorCode.WRONG_TRANSACTION_STATE,
                                         "an object of another transaction cannot be used in this one: find it "
                                         "again in this transaction")

    def __getitem__(self, name):
        with self._txn._guard() as handle:
            loaded = self._txn._class_by_key(handle, self._table)
            return read_property(self._txn, handle, loaded, self._key, loaded.column(name))

    def __setitem__(self, name, value):
        self._txn._require_write(f"setting '{name}'")
        with self._txn._guard() as handle:
            loaded = self._txn._class_by_key(handle, self._table)
            write_properties(self._txn, handle, loaded, self._key, [(loaded.column(name), value)])

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self[name]

    def __setattr__(self, name, value):
        if name.startswith("_") or name in ("key", "transaction", "class_name", "is_valid"):
            raise AttributeError(f"'{name}' cannot be set")
        self[name] = value

    def __dir__(self):
        names = list(super().__dir__())
        try:
            with self._txn._guard() as handle:
                loaded = self._txn._class_by_key(handle, self._table)
                names += [c.name for c in loaded.columns.values() if not c.backlink]
        except WrongTransactionStateError:
            pass
        return names

    def to_dict(self):
        """Every property's value, collections as plain lists, sets and dicts
        (copies), links and embedded objects as Objects."""
        with self._txn._guard() as handle:
            loaded = self._txn._class_by_key(handle, self._table)
            return {c.name: plain(read_property(self._txn, handle, loaded, self._key, c))
                    for c in loaded.columns.values() if not c.backlink}

    def delete(self):
        """Deletes the object (and the embedded objects it owns)."""
        self._txn._require_write("delete")
        with self._txn._guard() as handle:
            _ffi.check(lib.ce_object_delete(handle, self._table, self._key))

    def linking_objects(self, class_name, property_name):
        """The objects of `class_name` whose `property_name` links to this
        one (Realm's LinkingObjects), as Results."""
        with self._txn._guard() as handle:
            origin = self._txn._class(handle, class_name)
            column = origin.column(property_name)
            results = ctypes.c_void_p()
            _ffi.check(lib.ce_results_from_backlinks(handle, self._table, self._key, origin.table, column.key,
                                                     ctypes.byref(results)))
            return Results(self._txn, results, origin.table)

    def __eq__(self, other):
        return (isinstance(other, Object) and other._txn._db is self._txn._db and other._table == self._table
                and other._key == self._key)

    def __hash__(self):
        return hash((id(self._txn._db), self._table, self._key))

    def __repr__(self):
        try:
            name = self.class_name
        except WrongTransactionStateError:
            name = f"table {self._table}"
        return f"<{name} key={self._key}>"


# ---------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------

def query_results(txn, handle, loaded, predicate, arguments, base):
    if not isinstance(predicate, str):
        raise WrongTypeError(ErrorCode.WRONG_TYPE, f"a predicate is a string, not {type(predicate).__name__}")
    keep = []
    count = len(arguments)
    converted = (_ffi.QueryArgument * max(count, 1))()
    for index, argument in enumerate(arguments):
        where = f"query argument {index}"
        if isinstance(argument, (collections.abc.Sequence, collections.abc.Set)) and \
                not isinstance(argument, (str, bytes, bytearray, memoryview)):
            values = (Value * max(len(argument), 1))(*[to_value(txn, item, None, keep, where) for item in argument])
            keep.append(values)
            converted[index].kind = 1
            converted[index].list = ctypes.cast(values, ctypes.POINTER(Value))
            converted[index].list_count = len(argument)
        else:
            converted[index].kind = 0
            converted[index].value = to_value(txn, argument, None, keep, where)
    query = ctypes.c_void_p()
    _ffi.check(lib.ce_query_parse(handle, loaded.table, c_text(predicate, "a predicate"), converted, count,
                                  ctypes.byref(query)))
    try:
        results = ctypes.c_void_p()
        if base is None:
            _ffi.check(lib.ce_query_find_all(query, ctypes.byref(results)))
        else:
            _ffi.check(lib.ce_results_filter(handle, base, query, ctypes.byref(results)))
    finally:
        lib.ce_query_free(query)
    return Results(txn, results, loaded.table)


class Results:
    """A lazy, live view of objects of one class (from txn.query,
    txn.objects, results.filter/sorted/distinct/limit, or
    obj.linking_objects): it evaluates when read and again after the
    transaction changed data. Supports len(), iteration, indexing and
    slicing (read in chunks, not one call per object), `in`, and
    min/max/sum/average of a property. It belongs to its transaction."""

    __slots__ = ("_txn", "_token", "_table", "__weakref__")

    def __init__(self, txn, handle, table):
        self._txn = txn
        self._table = table
        self._token = txn._adopt(handle)

    def _handle(self):
        handle = self._txn._owned.get(self._token)
        if handle is None:
            raise WrongTransactionStateError(ErrorCode.WRONG_TRANSACTION_STATE, "the results view was released")
        return handle

    def __del__(self):
        try:
            self._txn._release(self._token)
        except Exception:
            pass

    @property
    def class_name(self):
        with self._txn._guard() as handle:
            return self._txn._class_by_key(handle, self._table).name

    def __len__(self):
        with self._txn._guard() as handle:
            count = ctypes.c_size_t()
            _ffi.check(lib.ce_results_count(self._handle(), handle, ctypes.byref(count)))
            return count.value

    def count(self):
        return len(self)

    def _keys(self, start, count):
        with self._txn._guard() as handle:
            keys = (ctypes.c_int64 * max(count, 1))()
            got = ctypes.c_size_t()
            _ffi.check(lib.ce_results_get_range(self._handle(), handle, start, count, keys, ctypes.byref(got)))
            return keys[:got.value]

    def __iter__(self):
        at = 0
        while True:
            keys = self._keys(at, _CHUNK)
            if not keys:
                return
            for key in keys:
                yield Object(self._txn, self._table, key)
            at += len(keys)

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            if stop <= start:
                return []
            return [Object(self._txn, self._table, key) for key in self._keys(start, stop - start)]
        if not isinstance(index, int):
            raise TypeError(f"results indices are integers or slices, not {type(index).__name__}")
        if index < 0 or index > _SIZE_MAX:
            # Beyond size_t the engine would see the index modulo 2**64.
            size = len(self)
            at = index + size if index < 0 else index
            if not 0 <= at < size:
                raise _ffi.error_for(ErrorCode.INDEX_OUT_OF_BOUNDS,
                                     f"Index {index} is out of bounds (must be less than {size}).")
            index = at
        with self._txn._guard() as handle:
            keys = (ctypes.c_int64 * 1)()
            got = ctypes.c_size_t()
            if not lib.ce_results_get_range(self._handle(), handle, index, 1, keys, ctypes.byref(got)):
                raise _ffi.last_error()
            if got.value == 0:
                raise _ffi.error_for(ErrorCode.INDEX_OUT_OF_BOUNDS, f"Index {index} is out of bounds.")
            return Object(self._txn, self._table, keys[0])

    def first(self):
        """The first object, or None."""
        keys = self._keys(0, 1)
        return Object(self._txn, self._table, keys[0]) if keys else None

    def index(self, obj):
        """The position of `obj` (ValueError if it is not in the view)."""
        if not isinstance(obj, Object):
            raise ValueError(f"{obj!r} is not an object")
        obj._check_usable_in(self._txn)
        with self._txn._guard() as handle:
            at = ctypes.c_size_t()
            found = ctypes.c_bool()
            if obj._table == self._table:
                _ffi.check(lib.ce_results_index_of(self._handle(), handle, obj._key, ctypes.byref(at),
                                                   ctypes.byref(found)))
        if obj._table != self._table or not found.value:
            raise ValueError(f"{obj!r} is not in the results")
        return at.value

    def __contains__(self, obj):
        try:
            self.index(obj)
            return True
        except ValueError:
            return False

    def filter(self, predicate, *arguments):
        """The objects of this view matching `predicate`, in this view's order."""
        with self._txn._guard() as handle:
            loaded = self._txn._class_by_key(handle, self._table)
            return query_results(self._txn, handle, loaded, predicate, arguments, self._handle())

    def sorted(self, key_path, ascending=True):
        """Sorted by a key path, or by several: sorted([("age", False),
        "name"]) (a name alone is ascending). The sort is stable."""
        if isinstance(key_path, str):
            keys = [(key_path, ascending)]
        elif isinstance(key_path, collections.abc.Iterable):
            keys = [(k, True) if isinstance(k, str) else tuple(k) for k in key_path]
        else:
            raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT, f"sorted takes a key path or a list of them, not "
                                                                   f"{type(key_path).__name__} {key_path!r:.60}")
        encoded = [c_text(k, "a key path") for k, _ in keys]
        sort_keys = (_ffi.SortKey * max(len(keys), 1))()
        for index, (path, up) in enumerate(keys):
            sort_keys[index].key_path = encoded[index]
            sort_keys[index].ascending = bool(up)
        with self._txn._guard() as handle:
            results = ctypes.c_void_p()
            _ffi.check(lib.ce_results_sort(handle, self._handle(), sort_keys, len(keys), ctypes.byref(results)))
            return Results(self._txn, results, self._table)

    def distinct(self, *key_paths):
        """The first object of each distinct combination of the key paths."""
        encoded = [c_text(k, "a key path") for k in key_paths]
        paths = (ctypes.c_char_p * max(len(encoded), 1))(*encoded)
        with self._txn._guard() as handle:
            results = ctypes.c_void_p()
            _ffi.check(lib.ce_results_distinct(handle, self._handle(), paths, len(encoded), ctypes.byref(results)))
            return Results(self._txn, results, self._table)

    def limit(self, count):
        """The first `count` objects."""
        if not isinstance(count, int) or count < 0:
            raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT, f"a limit is an int >= 0, not {count!r}")
        with self._txn._guard():
            results = ctypes.c_void_p()
            # A limit past size_t's range limits nothing, as size_t's largest does.
            _ffi.check(lib.ce_results_limit(self._handle(), min(count, _SIZE_MAX), ctypes.byref(results)))
            return Results(self._txn, results, self._table)

    def _aggregate(self, key_path, aggregate):
        with self._txn._guard() as handle:
            value = Value()
            _ffi.check(lib.ce_results_aggregate(self._handle(), handle, c_text(key_path, "a key path"), aggregate,
                                                ctypes.byref(value), None))
            return to_python(self._txn, value)

    def min(self, key_path):
        """The least value of a property (int, float, double, decimal128,
        date), nulls skipped; None if there is none."""
        return self._aggregate(key_path, _AGGREGATE_MIN)

    def max(self, key_path):
        return self._aggregate(key_path, _AGGREGATE_MAX)

    def sum(self, key_path):
        """The sum (0 if none): an int for ints, a float for floats and
        doubles, a Decimal for decimal128."""
        return self._aggregate(key_path, _AGGREGATE_SUM)

    def average(self, key_path):
        """The mean (a float, or a Decimal for decimal128); None if none."""
        return self._aggregate(key_path, _AGGREGATE_AVG)

    def count_values(self, key_path):
        """The number of non-null values of a property."""
        return self._aggregate(key_path, _AGGREGATE_COUNT)

    def delete_all(self):
        """Deletes every object of the view."""
        self._txn._require_write("delete_all")
        doomed = [obj for obj in self]
        with self._txn._guard() as handle:
            for obj in doomed:
                _ffi.check(lib.ce_object_delete(handle, self._table, obj._key))

    def __repr__(self):
        try:
            return f"<Results of {self.class_name}: {len(self)} objects>"
        except WrongTransactionStateError:
            return "<Results of an ended transaction>"
