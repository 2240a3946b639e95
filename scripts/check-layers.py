#!/usr/bin/env python3
"""The core's include structure, checked from the code's own #include lines.

The core is a stack of layers, each a folder of core/src/ mirrored in core/include/memplan/:

    base → config → model → memory → serving → search → reproduce → io → report → api

A file may include files of its own layer and of the layers below it, never above. A unit (a .cpp
and the header of the same stem, public or internal) may not be part of an include cycle with other
units, inside a layer either. Every file of the core sits in one of these folders, no folder holds
more than MAX_FILES files, and every quoted include names a file that exists (so no edge goes unseen).

Each public header is implemented in the file of its name: for core/include/memplan/L/x.hpp there is a
core/src/L/x.cpp, unless the header is header-only. The rule for header-only, read from the header's
text without its comments and literals: no function is declared at namespace scope without its body
there (a declaration ending in ';' whose name is followed by its parameter list, outside class, struct,
union and enum bodies, not a template, using or typedef). Inline, constexpr and template functions with
their bodies, types, constants and aliases keep a header header-only; member functions declared in a
class body are not read. An exception needs an entry in IMPLEMENTED_ELSEWHERE with its reason, and an
entry that is no longer needed is reported too.

Usage: check-layers.py [--root REPO] [--graph]   (exit 1 and one line per problem when it fails)
"""
import argparse
import os
import re
import sys

LAYERS = ["base", "config", "model", "memory", "serving", "search", "reproduce", "io", "report", "api"]
MAX_FILES = 14
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

# Public headers (relative to core/include/) whose functions are defined in files of other names, each
# with its reason. None today: every such header has its core/src/L/x.cpp.
IMPLEMENTED_ELSEWHERE = {
}

COMMENT_OR_LITERAL = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
FUNCTION_DECLARATION = re.compile(r'([A-Za-z_~][A-Za-z_0-9]*|operator\s*\S+?)\s*\(')
NOT_A_FUNCTION = ("using ", "typedef ", "template", "static_assert", "friend ", "extern template")


def declared_functions(text):
    """The functions a header declares at namespace scope without their bodies (the names, in order)."""
    text = COMMENT_OR_LITERAL.sub(lambda m: '""' if m.group(0).startswith('"') else " ", text)
    text = "\n".join("" if line.lstrip().startswith("#") else line for line in text.split("\n"))
    names, statement, braces, parens = [], "", [], 0  # braces: True for a namespace's, False for any other
    for c in text:
        at_namespace_scope = all(braces)
        if c in "()":
            parens += 1 if c == "(" else -1
        if parens > 0 or c == ")":  # a default argument's braces ("= {}") open no scope
            if at_namespace_scope:
                statement += c
        elif c == "{":
            braces.append(at_namespace_scope and (statement.strip().startswith("namespace") or
                                                  statement.strip().startswith('extern ""')))
            statement = ""
        elif c == "}":
            if braces:
                braces.pop()
            statement = ""
        elif c == ";":
            if at_namespace_scope:
                decl = " ".join(statement.split())
                paren = decl.find("(")
                equals = decl.find("=")
                if paren > 0 and (equals < 0 or equals > paren) and not decl.startswith(NOT_A_FUNCTION):
                    m = FUNCTION_DECLARATION.search(decl)
                    if m:
                        names.append(m.group(1))
            statement = ""
        elif at_namespace_scope:
            statement += c
    return names


def implementation_problems(root):
    """Public headers that declare functions but have no source file of their name."""
    problems, top = [], os.path.join(root, "core/include")
    seen = set()
    for folder, _, files in sorted(os.walk(os.path.join(top, "memplan"))):
        for name in sorted(files):
            if not name.endswith(".hpp"):
                continue
            header = os.path.relpath(os.path.join(folder, name), top).replace(os.sep, "/")
            parts = header.split("/")
            if len(parts) != 3 or parts[1] not in LAYERS:
                continue  # reported as outside the layer folders
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                functions = declared_functions(f.read())
            source = f"core/src/{parts[1]}/{os.path.splitext(name)[0]}.cpp"
            needs_source = bool(functions) and not os.path.isfile(os.path.join(root, source))
            if header in IMPLEMENTED_ELSEWHERE:
                seen.add(header)
                if not needs_source:
                    problems.append(f"core/include/{header}: listed in IMPLEMENTED_ELSEWHERE but needs no exception")
                continue
            if needs_source:
                shown = ", ".join(functions[:3]) + (", …" if len(functions) > 3 else "")
                problems.append(f"core/include/{header}: declares functions ({shown}) but {source} does not exist "
                                f"(implement them there, or list the header in IMPLEMENTED_ELSEWHERE with a reason)")
    for header in sorted(set(IMPLEMENTED_ELSEWHERE) - seen):
        problems.append(f"core/include/{header}: listed in IMPLEMENTED_ELSEWHERE but does not exist")
    return problems


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
    problems.extend(implementation_problems(root))
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
    print(f"check-layers: {len(units)} units in {len(LAYERS)} layers, no upward include, no cycle, "
          f"every public header implemented in the file of its name")
    return 0


if __name__ == "__main__":
    sys.exit(main())
