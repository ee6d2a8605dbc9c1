"""Engine errors as exceptions: code, message, class per family."""

import pickle

import pytest

import openrealm
from openrealm import ErrorCode
from openrealm._ffi import lib
from openrealm.errors import error_class, error_for


def test_codes_match_the_engine():
    for code in ErrorCode:
        name = lib.ce_error_name(code).decode()
        assert name != "unknown error", code
    assert lib.ce_error_name(59) == b"unknown error"


def test_families():
    assert error_class(ErrorCode.FILE_NOT_FOUND) is openrealm.FileError
    assert error_class(ErrorCode.INVALID_DATABASE) is openrealm.InvalidDatabaseError
    assert error_class(ErrorCode.TOO_MANY_READERS) is openrealm.EngineError
    assert error_class(ErrorCode.INDEX_OUT_OF_BOUNDS) is openrealm.IndexOutOfBoundsError
    assert error_class(ErrorCode.INVALID_SCHEMA) is openrealm.ObjectStoreError
    assert error_class(ErrorCode.INVALID_QUERY) is openrealm.QueryError
    assert error_class(ErrorCode.FAIL) is openrealm.OpenRealmError
    for code in ErrorCode:
        if code != ErrorCode.OK:
            assert issubclass(error_class(code), openrealm.OpenRealmError)
    error = error_for(ErrorCode.WRONG_TYPE, "m")
    assert isinstance(error, TypeError) and repr(error) == "WrongTypeError(WRONG_TYPE, 'm')"
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is openrealm.WrongTypeError and copy.code == ErrorCode.WRONG_TYPE and copy.message == "m"
    unknown = error_for(99, "later")
    assert unknown.code == 99 and type(unknown) is openrealm.OpenRealmError


def test_open_errors_carry_code_and_message(tmp_path):
    missing = str(tmp_path / "missing.realm")
    with pytest.raises(openrealm.FileError) as error:
        openrealm.open(missing, create=False)
    assert error.value.code == ErrorCode.FILE_NOT_FOUND
    assert "missing.realm" in error.value.message
    not_a_database = tmp_path / "text.realm"
    not_a_database.write_bytes(b"hello, not a database" * 300)
    with pytest.raises(openrealm.InvalidDatabaseError) as error:
        openrealm.open(str(not_a_database))
    assert error.value.code == ErrorCode.INVALID_DATABASE and error.value.message
    with pytest.raises(openrealm.InvalidArgumentError):
        openrealm.open(None)


def test_an_error_after_a_success_is_the_new_one(people_db):
    # The package reads the last error only right after a failed call (the
    # rule cengine.h documents): a success in between changes nothing.
    with people_db.read() as txn:
        with pytest.raises(openrealm.QueryError):
            txn.query("Person", "nope ==")
        assert len(txn.objects("Person")) == 10
        with pytest.raises(openrealm.NoSuchTableError) as error:
            txn.objects("Nope")
        assert error.value.code == ErrorCode.NO_SUCH_TABLE
