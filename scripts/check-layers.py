#!/usr/bin/env python3
"""check-layers.py — the engine's includes and Swift's `import CEngine`
against the dependency table in docs/ARCHITECTURE.md (run by scripts/test.sh).

The table (between the `dependency-table` markers) has one row per engine
module (a .c file and its .h, in CEngine/src/<layer>/) naming the modules it
may include, and rows of layer `swift` naming the folders whose files may
`import CEngine`. The check fails when
  - a file includes a module its row does not list (a forbidden edge),
  - a row lists a module the file no longer includes (the table is stale),
  - a module has no row, a row has no module, or a row names the wrong layer,
  - the table itself breaks the layer order (base <- storage <- objects <-
    query <- notify) or has a cycle,
  - a Swift file outside the listed folders imports CEngine.
Usage: scripts/check-layers.py           check
       scripts/check-layers.py --print   print the rows the code has now
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYERS = ["base", "storage", "objects", "query", "notify"]
TABLE_FILE = os.path.join(ROOT, "docs", "ARCHITECTURE.md")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)\.h"', re.M)
IMPORT_CENGINE = re.compile(r"^\s*(@\w+\s+)*import\s+CEngine\b", re.M)


def code_modules():
    """{module: (layer, {included modules})} from CEngine/src."""
    modules = {}
    for layer in LAYERS:
        folder = os.path.join(ROOT, "CEngine", "src", layer)
        for name in sorted(os.listdir(folder)):
            base, ext = os.path.splitext(name)
            if ext not in (".c", ".h"):
                continue
            if base in modules and modules[base][0] != layer:
                sys.exit(f"check-layers: module {base} is in two layers")
            includes = modules.setdefault(base, (layer, set()))[1]
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                for included in INCLUDE.findall(f.read()):
                    if included not in (base, "cengine"):
                        includes.add(included)
    return modules


def swift_importers():
    found = []
    for top in ("Sources",):
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                if name.endswith(".swift"):
                    path = os.path.join(folder, name)
                    with open(path, encoding="utf-8") as f:
                        if IMPORT_CENGINE.search(f.read()):
                            found.append(os.path.relpath(path, ROOT))
    return sorted(found)


def read_table():
    with open(TABLE_FILE, encoding="utf-8") as f:
        text = f.read()
    match = re.search(r"<!-- dependency-table -->(.*?)<!-- /dependency-table -->", text, re.S)
    if not match:
        sys.exit("check-layers: docs/ARCHITECTURE.md has no dependency-table markers")
    rows, swift = {}, []
    for line in match.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("layer", "") or set(cells[0]) <= set("-: "):
            continue
        layer, module, includes = cells
        module = module.strip("`")
        listed = set() if includes in ("", "—", "-") else {m.strip(" `") for m in includes.split(",")}
        if layer == "swift":
            swift.append(module.rstrip("/") + "/")
        else:
            if module in rows:
                sys.exit(f"check-layers: two rows for {module}")
            rows[module] = (layer, listed)
    return rows, swift


def print_rows(modules):
    print("| layer | module | includes |")
    print("|---|---|---|")
    for layer in LAYERS:
        for module in sorted(m for m in modules if modules[m][0] == layer):
            includes = modules[module][1]
            print(f"| {layer} | {module} | {', '.join(sorted(includes)) if includes else '—'} |")


def main():
    modules = code_modules()
    if "--print" in sys.argv:
        print_rows(modules)
        return 0
    rows, swift = read_table()
    problems = []
    for module, (layer, includes) in sorted(modules.items()):
        if module not in rows:
            problems.append(f"{layer}/{module}: no row in the table")
            continue
        row_layer, listed = rows[module]
        if row_layer != layer:
            problems.append(f"{layer}/{module}: the table puts it in {row_layer}")
        for extra in sorted(includes - listed):
            problems.append(f"{layer}/{module} includes {extra}.h: a forbidden edge (not in its row)")
        for stale in sorted(listed - includes):
            problems.append(f"{layer}/{module}: its row lists {stale}, which it does not include")
    for module, (layer, listed) in sorted(rows.items()):
        if module not in modules:
            problems.append(f"the table's row {module} names no file")
        if layer not in LAYERS:
            problems.append(f"the table's row {module} has an unknown layer {layer}")
            continue
        for target in listed:
            if target not in rows:
                problems.append(f"{module}'s row lists {target}, which has no row")
            elif rows[target][0] in LAYERS and LAYERS.index(rows[target][0]) > LAYERS.index(layer):
                problems.append(f"{layer}/{module} -> {rows[target][0]}/{target}: against the layer order")
    # A cycle among the rows.
    state = {}

    def visit(module, path):
        state[module] = 1
        for target in sorted(rows.get(module, ("", set()))[1]):
            if state.get(target) == 1:
                problems.append("a cycle: " + " -> ".join(path + [module, target]))
            elif target in rows and not state.get(target):
                visit(target, path + [module])
        state[module] = 2

    for module in sorted(rows):
        if not state.get(module):
            visit(module, [])
    for path in swift_importers():
        if not any(path.startswith(folder) for folder in swift):
            problems.append(f"{path} imports CEngine; only {', '.join(swift)} may")
    if problems:
        print("check-layers: the code and docs/ARCHITECTURE.md's dependency table disagree:")
        for problem in problems:
            print("  " + problem)
        return 1
    print(f"check-layers: {len(modules)} modules and {len(swift_importers())} Swift importers of CEngine match the table")
    return 0


if __name__ == "__main__":
    sys.exit(main())
