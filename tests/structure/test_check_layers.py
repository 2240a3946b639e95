#!/usr/bin/env python3
"""scripts/check-layers.py fails when the structure breaks: it passes on the repository's core, and on a
copy of it fails on a back-include (a base file including an io header), on a cycle between two units
of one layer, on a file outside the layer folders, on an include of a file that does not exist, and on a
public header whose functions have no source file of its name (a header-only one passes; the allow-list
IMPLEMENTED_ELSEWHERE excuses one, and an entry it no longer needs is reported)."""
import importlib.util
import os
import shutil
import sys
import tempfile

from check_runner import checker

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHECK = os.path.join(REPO, "scripts", "check-layers.py")
failures = []


run, expect = checker(CHECK, failures)


def fresh_copy(tmp):
    root = os.path.join(tmp, "repo")
    if os.path.exists(root):
        shutil.rmtree(root)
    shutil.copytree(os.path.join(REPO, "core"), os.path.join(root, "core"))
    return root


def append(root, path, text):
    with open(os.path.join(root, path), "a", encoding="utf-8") as f:
        f.write(text)


with tempfile.TemporaryDirectory() as tmp:
    expect("the repository's core passes", REPO, 0, "no upward include, no cycle, every public header implemented")

    root = fresh_copy(tmp)
    expect("an unchanged copy passes", root, 0, "no upward include, no cycle")

    # A back-include: the lowest layer reaching up into the I/O layer.
    append(root, "core/src/base/checks.cpp", '\n#include "memplan/io/json.hpp"\n')
    expect("a base file including an io header fails", root, 1,
           'core/src/base/checks.cpp:')
    expect("… and names the layers", root, 1, 'base includes "memplan/io/json.hpp" of the higher layer io')

    # A cycle inside one layer: zero.cpp includes activations.hpp, activations.cpp includes zero.hpp.
    root = fresh_copy(tmp)
    append(root, "core/src/memory/zero.cpp", '\n#include "memplan/memory/activations.hpp"\n')
    append(root, "core/src/memory/activations.cpp", '\n#include "memplan/memory/zero.hpp"\n')
    expect("a cycle between two memory units fails", root, 1,
           "include cycle among 2 units: memory/activations, memory/zero")

    # A file outside the layer folders.
    root = fresh_copy(tmp)
    with open(os.path.join(root, "core/src/stray.cpp"), "w", encoding="utf-8") as f:
        f.write("int stray = 0;\n")
    expect("a file outside the layer folders fails", root, 1, "core/src/stray.cpp: not in a layer folder")

    # An include the checker cannot place (so no edge is silently missed).
    root = fresh_copy(tmp)
    append(root, "core/src/model/arch.cpp", '\n#include "memplan/nowhere.hpp"\n')
    expect("an include of no file fails", root, 1, 'includes "memplan/nowhere.hpp", which is no file of the core')

    # A public header implemented in a file of another name: a new header with no source of its name ...
    root = fresh_copy(tmp)
    with open(os.path.join(root, "core/include/memplan/io/widget.hpp"), "w", encoding="utf-8") as f:
        f.write('#pragma once\n#include <vector>\nnamespace memplan {\n/// Counts.\n'
                'int widget_count(const std::vector<int>& sizes = {}, const char* name = "w{");\n}\n')
    expect("a public header declaring a function without its source file fails", root, 1,
           "core/include/memplan/io/widget.hpp: declares functions (widget_count) but core/src/io/widget.cpp does not exist")
    # ... and an existing header whose source file is renamed.
    root = fresh_copy(tmp)
    os.rename(os.path.join(root, "core/src/io/gguf.cpp"), os.path.join(root, "core/src/io/gguf_reader.cpp"))
    expect("a header whose source file has another name fails", root, 1,
           "core/include/memplan/io/gguf.hpp: declares functions (gguf_type, parse_gguf_header, gguf_architectures, …) "
           "but core/src/io/gguf.cpp does not exist")

    # A header-only public header needs no source file: functions with their bodies (inline, constexpr,
    # template), types with member declarations, constants, aliases.
    root = fresh_copy(tmp)
    with open(os.path.join(root, "core/include/memplan/base/widget.hpp"), "w", encoding="utf-8") as f:
        f.write('#pragma once\n#include <cstdint>\nnamespace memplan {\nnamespace detail {\n'
                'inline int twice(int n) { return 2 * n; }\n}  // namespace detail\n'
                'constexpr std::uint64_t widget_bytes(std::uint64_t n) { return n * 8; }\n'
                'template <class T> T widest(T a, T b) { return a < b ? b : a; }\n'
                'struct widget {\n    int size() const;\n    bool operator==(const widget& o) const;\n};\n'
                'enum class widget_kind { small, large };\nusing widget_list = int (*)(int);\n'
                'inline constexpr std::uint64_t max_widgets = (std::uint64_t{1} << 20);\n'
                '// int commented_out(int);\n}  // namespace memplan\n')
    expect("a header-only public header without a source file passes", root, 0,
           "every public header implemented in the file of its name")

    # The allow-list: an entry excuses a header, and an entry that is not needed (or names no header) fails.
    spec = importlib.util.spec_from_file_location("check_layers", CHECK)
    check_layers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check_layers)
    root = fresh_copy(tmp)
    os.rename(os.path.join(root, "core/src/io/gguf.cpp"), os.path.join(root, "core/src/io/gguf_reader.cpp"))
    for name, allowed, needle in (
            ("an allow-listed header implemented elsewhere passes", {"memplan/io/gguf.hpp": "test"}, None),
            ("an allow-list entry that is not needed fails", {"memplan/io/gguf.hpp": "test", "memplan/io/hub.hpp": "test"},
             "core/include/memplan/io/hub.hpp: listed in IMPLEMENTED_ELSEWHERE but needs no exception"),
            ("an allow-list entry naming no header fails", {"memplan/io/gguf.hpp": "test", "memplan/io/gone.hpp": "test"},
             "core/include/memplan/io/gone.hpp: listed in IMPLEMENTED_ELSEWHERE but does not exist")):
        check_layers.IMPLEMENTED_ELSEWHERE = allowed
        problems = check_layers.implementation_problems(root)
        if (needle is None and problems) or (needle is not None and needle not in problems):
            failures.append(f"{name}: expected {needle or 'no problem'}, got {problems}")
        else:
            print(f"ok: {name}")

if failures:
    print("\n".join(failures))
    print(f"{len(failures)} failed")
    sys.exit(1)
print("check-layers: every broken structure was caught")
