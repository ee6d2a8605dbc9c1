"""_ffi.py — the engine's C library through ctypes: finding and loading
libcengine, the structs of cengine.h and the signature of every function
the package calls.

Owns: the library search order (OPENREALM_LIBRARY, the copy bundled at
install time, then the system's libcengine), the check at load time that
the library lays out ce_value as this module does, and raising the last
error of a failed call.
Never: keeps handles, or converts values (_values.py does).
"""

import ctypes
import ctypes.util
import os
import pathlib

from .errors import error_for

# ---------------------------------------------------------------------------
# Structs, as cengine.h declares them
# ---------------------------------------------------------------------------

c_bool = ctypes.c_bool
c_int = ctypes.c_int
c_size_t = ctypes.c_size_t
c_uint32 = ctypes.c_uint32
c_uint64 = ctypes.c_uint64
c_int64 = ctypes.c_int64
c_void_p = ctypes.c_void_p
c_char_p = ctypes.c_char_p

VALUE_SIZE = 24  # CE_VALUE_SIZE
VALUE_DATA_OFFSET = 8  # CE_VALUE_DATA_OFFSET


class Timestamp(ctypes.Structure):
    _fields_ = [("seconds", c_int64), ("nanoseconds", ctypes.c_int32)]


class Decimal128(ctypes.Structure):
    _fields_ = [("low", c_uint64), ("high", c_uint64)]


class Bytes(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("size", c_size_t)]


class Link(ctypes.Structure):
    _fields_ = [("table", c_uint32), ("key", c_int64)]


class _ValueData(ctypes.Union):
    _fields_ = [
        ("integer", c_int64),
        ("boolean", c_bool),
        ("float_value", ctypes.c_float),
        ("double_value", ctypes.c_double),
        ("string", Bytes),
        ("binary", Bytes),
        ("timestamp", Timestamp),
        ("decimal", Decimal128),
        ("object_id", ctypes.c_uint8 * 12),
        ("uuid", ctypes.c_uint8 * 16),
        ("link", Link),
    ]


class Value(ctypes.Structure):
    _anonymous_ = ("data",)
    _fields_ = [("type", c_int), ("data", _ValueData)]


class DbOptions(ctypes.Structure):
    _fields_ = [
        ("read_only", c_bool),
        ("no_create", c_bool),
        ("durability", c_int),
        ("in_memory_identifier", c_char_p),
        ("max_active_versions", c_uint64),
        ("encryption_key", c_void_p),
        ("encryption_key_size", c_size_t),
        ("encryption_cache_bytes", c_uint64),
        ("disable_page_checksums", c_bool),
        ("immutable", c_bool),
    ]


class PropertyInfo(ctypes.Structure):
    _fields_ = [
        ("name", c_char_p),
        ("type", c_int),
        ("nullable", c_bool),
        ("primary_key", c_bool),
        ("indexed", c_bool),
        ("collection", c_int),
        ("link_target", c_uint32),
        ("backlink", c_bool),
        ("origin_table", c_uint32),
        ("origin_column", c_uint32),
    ]


class QueryArgument(ctypes.Structure):
    _fields_ = [("kind", c_int), ("value", Value), ("list", ctypes.POINTER(Value)), ("list_count", c_size_t),
                ("geo", ctypes.c_void_p)]


class SortKey(ctypes.Structure):
    _fields_ = [("key_path", c_char_p), ("ascending", c_bool)]


PROGRESS = ctypes.CFUNCTYPE(None, c_void_p, c_uint64, c_uint64)


class CopyOptions(ctypes.Structure):
    _fields_ = [
        ("encryption_key", c_void_p),
        ("encryption_key_size", c_size_t),
        ("progress", PROGRESS),
        ("progress_context", c_void_p),
    ]


class DbStats(ctypes.Structure):
    _fields_ = [(name, c_uint64) for name in (
        "version", "file_size", "logical_size", "used_bytes", "free_bytes", "node_count", "free_extent_count",
        "active_versions")]


# ---------------------------------------------------------------------------
# Functions
# ---------------------------------------------------------------------------

P = ctypes.POINTER
_B = c_bool
_SIGNATURES = {
    "ce_last_error_code": (c_int, []),
    "ce_last_error_message": (c_char_p, []),
    "ce_error_name": (c_char_p, [c_int]),
    "ce_engine_version": (c_char_p, []),
    "ce_value_size": (c_size_t, []),
    "ce_type_name": (c_char_p, [c_int]),
    "ce_db_options_init": (None, [P(DbOptions)]),
    "ce_db_open": (_B, [c_char_p, P(DbOptions), P(c_void_p)]),
    "ce_db_close": (_B, [c_void_p]),
    "ce_db_delete_files": (_B, [c_char_p, P(c_bool)]),
    "ce_db_latest_version": (_B, [c_void_p, P(c_uint64)]),
    "ce_db_verify": (_B, [c_void_p, P(DbStats)]),
    "ce_db_verify_with_progress": (_B, [c_void_p, P(DbStats), PROGRESS, c_void_p]),
    "ce_db_size_info": (_B, [c_void_p, P(c_uint64), P(c_uint64)]),
    "ce_copy_options_init": (None, [P(CopyOptions)]),
    "ce_db_write_copy": (_B, [c_void_p, c_char_p, P(CopyOptions)]),
    "ce_txn_write_copy": (_B, [c_void_p, c_char_p, P(CopyOptions)]),
    "ce_db_compact": (_B, [c_void_p, P(CopyOptions)]),
    "ce_txn_begin_read": (_B, [c_void_p, P(c_void_p)]),
    "ce_txn_begin_write": (_B, [c_void_p, P(c_void_p)]),
    "ce_txn_try_begin_write": (_B, [c_void_p, P(c_void_p)]),
    "ce_txn_commit": (_B, [c_void_p]),
    "ce_txn_end": (None, [c_void_p]),
    "ce_txn_advance": (_B, [c_void_p]),
    "ce_txn_version": (c_uint64, [c_void_p]),
    "ce_decimal128_from_string": (_B, [c_char_p, P(Decimal128)]),
    "ce_decimal128_to_string": (c_size_t, [Decimal128, c_char_p, c_size_t]),
    "ce_table_count": (_B, [c_void_p, P(c_size_t)]),
    "ce_table_add": (_B, [c_void_p, c_char_p, P(c_uint32)]),
    "ce_table_add_embedded": (_B, [c_void_p, c_char_p, P(c_uint32)]),
    "ce_table_find": (_B, [c_void_p, c_char_p, P(c_uint32), P(c_bool)]),
    "ce_table_name": (_B, [c_void_p, c_uint32, P(c_char_p)]),
    "ce_table_is_embedded": (_B, [c_void_p, c_uint32, P(c_bool)]),
    "ce_table_remove": (_B, [c_void_p, c_uint32]),
    "ce_property_add": (_B, [c_void_p, c_uint32, P(PropertyInfo), P(c_uint32)]),
    "ce_property_remove": (_B, [c_void_p, c_uint32, c_uint32]),
    "ce_property_count": (_B, [c_void_p, c_uint32, P(c_size_t)]),
    "ce_property_get_info": (_B, [c_void_p, c_uint32, c_uint32, P(PropertyInfo)]),
    "ce_object_create": (_B, [c_void_p, c_uint32, P(Value), P(c_int64)]),
    "ce_object_find_primary_key": (_B, [c_void_p, c_uint32, P(Value), P(c_int64), P(c_bool)]),
    "ce_object_exists": (_B, [c_void_p, c_uint32, c_int64, P(c_bool)]),
    "ce_object_delete": (_B, [c_void_p, c_uint32, c_int64]),
    "ce_object_get": (_B, [c_void_p, c_uint32, c_int64, c_uint32, P(Value)]),
    "ce_object_set": (_B, [c_void_p, c_uint32, c_int64, c_uint32, P(Value)]),
    "ce_object_create_embedded": (_B, [c_void_p, c_uint32, c_int64, c_uint32, P(c_int64)]),
    "ce_object_count": (_B, [c_void_p, c_uint32, P(c_size_t)]),
    "ce_collection_open": (_B, [c_void_p, c_uint32, c_int64, c_uint32, P(c_void_p)]),
    "ce_collection_open_mixed": (_B, [c_void_p, c_uint32, c_int64, c_uint32, P(c_void_p)]),
    "ce_collection_open_nested": (_B, [c_void_p, P(Value), P(c_void_p)]),
    "ce_collection_close": (None, [c_void_p]),
    "ce_collection_kind": (_B, [c_void_p, P(c_int), P(c_int)]),
    "ce_collection_size": (_B, [c_void_p, P(c_size_t)]),
    "ce_collection_get": (_B, [c_void_p, c_size_t, P(Value)]),
    "ce_collection_clear": (_B, [c_void_p]),
    "ce_list_insert": (_B, [c_void_p, c_size_t, P(Value)]),
    "ce_list_insert_embedded": (_B, [c_void_p, c_size_t, P(c_int64)]),
    "ce_list_set": (_B, [c_void_p, c_size_t, P(Value)]),
    "ce_list_set_embedded": (_B, [c_void_p, c_size_t, P(c_int64)]),
    "ce_list_erase": (_B, [c_void_p, c_size_t]),
    "ce_list_move": (_B, [c_void_p, c_size_t, c_size_t]),
    "ce_collection_find": (_B, [c_void_p, P(Value), P(c_size_t), P(c_bool)]),
    "ce_set_erase": (_B, [c_void_p, P(Value), P(c_bool)]),
    "ce_dictionary_get": (_B, [c_void_p, c_char_p, c_size_t, P(Value), P(c_bool)]),
    "ce_dictionary_erase": (_B, [c_void_p, c_char_p, c_size_t, P(c_bool)]),
    "ce_set_insert": (_B, [c_void_p, P(Value), P(c_bool)]),
    "ce_dictionary_key_at": (_B, [c_void_p, c_size_t, P(Value)]),
    "ce_dictionary_set": (_B, [c_void_p, c_char_p, c_size_t, P(Value)]),
    "ce_dictionary_insert_embedded": (_B, [c_void_p, c_char_p, c_size_t, P(c_int64)]),
    "ce_query_parse": (_B, [c_void_p, c_uint32, c_char_p, P(QueryArgument), c_size_t, P(c_void_p)]),
    "ce_query_free": (None, [c_void_p]),
    "ce_query_find_all": (_B, [c_void_p, P(c_void_p)]),
    "ce_results_sort": (_B, [c_void_p, c_void_p, P(SortKey), c_size_t, P(c_void_p)]),
    "ce_results_distinct": (_B, [c_void_p, c_void_p, P(c_char_p), c_size_t, P(c_void_p)]),
    "ce_results_limit": (_B, [c_void_p, c_size_t, P(c_void_p)]),
    "ce_results_filter": (_B, [c_void_p, c_void_p, c_void_p, P(c_void_p)]),
    "ce_results_from_backlinks": (_B, [c_void_p, c_uint32, c_int64, c_uint32, c_uint32, P(c_void_p)]),
    "ce_results_free": (None, [c_void_p]),
    "ce_results_table": (c_uint32, [c_void_p]),
    "ce_results_count": (_B, [c_void_p, c_void_p, P(c_size_t)]),
    "ce_results_get_range": (_B, [c_void_p, c_void_p, c_size_t, c_size_t, P(c_int64), P(c_size_t)]),
    "ce_results_index_of": (_B, [c_void_p, c_void_p, c_int64, P(c_size_t), P(c_bool)]),
    "ce_results_aggregate": (_B, [c_void_p, c_void_p, c_char_p, c_int, P(Value), P(c_size_t)]),
}


class _Library:
    """The loaded library: each function of _SIGNATURES as an attribute."""

    def __init__(self, path):
        self.path = path
        cdll = ctypes.CDLL(path)
        for name, (restype, argtypes) in _SIGNATURES.items():
            function = getattr(cdll, name)
            function.restype = restype
            function.argtypes = argtypes
            setattr(self, name, function)
        self.cdll = cdll


def _candidates():
    """Where the library may be, in the order tried, and whether each is an
    explicit choice (a failure to load it is then an error, not a reason to
    try the next)."""
    explicit = os.environ.get("OPENREALM_LIBRARY")
    if explicit:
        return [(explicit, True)]
    found = []
    bundled = pathlib.Path(__file__).resolve().parent / "_lib" / "libcengine.so"
    if bundled.exists():
        found.append((str(bundled), True))
    system = ctypes.util.find_library("cengine")
    if system:
        found.append((system, False))
    return found


def _load():
    tried = []
    for path, explicit in _candidates():
        try:
            library = _Library(path)
        except (OSError, AttributeError) as error:
            if explicit:
                raise ImportError(f"openrealm: cannot load the engine library '{path}': {error}") from error
            tried.append(f"{path}: {error}")
            continue
        size = library.ce_value_size()
        if size != ctypes.sizeof(Value) or size != VALUE_SIZE or Value.data.offset != VALUE_DATA_OFFSET:
            raise ImportError(
                f"openrealm: the engine library '{path}' has a ce_value of {size} bytes; this package declares "
                f"{ctypes.sizeof(Value)} bytes with its data at {Value.data.offset} (cengine.h states "
                f"{VALUE_SIZE} and {VALUE_DATA_OFFSET}): refusing to pass values across a mismatched layout")
        return library
    detail = "; ".join(tried) if tried else "none found"
    raise ImportError(
        "openrealm: no engine library (libcengine.so): set OPENREALM_LIBRARY to its path, reinstall the package "
        f"from the repository (pip install ./python builds and bundles it), or install it with CMake ({detail})")


lib = _load()


def last_error():
    """The exception for the last failed call on this thread."""
    code = lib.ce_last_error_code()
    message = (lib.ce_last_error_message() or b"").decode("utf-8", "replace")
    return error_for(code, message)


def check(ok):
    """Raises the last error when a call returned false."""
    if not ok:
        raise last_error()
