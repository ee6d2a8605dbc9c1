"""Queries with arguments, sort, distinct, limit, aggregates, results read
in bulk, live results."""

import decimal

import pytest

import openrealm
from openrealm import ErrorCode


def names(results):
    return [p.name for p in results]


def test_arguments(people_db):
    with people_db.read() as txn:
        assert names(txn.query("Person", "age >= $0 AND age < $1", 30, 40)) == ["Ed", "Flo"]
        assert names(txn.query("Person", "name BEGINSWITH[c] %@", "f")) == ["Flo"]
        assert names(txn.query("Person", "id IN %@", [1, 3, 99])) == ["Bo", "Di"]
        assert names(txn.query("Person", "age BETWEEN %@", (50, 55))) == ["Ivy", "Jo"]
        assert names(txn.query("Person", "%K == %@", "name", "Cy")) == ["Cy"]
        assert len(txn.query("Person", "score == nil")) == 4
        assert names(txn.query("Person", "balance > $0", decimal.Decimal("8"))) == ["Ivy", "Jo"]
        assert names(txn.query("Person", "score > $0", 3)) == ["Hal", "Ivy"]


def test_sort_distinct_limit(people_db):
    with people_db.write() as txn:
        txn.create("Person", {"id": 20, "name": "Ann", "age": 99})
    with people_db.read() as txn:
        everyone = txn.objects("Person")
        assert names(everyone.sorted("age", ascending=False))[:3] == ["Ann", "Jo", "Ivy"]
        by_name_then_age = everyone.sorted([("name", True), ("age", False)])
        assert [(p.name, p.age) for p in by_name_then_age][:2] == [("Ann", 99), ("Ann", 10)]
        assert len(everyone.distinct("name")) == 10
        assert names(everyone.sorted("name").limit(3)) == ["Ann", "Ann", "Bo"]
        assert names(txn.query("Person", "age > 20 SORT(age DESC) LIMIT(2)")) == ["Ann", "Jo"]
        filtered = everyone.sorted("age", ascending=False).filter("age < $0", 30)
        assert names(filtered) == ["Di", "Cy", "Bo", "Ann"]
        with pytest.raises(openrealm.QueryError):
            everyone.sorted("nope")
        with pytest.raises(openrealm.InvalidArgumentError):
            everyone.limit(-1)


def test_aggregates(people_db):
    with people_db.read() as txn:
        everyone = txn.objects("Person")
        assert everyone.sum("age") == sum(10 + 5 * i for i in range(10))
        assert everyone.min("age") == 10 and everyone.max("age") == 55
        assert everyone.average("age") == pytest.approx(32.5)
        scores = [i / 2 for i in range(10) if i % 3]
        assert everyone.average("score") == pytest.approx(sum(scores) / len(scores))
        assert everyone.count_values("score") == len(scores)
        assert everyone.sum("balance") == decimal.Decimal("47.50")
        assert isinstance(everyone.average("balance"), decimal.Decimal)
        nobody = txn.query("Person", "age > 1000")
        assert nobody.sum("age") == 0 and nobody.min("age") is None and nobody.average("age") is None
        with pytest.raises(openrealm.WrongTypeError):
            everyone.sum("name")
        with pytest.raises(openrealm.QueryError):
            everyone.sum("agee")


def test_bulk_reads_and_indexing(db):
    with db.write() as txn:
        txn.update_schema({"Item": {"n": "int"}})
        for n in range(1000):
            txn.create("Item", {"n": n})
    with db.read() as txn:
        items = txn.objects("Item").sorted("n", ascending=False)
        assert len(items) == 1000
        assert [i.n for i in items] == list(range(999, -1, -1))  # read in chunks of 256
        assert items[0].n == 999 and items[-1].n == 0
        assert [i.n for i in items[10:13]] == [989, 988, 987]
        assert [i.n for i in items[995:2000]] == [4, 3, 2, 1, 0]
        assert [i.n for i in items[:6:2]] == [999, 997, 995]
        assert items[5:5] == []
        with pytest.raises(openrealm.IndexOutOfBoundsError):
            items[1000]
        with pytest.raises(IndexError):
            items[-1001]
        middle = items[500]
        assert items.index(middle) == 500 and middle in items
        assert items.first().n == 999
        assert txn.query("Item", "n < 0").first() is None


def test_results_are_live(people_db):
    with people_db.write() as txn:
        adults = txn.query("Person", "age >= 18")
        before = len(adults)
        txn.create("Person", {"id": 100, "name": "Zed", "age": 40})
        assert len(adults) == before + 1
        txn.query("Person", "age < 18").delete_all()
        assert len(txn.objects("Person")) == before + 1


def test_query_errors_carry_position(people_db):
    with people_db.read() as txn:
        with pytest.raises(openrealm.QueryError) as error:
            txn.query("Person", "age > > 3")
        assert error.value.code == ErrorCode.INVALID_QUERY
        assert "position 6" in error.value.message
        with pytest.raises(openrealm.QueryError) as error:
            txn.query("Person", "agee == 1")
        assert "agee" in error.value.message
        with pytest.raises(openrealm.QueryError):
            txn.query("Person", "age == $0")  # missing argument
        with pytest.raises(openrealm.NoSuchTableError):
            txn.query("Nobody", "TRUEPREDICATE")
        with pytest.raises(openrealm.WrongTypeError):
            txn.query("Person", "age == $0", object())


def test_links_in_queries(people_db):
    with people_db.write() as txn:
        rex = txn.create("Dog", {"name": "Rex", "age": 3})
        txn.object("Person", 2).dogs = [rex]
        assert names(txn.query("Person", "ANY dogs == $0", rex)) == ["Cy"]
        assert names(txn.query("Person", "dogs.age > 2")) == ["Cy"]
        assert names(rex.linking_objects("Person", "dogs").filter("age > 1")) == ["Cy"]


def test_query_arithmetic(people_db):
    # The predicate text goes to the engine unchanged: realm-core's
    # arithmetic (+ - * /, '*' and '/' first, integer division of ints,
    # nil in gives nil out).
    with people_db.read() as txn:
        assert names(txn.query("Person", "age + 5 == 20")) == ["Bo"]
        assert names(txn.query("Person", "age / 10 == 2")) == ["Cy", "Di"]
        assert names(txn.query("Person", "age / 10.0 == 2.5")) == ["Di"]
        assert names(txn.query("Person", "(age - 10) * 2 == $0", 20)) == ["Cy"]
        assert names(txn.query("Person", "10 + age * 2 == 40")) == ["Bo"]
        assert names(txn.query("Person", "score * 2 == 7")) == ["Hal"]
        assert names(txn.query("Person", "score * 2 == nil")) == ["Ann", "Di", "Gus", "Jo"]
        assert names(txn.query("Person", "balance * 2 == 4.5")) == ["Cy"]
        assert names(txn.query("Person", "age + 1 > score * 10")) == ["Bo", "Cy", "Ed", "Flo", "Hal", "Ivy"]
        assert len(txn.query("Person", "dogs.@count + 1 == 1")) == 10
        assert names(txn.objects("Person").filter("age * 2 > $0", 100)) == ["Jo"]
        with pytest.raises(openrealm.QueryError) as error:
            txn.query("Person", "name + 1 == 2")
        assert "Cannot perform '+' operation on 'name' and '1'" in error.value.message


def test_query_arithmetic_over_several_values(people_db):
    # realm-core applies an operator to each value of a collection or of a
    # path through a to-many link; the comparison takes ANY of them unless
    # the key path's ALL or NONE says otherwise. Two sides of several
    # values with no ANY, ALL or NONE compare element by element.
    with people_db.write() as txn:
        rex = txn.create("Dog", {"name": "Rex", "age": 3})
        fido = txn.create("Dog", {"name": "Fido", "age": 7})
        txn.object("Person", 1).dogs = [rex, fido]
        txn.object("Person", 2).dogs = [fido]
    with people_db.read() as txn:
        assert names(txn.query("Person", "dogs.age * 2 > 10")) == ["Bo", "Cy"]
        assert names(txn.query("Person", "ALL dogs.age * 2 > 10")) == ["Ann", "Cy", "Di", "Ed", "Flo", "Gus", "Hal",
                                                                         "Ivy", "Jo"]
        assert names(txn.query("Person", "NONE dogs.age + 1 == 4")) == ["Ann", "Cy", "Di", "Ed", "Flo", "Gus", "Hal",
                                                                          "Ivy", "Jo"]
        assert names(txn.query("Person", "dogs.age IN {3, 7}")) == ["Bo"]
        assert names(txn.query("Person", "ANY dogs.age IN {7}")) == ["Bo", "Cy"]
        with pytest.raises(openrealm.OpenRealmError) as error:
            len(txn.query("Person", "dogs.age * dogs.age > 0"))
        assert "Operations involving two lists are not supported" in error.value.message
