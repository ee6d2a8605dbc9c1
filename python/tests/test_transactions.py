"""Transactions as context managers: commit, rollback on an exception,
snapshots, refresh, read-only and in-memory databases."""

import threading

import pytest

import openrealm
from openrealm import ErrorCode


def count(db, class_name="Person"):
    with db.read() as txn:
        return len(txn.objects(class_name))


def test_exception_rolls_back_and_propagates(people_db):
    with pytest.raises(KeyError):
        with people_db.write() as txn:
            txn.create("Person", {"id": 500, "name": "Ghost"})
            raise KeyError("boom")
    assert count(people_db) == 10
    with pytest.raises(openrealm.DuplicatePrimaryKeyError):
        with people_db.write() as txn:
            txn.create("Person", {"id": 501, "name": "Half"})
            txn.create("Person", {"id": 501, "name": "Half"})
    with people_db.read() as txn:
        assert txn.object("Person", 501) is None


def test_commit_rollback_and_snapshots(people_db):
    reader = people_db.read()
    txn = people_db.write()
    txn.create("Person", {"id": 600, "name": "Kept"})
    txn.commit()
    assert not txn.active
    txn = people_db.write()
    txn.create("Person", {"id": 601, "name": "Dropped"})
    txn.rollback()
    assert len(reader.objects("Person")) == 10  # the reader's snapshot
    version = reader.version
    reader.refresh()
    assert reader.version > version and len(reader.objects("Person")) == 11
    reader.end()
    with pytest.raises(openrealm.WrongTransactionStateError):
        txn.commit()


def test_writes_need_a_write_transaction(people_db):
    with people_db.read() as txn:
        ann = txn.object("Person", 0)
        with pytest.raises(openrealm.WrongTransactionStateError) as error:
            ann.age = 1
        assert error.value.code == ErrorCode.WRONG_TRANSACTION_STATE
        for call in (lambda: txn.create("Person", {"id": 9}), lambda: txn.commit(), ann.delete,
                     lambda: txn.update_schema({"X": {}})):
            with pytest.raises(openrealm.WrongTransactionStateError):
                call()


def test_second_write_on_one_thread_is_refused(people_db):
    with people_db.write():
        with pytest.raises(openrealm.WrongTransactionStateError) as error:
            people_db.write()
        assert "already in a write transaction" in error.value.message


def test_writers_on_two_threads_take_turns(people_db):
    def add(first):
        for i in range(first, first + 20):
            with people_db.write() as txn:
                txn.create("Person", {"id": i, "name": f"T{i}"})
    threads = [threading.Thread(target=add, args=(1000 * (n + 1),)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert count(people_db) == 70


def test_one_transaction_shared_by_threads(people_db):
    # The package serializes the calls of one transaction: no crash, every
    # write lands.
    with people_db.write() as txn:
        def add(first):
            for i in range(first, first + 50):
                txn.create("Person", {"id": i, "name": "x"})
                len(txn.objects("Person"))
        threads = [threading.Thread(target=add, args=(2000 + 100 * n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert count(people_db) == 210


def test_read_only(people_db, path):
    people_db.close()
    with openrealm.open(path, read_only=True) as db:
        assert count(db) == 10
        with pytest.raises(openrealm.ReadOnlyError) as error:
            db.write()
        assert error.value.code == ErrorCode.READ_ONLY


def test_in_memory(tmp_path):
    with openrealm.open(in_memory=True) as db:
        with db.write() as txn:
            txn.update_schema({"Note": {"text": "string"}})
            txn.create("Note", {"text": "hi"})
        assert count(db, "Note") == 1
    path = str(tmp_path / "memory.realm")
    with openrealm.open(path, in_memory=True) as db:
        with db.write() as txn:
            txn.update_schema({"Note": {"text": "string"}})
        # Handles opened with the same path share it while it is open.
        with openrealm.open(path, in_memory=True) as other:
            with other.read() as txn:
                assert "Note" in txn.schema
    assert not (tmp_path / "memory.realm").exists()
    with openrealm.open(in_memory="shared-name") as a, openrealm.open(in_memory="shared-name") as b:
        with a.write() as txn:
            txn.update_schema({"Note": {"text": "string"}})
        with b.read() as txn:
            assert "Note" in txn.schema


def test_try_write_returns_none_while_another_writer_holds_the_lock(people_db, path):
    with openrealm.open(path) as other:
        with other.write() as holder:
            holder.create("Person", {"id": 600, "name": "Holder"})
            # Another handle holds the write lock: no wait, no transaction.
            assert people_db.try_write() is None
        # The lock is free again: a transaction that commits.
        txn = people_db.try_write()
        assert txn is not None
        with txn:
            txn.create("Person", {"id": 601, "name": "Tried"})
    assert count(people_db) == 12


def test_try_write_on_a_read_only_database_is_refused(people_db, path):
    people_db.close()
    with openrealm.open(path, read_only=True) as db:
        with pytest.raises(openrealm.ReadOnlyError):
            db.try_write()
