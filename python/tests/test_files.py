"""Encrypted files (a key, a wrong key), copies and compaction."""

import os

import pytest

import openrealm
from openrealm import ErrorCode


def fill(db, count=2000):
    with db.write() as txn:
        txn.update_schema({"Row": {"n": "int", "text": "string"}})
        for n in range(count):
            txn.create("Row", {"n": n, "text": f"row {n} " * 10})


def rows(path, key=None):
    with openrealm.open(path, key=key) as db, db.read() as txn:
        return len(txn.objects("Row"))


def test_encrypted_file(tmp_path, key):
    path = str(tmp_path / "secret.realm")
    with openrealm.open(path, key=key) as db:
        fill(db, 100)
    assert b"row 7" not in open(path, "rb").read()
    assert rows(path, key) == 100
    wrong = bytes(64)
    with pytest.raises(openrealm.InvalidDatabaseError) as error:
        openrealm.open(path, key=wrong)
    assert error.value.code == ErrorCode.INVALID_DATABASE and "decryption failed" in error.value.message
    with pytest.raises(openrealm.InvalidDatabaseError):
        openrealm.open(path)  # no key
    with pytest.raises(openrealm.InvalidArgumentError) as error:
        openrealm.open(path, key=b"short")
    assert "64 bytes" in error.value.message
    plain = str(tmp_path / "plain.realm")
    with openrealm.open(plain) as db:
        fill(db, 1)
    with pytest.raises(openrealm.InvalidDatabaseError):
        openrealm.open(plain, key=key)  # a key on a plain file


def test_write_copy_with_and_without_keys(tmp_path, key):
    path = str(tmp_path / "source.realm")
    encrypted_copy = str(tmp_path / "encrypted.realm")
    plain_copy = str(tmp_path / "plain.realm")
    reports = []
    with openrealm.open(path) as db:
        fill(db, 500)
        db.write_copy(encrypted_copy, key=key, progress=lambda done, total: reports.append((done, total)))
        with pytest.raises(openrealm.FileError) as error:
            db.write_copy(encrypted_copy)
        assert error.value.code == ErrorCode.FILE_EXISTS
    assert reports and reports[-1][0] == reports[-1][1] > 0
    assert rows(encrypted_copy, key) == 500
    with openrealm.open(encrypted_copy, key=key) as db:
        db.write_copy(plain_copy)  # decrypted
    assert rows(plain_copy) == 500


def test_transaction_copy_holds_uncommitted_changes(tmp_path):
    path = str(tmp_path / "source.realm")
    copy = str(tmp_path / "copy.realm")
    with openrealm.open(path) as db:
        fill(db, 10)
        with db.write() as txn:
            txn.create("Row", {"n": -1, "text": "uncommitted"})
            txn.write_copy(copy)
            txn.rollback()
    assert rows(path) == 10 and rows(copy) == 11


def test_progress_errors_propagate(tmp_path):
    path = str(tmp_path / "source.realm")
    with openrealm.open(path) as db:
        fill(db, 10)

        def fail(done, total):
            raise RuntimeError("stop")
        with pytest.raises(RuntimeError):
            db.write_copy(str(tmp_path / "copy.realm"), progress=fail)


def test_verify_progress(tmp_path, key):
    for key_used in (None, key):
        path = str(tmp_path / f"verify-{key_used is not None}.realm")
        with openrealm.open(path, key=key_used) as db:
            fill(db, 3000)
            reports = []
            stats = db.verify(progress=lambda done, total: reports.append((done, total)))
            assert stats == db.verify()
            assert reports[-1] == (stats["logical_size"], stats["logical_size"])
            assert all(a[0] <= b[0] and a[1] == b[1] for a, b in zip(reports, reports[1:]))

            def fail(done, total):
                raise RuntimeError("stop")
            with pytest.raises(RuntimeError):
                db.verify(progress=fail)


def test_compact(tmp_path, key):
    for key_used in (None, key):
        path = str(tmp_path / f"compact-{key_used is not None}.realm")
        with openrealm.open(path, key=key_used) as db:
            fill(db, 3000)
            with db.write() as txn:
                txn.query("Row", "n >= 100").delete_all()
            total, used = db.size_info()
            assert used < total
            txn = db.read()
            with pytest.raises(openrealm.WrongTransactionStateError):
                db.compact()
            txn.end()
            with openrealm.open(path, key=key_used):
                with pytest.raises(openrealm.FileError) as error:
                    db.compact()  # another handle has it open
                assert error.value.code == ErrorCode.ALREADY_OPEN
            db.compact()
            assert db.size_info()[0] < total
            assert db.verify()["version"] >= 1
        assert rows(path, key_used) == 100


def test_delete_files(tmp_path):
    path = str(tmp_path / "gone.realm")
    db = openrealm.open(path)
    with pytest.raises(openrealm.FileError) as error:
        openrealm.delete_files(path)
    assert error.value.code == ErrorCode.ALREADY_OPEN
    db.close()
    assert openrealm.delete_files(path) and not os.path.exists(path)
    assert not openrealm.delete_files(path)
