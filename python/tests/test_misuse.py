"""Misuse never reaches the engine with a dead handle: a closed database,
an ended transaction, objects and results of one, objects of another
transaction, a database opened before fork(). Each raises
WrongTransactionStateError (code 21)."""

import gc
import os

import pytest

import openrealm
from openrealm import ErrorCode


def raises_state(call):
    with pytest.raises(openrealm.WrongTransactionStateError) as error:
        call()
    assert error.value.code == ErrorCode.WRONG_TRANSACTION_STATE
    return error.value


def test_closed_database(people_db):
    people_db.close()
    people_db.close()  # twice is no error
    assert people_db.closed
    for call in (people_db.read, people_db.write, lambda: people_db.latest_version, people_db.verify,
                 people_db.compact, lambda: people_db.write_copy("/nonexistent/x.realm")):
        message = raises_state(call).message
        assert "closed" in message


def test_close_refused_while_a_transaction_is_open(people_db):
    txn = people_db.read()
    error = raises_state(people_db.close)
    assert "still open" in error.message
    assert len(txn.objects("Person")) == 10  # still usable
    txn.end()
    people_db.close()


def test_objects_and_results_of_an_ended_transaction(people_db):
    with people_db.write() as txn:
        ann = txn.object("Person", 0)
        results = txn.query("Person", "age > 20")
        sorted_results = results.sorted("name")
    for call in (lambda: ann.name, lambda: ann.to_dict(), ann.delete, lambda: setattr(ann, "age", 3),
                 lambda: len(results), lambda: list(results), lambda: results[0], lambda: results.sorted("age"),
                 lambda: sorted_results.sum("age"), lambda: results.filter("age > 1"), lambda: ann.class_name,
                 txn.commit, lambda: txn.create("Person", {"id": 7}), lambda: txn.schema):
        raises_state(call)
    assert not ann.is_valid
    assert "ended" in repr(results) and "key=0" in repr(ann)
    people_db.close()
    raises_state(lambda: ann.name)  # and after the database closed


def test_object_of_another_transaction(people_db):
    with people_db.read() as reader:
        ann = reader.object("Person", 0)
        with people_db.write() as writer:
            writer.update_schema({"Person": {"friend": "Person"}})
            bo = writer.object("Person", 1)
            error = raises_state(lambda: setattr(bo, "friend", ann))
            assert "another transaction" in error.message
            with pytest.raises(openrealm.WrongTransactionStateError):
                writer.query("Person", "friend == $0", ann)
    with openrealm.open(in_memory=True) as other, other.write() as txn:
        txn.update_schema({"Person": {"friend": "Person"}})
        stranger = txn.create("Person", {})
        with people_db.write() as writer:
            with pytest.raises(openrealm.InvalidArgumentError):
                writer.object("Person", 1).friend = stranger


def test_dropped_handles_are_released(people_db):
    # Results dropped early are freed then; those alive at the end of the
    # transaction are freed with it; a transaction dropped without ending
    # is rolled back, so the database closes.
    with people_db.read() as txn:
        for _ in range(200):
            txn.query("Person", "age > 1").sorted("age")
        gc.collect()
        assert len(txn._owned) <= 2
        kept = [txn.objects("Person") for _ in range(5)]
        assert len(txn._owned) >= 5
    assert txn._owned == {} and kept
    forgotten = people_db.write()
    forgotten.create("Person", {"id": 999, "name": "Lost"})
    del forgotten
    gc.collect()
    with people_db.read() as txn:
        assert txn.object("Person", 999) is None
    people_db.close()


def test_database_dropped_with_an_open_transaction(path):
    db = openrealm.open(path)
    txn = db.write()
    txn.update_schema({"X": {"a": "int"}})
    db.__exit__(None, None, None)  # the with-block exit rolls back what is open, then closes
    assert db.closed and not txn.active
    raises_state(lambda: txn.schema)


def test_close_refused_while_a_call_is_in_progress(people_db, tmp_path):
    # A progress callback runs in the middle of the copy: closing then is
    # refused, and reading in another transaction is not blocked.
    seen = []

    def progress(done, total):
        if not seen:
            seen.append(raises_state(people_db.close).message)
            with people_db.read() as txn:
                seen.append(len(txn.objects("Person")))
    people_db.write_copy(str(tmp_path / "copy.realm"), progress=progress)
    assert "in progress" in seen[0] and seen[1] == 10
    people_db.close()


def test_indices_and_limits_past_size_t_are_not_wrapped(people_db):
    # ctypes passes an int to a size_t modulo 2**64: 2**64 would read as
    # index 0 (the first object, silently) and limit(2**64) as limit(0).
    with people_db.read() as txn:
        results = txn.objects("Person")
        for index in (2**64, 2**64 + 1, -(2**64)):
            with pytest.raises(openrealm.IndexOutOfBoundsError) as error:
                results[index]
            assert str(index) in error.value.message and error.value.code == ErrorCode.INDEX_OUT_OF_BOUNDS
        assert results[-10].id == 0
        with pytest.raises(openrealm.IndexOutOfBoundsError):
            results[-11]
        assert results.limit(2**64).count() == 10 and results.limit(2**64 + 1).count() == 10


def test_paths_with_a_nul_or_of_another_type_are_refused(tmp_path):
    # A NUL ends the C string: the engine would open (create, copy to,
    # delete) the file named by the part before it.
    cut = tmp_path / "a"
    for call in (lambda: openrealm.open(str(tmp_path / "a\0b.realm")),
                 lambda: openrealm.delete_files(str(tmp_path / "a\0b")),
                 lambda: openrealm.open(in_memory="name\0more"),
                 lambda: openrealm.open(5)):
        with pytest.raises(openrealm.InvalidArgumentError) as error:
            call()
        assert error.value.code == ErrorCode.INVALID_ARGUMENT
    with openrealm.open(str(tmp_path / "db.realm")) as db:
        with pytest.raises(openrealm.InvalidArgumentError) as error:
            db.write_copy(str(tmp_path / "a\0copy"))
        assert "NUL" in error.value.message
        with db.read() as txn, pytest.raises(openrealm.InvalidArgumentError):
            txn.write_copy(str(tmp_path / "a\0copy"))
    assert not cut.exists()


def test_names_predicates_and_key_paths_with_a_nul_are_refused(people_db):
    # A NUL ends the C string: "Person\0x" named the class Person (so
    # remove_class removed it), and a predicate lost everything after it.
    with people_db.write() as txn:
        for call in (lambda: txn.update_schema({"Q\0junk": {"a": "int"}}),
                     lambda: txn.update_schema({"R": {"a\0b": "int"}}),
                     lambda: txn.objects("Person\0x"),
                     lambda: txn.remove_class("Person\0x"),
                     lambda: txn.query("Person", "age > 20\0 AND age < 0"),
                     lambda: txn.objects("Person").sorted("age\0x"),
                     lambda: txn.objects("Person").distinct("age\0x"),
                     lambda: txn.objects("Person").sum("age\0x"),
                     lambda: txn.query("Person", "name == '\ud800'")):
            with pytest.raises(openrealm.InvalidArgumentError) as error:
                call()
            assert error.value.code == ErrorCode.INVALID_ARGUMENT
        assert len(txn.objects("Person")) == 10
        assert "Q" not in txn.schema and "R" not in txn.schema


def test_values_and_arguments_of_wrong_python_types(people_db):
    # Each was a bare OverflowError, TypeError, AttributeError or
    # UnicodeEncodeError from inside the package.
    with people_db.write() as txn:
        txn.update_schema({"Kinds": {"d": "double", "m": "int{}"}})
        kinds = txn.create("Kinds", {"d": 1.0})
        for call, kind in ((lambda: setattr(kinds, "d", 10**400), openrealm.InvalidArgumentError),
                           (lambda: txn.create("Kinds", 5), openrealm.WrongTypeError),
                           (lambda: txn.create("Kinds", [("d", 1.0)]), openrealm.WrongTypeError),
                           (lambda: txn.update_schema(5), openrealm.WrongTypeError),
                           (lambda: txn.update_schema({"Kinds": 5}), openrealm.WrongTypeError),
                           (lambda: txn.update_schema({5: {"a": "int"}}), openrealm.InvalidArgumentError),
                           (lambda: txn.objects("Person").sorted(5), openrealm.InvalidArgumentError),
                           (lambda: txn.objects("Person").distinct(5), openrealm.InvalidArgumentError),
                           (lambda: txn.objects("Person").sum(5), openrealm.InvalidArgumentError),
                           (lambda: kinds.m.__setitem__("\ud800", 1), openrealm.InvalidArgumentError)):
            with pytest.raises(kind):
                call()
        assert kinds.d == 1.0 and len(kinds.m) == 0


def test_database_opened_before_fork_is_refused_in_the_child(people_db):
    # The child shares the parent's locks (OFD locks, the lock file's shared
    # memory): it gets an error naming the fork, and its close leaves the
    # parent's locks alone. The child reports through its exit code.
    parent = os.getpid()
    child = os.fork()
    if child == 0:
        code = 0
        try:
            for step, call in enumerate((people_db.read, people_db.write)):
                try:
                    call()
                    code = 10 + step
                    break
                except openrealm.WrongTransactionStateError as error:
                    if error.code != ErrorCode.WRONG_TRANSACTION_STATE or "fork()" not in error.message or \
                            f"process {parent}" not in error.message or "open the file again" not in error.message:
                        code = 20 + step
                        break
            if code == 0:
                people_db.close()
        except BaseException:
            code = 30
        finally:
            os._exit(code)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    with people_db.write() as txn:
        txn.create("Dog", {"name": "Rex", "age": 3})
    with people_db.read() as txn:
        assert len(txn.objects("Person")) == 10 and txn.object("Dog", "Rex").age == 3


def test_keys_of_the_wrong_type_name_the_type_given_and_expected(people_db, tmp_path):
    # A primary key, a property name, a dictionary key, an object to delete
    # or an encryption key of the wrong type: WrongTypeError (a TypeError)
    # naming what was given and what is expected, never a bare TypeError or
    # AttributeError from inside the package, a ctypes error or a lookup.
    with people_db.write() as txn:
        txn.update_schema({"Keyed": {"id": openrealm.Property(str, primary_key=True), "m": "int{}"}})
        keyed = txn.create("Keyed", {"id": "k"})
        ann = txn.object("Person", 0)
        cases = [(lambda: txn.object("Person", 1.0), ("int", "float")),
                 (lambda: txn.object("Person", [1]), ("int", "list")),
                 (lambda: txn.object("Keyed", 5), ("string", "int")),
                 (lambda: txn.object("Keyed", ["k"]), ("string", "list")),
                 (lambda: txn.create("Person", {"id": 2.5, "name": "X"}), ("int", "float")),
                 (lambda: txn.create("Keyed", {"id": b"k"}, update="all"), ("string", "bytes")),
                 (lambda: ann[5], ("strings", "int")),
                 (lambda: ann[["name"]], ("strings", "list")),
                 (lambda: ann.__setitem__(1.5, 1), ("strings", "float")),
                 (lambda: keyed.m.__setitem__(5, 1), ("strings", "int")),
                 (lambda: keyed.m[1.5], ("strings", "float")),
                 (lambda: txn.delete(5), ("Object", "int")),
                 (lambda: txn.delete([ann]), ("Object", "list"))]
        for call, (expected, given) in cases:
            with pytest.raises(openrealm.WrongTypeError) as error:
                call()
            assert isinstance(error.value, TypeError) and error.value.code == ErrorCode.WRONG_TYPE
            assert expected in error.value.message and given in error.value.message, error.value.message
        assert txn.object("Person", 1).name == "Bo" and ann.is_valid  # nothing was looked up or changed
    for key in ("k" * 64, 1.5, [1] * 64):
        with pytest.raises(openrealm.WrongTypeError) as error:
            openrealm.open(str(tmp_path / "keyed.realm"), key=key)
        assert "64 bytes" in error.value.message and type(key).__name__ in error.value.message
    with pytest.raises(openrealm.InvalidArgumentError) as error:
        openrealm.open(str(tmp_path / "keyed.realm"), key=b"short")
    assert "64 bytes, not 5" in error.value.message
