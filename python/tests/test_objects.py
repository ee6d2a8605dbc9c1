"""Creating, updating and deleting objects; the schema defined and read."""

import decimal

import pytest

import openrealm
from openrealm import ErrorCode, Property, Type


def test_create_update_delete(people_db):
    with people_db.write() as txn:
        ann = txn.object("Person", 0)
        assert ann.name == "Ann" and ann["age"] == 10
        ann.age += 1
        ann["name"] = "Anne"
        assert (ann.name, ann.age) == ("Anne", 11)
        ann.delete()
        assert not ann.is_valid
        assert txn.object("Person", 0) is None
        with pytest.raises(openrealm.NoSuchObjectError) as error:
            ann.name
        assert error.value.code == ErrorCode.NO_SUCH_OBJECT
    with people_db.read() as txn:
        assert txn.objects("Person").count() == 9


def test_update_policies(people_db):
    with people_db.write() as txn:
        with pytest.raises(openrealm.DuplicatePrimaryKeyError) as error:
            txn.create("Person", {"id": 1, "name": "again"})
        assert error.value.code == ErrorCode.DUPLICATE_PRIMARY_KEY and "1" in error.value.message
        bo = txn.create("Person", {"id": 1, "age": 99}, update="modified")
        assert (bo.name, bo.age) == ("Bo", 99)  # properties not named keep their values
        new = txn.create("Person", {"id": 50, "name": "New"}, update="all")
        assert new.age == 0 and new.balance == decimal.Decimal(0) and new.name == "New"
        with pytest.raises(openrealm.InvalidArgumentError):
            txn.create("Person", {"id": 1}, update="sometimes")
        with pytest.raises(openrealm.InvalidArgumentError):
            txn.create("Person", {"name": "no key"})


def test_primary_key_is_immutable_and_wrong_types_are_named(people_db):
    with people_db.write() as txn:
        ann = txn.object("Person", 0)
        with pytest.raises(openrealm.ObjectStoreError) as error:
            ann.id = 77
        assert error.value.code == ErrorCode.PRIMARY_KEY_IMMUTABLE
        with pytest.raises(openrealm.WrongTypeError) as error:
            ann.age = "old"
        assert error.value.code == ErrorCode.WRONG_TYPE
        assert "'Person.age'" in error.value.message and "str" in error.value.message
        assert isinstance(error.value, TypeError)
        with pytest.raises(openrealm.NoSuchPropertyError) as error:
            ann.agee
        assert error.value.code == ErrorCode.NO_SUCH_PROPERTY and "agee" in str(error.value)
        assert not hasattr(ann, "agee")
        with pytest.raises(openrealm.NullNotAllowedError):
            ann.name = None


def test_links_follow_deletes(people_db):
    with people_db.write() as txn:
        rex = txn.create("Dog", {"name": "Rex", "age": 3})
        ann = txn.object("Person", 0)
        ann.dogs = [rex, txn.create("Dog", {"name": "Fido", "age": 5})]
        assert [d.name for d in ann.dogs] == ["Rex", "Fido"]
        assert [p.name for p in rex.linking_objects("Person", "dogs")] == ["Ann"]
        rex.delete()
        assert [d.name for d in ann.dogs] == ["Fido"]


def test_schema_is_read_back(people_db):
    with people_db.read() as txn:
        schema = txn.schema
    assert set(schema) == {"Person", "Dog"}
    person = schema["Person"]
    assert person.primary_key == "id" and not person.embedded
    assert person.properties["score"].type == Type.DOUBLE and person.properties["score"].optional
    assert person.properties["dogs"].spec == "Dog[]" and person.properties["dogs"].target == "Dog"
    assert person.properties["id"].primary_key
    backlinks = [p for p in schema["Dog"].properties.values() if p.backlink]
    assert [p.backlink for p in backlinks] == [("Person", "dogs")]


def test_refused_update_changes_nothing(db):
    # An update of an existing object that is refused part-way (a bad value
    # after good ones, checked by the package or refused by the engine)
    # leaves every property as it was, and the transaction goes on.
    with db.write() as txn:
        txn.update_schema({"P": {"id": Property(int, primary_key=True), "name": "string", "age": "int",
                                 "tags": "string[]", "part": "E", "parts": "E[]", "mixed": "mixed"},
                           "E": {"label": "string", "n": "int"}}, embedded=["E"])
        txn.create("P", {"id": 1, "name": "Ann", "age": 3, "tags": ["a"], "part": {"label": "x", "n": 1},
                         "parts": [{"label": "y", "n": 2}], "mixed": [1, {"k": 2}]})

    def state(txn):
        obj = txn.object("P", 1)
        values = obj.to_dict()
        values["part"] = values["part"].to_dict()
        values["parts"] = [part.to_dict() for part in values["parts"]]
        return values

    refused = [{"name": "Bob", "age": "x"},                                   # checked before writing
               {"name": "Bob", "tags": ["b", 5]},
               {"tags": ["b"], "age": None},                                  # refused by the engine
               {"name": "Bob", "tags": ["b", None]},
               {"name": "Bob", "part": {"label": "z", "n": "bad"}},
               {"parts": [{"label": "q", "n": 1}, {"n": None}], "name": "Bob"},
               {"name": "Bob", "mixed": [5, [6, {"x": object()}]]}]
    with db.write() as txn:
        before = state(txn)
        for values in refused:
            for update in ("modified", "all"):
                with pytest.raises((openrealm.WrongTypeError, openrealm.NullNotAllowedError)):
                    txn.create("P", {"id": 1, **values}, update=update)
                assert state(txn) == before, values
        obj = txn.object("P", 1)
        for name, value in (("tags", ["z", None]), ("part", {"label": "k", "n": None}),
                            ("parts", [{"label": "w", "n": 1}, 5])):
            with pytest.raises((openrealm.WrongTypeError, openrealm.NullNotAllowedError)):
                obj[name] = value
            assert state(txn) == before, name
        txn.create("P", {"id": 1, "name": "Cy", "tags": ["t"]}, update="modified")  # still usable
    with db.read() as txn:
        assert state(txn) == dict(before, name="Cy", tags=["t"])


def test_update_schema_is_idempotent_and_checks(people_db):
    definition = {"Person": {"id": Property(int, primary_key=True), "name": "string", "nick": "string?"}}
    with people_db.write() as txn:
        txn.update_schema(definition)
        txn.update_schema(definition)
        assert txn.schema["Person"].properties["nick"].optional
        assert txn.object("Person", 3).nick is None
        with pytest.raises(openrealm.ObjectStoreError) as error:
            txn.update_schema({"Person": {"age": "string"}})
        assert error.value.code == ErrorCode.SCHEMA_MISMATCH
    with people_db.write() as txn:
        with pytest.raises(openrealm.ObjectStoreError) as error:
            txn.update_schema({"Bad": {"dogs": "Nowhere[]"}})
        assert isinstance(error.value, openrealm.NoSuchTableError)
    with people_db.write() as txn:
        txn.update_schema({"Temp": {"x": "int"}})
        txn.create("Temp", {"x": 1})
        txn.remove_property("Person", "score")
        txn.remove_class("Temp")
        assert "Temp" not in txn.schema and "score" not in txn.schema["Person"].properties
        with pytest.raises(openrealm.NoSuchTableError):
            txn.objects("Temp")


def test_property_specs():
    assert Property("int?").optional and Property("int?").type == Type.INT
    assert Property("Dog").type == Type.LINK and Property("Dog").optional
    assert Property("string<>").collection == openrealm.Collection.SET
    assert Property("double?{}").spec == "double?{}"
    assert Property(bytes).spec == "data"
    with pytest.raises(openrealm.InvalidArgumentError):
        Property(list)
    with pytest.raises(openrealm.InvalidArgumentError):
        Property("?")


def test_values_checked_against_property_types(people_db):
    with people_db.write() as txn:
        ann = txn.object("Person", 0)
        for prop, bad in (("age", 1.5), ("age", True), ("name", b"bytes"), ("balance", 1.5), ("score", "x")):
            with pytest.raises(openrealm.WrongTypeError):
                ann[prop] = bad
        with pytest.raises(openrealm.InvalidArgumentError):
            ann.age = 2**64
        ann.score = 3  # an int is a number for a double
        assert ann.score == 3.0
        with pytest.raises(openrealm.WrongTypeError):
            ann.dogs = "not a list"


@pytest.mark.parametrize("values, error", [
    ({"id": 50, "name": "Zed", "age": "old"}, openrealm.WrongTypeError),           # a wrong type after others
    ({"id": 51, "name": None}, openrealm.NullNotAllowedError),                       # null for a required value
    ({"id": 52, "dogs": ["not a dog"]}, openrealm.WrongTypeError),                   # a bad element of a list
    ({"id": 53, "balance": decimal.Decimal("1E+6145")}, openrealm.InvalidArgumentError),  # above decimal128
    ({"name": "no key"}, openrealm.InvalidArgumentError),                            # no primary key
])
def test_a_refused_create_leaves_no_object(people_db, values, error):
    """A create refused part-way (its object made, a later value refused)
    leaves nothing behind, in the transaction or after its commit; the same
    holds for a create with update that would have made the object."""
    for update in (None, "modified"):
        with people_db.write() as txn:
            with pytest.raises(error):
                txn.create("Person", values, update=update)
            assert len(txn.objects("Person")) == 10
            if "id" in values:
                assert txn.object("Person", values["id"]) is None
        with people_db.read() as txn:
            assert len(txn.objects("Person")) == 10
            assert sorted(p.id for p in txn.objects("Person")) == list(range(10))
