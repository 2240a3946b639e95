#!/usr/bin/env python3
"""The core's include structure, checked from the code's own #include lines.

The core is a stack of layers, each a folder of core/src/ mirrored in core/include/memplan/:

    base → config → model → memory → serving → search → reproduce → io → report → api

A file may include files of its own layer and of the layers below it, never above. A unit (a .cpp
and the header of the same stem, public or internal) may not be part of an include cycle with other
units, inside a layer either. Every file of the core sits in one of these folders, no folder holds
more than MAX_FILES files, and every quoted include names a file that exists (so no edge goes unseen).

Usage: check-layers.py [--root REPO] [--graph]   (exit 1 and one line per problem when it fails)
"""
import argparse
import os
import re
import sys

LAYERS = ["base", "config", "model", "memory", "serving", "search", "reproduce", "io", "report", "api"]
MAX_FILES = 14
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def core_files(root):
    """(path relative to root, layer or None) of every source file of the core."""
    out = []
    for base in ("core/src", "core/include/memplan"):
        top = os.path.join(root, base)
        for folder, _, names in os.walk(top):
            for name in sorted(names):
                if not name.endswith((".cpp", ".hpp")):
                    continue
                rel = os.path.relpath(os.path.join(folder, name), top)
                parts = rel.split(os.sep)
                layer = parts[0] if len(parts) == 2 and parts[0] in LAYERS else None
                out.append((os.path.join(base, rel), layer))
    return out


def unit_of(path):
    """'layer/stem' of a core file (core/src/memory/estimate.cpp and memplan/memory/estimate.hpp: memory/estimate)."""
    rel = path.split("core/src/", 1)[1] if path.startswith("core/src/") else path.split("core/include/memplan/", 1)[1]
    return os.path.splitext(rel)[0]


def resolve(root, path, name):
    """The core file an include names: "memplan/L/x.hpp" (public), "L/x.hpp" (internal, from core/src),
    or "x.hpp" beside the including file; None when it is none of these."""
    candidates = []
    if name.startswith("memplan/"):
        candidates.append(os.path.join("core/include", name))
    candidates.append(os.path.join("core/src", name))
    candidates.append(os.path.normpath(os.path.join(os.path.dirname(path), name)))
    for c in candidates:
        if os.path.isfile(os.path.join(root, c)):
            return c
    return None


def strongly_connected(nodes, edges):
    """Tarjan's algorithm (iterative): the components with more than one unit."""
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def check(root):
    problems, edges, units = [], {}, set()
    files = core_files(root)
    per_folder = {}
    for path, layer in files:
        if layer is None:
            problems.append(f"{path}: not in a layer folder ({', '.join(LAYERS)})")
            continue
        per_folder.setdefault(os.path.dirname(path), []).append(path)
        units.add(unit_of(path))
    for folder, members in sorted(per_folder.items()):
        if len(members) > MAX_FILES:
            problems.append(f"{folder}: {len(members)} files, more than {MAX_FILES}")
    for path, layer in files:
        if layer is None:
            continue
        with open(os.path.join(root, path), encoding="utf-8") as f:
            text = f.read()
        for line_no, name in ((text.count("\n", 0, m.start()) + 1, m.group(1)) for m in INCLUDE.finditer(text)):
            if name.endswith(".inc"):
                continue  # generated data tables (CMakeLists.txt, memplan_embed_json)
            target = resolve(root, path, name)
            if target is None:
                problems.append(f"{path}:{line_no}: includes \"{name}\", which is no file of the core")
                continue
            target_layer = unit_of(target).split("/")[0]
            if LAYERS.index(target_layer) > LAYERS.index(layer):
                problems.append(f"{path}:{line_no}: {layer} includes \"{name}\" of the higher layer {target_layer}")
            a, b = unit_of(path), unit_of(target)
            if a != b:
                edges.setdefault(a, set()).add(b)
    for component in strongly_connected(sorted(units), edges):
        problems.append(f"include cycle among {len(component)} units: {', '.join(component)}")
    return problems, edges, units


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    parser.add_argument("--graph", action="store_true", help="print every unit's includes")
    args = parser.parse_args()
    problems, edges, units = check(os.path.abspath(args.root))
    if args.graph:
        for u in sorted(units):
            print(f"{u} -> {' '.join(sorted(edges.get(u, ())))}")
    for p in problems:
        print(p)
    if problems:
        print(f"check-layers: {len(problems)} problem(s)")
        return 1
    print(f"check-layers: {len(units)} units in {len(LAYERS)} layers, no upward include, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
