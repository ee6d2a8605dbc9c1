"""test_query_differential.py — the engine's query results against an
independent model of Realm's rules (query_model.py): seeded random schemas,
rows and predicates; each predicate's result set from the engine must equal
the model's. A disagreement prints the smallest case found (schema, rows,
predicate, arguments, both results). One predicate in seven takes its
arguments as %@ and %K (in order) instead of $0, $1.

CI mode: fixed seeds, a few seconds. OPENREALM_QUERYDIFF_SEEDS=N runs N
seeds (from OPENREALM_QUERYDIFF_FIRST, default 1000) for a long run.
"""

import itertools
import os
import random

import pytest

import openrealm
import query_model as qm

PREDICATES_PER_SEED = 150
LINKS = ("link", "links", "ldict")  # set after every object exists
_files = itertools.count()


def build(path, props, rows):
    db = openrealm.open(path)
    with db.write() as txn:
        schema = {"id": openrealm.Property(int, primary_key=True)}
        schema.update({p.name: p.spec for p in props})
        schema.update({"ldict": "Obj{}", "emb": "Part", "embs": "Part[]"})
        txn.update_schema({"Obj": schema, "Part": {"w": "int?", "s": "string"}}, embedded=["Part"])
        objs = {}
        for row in rows:
            values = {k: v for k, v in row.items() if k not in LINKS}
            objs[row["id"]] = txn.create("Obj", values)
        for row in rows:
            obj = objs[row["id"]]
            obj.link = None if row["link"] is None else objs[row["link"]]
            obj.links = [objs[k] for k in row["links"]]
            obj.ldict = {key: None if k is None else objs[k] for key, k in row["ldict"].items()}
    return db


def engine_ids(db, predicate, args, ordered=False):
    with db.read() as txn:
        try:
            args = [txn.object("Obj", a.pk) if isinstance(a, qm.ObjRef) else a for a in args]
            ids = [o.id for o in txn.query("Obj", predicate, *args)]
            return ids if ordered else sorted(ids)
        except openrealm.OpenRealmError as error:
            return f"error: {error}"


def model_ids(rows, node, ordering=None):
    by_id = {r["id"]: r for r in rows}
    matched = [r for r in rows if node.test(by_id, r)]
    return ordering.apply(matched) if ordering else sorted(r["id"] for r in matched)


def subset_rows(rows, keep):
    kept = [dict(r) for r in rows if r["id"] in keep]
    for r in kept:
        r["link"] = r["link"] if r["link"] in keep else None
        r["links"] = [k for k in r["links"] if k in keep]
        r["ldict"] = {key: k if k in keep else None for key, k in r["ldict"].items()}  # the entry stays, null
    return kept


def disagrees(tmp_path, props, rows, node, counter, ordering=None, printf=False):
    """The disagreement of engine and model on this case, or None."""
    path = str(tmp_path / f"shrink{next(_files)}.realm")
    db = build(path, props, rows)
    try:
        ctx = qm.Ctx(printf)
        text = node.render(ctx) + (ordering.render() if ordering else "")
        try:
            want = model_ids(rows, node, ordering)
        except qm.Undefined:
            return None
        got = engine_ids(db, text, ctx.args, ordering is not None)
        return None if got == want else (text, ctx.args, got, want)
    finally:
        db.close()


def shrink(tmp_path, props, rows, node, ordering, printf):
    """Drop rows and sub-predicates while the disagreement stays."""
    counter = [0]
    changed = True
    while changed:
        changed = False
        if isinstance(node, qm.Logic):
            for kid in node.kids:
                if disagrees(tmp_path, props, rows, kid, counter, ordering, printf):
                    node, changed = kid, True
                    break
            if changed:
                continue
        ctx = qm.Ctx()
        node.render(ctx)
        targets = {a.pk for a in ctx.args if isinstance(a, qm.ObjRef)}  # objects the arguments name stay
        for row in list(rows):
            if row["id"] in targets:
                continue
            keep = {r["id"] for r in rows} - {row["id"]}
            smaller = subset_rows(rows, keep)
            if len(smaller) > 0 and disagrees(tmp_path, props, smaller, node, counter, ordering, printf):
                rows, changed = smaller, True
                break
    return rows, node


def run_seed(tmp_path, seed, count=PREDICATES_PER_SEED):
    rng = random.Random(seed)
    props = qm.random_schema(rng)
    rows = qm.random_rows(rng, props, rng.randint(4, 14))
    db = build(str(tmp_path / f"seed{seed}.realm"), props, rows)
    failures = []
    try:
        for _ in range(count):
            node = qm.random_predicate(rng, props)
            ordering = qm.random_ordering(rng, props)
            printf = rng.random() < 0.15  # %@ and %K instead of $0, $1, ...
            ctx = qm.Ctx(printf)
            text = node.render(ctx) + (ordering.render() if ordering else "")
            try:
                want = model_ids(rows, node, ordering)
            except qm.Undefined:
                continue
            got = engine_ids(db, text, ctx.args, ordering is not None)
            if got != want:
                failures.append((node, ordering, printf))
                if len(failures) >= 3:
                    break
    finally:
        db.close()
    reports = []
    for node, ordering, printf in failures[:1]:
        small_rows, small_node = shrink(tmp_path, props, rows, node, ordering, printf)
        result = disagrees(tmp_path, props, small_rows, small_node, [1000], ordering, printf)
        text, args, got, want = result or (node.render(qm.Ctx()), [], "?", "?")
        used = {p.name for p in props if p.name in text}
        reports.append(
            f"seed {seed}\nschema: {[p for p in props if p.name in used or p.kind == 'link']}\n"
            f"rows: {[{k: v for k, v in r.items() if k in used or k in ('id',) + LINKS + ('emb', 'embs')} for r in small_rows]}\n"
            f"predicate: {text}\narguments: {args!r}\nengine: {got}\nmodel:  {want}")
    return reports


def seeds():
    count = int(os.environ.get("OPENREALM_QUERYDIFF_SEEDS", "0"))
    if count:
        first = int(os.environ.get("OPENREALM_QUERYDIFF_FIRST", "1000"))
        return range(first, first + count)
    return range(1, 13)


def test_engine_agrees_with_model(tmp_path):
    reports = []
    for seed in seeds():
        reports.extend(run_seed(tmp_path, seed))
    assert not reports, "\n\n".join(reports)
