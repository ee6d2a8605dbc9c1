"""Live collection views: lists, sets and dictionaries read and changed in
place, of values, links, embedded objects and nested mixed collections."""

import pytest

import openrealm
from openrealm import ErrorCode


@pytest.fixture
def obj_txn(typed_db):
    txn = typed_db.write()
    yield txn.create("AllTypes", {"id": 1}), txn
    if txn.active:
        txn.rollback()


def test_list_in_place(obj_txn, typed_db):
    obj, txn = obj_txn
    numbers = obj.int_list
    numbers.append(1)
    numbers.extend([2, 3, 4])
    numbers.insert(0, 0)
    numbers.insert(-1, 35)
    numbers.insert(100, 9)
    assert numbers == [0, 1, 2, 3, 35, 4, 9] and obj.int_list == (0, 1, 2, 3, 35, 4, 9)
    numbers[4] = 30
    numbers[-1] = 90
    del numbers[0]
    assert numbers.pop() == 90 and numbers.pop(0) == 1
    numbers.remove(30)
    numbers.move(0, 2)
    assert list(numbers) == [3, 4, 2] and numbers[-3] == 3 and numbers[1:] == [4, 2]
    assert numbers.index(2) == 2 and numbers.count(4) == 1 and 4 in numbers and 7 not in numbers
    with pytest.raises(openrealm.IndexOutOfBoundsError) as error:
        numbers[3]
    assert error.value.code == ErrorCode.INDEX_OUT_OF_BOUNDS and isinstance(error.value, IndexError)
    with pytest.raises(IndexError):
        del numbers[-4]
    with pytest.raises(ValueError):
        numbers.remove(99)
    with pytest.raises(openrealm.WrongTypeError):
        numbers.append("x")
    txn.commit()
    with typed_db.read() as reader:
        kept = reader.object("AllTypes", 1).int_list
        assert kept == [3, 4, 2] and repr(kept) == "[3, 4, 2]"
        with pytest.raises(openrealm.WrongTransactionStateError):
            kept.append(1)


def test_assigning_a_view_copies_it_first(obj_txn):
    obj, txn = obj_txn
    obj.string_list = ["a", "b"]
    obj.string_list = obj.string_list  # cleared, then filled from what was read before
    assert obj.string_list == ["a", "b"]
    other = txn.create("AllTypes", {"id": 2, "string_list": obj.string_list})
    obj.string_list.clear()
    assert other.string_list == ["a", "b"] and obj.string_list == []
    obj.string_list = (s.upper() for s in other.string_list)
    assert obj.string_list == ["A", "B"]


def test_list_of_links_and_embedded_objects(obj_txn):
    obj, txn = obj_txn
    a = txn.create("Target", {"name": "a"})
    b = txn.create("Target", {"name": "b"})
    obj.link_list.append(a)
    obj.link_list.insert(0, b)
    assert obj.link_list == [b, a] and obj.link_list[1].name == "a"
    parts = obj.embedded_list
    parts.append({"label": "one"})
    parts.append({"label": "two", "inner": {"label": "deep"}})
    parts[0] = {"label": "uno"}  # the old embedded object is deleted
    assert [p.label for p in parts] == ["uno", "two"] and parts[1].inner.label == "deep"
    assert len(txn.objects("Part")) == 3
    del parts[1]
    assert len(txn.objects("Part")) == 1
    with pytest.raises(openrealm.WrongTypeError):
        parts.append("not a dict")


def test_set_in_place(obj_txn):
    obj, txn = obj_txn
    tags = obj.string_set
    tags.add("b")
    tags.add("a")
    tags.add("b")
    tags |= {"c"}  # MutableSet's in-place union adds each
    assert tags == {"a", "b", "c"} and len(tags) == 3 and list(tags) == ["a", "b", "c"]
    assert "a" in tags and "z" not in tags and 5 not in tags
    assert tags & {"a", "z"} == {"a"} and isinstance(tags | {"q"}, set)
    tags.discard("a")
    tags.discard("missing")
    with pytest.raises(KeyError):
        tags.remove("missing")
    tags.remove("b")
    assert obj.string_set == {"c"} and repr(obj.string_set) == "{'c'}"
    tags.clear()
    assert repr(tags) == "set()"
    target = txn.create("Target", {"name": "t"})
    obj.link_set.add(target)
    assert target in obj.link_set


def test_dictionary_in_place(obj_txn):
    obj, txn = obj_txn
    scores = obj.int_dict
    scores["b"] = 2
    scores["a"] = 1
    scores.update({"c": 3})
    assert scores == {"a": 1, "b": 2, "c": 3} and list(scores) == ["a", "b", "c"]
    assert scores["a"] == 1 and scores.get("zz") is None and "a" in scores and 1 not in scores
    assert scores.items() == [("a", 1), ("b", 2), ("c", 3)] and scores.values() == [1, 2, 3]
    assert scores.keys() == {"a", "b", "c"}
    del scores["a"]
    assert scores.pop("b") == 2 and dict(scores) == {"c": 3}
    with pytest.raises(KeyError):
        scores["a"]
    with pytest.raises(KeyError):
        del scores["a"]
    with pytest.raises(openrealm.WrongTypeError):
        scores[1] = 1
    obj.embedded_dict["p"] = {"label": "part"}
    assert obj.embedded_dict["p"].label == "part"
    obj.link_dict["t"] = txn.create("Target", {"name": "t"})
    obj.link_dict["none"] = None
    assert obj.link_dict == {"none": None, "t": txn.object("Target", "t")}


def test_nested_mixed_collections_in_place(obj_txn, typed_db):
    obj, txn = obj_txn
    obj.mixed = {"list": [1, 2], "map": {"x": "y"}}
    obj.mixed["list"].append([3])
    obj.mixed["list"][2].append(4)
    obj.mixed["map"]["z"] = {"deep": True}
    obj.mixed["new"] = "value"
    obj.mixed_list = [[1]]
    obj.mixed_list[0].append({"k": 1})
    obj.mixed_list.append({"a": []})
    obj.mixed_list[1]["a"].append(5)
    txn.commit()
    with typed_db.read() as reader:
        read = reader.object("AllTypes", 1)
        assert read.mixed == {"list": [1, 2, [3, 4]], "map": {"x": "y", "z": {"deep": True}}, "new": "value"}
        assert read.mixed_list == [[1, {"k": 1}], {"a": [5]}]
        plain = read.to_dict()
        assert type(plain["mixed"]) is dict and type(plain["mixed"]["list"][2]) is list
        assert type(plain["int_set"]) is set and type(plain["int_list"]) is list


def test_views_of_ended_transactions_and_deleted_objects(obj_txn):
    obj, txn = obj_txn
    numbers = obj.int_list
    numbers.append(1)
    other = txn.create("AllTypes", {"id": 2, "int_list": [5]})
    doomed = other.int_list
    other.delete()
    with pytest.raises(openrealm.NoSuchObjectError):
        len(doomed)
    txn.rollback()
    for call in (lambda: len(numbers), lambda: numbers.append(2), lambda: list(numbers), lambda: numbers[0]):
        with pytest.raises(openrealm.WrongTransactionStateError):
            call()


def test_views_as_values(obj_txn):
    obj, txn = obj_txn
    obj.int_list = [3, 1]
    obj.mixed = obj.int_list  # a view nested into a mixed value
    obj.mixed_dict = {"copy": obj.mixed, "map": {"k": 1}}
    obj.mixed_list = [obj.mixed_dict["map"]]
    assert obj.mixed == [3, 1] and obj.mixed_dict == {"copy": [3, 1], "map": {"k": 1}}
    assert obj.mixed_list == [{"k": 1}]
    txn.create("AllTypes", {"id": 3, "int_value": 3})
    assert [o.id for o in txn.query("AllTypes", "int_value IN $0", obj.int_list)] == [3]
