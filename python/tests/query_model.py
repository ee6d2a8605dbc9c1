"""query_model.py — an independent model of Realm's query rules, for the
differential test of the engine (test_query_differential.py): a seeded
generator of schemas, rows and predicates, and an evaluator of predicates
over plain Python rows written from Realm's documented semantics, not from
the engine's code.

The rules, and where Realm states them:
- Realm Query Language reference (docs: "Realm Query Language"): operators,
  [c] and [d], LIKE with ? and *, ANY/ALL/NONE, @count/@size, @sum, @avg,
  @min, @max, SUBQUERY, BETWEEN, IN, TRUEPREDICATE/FALSEPREDICATE.
- realm-core src/realm/query_conditions.hpp: Less/Greater are false when
  either side is null; LessEqual/GreaterEqual are true when both are null;
  Equal treats null == null as true.
- realm-core src/realm/string_data.hpp (operator< of StringData: "Null
  strings are smaller than all other strings") and realm-core PR 7273
  (string queries by <, <=, >, >=): a null string property of the object
  itself (or of a SUBQUERY's variable) against a non-null string constant
  without [c]/[d] orders first, so `s < 'a'` and `s <= 'a'` match it;
  through links and lists, and between two properties, a null still
  matches no ordering (README.md, "Differences from Realm Swift").
- realm-core src/realm/query_expression.hpp (Columns<T>::evaluate): a path
  through a null to-one link yields a single null value; through to-many
  links, one value per linked object (ANY by default).
- Realm Swift RLMQueryUtil.mm (add_substring_constraint): "Foundation always
  returns false for substring operations with a RHS of null or \"\"", so
  BEGINSWITH/ENDSWITH/CONTAINS with an empty needle match nothing.
- realm-core test/test_query.cpp (Query_FloatVsDouble rounding) and this
  repository's issue 18 §9: a double constant compared with a float
  property is rounded to float first.
- realm-core aggregate rules (query_expression.hpp, aggregate_ops.hpp):
  @sum of an empty list is 0, @avg/@min/@max of an empty list are null;
  nulls inside a list are skipped by the aggregates.
- ALL over an empty list is true; NONE over an empty list is true.
- realm-core src/realm/mixed.cpp (Mixed::types_are_comparable): numbers
  compare with numbers, a string with a binary (as bytes), other types only
  with their own; the string operators' Mixed overloads
  (query_conditions.hpp) take a string with a string or a binary with a
  binary only.
- realm-core src/realm/parser/driver.cpp (ConstantNode::visit): a literal is
  read with the other side's type as its hint (a number against decimals is
  Decimal128(text); `inf` against an int or a mixed is refused), an
  argument keeps its own type; BETWEEN is `>=` AND `<=`, each with the
  quantifier, and takes only ALL before a collection of values; LIKE
  refuses [d].
- Sorting: null first ascending, the descriptors applied in the order
  written (realm-core DescriptorOrdering). Strings sort and compare by
  their UTF-8 bytes, which is Unicode code point order, realm-core 14's
  order (CHANGELOG 14.0.0: "standard unicode codepoint order", "ABZabz";
  the utf8_compare collation table of earlier versions is gone).
- realm-core src/realm/parser/driver.cpp: [c] takes a binary on the right
  (verify_only_string_types) and a binary column then compares
  case-insensitively; StringOpsNode::visit with an argument of the other
  text kind falls back to the QueryValue overloads (false); `{$0}` keeps an
  argument's infinity (ListNode::visit); PropNode::visit and
  PostOpNode::visit: @count/@size of a collection, a string or a binary
  (bytes), `.length` of a list of them (a null element 0), `@links`.
- realm-core src/realm/query_expression.cpp (ColumnListBase::get_lists):
  a collection through a link to many objects is one collection per
  object; through a null to-one link, the empty list.
- Dictionaries of links count their links, not null values; embedded
  objects read as to-one links and lists of links.
- Arguments may be NSPredicate's %@ and %K, taken in order.

What Realm leaves undefined (the order of NaN, a bool ordered against
another number in a mixed value, rounding of huge sums) raises Undefined
and the predicate is skipped.

Owns: the generator and the evaluator.
Never: calls the engine (the test does).
"""

import datetime
import decimal
import math
import random
import struct
import unicodedata
import uuid

from openrealm import ObjectId

UTC = datetime.timezone.utc
# IEEE 754 decimal128: 34 significant digits (sums and averages round there).
DEC128 = decimal.Context(prec=34, Emax=6144, Emin=-6143)

# ---------------------------------------------------------------------------
# Values of each type, edge cases first
# ---------------------------------------------------------------------------


def f32(x):
    """A Python float rounded to IEEE single precision (a float property)."""
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


INTS = [0, 1, -1, 2, 3, 7, 42, -42, 100, 2**63 - 1, -(2**63), 2**31, -(2**31) - 1]
DOUBLES = [0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 1.5, 2.3, -2.25, 2.0, 3.0, 7.0, 42.0, 1e300, -1e300,
           5e-324, math.inf, -math.inf, math.nan, 3.4e38, 1e-45]
FLOATS = [f32(x) for x in DOUBLES]
STRINGS = ["", "a", "abc", "ABC", "Abc", "aBc", "ab", "bc", "c", "é", "É", "e", "E", "école", "ÉCOLE",
           "ecole", "Ecole", "e\u0301cole", "über", "Über", "uber", "straße", "STRASSE", "ά", "α", "Α",
           "дом", "ДОМ", "日本", "a*c", "a?c", "a c", "abcabc", "cab", "xyz", "ab\\c", "'q\"", "naïve"]
BINARIES = [b"", b"a", b"ab", b"abc", b"ABC", b"bc", b"c", b"\x00", b"\x00\xff", b"\xff", b"abcabc"]
DATES = [datetime.datetime(1970, 1, 1, tzinfo=UTC), datetime.datetime(1969, 12, 31, 23, 59, 59, 500000, tzinfo=UTC),
         datetime.datetime(2000, 1, 1, tzinfo=UTC), datetime.datetime(2020, 2, 29, 12, 0, 0, 1, tzinfo=UTC),
         datetime.datetime(1900, 6, 1, tzinfo=UTC), datetime.datetime(2038, 1, 19, 3, 14, 8, tzinfo=UTC),
         datetime.datetime(1970, 1, 1, 0, 0, 0, 1, tzinfo=UTC)]
DECIMALS = [decimal.Decimal(x) for x in ("0", "-0", "1", "-1", "1.5", "0.1", "2.30", "42", "-2.25", "1E+20",
                                         "1234567890123456789012345678901234", "1E-30", "7")]
OBJECT_IDS = [ObjectId("%024x" % n) for n in (0, 1, 2, 0xABCDEF, 16**24 - 1, 0x5F8D0D55B54764421B7156C3)]
UUIDS = [uuid.UUID(int=n) for n in (0, 1, 2, 2**128 - 1, 0x1234567890ABCDEF1234567890ABCDEF)]

DICT_KEYS = ["a", "b", "K", "é", "key two"]
POOLS = {"int": INTS, "bool": [False, True], "float": FLOATS, "double": DOUBLES, "string": STRINGS,
         "data": BINARIES, "date": DATES, "decimal128": DECIMALS, "objectId": OBJECT_IDS, "uuid": UUIDS}
MIXED_TYPES = ["int", "bool", "double", "string", "data", "date", "decimal128", "objectId", "uuid"]
NUMERIC = {"int", "float", "double", "decimal128"}
# Strings and binaries order byte by byte (for strings, code point order, as
# realm-core 14 orders them), and object ids and UUIDs by their bytes.
ORDERED = NUMERIC | {"date", "objectId", "uuid", "string", "data"}
SCALAR_TYPES = list(POOLS)


def random_value(rng, kind, optional):
    if optional and rng.random() < 0.2:
        return None
    if kind == "mixed":
        if rng.random() < 0.15:
            return None
        kind = rng.choice(MIXED_TYPES)
    pool = POOLS[kind]
    # Edge cases sit first in each pool: favour them.
    return pool[min(int(rng.expovariate(0.25)), len(pool) - 1)] if rng.random() < 0.5 else rng.choice(pool)


# ---------------------------------------------------------------------------
# Schema: class Obj, primary key `id`, random properties, links to itself
# ---------------------------------------------------------------------------

class Prop:
    def __init__(self, name, kind, optional, collection):
        self.name, self.kind, self.optional, self.collection = name, kind, optional, collection

    @property
    def spec(self):
        if self.kind == "link":
            return "Obj[]" if self.collection == "list" else "Obj"
        base = self.kind + ("?" if self.optional and self.kind != "mixed" else "")
        return base + {"": "", "list": "[]", "set": "<>", "dict": "{}"}[self.collection]

    def __repr__(self):
        return f"{self.name}: {self.spec}"


def random_schema(rng):
    props = []
    for kind in SCALAR_TYPES + ["mixed"]:
        for optional in (False, True):
            if kind == "mixed" and optional:
                continue
            if rng.random() < 0.85:
                props.append(Prop(f"{kind[:3]}{'o' if optional else ''}", kind, optional, ""))
            if kind != "bool" and rng.random() < 0.35:
                props.append(Prop(f"{kind[:3]}{'o' if optional else ''}_l", kind, optional, "list"))
            if kind not in ("bool", "float", "double") and rng.random() < 0.2:
                props.append(Prop(f"{kind[:3]}{'o' if optional else ''}_s", kind, optional, "set"))
            if kind != "bool" and rng.random() < 0.2:
                props.append(Prop(f"{kind[:3]}{'o' if optional else ''}_d", kind, optional, "dict"))
    props.append(Prop("link", "link", True, ""))
    props.append(Prop("links", "link", False, "list"))
    # Names must be unique: objectId and... share no 3-letter prefix, but make sure.
    seen = set()
    unique = []
    for p in props:
        if p.name not in seen:
            seen.add(p.name)
            unique.append(p)
    return unique


def random_rows(rng, props, count):
    rows = []
    for pk in range(count):
        row = {"id": pk}
        for p in props:
            if p.kind == "link":
                continue
            if p.collection == "list":
                row[p.name] = [random_value(rng, p.kind, p.optional) for _ in range(rng.choice([0, 0, 1, 2, 3, 4]))]
            elif p.collection == "set":
                # Distinct by Realm's equality, so that the set holds all of them.
                chosen = []
                for _ in range(rng.choice([0, 0, 1, 2, 3, 4])):
                    v = random_value(rng, p.kind, p.optional)
                    if isinstance(v, float) and (math.isnan(v) or v == 0.0):
                        continue
                    if isinstance(v, decimal.Decimal) and (v == 0 or v != v.normalize()):
                        continue
                    if all(not equal(v, c) and comparable(v, c) != "bool" for c in chosen):
                        chosen.append(v)
                row[p.name] = chosen
            elif p.collection == "dict":
                row[p.name] = {k: random_value(rng, p.kind, p.optional)
                               for k in rng.sample(DICT_KEYS, rng.choice([0, 1, 2, 3]))}
            else:
                row[p.name] = random_value(rng, p.kind, p.optional)
        rows.append(row)
    for row in rows:
        row["link"] = rng.randrange(count) if rng.random() < 0.7 else None
        row["links"] = [rng.randrange(count) for _ in range(rng.choice([0, 0, 1, 2, 3]))]
        # ldict: Obj{} (a dictionary of links, null values allowed); emb:
        # Part and embs: Part[] (embedded objects of class Part {w: int?,
        # s: string}).
        row["ldict"] = {k: (rng.randrange(count) if rng.random() < 0.8 else None)
                        for k in rng.sample(DICT_KEYS, rng.choice([0, 1, 2, 3]))}
        row["emb"] = random_part(rng) if rng.random() < 0.7 else None
        row["embs"] = [random_part(rng) for _ in range(rng.choice([0, 0, 1, 2, 3]))]
    return rows


PART_STRINGS = ["", "a", "abc", "ABC", "bc", "é"]


def random_part(rng):
    return {"w": rng.choice([None, 0, 1, 2, 3, -1, 42]), "s": rng.choice(PART_STRINGS)}


# ---------------------------------------------------------------------------
# Comparison rules
# ---------------------------------------------------------------------------

def kind_of(value):
    """The Realm type of a Python value held in a mixed property."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "double"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bytes):
        return "data"
    if isinstance(value, datetime.datetime):
        return "date"
    if isinstance(value, decimal.Decimal):
        return "decimal128"
    if isinstance(value, ObjectId):
        return "objectId"
    return "uuid"


def comparable(a, b):
    """Realm compares two non-null values when they are both numbers, of
    one type, or a string and a binary (realm-core
    Mixed::types_are_comparable, src/realm/mixed.cpp). A bool is a number
    there, but Mixed::compare orders it by type rank against other numbers:
    the model leaves that order undefined."""
    ka, kb = kind_of(a), kind_of(b)
    if (ka == "bool") != (kb == "bool") and {ka, kb} <= NUMERIC | {"bool"}:
        return "bool"
    if ka in NUMERIC and kb in NUMERIC:
        return True
    return ka == kb or {ka, kb} == {"string", "data"}


def num_cmp(a, b):
    """-1, 0, 1, or None when a NaN makes them unordered."""
    if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
        return None
    if isinstance(a, decimal.Decimal) or isinstance(b, decimal.Decimal):
        if isinstance(a, float) and math.isinf(a):
            return -1 if a < 0 else 1
        if isinstance(b, float) and math.isinf(b):
            return 1 if b < 0 else -1
        a, b = decimal.Decimal(a), decimal.Decimal(b)
    elif isinstance(a, float) or isinstance(b, float):
        # Exact comparison of an int with a double (realm-core compares int64
        # and double values by value).
        if isinstance(a, int):
            if math.isinf(b):
                return -1 if b > 0 else 1
            b = decimal.Decimal(b)
            a = decimal.Decimal(a)
        elif isinstance(b, int):
            if math.isinf(a):
                return 1 if a > 0 else -1
            a = decimal.Decimal(a)
            b = decimal.Decimal(b)
    return (a > b) - (a < b)


def cmp(a, b):
    """Order of two comparable non-null values; None when unordered."""
    ka = kind_of(a)
    if ka in NUMERIC:
        return num_cmp(a, b)
    if ka == "objectId":
        a, b = a.binary, b.binary
    elif ka == "uuid":
        a, b = a.bytes, b.bytes
    elif ka in ("string", "data"):
        # A string and a binary compare as bytes (Mixed::compare).
        a = a.encode() if isinstance(a, str) else a
        b = b.encode() if isinstance(b, str) else b
    return (a > b) - (a < b)


def equal(a, b):
    if a is None or b is None:
        return a is None and b is None
    c = comparable(a, b)
    if c == "bool":
        return False  # a bool equals no other number (Mixed::compare)
    if not c:
        return False
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True  # realm-core: NaN == NaN in queries (Query_NaN in test_query.cpp)
    return cmp(a, b) == 0


def compare(op, a, b):
    """realm-core query_conditions.hpp: Equal, NotEqual, Less, LessEqual,
    Greater, GreaterEqual on two values that may be null."""
    if op == "==":
        return equal(a, b)
    if op == "!=":
        return not equal(a, b)
    if a is None or b is None:
        if op in ("<=", ">="):
            return a is None and b is None
        return False
    c = comparable(a, b)
    if c == "bool":
        raise Undefined("a bool ordered against another number type")
    if not c:
        return False
    c = cmp(a, b)
    if c is None:
        return False
    return {"<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op]


def fold(text, flags):
    if "d" in flags:
        text = "".join(ch for ch in unicodedata.normalize("NFD", text) if unicodedata.category(ch) != "Mn")
    if "c" in flags:
        # One-to-one case mapping (ß stays ß: no multi-letter mappings).
        text = "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in text)
    return text


def like(text, pattern):
    """LIKE: ? one character, * any run of characters, the whole text."""
    memo = {}

    def go(i, j):
        if (i, j) in memo:
            return memo[i, j]
        if j == len(pattern):
            r = i == len(text)
        elif pattern[j] == "*":
            r = go(i, j + 1) or (i < len(text) and go(i + 1, j))
        elif i < len(text) and (pattern[j] == "?" or pattern[j] == text[i]):
            r = go(i + 1, j + 1)
        else:
            r = False
        memo[i, j] = r
        return r
    return go(0, 0)


def string_op(op, flags, value, needle):
    """BEGINSWITH, ENDSWITH, CONTAINS, LIKE, ==, != with [c]/[d] on strings
    or binaries (binaries: no flags)."""
    if isinstance(value, bytes) and isinstance(needle, bytes) and "c" in flags:
        # [c] on two binaries (realm-core driver.cpp: verify_only_string_types
        # takes a binary on the right, and EqualityNode/StringOpsNode::visit
        # pass case_sensitive to the binary column's conditions): the bytes
        # compare case-insensitively as UTF-8 text. Bytes that are no UTF-8
        # are left undefined.
        try:
            value, needle = value.decode("utf-8"), needle.decode("utf-8")
        except UnicodeDecodeError:
            raise Undefined("[c] on bytes that are no UTF-8")
    if op in ("==", "!="):
        if value is None or needle is None:
            r = value is None and needle is None
        elif type(value) is not type(needle):
            # EqualIns on mixed values (query_conditions.hpp): a string and
            # a binary are comparable and compare as bytes, unfolded.
            r = equal(value, needle)
        elif isinstance(value, str):
            r = fold(value, flags) == fold(needle, flags)
        else:
            r = value == needle
        return r if op == "==" else not r
    if op == "LIKE":
        if needle is None or value is None:
            return needle is None and value is None
        if type(value) is not type(needle):
            return False  # Like/LikeIns on mixed values: same types only
        if isinstance(value, bytes):
            return like(value.decode("latin-1"), needle.decode("latin-1"))
        return like(fold(value, flags), fold(needle, flags))
    # Substring operators: an empty or null needle matches nothing (Realm
    # Swift RLMQueryUtil.mm add_substring_constraint).
    if needle is None or len(needle) == 0 or value is None:
        return False
    if type(value) is not type(needle):
        # A mixed value: the string operators' QueryValue overloads
        # (realm-core query_conditions.hpp: Contains, BeginsWith, EndsWith
        # and their [c] forms) take a string with a string or a binary with
        # a binary, and give false otherwise.
        return False
    if isinstance(value, str):
        value, needle = fold(value, flags), fold(needle, flags)
    if op == "BEGINSWITH":
        return value.startswith(needle)
    if op == "ENDSWITH":
        return value.endswith(needle)
    return needle in value


# ---------------------------------------------------------------------------
# Predicates: a tree with render() (text + arguments) and test(row)
# ---------------------------------------------------------------------------

class Ctx:
    """Renders a predicate: the text and the arguments it refers to. With
    printf=True, arguments are NSPredicate's specifiers taken in order:
    values as %@ and the key paths of comparisons as %K (Realm Swift's
    filter(_:_:) format; the engine takes %@ and %K in order)."""

    def __init__(self, printf=False):
        self.args = []
        self.printf = printf

    def arg(self, value):
        self.args.append(value)
        return "%@" if self.printf else f"${len(self.args) - 1}"

    def key(self, path):
        self.args.append(path)
        return "%K"


def literal(ctx, value, kind, rng_bit):
    """A constant as a literal where the language has one, else an argument."""
    if value is None:
        return rng_bit and "nil" or "NULL"
    if not rng_bit or kind in ("mixed", "int") and isinstance(value, float) and math.isinf(value):
        # realm-core refuses the literal inf for a mixed or an int property
        # (ConstantNode::visit, Type::INFINITY_VAL: "Infinity not supported
        # for int"); an argument is fine (Type::ARG), inside {...} too
        # (ListNode::visit visits each element as its own constant).
        return ctx.arg(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, ObjectId):
        return f"oid({value.binary.hex()})"
    if isinstance(value, uuid.UUID):
        return f"uuid({value})"
    if isinstance(value, datetime.datetime):
        delta = value - datetime.datetime(1970, 1, 1, tzinfo=UTC)
        micro = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
        s, ns = divmod(micro * 1000, 1_000_000_000)
        if s < 0 and ns:
            s, ns = s + 1, ns - 1_000_000_000  # sign of seconds and nanoseconds agree
        return f"T{s}:{ns}"
    return ctx.arg(value)


class Undefined(Exception):
    """A case Realm documents no result for (e.g. the order of NaN in
    @min): the test skips the predicate."""


class Node:
    pass


class Const(Node):
    def __init__(self, value, kind, as_literal):
        self.value, self.kind, self.as_literal = value, kind, as_literal

    def render(self, ctx):
        return literal(ctx, self.value, self.kind, self.as_literal)


class Path:
    """A key path from the row: [link.]prop, with to-one or to-many hops."""

    def __init__(self, hops, prop, sub=None):
        # hops: "link" / "links"; sub (dictionaries): "@keys", "@values",
        # or a key to look up.
        self.hops, self.prop, self.sub = hops, prop, sub

    @property
    def many(self):
        return "links" in self.hops or (self.prop.collection != "" and self.sub not in DICT_KEYS)

    def text(self, var=None, ctx=None):
        parts = ([var] if var else []) + self.hops + [self.prop.name]
        text = ".".join(parts)
        if ctx is not None and ctx.printf and var is None and self.sub is None:
            return ctx.key(text)  # the whole key path as one %K argument
        if self.sub in ("@keys", "@values"):
            return f"{text}.{self.sub}"
        if self.sub is not None:
            return f"{text}['{self.sub}']"
        return text

    def objects(self, rows, row):
        """The objects the hops reach: through a chain of to-one links, one
        (None for a null link); through a to-many link, only real objects."""
        objs = [row]
        for hop in self.hops:
            nxt = []
            for o in objs:
                if o is None:
                    nxt.append(None)
                elif hop == "link":
                    nxt.append(None if o["link"] is None else rows[o["link"]])
                else:
                    nxt.extend(rows[k] for k in o["links"])
            objs = nxt
        if "links" in self.hops:
            objs = [o for o in objs if o is not None]
        return objs

    def values(self, rows, row):
        """The values the path reaches, and whether it is a single value."""
        objs = [row]
        for hop in self.hops:
            nxt = []
            for o in objs:
                if o is None:
                    nxt.append(None)
                elif hop == "link":
                    nxt.append(None if o["link"] is None else rows[o["link"]])
                else:
                    nxt.extend(rows[k] for k in o["links"])
            objs = nxt
        if "links" in self.hops:
            # realm-core LinkMap: only a chain of to-one links yields null for
            # a missing link; through a to-many link it yields nothing.
            objs = [o for o in objs if o is not None]
        out = []
        for o in objs:
            if self.prop.collection == "dict" and self.sub in DICT_KEYS:
                # A key the dictionary lacks reads as null (realm-core
                # Columns<Dictionary> with a key).
                out.append(None if o is None else o[self.prop.name].get(self.sub))
            elif self.prop.collection == "dict":
                if o is not None:
                    out.extend(o[self.prop.name] if self.sub == "@keys" else o[self.prop.name].values())
            elif self.prop.collection != "":
                if o is not None:
                    out.extend(o[self.prop.name])
            else:
                # realm-core Columns<T>::evaluate: a null to-one link gives null.
                out.append(None if o is None else o[self.prop.name])
        return out


def adjust(value, prop_kind, literal=False):
    """The constant as the engine compares it with a property of prop_kind:
    a double rounded to float for a float property (issue 18 §9; realm-core
    converts the constant to the column's type). Against a decimal128
    property a double literal is read as decimal text (realm-core
    ConstantNode::visit with hint type_Decimal: Decimal128(text)), but a
    double argument is the binary double (Decimal128(double): 34 digits)."""
    if prop_kind == "decimal128" and isinstance(value, float) and math.isfinite(value):
        return decimal.Decimal(repr(value)) if literal else DEC128.plus(decimal.Decimal(value))
    if prop_kind == "float" and isinstance(value, float):
        return f32(value)
    if prop_kind == "float" and isinstance(value, int) and not isinstance(value, bool):
        return f32(float(value))
    return value


class Compare(Node):
    """[ANY|ALL|NONE] path OP constant, or OP on strings with flags."""

    def __init__(self, quant, path, op, flags, const):
        self.quant, self.path, self.op, self.flags, self.const = quant, path, op, flags, const

    def render(self, ctx, var=None):
        q = f"{self.quant} " if self.quant else ""
        fl = f"[{self.flags}]" if self.flags else ""
        return f"{q}{self.path.text(var, ctx)} {self.op}{fl} {self.const.render(ctx)}"

    def one(self, v):
        c = adjust(self.const.value, self.path.prop.kind, self.const.as_literal)
        if self.op in ("BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE") or self.flags:
            if self.path.prop.kind == "mixed" and not isinstance(v, (str, bytes)):
                return self.op == "!="
            return string_op(self.op, self.flags, v, c)
        if self.op in ("<", "<=", ">", ">=") and v is None and isinstance(c, str) and self.own_string():
            # realm-core string_data.hpp (operator< of StringData): "Null
            # strings are smaller than all other strings"; PR 7273 has the
            # string queries <, <=, >, >= follow it.
            return self.op in ("<", "<=")
        return compare(self.op, v, c)

    def own_string(self):
        """A string property of the object itself (or of the SUBQUERY's
        variable): not through links, not a collection."""
        p = self.path
        return not p.hops and p.prop.kind == "string" and p.prop.collection == "" and p.sub is None

    def test(self, rows, row):
        return quantify(self.quant, [self.one(v) for v in self.path.values(rows, row)])


def quantify(quant, results):
    if quant == "ALL":
        return all(results)
    if quant == "NONE":
        return not any(results)
    return any(results)


class Between(Node):
    """realm-core BetweenNode::visit (src/realm/parser/driver.cpp): `>= low`
    AND `<= high`, each with the path's quantifier (ANY when none), so
    through links two different objects may satisfy the two bounds; a list
    of values takes BETWEEN only after ALL."""

    def __init__(self, quant, path, low, high):
        self.quant, self.path, self.low, self.high = quant, path, low, high

    def render(self, ctx, var=None):
        q = f"{self.quant} " if self.quant else ""
        return f"{q}{self.path.text(var, ctx)} BETWEEN {{{self.low.render(ctx)}, {self.high.render(ctx)}}}"

    def test(self, rows, row):
        k = self.path.prop.kind
        lo = adjust(self.low.value, k, self.low.as_literal)
        hi = adjust(self.high.value, k, self.high.as_literal)
        vals = self.path.values(rows, row)
        return (quantify(self.quant, [compare(">=", v, lo) for v in vals]) and
                quantify(self.quant, [compare("<=", v, hi) for v in vals]))


class In(Node):
    """[ANY|ALL|NONE] path IN {constants}. A path of several values with no
    quantifier against the list compares element by element, in order: the
    same number of values, each equal to the constant at its place
    (realm-core query_expression.hpp, ValueBase::compare: both sides from
    a list and no comparison type). With a quantifier, each value is in the
    list or not (ANY unless ALL or NONE)."""

    def __init__(self, path, consts, as_arg, quant=""):
        self.path, self.consts, self.as_arg, self.quant = path, consts, as_arg, quant

    def render(self, ctx, var=None):
        q = f"{self.quant} " if self.quant else ""
        if self.as_arg:
            return f"{q}{self.path.text(var, ctx)} IN {ctx.arg([c.value for c in self.consts])}"
        return f"{q}{self.path.text(var, ctx)} IN {{{', '.join(c.render(ctx) for c in self.consts)}}}"

    def test(self, rows, row):
        k = self.path.prop.kind
        consts = [adjust(c.value, k, c.as_literal and not self.as_arg) for c in self.consts]
        values = self.path.values(rows, row)
        if self.path.many and not self.quant:
            if self.path.prop.collection in ("set", "dict"):
                # The engine reads a set's or a dictionary's values in its
                # own order, which the model does not keep.
                raise Undefined("element by element against a set or dictionary")
            return len(values) == len(consts) and all(compare("==", v, c) for v, c in zip(values, consts))
        return quantify(self.quant, [any(compare("==", v, c) for c in consts) for v in values])


class ConstIn(Node):
    """constant IN collection: the collection holds a value equal to the
    constant (realm-core: `value IN list` is ANY list == value)."""

    def __init__(self, const, path):
        self.const, self.path = const, path

    def render(self, ctx, var=None):
        return f"{self.const.render(ctx)} IN {self.path.text(var, ctx)}"

    def test(self, rows, row):
        c = adjust(self.const.value, self.path.prop.kind, self.const.as_literal)
        return any(compare("==", v, c) for v in self.path.values(rows, row))


class PropCompare(Node):
    """prop OP prop on one object (both single values)."""

    def __init__(self, left, op, right, flags=""):
        self.left, self.op, self.right, self.flags = left, op, right, flags

    def render(self, ctx, var=None):
        fl = f"[{self.flags}]" if self.flags else ""
        return f"{self.left.text(var, ctx)} {self.op}{fl} {self.right.text(var, ctx)}"

    def test(self, rows, row):
        a = self.left.values(rows, row)
        b = self.right.values(rows, row)
        if self.op in STRING_OPS[2:] or self.flags:
            # Against another property too, an empty needle matches
            # nothing (RLMQueryUtil.mm: `value.size() != 0 && condition`).
            return any(string_op(self.op, self.flags, x, y) for x in a for y in b)
        return any(compare(self.op, x, y) for x in a for y in b)


class Aggregate(Node):
    """list.@count / @size / @sum / @avg / @min / @max OP constant; or
    links.@count, links.@sum.prop."""

    def __init__(self, path, agg, op, const):
        self.path, self.agg, self.op, self.const = path, agg, op, const

    def render(self, ctx, var=None):
        if self.path.hops == ["links"]:
            base = "links" if var is None else f"{var}.links"
            text = f"{base}.{self.agg}" + (f".{self.path.prop.name}" if self.agg not in ("@count", "@size") else "")
        else:
            text = f"{self.path.text(var)}.{self.agg}"
        return f"{text} {self.op} {self.const.render(ctx)}"

    def value(self, rows, row):
        if self.path.hops == ["links"]:
            if self.agg in ("@count", "@size"):
                return len(row["links"])
            vals = [rows[k][self.path.prop.name] for k in row["links"]]
        else:
            vals = row[self.path.prop.name]
            if isinstance(vals, dict):
                vals = list(vals.values())
            if self.agg in ("@count", "@size"):
                return len(vals)
        vals = [v for v in vals if v is not None]
        kind = self.path.prop.kind
        if any(isinstance(v, float) and (math.isnan(v) or math.isinf(v)) for v in vals):
            raise Undefined("an aggregate over NaN or an infinity")
        if kind == "int" and self.agg in ("@sum", "@avg") and not -(2**63) <= sum(vals) < 2**63:
            raise Undefined("an int sum past 64 bits")
        if kind in ("float", "double") and self.agg in ("@sum", "@avg") and any(abs(v) > 1e200 for v in vals):
            raise Undefined("rounding of a sum of huge doubles")
        if self.agg == "@sum":
            if kind == "decimal128":
                total = decimal.Decimal(0)
                for v in vals:
                    total = DEC128.add(total, v)
                return total
            if kind == "int":
                return sum(vals)
            return math.fsum(vals) if not any(math.isinf(v) for v in vals) else sum(vals)
        if not vals:
            return None
        if self.agg == "@avg":
            if kind == "decimal128":
                total = decimal.Decimal(0)
                for v in vals:
                    total = DEC128.add(total, v)
                return DEC128.divide(total, len(vals))
            return sum(vals) / len(vals) if kind != "int" else decimal.Decimal(sum(vals)) / len(vals)
        key = lambda v: v.binary if isinstance(v, ObjectId) else v
        return (min if self.agg == "@min" else max)(vals, key=key)

    def test(self, rows, row):
        v = self.value(rows, row)
        # @min and @max of floats are floats (the constant is rounded to
        # float, as for the property); @sum and @avg of floats are doubles.
        kind = self.path.prop.kind
        if kind == "float" and self.agg in ("@sum", "@avg"):
            kind = "double"
        return compare(self.op, v, adjust(self.const.value, kind, self.const.as_literal))


class Subquery(Node):
    def __init__(self, pred, op, count):
        self.pred, self.op, self.count = pred, op, count

    def render(self, ctx, var=None):
        return f"SUBQUERY(links, $x, {self.pred.render(ctx, '$x')}).@count {self.op} {self.count}"

    def test(self, rows, row):
        n = sum(1 for k in row["links"] if self.pred.test(rows, rows[k]))
        return compare(self.op, n, self.count)


class Logic(Node):
    def __init__(self, op, kids):
        self.op, self.kids = op, kids

    def render(self, ctx, var=None):
        if self.op == "NOT":
            return f"NOT ({self.kids[0].render(ctx, var)})"
        return "(" + f" {self.op} ".join(k.render(ctx, var) for k in self.kids) + ")"

    def test(self, rows, row):
        if self.op == "NOT":
            return not self.kids[0].test(rows, row)
        if self.op == "AND":
            return all(k.test(rows, row) for k in self.kids)
        return any(k.test(rows, row) for k in self.kids)


class Fixed(Node):
    def __init__(self, value):
        self.value = value

    def render(self, ctx, var=None):
        return "TRUEPREDICATE" if self.value else "FALSEPREDICATE"

    def test(self, rows, row):
        return self.value


class ObjRef:
    """An object of class Obj as a query argument (the test turns it into
    the engine's object by primary key)."""

    def __init__(self, pk):
        self.pk = pk

    def __repr__(self):
        return f"Obj(id={self.pk})"


class LinkCompare(Node):
    """[ANY|ALL|NONE] link / links / link.link ==|!= object or nil: links
    compare by identity; a null to-one link equals nil."""

    def __init__(self, quant, hops, op, target):
        self.quant, self.hops, self.op, self.target = quant, hops, op, target

    def render(self, ctx, var=None):
        q = f"{self.quant} " if self.quant else ""
        path = ".".join(([var] if var else []) + self.hops)
        rhs = "nil" if self.target is None else ctx.arg(self.target)
        return f"{q}{path} {self.op} {rhs}"

    def test(self, rows, row):
        objs = [row["id"]]
        for i, hop in enumerate(self.hops):
            nxt = []
            for k in objs:
                if k is None:
                    nxt.append(None)
                elif hop == "link":
                    nxt.append(rows[k]["link"])
                else:
                    nxt.extend(rows[k]["links"])
            objs = nxt
        if "links" in self.hops:
            objs = [k for k in objs if k is not None]  # as Path.values
        want = None if self.target is None else self.target.pk
        results = [(k == want) == (self.op == "==") for k in objs]
        return quantify(self.quant, results)


def random_link_compare(rng, rows_count):
    hops = rng.choice([["link"], ["links"], ["link", "link"], ["link", "links"], ["links", "links"], ["links", "link"]])
    target = ObjRef(rng.randrange(rows_count)) if rng.random() < 0.85 else None
    if "links" in hops and target is None:
        target = ObjRef(0)  # realm-core refuses a list of links compared with nil
    quant = rng.choice(["", "ANY", "ALL", "NONE"]) if "links" in hops else ""
    return LinkCompare(quant, hops, rng.choice(["==", "!="]), target)


class SizeOf(Node):
    """[ANY|ALL|NONE] [hops.]prop.@count / @size / .length OP number:
    - a list, set or dictionary: its size (realm-core PostOpNode::visit,
      driver.cpp: ColumnListBase::size()). Through a chain of to-one links
      ending at a null link the size is 0: ColumnListBase::get_lists
      (query_expression.cpp) reads list ref 0 there, an empty list; through
      a to-many link, one size per linked object.
    - a string or binary: its size in bytes (PostOpNode::visit:
      Columns<StringData>/Columns<BinaryData>::size()); null for a null
      value or a null to-one link (SizeOperator keeps null).
    - `.length` after a list of strings or binaries: each element's size
      (PropNode::visit, driver.cpp, is_length_suffix and
      get_element_length), 0 for a null element; realm-core has no
      `.length` on a single string (it looks up a property 'length')."""

    def __init__(self, quant, hops, prop, form, op, const):
        self.quant, self.hops, self.prop, self.form, self.op, self.const = quant, hops, prop, form, op, const

    def render(self, ctx, var=None):
        q = f"{self.quant} " if self.quant else ""
        path = ".".join(([var] if var else []) + self.hops + [self.prop.name, self.form])
        return f"{q}{path} {self.op} {self.const.render(ctx)}"

    def values(self, rows, row):
        objs = Path(self.hops, Prop("id", "int", False, "")).objects(rows, row)
        out = []
        for o in objs:
            if self.form == "length":
                if o is not None:
                    # A null element's length is 0 (realm-core
                    # ColumnListElementLength; test_parser.cpp,
                    # Parser_list_of_primitive_strings).
                    out.extend(0 if v is None else len(v.encode() if isinstance(v, str) else v)
                               for v in o[self.prop.name])
            elif self.prop.collection != "":
                out.append(0 if o is None else len(o[self.prop.name]))
            else:
                v = None if o is None else o[self.prop.name]
                out.append(None if v is None else len(v.encode() if isinstance(v, str) else v))
        return out

    def test(self, rows, row):
        return quantify(self.quant, [compare(self.op, v, self.const.value) for v in self.values(rows, row)])


def random_size_of(rng, props):
    texts = [p for p in props if p.kind in ("string", "data") and p.collection in ("", "list")]
    colls = [p for p in props if p.collection != "" and p.kind != "link"]
    r = rng.random()
    if r < 0.45 and colls:
        prop, form = rng.choice(colls), rng.choice(["@count", "@size"])
    elif texts:
        prop = rng.choice(texts)
        form = "length" if prop.collection == "list" else rng.choice(["@count", "@size"])
    else:
        return None
    hops = rng.choice([[], [], ["link"], ["link", "link"], ["links"], ["links", "link"]])
    # Through a link to many objects: one size per object, ANY by default.
    many = "links" in hops or form == "length"
    quant = rng.choice(["", "ANY", "ALL", "NONE"]) if many else ""
    return SizeOf(quant, hops, prop, form, rng.choice(OPS["ordered"]), Const(rng.choice([0, 1, 2, 3, 5]), "int", True))


class Backlinks(Node):
    """@links: the objects linking to this one (realm-core PropNode::visit,
    driver.cpp: `@links` alone is get_backlink_count, every link of every
    class; `@links.Obj.link` and `@links.Obj.links` are the backlinks of
    one property, ANY by default). A list holding this object twice links
    to it twice (a backlink per entry)."""

    def __init__(self, form, quant, prop, op, const):
        # form: "count" (@links.@count), "one" (@links.Obj.P.@count with
        # P = link or links), "values" (@links.Obj.P.prop OP const)
        self.form, self.quant, self.prop, self.op, self.const = form, quant, prop, op, const
        self.via = None

    def render(self, ctx, var=None):
        base = f"{var}.@links" if var else "@links"
        if self.form == "count":
            return f"{base}.@count {self.op} {self.const.render(ctx)}"
        if self.form == "one":
            return f"{base}.Obj.{self.via}.@count {self.op} {self.const.render(ctx)}"
        q = f"{self.quant} " if self.quant else ""
        return f"{q}{base}.Obj.{self.via}.{self.prop.name} {self.op} {self.const.render(ctx)}"

    def sources(self, rows, row, via):
        out = []
        for r in rows.values():
            if via in ("link", None) and r["link"] == row["id"]:
                out.append(r)
            if via in ("links", None):
                out.extend(r for k in r["links"] if k == row["id"])
            if via in ("ldict", None):
                out.extend(r for k in r["ldict"].values() if k == row["id"])
        return out

    def test(self, rows, row):
        if self.form == "count":
            return compare(self.op, len(self.sources(rows, row, None)), self.const.value)
        srcs = self.sources(rows, row, self.via)
        if self.form == "one":
            return compare(self.op, len(srcs), self.const.value)
        c = adjust(self.const.value, self.prop.kind, self.const.as_literal)
        return quantify(self.quant, [compare(self.op, r[self.prop.name], c) for r in srcs])


def random_backlinks(rng, props):
    r = rng.random()
    count = Const(rng.choice([0, 1, 2, 3]), "int", rng.random() < 0.7)
    if r < 0.3:
        node = Backlinks("count", "", None, rng.choice(OPS["ordered"]), count)
    elif r < 0.6:
        node = Backlinks("one", "", None, rng.choice(OPS["ordered"]), count)
    else:
        single = [p for p in props if p.collection == "" and p.kind in NUMERIC | {"string", "date", "bool"}]
        if not single:
            return None
        prop = rng.choice(single)
        ops = OPS["ordered"] if prop.kind in ORDERED else OPS["eq"]
        node = Backlinks("values", rng.choice(["", "ANY", "ALL", "NONE"]), prop, rng.choice(ops),
                         random_constant(rng, prop.kind, prop.optional))
        if prop.kind == "string" and not isinstance(node.const.value, (str, type(None))):
            node.const = Const("abc", "string", True)
    node.via = rng.choice(["link", "links", "ldict"])
    return node


class DictLinks(Node):
    """The dictionary of links `ldict` (Obj{}):
    - "count": ldict.@count OP n counts its links, not its null values
      (realm-core LinkCount over the dictionary's LinkMap);
    - "values": [ANY|ALL|NONE] ldict.prop OP c over the linked objects (a
      null value links to nothing: LinkMap skips it);
    - "key": ldict['k'].prop OP c, one value: null for a missing key or a
      null link (realm-core Columns<Dictionary> with a key, then a null
      link yields null, Columns<T>::evaluate)."""

    def __init__(self, form, quant, key, prop, op, const):
        self.form, self.quant, self.key, self.prop, self.op, self.const = form, quant, key, prop, op, const

    def render(self, ctx, var=None):
        base = f"{var}.ldict" if var else "ldict"
        if self.form == "count":
            return f"{base}.@count {self.op} {self.const.render(ctx)}"
        q = f"{self.quant} " if self.quant else ""
        sub = f"['{self.key}']" if self.form == "key" else ""
        return f"{q}{base}{sub}.{self.prop.name} {self.op} {self.const.render(ctx)}"

    def test(self, rows, row):
        if self.form == "count":
            return compare(self.op, sum(1 for v in row["ldict"].values() if v is not None), self.const.value)
        c = adjust(self.const.value, self.prop.kind, self.const.as_literal)
        if self.form == "key":
            target = row["ldict"].get(self.key)
            return compare(self.op, None if target is None else rows[target][self.prop.name], c)
        vals = [rows[k][self.prop.name] for k in row["ldict"].values() if k is not None]
        return quantify(self.quant, [compare(self.op, v, c) for v in vals])


class Embedded(Node):
    """Embedded objects: emb (Part, to-one) and embs (Part[]), Part
    {w: int?, s: string}. emb.f reads null when emb is null (as a null
    to-one link, Columns<T>::evaluate); embs.f one value per element, ANY
    by default; embs.@count its size; emb == nil / != nil."""

    def __init__(self, form, quant, field, op, const):
        self.form, self.quant, self.field, self.op, self.const = form, quant, field, op, const

    def render(self, ctx, var=None):
        base = f"{var}." if var else ""
        if self.form == "nil":
            return f"{base}emb {self.op} nil"
        if self.form == "count":
            return f"{base}embs.@count {self.op} {self.const.render(ctx)}"
        q = f"{self.quant} " if self.quant else ""
        return f"{q}{base}{self.form}.{self.field} {self.op} {self.const.render(ctx)}"

    def test(self, rows, row):
        if self.form == "nil":
            return (row["emb"] is None) == (self.op == "==")
        if self.form == "count":
            return compare(self.op, len(row["embs"]), self.const.value)
        parts = [row["emb"]] if self.form == "emb" else row["embs"]
        vals = [None if p is None else p[self.field] for p in parts]
        if self.op in ("BEGINSWITH", "ENDSWITH", "CONTAINS"):
            return quantify(self.quant, [string_op(self.op, "", v, self.const.value) for v in vals])
        return quantify(self.quant, [compare(self.op, v, self.const.value) for v in vals])


class ValueFirst(Node):
    """argument BEGINSWITH|ENDSWITH|CONTAINS path: the argument is the
    haystack, each of the path's values the needle (realm-core
    Compare<Contains> over the two sides). A string and a binary never match
    (the QueryValue overloads, string_op); an empty or null needle matches
    nothing (RLMQueryUtil.mm, as string_op)."""

    def __init__(self, value, op, path):
        self.value, self.op, self.path = value, op, path

    def render(self, ctx, var=None):
        return f"{ctx.arg(self.value)} {self.op} {self.path.text(var)}"

    def test(self, rows, row):
        return any(string_op(self.op, "", self.value, v) if isinstance(v, (str, bytes)) else False
                   for v in self.path.values(rows, row))


def random_value_first(rng, props):
    texts = [p for p in props if p.collection == "" and p.kind in ("string", "data", "mixed")]
    if not texts:
        return None
    prop = rng.choice(texts)
    value = rng.choice(["xabcx", "abcabc", "ABC", "école", "a?c"]) if rng.random() < 0.5 else \
        rng.choice([b"xabcx", b"abcabc", b"\x00\xff", b"ABC"])
    return ValueFirst(value, rng.choice(["BEGINSWITH", "ENDSWITH", "CONTAINS"]),
                      Path(["link"] if rng.random() < 0.2 else [], prop))


def random_dict_links(rng, props):
    r = rng.random()
    if r < 0.3:
        return DictLinks("count", "", None, None, rng.choice(OPS["ordered"]),
                         Const(rng.choice([0, 1, 2, 3]), "int", rng.random() < 0.7))
    single = [p for p in props if p.collection == "" and p.kind in NUMERIC | {"string", "date", "bool", "uuid"}]
    if not single:
        return None
    prop = rng.choice(single)
    const = random_constant(rng, prop.kind, prop.optional)
    if prop.kind == "string" and not isinstance(const.value, (str, type(None))):
        const = Const("abc", "string", True)
    ops = OPS["ordered"] if prop.kind in ORDERED else OPS["eq"]
    if r < 0.65:
        return DictLinks("values", rng.choice(["", "ANY", "ALL", "NONE"]), None, prop, rng.choice(ops), const)
    return DictLinks("key", "", rng.choice(DICT_KEYS), prop, rng.choice(ops), const)


def random_embedded(rng):
    r = rng.random()
    if r < 0.15:
        return Embedded("nil", "", None, rng.choice(OPS["eq"]), None)
    if r < 0.3:
        return Embedded("count", "", None, rng.choice(OPS["ordered"]),
                        Const(rng.choice([0, 1, 2, 3]), "int", rng.random() < 0.7))
    form = rng.choice(["emb", "embs"])
    quant = rng.choice(["", "ANY", "ALL", "NONE"]) if form == "embs" else ""
    if rng.random() < 0.5:
        return Embedded(form, quant, "w", rng.choice(OPS["ordered"]),
                        Const(rng.choice([None, 0, 1, 2, 3, -1, 42]), "int", rng.random() < 0.7))
    return Embedded(form, quant, "s", rng.choice(["==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS"]),
                    Const(rng.choice(PART_STRINGS[1:] + [None]), "string", rng.random() < 0.7))


# ---------------------------------------------------------------------------
# Random predicates
# ---------------------------------------------------------------------------

OPS = {"ordered": ["==", "!=", "<", "<=", ">", ">="], "eq": ["==", "!="]}
STRING_OPS = ["==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"]


def random_constant(rng, kind, optional):
    """A constant to compare with a property of `kind`: mostly of its type,
    sometimes another number type, sometimes null."""
    if rng.random() < 0.08:
        return Const(None, kind, rng.random() < 0.5)
    target = kind
    if kind == "mixed":
        kind = rng.choice(MIXED_TYPES)
    if kind == "float":
        value = rng.choice(DOUBLES + INTS[:8])
    elif kind == "double":
        value = rng.choice(DOUBLES + INTS[:8])
    elif kind == "int":
        value = rng.choice(INTS + [1.5, 2.0, -0.5, math.inf, -math.inf])
    elif kind == "decimal128":
        value = rng.choice(DECIMALS + [1, 42, -1, 0.1, 1.5, 2.3, -0.0, 1e300, 5e-324, math.inf, -math.inf])
    elif kind == "string":
        value = rng.choice(STRINGS + ["a*", "*c", "?b?", "*", "?", "*é*", "ab*c", "*a*c*"])
    else:
        value = rng.choice(POOLS[kind])
    as_literal = rng.random() < 0.5 and not isinstance(value, (decimal.Decimal, bytes))
    return Const(value, target, as_literal)


def random_path(rng, props, allow_many=True, filt=None):
    cands = [p for p in props if p.kind != "link" and (filt is None or filt(p))
             and (allow_many or p.collection == "")]
    if not cands:
        return None
    prop = rng.choice(cands)
    hops = []
    r = rng.random()
    if r < 0.2:
        hops = ["link"]
    elif r < 0.3 and allow_many and prop.collection == "":
        hops = ["links"]
    elif r < 0.35:
        hops = ["link", "link"]
    elif r < 0.39 and allow_many and prop.collection == "":
        hops = ["links", "link"]
    sub = None
    if prop.collection == "dict":
        r = rng.random()
        if r < 0.3:
            sub = rng.choice(DICT_KEYS)
        elif r < 0.5:
            sub = "@values"
        elif r < 0.7 and (filt is None or filt(Prop(prop.name, "string", False, "dict"))):
            sub = "@keys"
            prop = Prop(prop.name, "string", False, "dict")
    return Path(hops, prop, sub)


def random_leaf(rng, props, depth=0):
    r = rng.random()
    if r < 0.20:
        leaf = (random_size_of(rng, props) if r < 0.06 else random_backlinks(rng, props) if r < 0.11
                else random_dict_links(rng, props) if r < 0.145 else random_embedded(rng) if r < 0.18
                else random_value_first(rng, props))
        if leaf is not None:
            return leaf
        r = rng.random()
    if r < 0.03:
        return Fixed(rng.random() < 0.5)
    if r < 0.50:
        path = random_path(rng, props)
        kind = path.prop.kind
        quant = rng.choice(["ANY", "ALL", "NONE"]) if path.many and rng.random() < 0.6 else ""
        if kind in ("string", "data") and rng.random() < 0.25:
            const = random_constant(rng, kind, path.prop.optional)
            if kind == "data":
                const = Const(rng.choice(BINARIES), kind, False)
            elif const.value is not None and not isinstance(const.value, str):
                const = Const("b", kind, True)
            return Compare(quant, path, rng.choice(["<", "<=", ">", ">="]), "", const)
        if kind in ("string", "data") or (kind == "mixed" and rng.random() < 0.3):
            op = rng.choice(STRING_OPS)
            flags = rng.choice(["", "", "c", "d", "cd"]) if kind == "string" else ""
            if kind == "data":
                const = Const(rng.choice(BINARIES), kind, False)
                r2 = rng.random()
                if r2 < 0.3:
                    flags = "c"  # [c] on binaries (string_op)
                elif r2 < 0.45:
                    # A string argument against a binary property: the string
                    # operators take one kind (string_op).
                    const = Const(rng.choice(STRINGS[:9]), "string", False)
            elif kind == "string" and rng.random() < 0.1:
                # A binary argument against a string property (string_op).
                const = Const(rng.choice(BINARIES), "data", False)
                flags = ""
            elif kind == "mixed":
                const = Const(rng.choice(STRINGS), "string", rng.random() < 0.5)
                flags = rng.choice(["", "c"])
            else:
                const = random_constant(rng, "string", path.prop.optional)
                if const.value is not None and not isinstance(const.value, str):
                    const = Const(None, kind, True)
            if op == "LIKE" and kind == "string" and isinstance(const.value, str) and rng.random() < 0.7:
                const = Const(rng.choice(["a*", "*c", "?b?", "*", "?", "*é*", "ab*c", "*a*c*", "a?c", "*C"]),
                              kind, rng.random() < 0.5)
            if op == "LIKE" and "d" in flags:
                # realm-core driver.cpp: "Operator 'LIKE' not supported with
                # diacritic-insensitive modifier."
                flags = flags.replace("d", "")
            return Compare(quant, path, op, flags, const)
        ops = OPS["ordered"] if kind in ORDERED else OPS["eq"]
        if kind == "mixed":
            const = random_constant(rng, "mixed", True)
            ops = OPS["ordered"]
            return Compare(quant, path, rng.choice(ops), "", const)
        return Compare(quant, path, rng.choice(ops), "", random_constant(rng, kind, path.prop.optional))
    if r < 0.58:
        path = random_path(rng, props, filt=lambda p: p.kind in ORDERED)
        if path is None:
            return Fixed(True)
        lo = random_constant(rng, path.prop.kind, False)
        hi = random_constant(rng, path.prop.kind, False)
        if lo.value is None or hi.value is None:
            return Fixed(False)
        if path.prop.collection != "" and path.sub not in DICT_KEYS:
            quant = "ALL"
        else:
            quant = rng.choice(["", "ANY", "ALL", "NONE"]) if path.many else ""
        return Between(quant, path, lo, hi)
    if r < 0.66:
        path = random_path(rng, props, filt=lambda p: p.kind != "mixed")
        consts = [random_constant(rng, path.prop.kind, True) for _ in range(rng.randint(1, 4))]
        if path.prop.kind == "string":
            consts = [c for c in consts if c.value is None or isinstance(c.value, str)] or [Const("a", "string", 1)]
        if path.prop.kind == "data":
            consts = [Const(rng.choice(BINARIES), "data", False) for _ in consts]
        quant = rng.choice(["", "ANY", "ANY", "ALL", "NONE"]) if path.many else ""
        return In(path, consts, rng.random() < 0.3, quant)
    if r < 0.76:
        single = [p for p in props if p.kind != "link" and p.collection == ""]
        a = rng.choice(single)
        if a.kind == "mixed":
            b = rng.choice(single)
            ops = OPS["eq"]
        else:
            group = NUMERIC if a.kind in NUMERIC else {a.kind}
            same = [p for p in single if p.kind in group or p.kind == "mixed"]
            b = rng.choice(same)
            ops = OPS["ordered"] if a.kind in ORDERED and b.kind != "mixed" else OPS["eq"]
        pa = Path(["link"] if rng.random() < 0.2 else [], a)
        if a.kind == b.kind == "string" and rng.random() < 0.5:
            op = rng.choice(STRING_OPS)
            flags = rng.choice(["", "c", "d", "cd"]) if op != "LIKE" else rng.choice(["", "c"])
            return PropCompare(pa, op, Path([], b), flags)
        return PropCompare(pa, rng.choice(ops), Path([], b))
    if r < 0.88:
        lists = [p for p in props if p.collection != "" and p.kind != "link"]
        nums = [p for p in props if p.collection == "" and p.kind in NUMERIC]
        if lists and rng.random() < 0.6:
            p = rng.choice(lists)
            path = Path([], p)
        elif nums:
            p = rng.choice(nums)
            path = Path(["links"], p)
        else:
            return Fixed(True)
        aggs = ["@count", "@size"]
        if p.kind in NUMERIC:
            aggs += ["@sum", "@avg", "@min", "@max"]
        elif p.kind in ("date",):
            aggs += ["@min", "@max"]
        agg = rng.choice(aggs)
        if agg in ("@count", "@size"):
            const = Const(rng.choice([0, 1, 2, 3]), "int", rng.random() < 0.7)
        else:
            const = random_constant(rng, p.kind if p.kind != "float" else "double", True)
            if agg in ("@sum", "@avg") and const.value is not None and p.kind in ("int", "float", "double"):
                const = Const(rng.choice([0, 1, 2, 3, 1.5, -1, 0.5, 42]), "double", True)
        return Aggregate(path, agg, rng.choice(OPS["ordered"]), const)
    if r < 0.92:
        return random_link_compare(rng, 4)
    if r < 0.95:
        colls = [p for p in props if p.collection in ("list", "set") and p.kind not in ("mixed", "link")]
        if colls:
            p = rng.choice(colls)
            const = random_constant(rng, p.kind, True)
            if p.kind == "string" and not isinstance(const.value, (str, type(None))):
                const = Const("abc", "string", True)
            if p.kind == "data":
                const = Const(rng.choice(BINARIES), "data", False)
            return ConstIn(const, Path([], p))
    if depth < 1:
        inner = random_predicate(rng, props, depth + 1, allow_links=False)
        return Subquery(inner, rng.choice(["==", ">", ">=", "<"]), rng.choice([0, 1, 2]))
    return Fixed(rng.random() < 0.5)


def random_predicate(rng, props, depth=0, allow_links=True):
    r = rng.random()
    if depth < 3 and r < 0.35:
        op = rng.choice(["AND", "OR", "NOT"])
        if op == "NOT":
            return Logic("NOT", [random_predicate(rng, props, depth + 1, allow_links)])
        return Logic(op, [random_predicate(rng, props, depth + 1, allow_links) for _ in range(rng.randint(2, 3))])
    if not allow_links:
        local = [p for p in props if p.kind != "link" and p.collection == ""]
        for _ in range(20):
            leaf = random_leaf(rng, props, depth=9)
            if isinstance(leaf, (Compare, Between, In)) and not leaf.path.hops:
                return leaf
        return Compare("", Path([], rng.choice(local)), "!=", "", Const(None, "", True))
    return random_leaf(rng, props, depth)


# ---------------------------------------------------------------------------
# SORT / DISTINCT / LIMIT after a predicate
# ---------------------------------------------------------------------------

# Strings sort by their UTF-8 bytes, which is code point order: realm-core
# 14's order (CHANGELOG 14.0.0-beta.0, realm-core#2573: "aAbBzZ" became
# "ABZabz" when utf8_compare's collation table left sorting).
SORTABLE = {"int", "date", "decimal128", "objectId", "bool", "float", "double", "uuid", "string"}


def sort_key(value):
    """realm-core's sort order within one type: null first (Mixed::compare
    puts null below every value)."""
    if value is None:
        return (0, 0)
    if isinstance(value, float) and math.isnan(value):
        raise Undefined("NaN in a sort")
    if isinstance(value, float) and value == 0.0:
        return (1, 0.0)  # -0.0 sorts with 0.0
    if isinstance(value, uuid.UUID):
        return (1, value.bytes)
    if isinstance(value, ObjectId):
        return (1, value.binary)
    if isinstance(value, decimal.Decimal) and value == 0:
        return (1, decimal.Decimal(0))  # -0 equals 0
    if isinstance(value, decimal.Decimal):
        return (1, value.normalize(DEC128))  # 2.30 equals 2.3
    if isinstance(value, str):
        return (1, value.encode())
    return (1, value)


class Ordering:
    """`SORT(prop dir, id ASC) [DISTINCT(prop)] [LIMIT(n)]`, applied in the
    order written (realm-core DescriptorOrdering); the tie on `id` makes the
    order total."""

    def __init__(self, prop, ascending, distinct, limit):
        self.prop, self.ascending, self.distinct, self.limit = prop, ascending, distinct, limit

    def render(self):
        text = f" SORT({self.prop.name} {'ASC' if self.ascending else 'DESC'}, id ASC)" if self.sort else ""
        if self.distinct:
            text += f" DISTINCT({self.prop.name})"
        if self.limit is not None:
            text += f" LIMIT({self.limit})"
        return text

    def apply(self, matched):
        rows = sorted(matched, key=lambda r: r["id"])  # table order: objects were created by id
        # Python's sort is stable also with reverse=True: ids stay ascending
        # among equal values.
        if self.sort:
            rows = sorted(rows, key=lambda r: sort_key(r[self.prop.name]), reverse=not self.ascending)
        if self.distinct:
            seen, kept = set(), []
            for r in rows:
                k = repr(sort_key(r[self.prop.name]))
                if k not in seen:
                    seen.add(k)
                    kept.append(r)
            rows = kept
        if self.limit is not None:
            rows = rows[:self.limit]
        return [r["id"] for r in rows]


def random_ordering(rng, props):
    cands = [p for p in props if p.collection == "" and p.kind in SORTABLE]
    if not cands or rng.random() < 0.7:
        return None
    ordering = Ordering(rng.choice(cands), rng.random() < 0.5, rng.random() < 0.3,
                        rng.choice([None, 0, 1, 2, 5]))
    ordering.sort = rng.random() < 0.8 or not (ordering.distinct or ordering.limit is not None)
    return ordering
