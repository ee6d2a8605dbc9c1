"""Every type round trips: written, committed, the file reopened, read back
equal (required and optional properties, lists, sets, dictionaries, links,
embedded objects, mixed values with nested collections)."""

import datetime
import decimal
import math
import uuid

import pytest

import openrealm
from openrealm import ObjectId

UTC = datetime.timezone.utc
SAMPLES = {
    "int": [0, 1, -1, 2**63 - 1, -2**63, 123456789],
    "bool": [True, False],
    "float": [0.0, 1.5, -2.25, 2.0 ** 100],  # exact in 32 bits
    "double": [0.0, 0.1, -1e308, 5e-324, math.inf, -math.inf],
    "string": ["", "a", "Zoë 🐕", "x" * 5000, "line\nbreak\0nul"],
    "data": [b"", b"\x00\x01\xff", bytes(range(256)) * 20],
    "date": [datetime.datetime(1970, 1, 1, tzinfo=UTC), datetime.datetime(2024, 2, 29, 23, 59, 59, 999999, tzinfo=UTC),
             datetime.datetime(1969, 12, 31, 23, 59, 59, 500000, tzinfo=UTC),
             datetime.datetime(1, 1, 1, tzinfo=UTC), datetime.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)],
    "decimal128": [decimal.Decimal("0"), decimal.Decimal("1.50"), decimal.Decimal("-12.500"),
                   decimal.Decimal("1E-7"), decimal.Decimal("1.2E+40"), decimal.Decimal("9" * 34),
                   decimal.Decimal("-0.000001"), decimal.Decimal("Infinity"), decimal.Decimal("-Infinity")],
    "objectId": [ObjectId("5f8d0d55b54764421b7156c3"), ObjectId(b"\x00" * 12), ObjectId()],
    "uuid": [uuid.UUID("3b241101-e2bb-4255-8caf-4136c566a962"), uuid.UUID(int=0), uuid.uuid4()],
}
DEFAULTS = {"int": 0, "bool": False, "float": 0.0, "double": 0.0, "string": "", "data": b""}


def reopen_read(path, check):
    with openrealm.open(path) as db, db.read() as txn:
        check(txn)


def same(a, b):
    if isinstance(a, decimal.Decimal) and isinstance(b, decimal.Decimal):
        return str(a) == str(b)  # the representation too: 1.50 stays 1.50
    return a == b


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_scalar_round_trip(typed_db, path, name):
    samples = SAMPLES[name]
    with typed_db.write() as txn:
        for i, sample in enumerate(samples):
            txn.create("AllTypes", {"id": i, f"{name}_value": sample, f"{name}_optional": sample})
        txn.create("AllTypes", {"id": 1000, f"{name}_optional": None})
    typed_db.close()

    def check(txn):
        for i, sample in enumerate(samples):
            obj = txn.object("AllTypes", i)
            for prop in (f"{name}_value", f"{name}_optional"):
                value = obj[prop]
                assert same(value, sample), (prop, value, sample)
                assert type(value) is type(sample)
        empty = txn.object("AllTypes", 1000)
        assert empty[f"{name}_optional"] is None
        if name in DEFAULTS:
            assert empty[f"{name}_value"] == DEFAULTS[name]
    reopen_read(path, check)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_collection_round_trip(typed_db, path, name):
    samples = SAMPLES[name]
    as_dict = {f"k{i}": sample for i, sample in enumerate(samples)}
    with typed_db.write() as txn:
        txn.create("AllTypes", {"id": 1, f"{name}_list": samples + samples[:1], f"{name}_set": samples,
                                f"{name}_dict": as_dict})
    typed_db.close()

    def check(txn):
        obj = txn.object("AllTypes", 1)
        listed = obj[f"{name}_list"]
        assert isinstance(listed, openrealm.List) and len(listed) == len(samples) + 1
        assert all(same(a, b) for a, b in zip(listed, samples + samples[:1]))
        assert obj[f"{name}_set"] == set(samples)
        read = obj[f"{name}_dict"]
        assert read.keys() == as_dict.keys()
        assert all(same(read[k], as_dict[k]) for k in as_dict)
    reopen_read(path, check)


def test_float_is_32_bit(typed_db):
    with typed_db.write() as txn:
        obj = txn.create("AllTypes", {"id": 1, "float_value": 0.1, "double_value": 0.1})
        assert obj.float_value == pytest.approx(0.1, rel=1e-7) and obj.float_value != 0.1
        assert obj.double_value == 0.1


def test_nan_round_trips(typed_db):
    with typed_db.write() as txn:
        obj = txn.create("AllTypes", {"id": 1, "double_value": math.nan, "decimal128_value": decimal.Decimal("NaN")})
        assert math.isnan(obj.double_value)
        assert obj.decimal128_value.is_nan()


def test_naive_datetime_is_utc_and_nanoseconds_round_down(typed_db):
    with typed_db.write() as txn:
        obj = txn.create("AllTypes", {"id": 1, "date_value": datetime.datetime(2020, 5, 6, 7, 8, 9, 10)})
        assert obj.date_value == datetime.datetime(2020, 5, 6, 7, 8, 9, 10, tzinfo=UTC)
        # A date written by another language with nanoseconds: the query
        # literal form T<seconds>:<nanoseconds>.
        assert len(txn.query("AllTypes", "date_value == T1588748889:10000")) == 1


def test_decimal_rounds_to_34_digits(typed_db):
    with typed_db.write() as txn:
        obj = txn.create("AllTypes", {"id": 1, "decimal128_value": decimal.Decimal("1." + "3" * 40)})
        assert obj.decimal128_value == decimal.Decimal("1." + "3" * 33)
        obj.decimal128_value = 7  # an int is exact
        assert obj.decimal128_value == decimal.Decimal(7)


def test_links_and_backlinks(typed_db, path):
    with typed_db.write() as txn:
        a = txn.create("Target", {"name": "a", "size": 1})
        b = txn.create("Target", {"name": "b", "size": 2})
        txn.create("AllTypes", {"id": 1, "link": a, "link_list": [a, b, a], "link_set": [a, b],
                                "link_dict": {"x": b, "none": None}})
    typed_db.close()

    def check(txn):
        obj = txn.object("AllTypes", 1)
        a, b = txn.object("Target", "a"), txn.object("Target", "b")
        assert obj.link == a and obj.link.size == 1
        assert obj.link_list == [a, b, a]
        assert obj.link_set == {a, b}
        assert obj.link_dict == {"x": b, "none": None}
        owners = a.linking_objects("AllTypes", "link_list")
        assert [o.id for o in owners] == [1, 1]
    reopen_read(path, check)


def test_embedded_objects(typed_db, path):
    with typed_db.write() as txn:
        obj = txn.create("AllTypes", {
            "id": 1,
            "embedded": {"label": "top", "weight": 1.5, "inner": {"label": "deep"}},
            "embedded_list": [{"label": "one"}, {"label": "two", "weight": None}],
            "embedded_dict": {"k": {"label": "kv"}},
        })
        assert obj.embedded.inner.label == "deep"
        obj.embedded = {"label": "replaced"}  # the old embedded object is deleted
        assert txn.objects("Part").count() == 4
        with pytest.raises(openrealm.ObjectStoreError) as error:
            txn.create("Part", {"label": "alone"})
        assert error.value.code == openrealm.ErrorCode.EMBEDDED_OBJECT
    typed_db.close()

    def check(txn):
        obj = txn.object("AllTypes", 1)
        assert obj.embedded.label == "replaced" and obj.embedded.inner is None
        assert [p.label for p in obj.embedded_list] == ["one", "two"]
        assert obj.embedded_list[1].weight is None
        assert obj.embedded_dict["k"].label == "kv"
        assert txn.schema["Part"].embedded
    reopen_read(path, check)


def test_mixed_values_and_nested_collections(typed_db, path):
    values = [None, 1, True, 2.5, "text", b"bytes", SAMPLES["date"][1], decimal.Decimal("1.25"),
              SAMPLES["objectId"][0], SAMPLES["uuid"][0]]
    nested = [1, "two", [3, [4.5]], {"k": ["v", {"deep": None}]}]
    with typed_db.write() as txn:
        target = txn.create("Target", {"name": "t"})
        for i, value in enumerate(values):
            txn.create("AllTypes", {"id": i, "mixed": value})
        txn.create("AllTypes", {"id": 100, "mixed": target, "mixed_list": values + [target, nested],
                                "mixed_dict": {"a": nested, "b": 5, "c": {"x": "y"}}})
        txn.create("AllTypes", {"id": 101, "mixed": {"top": nested}})
    typed_db.close()

    def check(txn):
        for i, value in enumerate(values):
            read = txn.object("AllTypes", i).mixed
            assert read == value and type(read) is type(value)
        obj = txn.object("AllTypes", 100)
        target = txn.object("Target", "t")
        assert obj.mixed == target
        assert obj.mixed_list == values + [target, nested]
        assert obj.mixed_dict == {"a": nested, "b": 5, "c": {"x": "y"}}
        assert txn.object("AllTypes", 101).mixed == {"top": nested}
    reopen_read(path, check)


def test_replacing_collections(typed_db):
    with typed_db.write() as txn:
        obj = txn.create("AllTypes", {"id": 1, "int_list": [1, 2, 3], "string_set": {"a"}, "int_dict": {"a": 1}})
        obj.int_list = [9]
        obj.string_set = ["b", "c", "b"]
        obj.int_dict = {"z": 26}
        assert obj.to_dict()["int_list"] == [9]
        assert obj.string_set == {"b", "c"}
        assert obj.int_dict == {"z": 26}
        obj.int_list = None  # empties it
        assert obj.int_list == []


def test_object_id_class():
    a, b = ObjectId(), ObjectId()
    assert a != b and len(a.binary) == 12 and a < b or b < a
    assert ObjectId(str(a)) == a and hash(ObjectId(a.binary)) == hash(a)
    assert repr(ObjectId("5f8d0d55b54764421b7156c3")) == "ObjectId('5f8d0d55b54764421b7156c3')"
    assert ObjectId("5f8d0d55b54764421b7156c3").generation_time.year == 2020
    with pytest.raises(openrealm.InvalidArgumentError):
        ObjectId("xyz")
    with pytest.raises(openrealm.InvalidArgumentError):
        ObjectId(b"short")


@pytest.mark.parametrize("text", ["1E+6145", "-1E+6145", "99999999999999999999999999999999999E+6111",
                                  "1E+999999999999999999"])
def test_a_decimal_above_decimal128_range_is_refused(typed_db, text):
    """A finite Decimal above decimal128's largest magnitude would round
    to an infinity: refused, and nothing is written or created."""
    with decimal.localcontext() as context:
        context.Emax = decimal.MAX_EMAX
        value = decimal.Decimal(text)
    with typed_db.write() as txn:
        obj = txn.create("AllTypes", {"id": 1})
        with pytest.raises(openrealm.InvalidArgumentError, match="outside decimal128's range"):
            obj.decimal128_value = value
        with pytest.raises(openrealm.InvalidArgumentError, match="outside decimal128's range"):
            txn.create("AllTypes", {"id": 2, "decimal128_optional": value})
        assert obj.decimal128_value == decimal.Decimal(0)
        assert [o.id for o in txn.objects("AllTypes")] == [1]
        # The largest and the infinities themselves are values.
        obj.decimal128_value = decimal.Decimal("9.999999999999999999999999999999999E+6144")
        assert obj.decimal128_value == decimal.Decimal("9.999999999999999999999999999999999E+6144")
        obj.decimal128_value = decimal.Decimal("-Infinity")
        assert obj.decimal128_value.is_infinite()
