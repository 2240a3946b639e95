#!/usr/bin/env python3
"""scripts/check-layers.py fails when the structure breaks: it passes on the repository's core, and on a
copy of it fails on a back-include (a base file including an io header), on a cycle between two units
of one layer, on a file outside the layer folders and on an include of a file that does not exist."""
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHECK = os.path.join(REPO, "scripts", "check-layers.py")
failures = []


def run(root):
    p = subprocess.run([sys.executable, CHECK, "--root", root], capture_output=True, text=True)
    return p.returncode, p.stdout


def expect(name, root, code, needle):
    rc, out = run(root)
    if rc != code or needle not in out:
        failures.append(f"{name}: expected exit {code} and '{needle}', got exit {rc}:\n{out}")
    else:
        print(f"ok: {name}")


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
    expect("the repository's core passes", REPO, 0, "no upward include, no cycle")

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

if failures:
    print("\n".join(failures))
    print(f"{len(failures)} failed")
    sys.exit(1)
print("check-layers: every broken structure was caught")
