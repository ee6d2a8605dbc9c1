"""database.py — databases and transactions: opening a file (a path, an
encryption key, read-only, in memory), read and write transactions as
context managers, the schema (defining and reading it), copies and
compaction.

    with openrealm.open("app.realm") as db:
        with db.write() as txn:          # commits at the end, rolls back on an exception
            txn.update_schema({"Dog": {"name": "string", "age": "int"}})
            txn.create("Dog", {"name": "Rex", "age": 3})
        with db.read() as txn:
            print(txn.query("Dog", "age > $0", 2).count())

Handles: the package tracks every C handle's lifetime and refuses (with
WrongTransactionStateError) any call on a closed database, an ended
transaction, or an object or results view of one, instead of passing a
freed pointer to the engine. A transaction is serialized by its own lock,
so that threads sharing one never use it at the same time; closing a
database is refused while a transaction of it is open or beginning.

Owns: Database, Transaction, the per-transaction cache of class layouts,
and the release of the results handles a transaction owns when it ends.
Never: converts values (_values.py) or reads objects (objects.py).
"""

import collections.abc
import ctypes
import os
import threading
import uuid as _uuid
import weakref

from . import _ffi
from ._ffi import lib
from ._values import c_text
from .errors import (ErrorCode, InvalidArgumentError, NoSuchPropertyError, NoSuchTableError, ObjectStoreError,
                     WrongTransactionStateError, WrongTypeError)
from .types import Collection, ObjectSchema, Property, Type, as_property

_DURABILITY_FULL = 0
_DURABILITY_MEMORY_ONLY = 1


def _path_bytes(path, where):
    """`path` (str, bytes or os.PathLike) as the bytes the engine takes. A
    NUL would end the C string early: the engine would use another file
    (the part before it), so such a path is refused."""
    try:
        encoded = os.fsencode(path)
    except TypeError:
        raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT, f"{where}: a path is a str, bytes or "
                                   f"os.PathLike, not {type(path).__name__}") from None
    if b"\0" in encoded:
        raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT,
                                   f"{where}: a path cannot contain a NUL character: {path!r}")
    return encoded


def _key_buffer(key, where):
    if key is None:
        return None
    if not isinstance(key, (bytes, bytearray, memoryview)):
        # A str of 64 characters was "64 bytes, not 64"; a float, a bare
        # "64 bytes". The type is the mistake: say so.
        raise WrongTypeError(ErrorCode.WRONG_TYPE, f"{where}: an encryption key is 64 bytes (bytes, bytearray or "
                                                   f"memoryview), not {type(key).__name__}")
    if len(key) != 64:
        raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT,
                                   f"{where}: an encryption key is 64 bytes, not {len(key)}")
    return ctypes.create_string_buffer(bytes(key), 64)


def _copy_options(key, progress, errors):
    options = _ffi.CopyOptions()
    lib.ce_copy_options_init(ctypes.byref(options))
    keep = []
    buffer = _key_buffer(key, "write_copy")
    if buffer is not None:
        keep.append(buffer)
        options.encryption_key = ctypes.cast(buffer, ctypes.c_void_p)
        options.encryption_key_size = 64
    if progress is not None:
        callback = _progress_callback(progress, errors)
        keep.append(callback)
        options.progress = callback
    return options, keep


def _progress_callback(progress, errors):
    """A ce_progress_fn calling `progress(done, total)`; what it raises is
    kept in `errors` (later reports are skipped) to be raised again once the
    engine's call returns. NULL for None."""
    if progress is None:
        return _ffi.PROGRESS()

    def report(context, done, total):
        if errors:
            return
        try:
            progress(done, total)
        except BaseException as error:  # raised again once the call returns
            errors.append(error)
    return _ffi.PROGRESS(report)


def delete_files(path):
    """Deletes a database file and the files beside it (Realm's
    deleteFiles(for:)); refused while any process has it open. Returns
    whether the file existed."""
    deleted = ctypes.c_bool()
    _ffi.check(lib.ce_db_delete_files(_path_bytes(path, "delete_files"), ctypes.byref(deleted)))
    return deleted.value


class Database:
    """An open database file. Open it with openrealm.open(...) (the same
    arguments); close it with close() or a `with` block."""

    def __init__(self, path=None, *, key=None, read_only=False, in_memory=False, create=True):
        self._lock = threading.RLock()
        self._handle = None
        self._transactions = weakref.WeakSet()
        self._busy = 0  # calls on the handle in progress outside the lock (beginning, copies, ...)
        options = _ffi.DbOptions()
        lib.ce_db_options_init(ctypes.byref(options))
        options.read_only = bool(read_only)
        options.no_create = not create
        keep = []
        key_buffer = _key_buffer(key, "open")
        if key_buffer is not None:
            keep.append(key_buffer)
            options.encryption_key = ctypes.cast(key_buffer, ctypes.c_void_p)
            options.encryption_key_size = 64
        if in_memory:
            options.durability = _DURABILITY_MEMORY_ONLY
            if path is None:
                identifier = in_memory if isinstance(in_memory, str) else f"openrealm-python-{_uuid.uuid4().hex}"
                keep.append(_path_bytes(identifier, "open (in_memory)"))
                options.in_memory_identifier = keep[-1]
        elif path is None:
            raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT, "open: a path is required (or in_memory=True)")
        handle = ctypes.c_void_p()
        _ffi.check(lib.ce_db_open(None if path is None else _path_bytes(path, "open"), ctypes.byref(options),
                                  ctypes.byref(handle)))
        self._handle = handle
        self.path = path
        self.read_only = bool(read_only)

    # -- lifetime --------------------------------------------------------

    def _live(self):
        if self._handle is None:
            raise WrongTransactionStateError(ErrorCode.WRONG_TRANSACTION_STATE,
                                             f"the database '{self.path}' is closed")
        return self._handle

    @property
    def closed(self):
        return self._handle is None

    def close(self):
        """Closes the database. Refused (WrongTransactionStateError) while a
        transaction of it is open. Closing twice is no error."""
        with self._lock:
            if self._handle is None:
                return
            if self._transactions or self._busy:
                raise WrongTransactionStateError(
                    ErrorCode.WRONG_TRANSACTION_STATE,
                    f"cannot close '{self.path}': {len(self._transactions)} transaction(s) of it are still open"
                    + (f", {self._busy} call(s) on it in progress" if self._busy else ""))
            _ffi.check(lib.ce_db_close(self._handle))
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        # Transactions left open in the block are rolled back first.
        for txn in list(self._transactions):
            txn._end()
        self.close()
        return False

    def __del__(self):
        if getattr(self, "_handle", None) is not None:
            try:
                for txn in list(self._transactions):
                    txn._end()
                self.close()
            except Exception:
                pass

    def __repr__(self):
        state = "closed" if self._handle is None else "open"
        return f"<openrealm.Database {self.path!r} {state}>"

    # -- transactions ----------------------------------------------------

    def _using(self, run):
        """run(handle) with the handle alive: counted as busy (close refuses
        meanwhile) but outside the lock, so that a long call (a copy, a
        write transaction waiting for another writer) blocks no other
        thread's transactions."""
        with self._lock:
            handle = self._live()
            self._busy += 1
        try:
            return run(handle)
        finally:
            with self._lock:
                self._busy -= 1

    def _begin(self, write, wait=True):
        def begin(handle):
            txn_handle = ctypes.c_void_p()
            if not write:
                call = lib.ce_txn_begin_read
            else:
                call = lib.ce_txn_begin_write if wait else lib.ce_txn_try_begin_write
            _ffi.check(call(handle, ctypes.byref(txn_handle)))
            if not txn_handle:
                return None  # busy: another writer holds the write lock
            txn = Transaction(self, txn_handle, write)
            with self._lock:
                self._transactions.add(txn)
            return txn
        return self._using(begin)

    def read(self):
        """Begins a read transaction: a snapshot of the latest version. Use
        it in a `with` block (it ends at the end) or call end()."""
        return self._begin(False)

    def write(self):
        """Begins the write transaction, waiting for any other writer. In a
        `with` block it commits when the block ends normally and rolls back
        when an exception leaves it."""
        return self._begin(True)

    def try_write(self):
        """Begins the write transaction only if no other writer (a thread,
        another handle, another process, a compaction) holds the write lock;
        otherwise returns None at once, without waiting.

            txn = db.try_write()
            if txn is None:
                ...  # busy: try again later
            else:
                with txn:
                    txn.create("Note", {"text": "hi"})
        """
        return self._begin(True, wait=False)

    # -- whole-file operations -------------------------------------------

    @property
    def latest_version(self):
        version = ctypes.c_uint64()
        self._using(lambda h: _ffi.check(lib.ce_db_latest_version(h, ctypes.byref(version))))
        return version.value

    def verify(self, *, progress=None):
        """Checks the latest version of the file (every node, the free
        space); returns its statistics as a dict. `progress(done, total)` is
        called as it goes with the bytes checked, last with done == total."""
        stats = _ffi.DbStats()
        errors = []
        callback = _progress_callback(progress, errors)
        self._using(lambda h: _ffi.check(lib.ce_db_verify_with_progress(h, ctypes.byref(stats), callback, None)))
        if errors:
            raise errors[0]
        return {name: getattr(stats, name) for name, _ in _ffi.DbStats._fields_}

    def size_info(self):
        """(file size, about the size a compacted copy would have), bytes."""
        total, used = ctypes.c_uint64(), ctypes.c_uint64()
        self._using(lambda h: _ffi.check(lib.ce_db_size_info(h, ctypes.byref(total), ctypes.byref(used))))
        return total.value, used.value

    def write_copy(self, path, *, key=None, progress=None):
        """Writes a compacted copy of the latest version to a new file
        (Realm's writeCopy): encrypted with `key` (64 bytes) or plain.
        `progress(done, total)` is called as it goes."""
        errors = []
        options, keep = _copy_options(key, progress, errors)
        encoded = _path_bytes(path, "write_copy")
        self._using(lambda h: _ffi.check(lib.ce_db_write_copy(h, encoded, ctypes.byref(options))))
        if errors:
            raise errors[0]

    def compact(self, *, progress=None):
        """Compacts the file in place. Refused while a transaction of this
        database is open, or another handle has the file open."""
        errors = []
        options, keep = _copy_options(None, progress, errors)

        def run(handle):
            if self._transactions:
                raise WrongTransactionStateError(ErrorCode.WRONG_TRANSACTION_STATE,
                                                 f"cannot compact '{self.path}' while a transaction is open")
            _ffi.check(lib.ce_db_compact(handle, ctypes.byref(options)))
        self._using(run)
        if errors:
            raise errors[0]


def open(path=None, *, key=None, read_only=False, in_memory=False, create=True):
    """Opens (or creates) a database.

    path       the file (its lock file is `<path>.lock`)
    key        64 bytes: the file is encrypted with it (a new file), or
               opens only with it (an existing one)
    read_only  open without writing; the file must exist
    in_memory  True: the data lives only while the database is open (with
               a path: that file, removed at close; without: a private
               in-memory database); a string: an identifier shared by
               handles opened with the same one
    create     False: a missing file is an error (FileError, FILE_NOT_FOUND)
    """
    return Database(path, key=key, read_only=read_only, in_memory=in_memory, create=create)


class _Column:
    __slots__ = ("key", "name", "type", "nullable", "collection", "target", "target_embedded", "primary_key",
                 "indexed", "backlink", "origin")

    def __init__(self, key, name, info):
        self.key = key
        self.name = name
        self.type = Type(info.type)
        self.nullable = bool(info.nullable)
        self.collection = Collection(info.collection)
        self.target = info.link_target if self.type == Type.LINK and not info.backlink else None
        self.target_embedded = False
        self.primary_key = bool(info.primary_key)
        self.indexed = bool(info.indexed)
        self.backlink = bool(info.backlink)
        self.origin = (info.origin_table, info.origin_column) if info.backlink else None


class _Class:
    """A class's layout as a transaction sees it."""
    __slots__ = ("table", "name", "embedded", "columns", "by_key", "primary_key")

    def __init__(self, table, name, embedded, columns):
        self.table = table
        self.name = name
        self.embedded = embedded
        self.columns = {c.name: c for c in columns}
        self.by_key = {c.key: c for c in columns}
        self.primary_key = next((c for c in columns if c.primary_key), None)

    def column(self, name):
        if not isinstance(name, str):
            raise WrongTypeError(ErrorCode.WRONG_TYPE, f"property names of '{self.name}' are strings, not "
                                                       f"{type(name).__name__} {name!r:.60}")
        column = self.columns.get(name)
        if column is None or column.backlink:
            raise NoSuchPropertyError(ErrorCode.NO_SUCH_PROPERTY,
                                      f"Property '{name}' does not exist on '{self.name}'")
        return column


class _Guard:
    """`with txn._guard() as handle:` the transaction's lock held and the
    transaction known to be alive."""
    __slots__ = ("txn",)

    def __init__(self, txn):
        self.txn = txn

    def __enter__(self):
        txn = self.txn
        txn._lock.acquire()
        if txn._handle is None:
            txn._lock.release()
            raise WrongTransactionStateError(ErrorCode.WRONG_TRANSACTION_STATE,
                                             "the transaction has ended (commit, rollback or end): objects and "
                                             "results of it cannot be used")
        return txn._handle

    def __exit__(self, kind, error, traceback):
        self.txn._lock.release()
        return False


class Transaction:
    """A read or write transaction of a Database (from db.read() or
    db.write()). Objects and results belong to the transaction they were
    read in, and cannot be used once it ends."""

    def __init__(self, db, handle, write):
        self._db = db
        self._handle = handle
        self._lock = threading.RLock()
        self.is_write = write
        self._classes = {}
        self._classes_by_key = {}
        self._owned = {}  # token -> results handle, freed when the transaction ends
        self._next_token = 0

    def _guard(self):
        return _Guard(self)

    @property
    def database(self):
        return self._db

    @property
    def active(self):
        return self._handle is not None

    @property
    def version(self):
        with self._guard() as handle:
            return lib.ce_txn_version(handle)

    def _require_write(self, what):
        if not self.is_write:
            raise WrongTransactionStateError(ErrorCode.WRONG_TRANSACTION_STATE,
                                             f"{what} needs a write transaction (db.write())")

    # -- ending ----------------------------------------------------------

    def _free_owned(self):
        for handle in self._owned.values():
            lib.ce_results_free(handle)
        self._owned.clear()

    def _end(self):
        with self._lock:
            if self._handle is None:
                return
            self._free_owned()
            lib.ce_txn_end(self._handle)
            self._handle = None
        with self._db._lock:
            self._db._transactions.discard(self)

    def commit(self):
        """Commits a write transaction and ends it (durable when it
        returns). A failed commit rolls the transaction back and ends it."""
        self._require_write("commit")
        with self._lock:
            with self._guard() as handle:
                self._free_owned()
                if not lib.ce_txn_commit(handle):
                    error = _ffi.last_error()
                    self._end()
                    raise error
                self._handle = None
        with self._db._lock:
            self._db._transactions.discard(self)

    def rollback(self):
        """Ends the transaction without committing."""
        self._end()

    end = rollback

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if self._handle is None:
            return False
        if kind is None and self.is_write:
            self.commit()
        else:
            self._end()
        return False

    def __del__(self):
        if getattr(self, "_handle", None) is not None:
            try:
                self._end()
            except Exception:
                pass

    def refresh(self):
        """Moves a read transaction to the latest version."""
        if self.is_write:
            raise WrongTransactionStateError(ErrorCode.WRONG_TRANSACTION_STATE,
                                             "refresh: a write transaction always sees the latest version")
        with self._guard() as handle:
            _ffi.check(lib.ce_txn_advance(handle))

    def __repr__(self):
        kind = "write" if self.is_write else "read"
        state = "active" if self._handle is not None else "ended"
        return f"<openrealm.Transaction {kind} {state}>"

    # -- owned handles ---------------------------------------------------

    def _adopt(self, handle):
        """Takes ownership of a results handle: freed when the transaction
        ends (or earlier by _release). Call with the guard held."""
        token = self._next_token
        self._next_token += 1
        self._owned[token] = handle
        return token

    def _release(self, token):
        with self._lock:
            handle = self._owned.pop(token, None)
            if handle is not None:
                lib.ce_results_free(handle)

    # -- classes ---------------------------------------------------------

    def _load_class(self, handle, table, name=None):
        if name is None:
            raw = ctypes.c_char_p()
            _ffi.check(lib.ce_table_name(handle, table, ctypes.byref(raw)))
            name = raw.value.decode("utf-8")
        embedded = ctypes.c_bool()
        _ffi.check(lib.ce_table_is_embedded(handle, table, ctypes.byref(embedded)))
        count = ctypes.c_size_t()
        _ffi.check(lib.ce_property_count(handle, table, ctypes.byref(count)))
        columns = []
        info = _ffi.PropertyInfo()
        for column in range(count.value):
            if not lib.ce_property_get_info(handle, table, column, ctypes.byref(info)):
                if lib.ce_last_error_code() == ErrorCode.NO_SUCH_PROPERTY:
                    continue  # a removed property's slot
                raise _ffi.last_error()
            columns.append(_Column(column, info.name.decode("utf-8"), info))
        for column in columns:
            if column.target is not None:
                target_embedded = ctypes.c_bool()
                _ffi.check(lib.ce_table_is_embedded(handle, column.target, ctypes.byref(target_embedded)))
                column.target_embedded = target_embedded.value
        loaded = _Class(table, name, embedded.value, columns)
        self._classes[name] = loaded
        self._classes_by_key[table] = loaded
        return loaded

    def _class(self, handle, name):
        """The layout of class `name` (the guard held)."""
        loaded = self._classes.get(name)
        if loaded is not None:
            return loaded
        if not isinstance(name, str):
            raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT, f"a class name is a string, not {name!r}")
        table = ctypes.c_uint32()
        found = ctypes.c_bool()
        _ffi.check(lib.ce_table_find(handle, c_text(name, "a class name"), ctypes.byref(table), ctypes.byref(found)))
        if not found.value:
            raise NoSuchTableError(ErrorCode.NO_SUCH_TABLE, f"Class '{name}' does not exist in the schema")
        return self._load_class(handle, table.value, name)

    def _class_by_key(self, handle, table):
        loaded = self._classes_by_key.get(table)
        return loaded if loaded is not None else self._load_class(handle, table)

    def _schema_changed(self):
        self._classes.clear()
        self._classes_by_key.clear()

    # -- schema ----------------------------------------------------------

    @property
    def schema(self):
        """Every class: a dict of name to ObjectSchema."""
        with self._guard() as handle:
            count = ctypes.c_size_t()
            _ffi.check(lib.ce_table_count(handle, ctypes.byref(count)))
            result = {}
            raw = ctypes.c_char_p()
            for table in range(count.value):
                if not lib.ce_table_name(handle, table, ctypes.byref(raw)):
                    if lib.ce_last_error_code() == ErrorCode.NO_SUCH_TABLE:
                        continue  # a removed class's slot
                    raise _ffi.last_error()
                loaded = self._class_by_key(handle, table)
                result[loaded.name] = self._object_schema(handle, loaded)
            return result

    def _object_schema(self, handle, loaded):
        properties = {}
        for column in loaded.columns.values():
            target = None
            if column.backlink:
                origin = self._class_by_key(handle, column.origin[0])
                target = origin.name
            elif column.type == Type.LINK:
                target = self._class_by_key(handle, column.target).name
            prop = Property(column.type, primary_key=column.primary_key, indexed=column.indexed,
                            collection=column.collection, target=target)
            prop.optional = column.nullable
            prop.name = column.name
            if column.backlink:
                prop.backlink = (origin.name, origin.by_key[column.origin[1]].name)
            properties[column.name] = prop
        return ObjectSchema(loaded.name, properties, loaded.embedded)

    def update_schema(self, classes, *, embedded=()):
        """Defines classes: `classes` maps each class name to its properties
        (a dict of property name to a Property, a spec string or a Python
        type); the names in `embedded` are embedded classes. Classes and
        properties that do not exist are created; existing ones must match
        (else ObjectStoreError SCHEMA_MISMATCH). Running it again with the
        same definition changes nothing."""
        self._require_write("update_schema")
        if not isinstance(classes, collections.abc.Mapping):
            raise WrongTypeError(ErrorCode.WRONG_TYPE, f"update_schema takes a dict of class name to properties, "
                                                       f"not {type(classes).__name__} {classes!r:.60}")
        for name, properties in classes.items():
            if not isinstance(properties, collections.abc.Mapping):
                raise WrongTypeError(ErrorCode.WRONG_TYPE, f"the properties of class {name!r} are a dict of property "
                                                           f"name to type, not {type(properties).__name__} "
                                                           f"{properties!r:.60}")
            # Names checked before anything changes (not class by class).
            c_text(name, "a class name")
            for property_name in properties:
                c_text(property_name, "a property name")
        embedded = set(embedded)
        unknown = embedded - set(classes)
        if unknown:
            raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT,
                                       f"embedded names classes not defined: {', '.join(sorted(unknown))}")
        with self._guard() as handle:
            try:
                tables = {}
                for name in classes:
                    table = ctypes.c_uint32()
                    found = ctypes.c_bool()
                    _ffi.check(lib.ce_table_find(handle, c_text(name, "a class name"), ctypes.byref(table),
                                                 ctypes.byref(found)))
                    if found.value:
                        is_embedded = ctypes.c_bool()
                        _ffi.check(lib.ce_table_is_embedded(handle, table, ctypes.byref(is_embedded)))
                        if is_embedded.value != (name in embedded):
                            raise self._mismatch(f"class '{name}' exists {'as' if is_embedded.value else 'not as'} "
                                                 f"an embedded class")
                    else:
                        add = lib.ce_table_add_embedded if name in embedded else lib.ce_table_add
                        _ffi.check(add(handle, c_text(name, "a class name"), ctypes.byref(table)))
                    tables[name] = table.value
                self._schema_changed()
                for name, properties in classes.items():
                    existing = self._class(handle, name)
                    for prop_name, spec in properties.items():
                        prop = as_property(spec)
                        self._add_property(handle, existing, prop_name, prop, tables)
            finally:
                self._schema_changed()

    def _mismatch(self, message):
        return ObjectStoreError(ErrorCode.SCHEMA_MISMATCH, message)

    def _add_property(self, handle, existing, name, prop, tables):
        target = None
        if prop.type == Type.LINK:
            target = tables.get(prop.target)
            if target is None:
                target = self._class(handle, prop.target).table
        column = existing.columns.get(name)
        if column is not None:
            same = (column.type == prop.type and column.collection == prop.collection
                    and column.primary_key == prop.primary_key
                    and (column.indexed == prop.indexed or prop.primary_key)
                    and (column.target == target) and (column.nullable == prop.optional or prop.type == Type.MIXED))
            if not same:
                raise self._mismatch(f"property '{existing.name}.{name}' exists with another definition")
            return
        info = _ffi.PropertyInfo()
        encoded = c_text(name, "a property name")
        info.name = encoded
        info.type = prop.type
        info.nullable = prop.optional
        info.primary_key = prop.primary_key
        info.indexed = prop.indexed
        info.collection = prop.collection
        info.link_target = target or 0
        out = ctypes.c_uint32()
        _ffi.check(lib.ce_property_add(handle, existing.table, ctypes.byref(info), ctypes.byref(out)))

    def remove_class(self, name):
        """Removes a class with all its objects."""
        self._require_write("remove_class")
        with self._guard() as handle:
            loaded = self._class(handle, name)
            try:
                _ffi.check(lib.ce_table_remove(handle, loaded.table))
            finally:
                self._schema_changed()

    def remove_property(self, class_name, name):
        """Removes a property and its values."""
        self._require_write("remove_property")
        with self._guard() as handle:
            column = self._class(handle, class_name).column(name)
            try:
                _ffi.check(lib.ce_property_remove(handle, self._classes[class_name].table, column.key))
            finally:
                self._schema_changed()

    # -- objects and queries (objects.py does the work) --------------------

    def create(self, class_name, values=None, *, update=None):
        """Creates an object of `class_name` with `values` (a dict of
        property name to value; unnamed properties get their default).
        update=None: an existing primary key is DuplicatePrimaryKeyError;
        "modified": the existing object's properties named in `values` are
        set where they differ; "all": all of them are set. Returns the
        Object."""
        from .objects import create_object
        self._require_write("create")
        if update not in (None, False, "modified", "all"):
            raise InvalidArgumentError(ErrorCode.INVALID_ARGUMENT,
                                       f"update is None, 'modified' or 'all', not {update!r}")
        if values is not None and not isinstance(values, collections.abc.Mapping):
            raise WrongTypeError(ErrorCode.WRONG_TYPE, f"create takes a dict of property name to value, not "
                                                       f"{type(values).__name__} {values!r:.60}")
        with self._guard() as handle:
            return create_object(self, handle, class_name, dict(values or {}), update or None)

    def delete(self, obj):
        """Deletes an object (its embedded objects with it)."""
        from .objects import Object
        if not isinstance(obj, Object):
            raise WrongTypeError(ErrorCode.WRONG_TYPE, f"delete takes an Object, not {type(obj).__name__} {obj!r:.60}")
        obj._check_usable_in(self)
        obj.delete()

    def object(self, class_name, primary_key):
        """The object of `class_name` whose primary key is `primary_key`, or
        None."""
        from .objects import find_by_primary_key
        with self._guard() as handle:
            return find_by_primary_key(self, handle, class_name, primary_key)

    def objects(self, class_name):
        """Every object of a class, as a Results view (in creation order)."""
        return self.query(class_name, "TRUEPREDICATE")

    def query(self, class_name, predicate, *arguments):
        """The objects of a class matching `predicate` (Realm's predicate
        format: "age >= $0 AND name BEGINSWITH[c] %@"), with `arguments`
        for $N and %@ (a list or tuple argument for IN %@ / BETWEEN %@)."""
        from .objects import query_results
        with self._guard() as handle:
            return query_results(self, handle, self._class(handle, class_name), predicate, arguments, None)

    def write_copy(self, path, *, key=None, progress=None):
        """Writes what this transaction sees (a write transaction: with its
        changes, not committed) to a new file, as Database.write_copy."""
        errors = []
        options, keep = _copy_options(key, progress, errors)
        with self._guard() as handle:
            _ffi.check(lib.ce_txn_write_copy(handle, _path_bytes(path, "write_copy"), ctypes.byref(options)))
        if errors:
            raise errors[0]
