"""conftest.py — fixtures the tests share: a database in a temporary
directory, a schema with every property type, and a 64-byte key."""

import os

import pytest

import openrealm
from openrealm import Property

SCALARS = {
    "int": 0, "bool": False, "float": 0.0, "double": 0.0, "string": "", "data": b"",
    "date": None, "decimal128": None, "objectId": None, "uuid": None,
}


def every_type_schema():
    """Class AllTypes: one property per type, required and optional, and a
    list, a set and a dictionary of each; links, embedded objects, mixed."""
    properties = {"id": Property(int, primary_key=True)}
    for name in ("int", "bool", "float", "double", "string", "data", "date", "decimal128", "objectId", "uuid"):
        properties[f"{name}_value"] = name
        properties[f"{name}_optional"] = f"{name}?"
        properties[f"{name}_list"] = f"{name}[]"
        properties[f"{name}_set"] = f"{name}<>"
        properties[f"{name}_dict"] = f"{name}{{}}"
    properties.update({
        "link": "Target", "link_list": "Target[]", "link_set": "Target<>", "link_dict": "Target{}",
        "embedded": "Part", "embedded_list": "Part[]", "embedded_dict": "Part{}",
        "mixed": "mixed", "mixed_list": "mixed[]", "mixed_dict": "mixed{}",
    })
    return {
        "AllTypes": properties,
        "Target": {"name": Property(str, primary_key=True), "size": "int"},
        "Part": {"label": "string", "weight": "double?", "inner": "Part"},
    }


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "test.realm")


@pytest.fixture
def db(path):
    database = openrealm.open(path)
    yield database
    for txn in list(database._transactions):
        txn.rollback()
    database.close()


@pytest.fixture
def typed_db(db):
    with db.write() as txn:
        txn.update_schema(every_type_schema(), embedded=["Part"])
    return db


@pytest.fixture
def key():
    return bytes((i * 7 + 3) % 256 for i in range(64))


@pytest.fixture
def people_db(db):
    """Person(id, name, age, score?, balance) with 10 people and Dog(name, age, owner)."""
    with db.write() as txn:
        txn.update_schema({
            "Person": {"id": Property(int, primary_key=True), "name": "string", "age": "int", "score": "double?",
                       "balance": "decimal128", "dogs": "Dog[]"},
            "Dog": {"name": Property("string", primary_key=True), "age": "int"},
        })
        names = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo"]
        for i, name in enumerate(names):
            txn.create("Person", {"id": i, "name": name, "age": 10 + 5 * i, "score": None if i % 3 == 0 else i / 2,
                                  "balance": __import__("decimal").Decimal(f"{i}.25")})
    return db


def tmp_file(tmp_path, name):
    return os.path.join(str(tmp_path), name)
