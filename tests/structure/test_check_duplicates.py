#!/usr/bin/env python3
"""scripts/check-duplicates.py fails when code is written twice: it passes on the repository, and on a
copy of core/ and web/ fails once a six-line block of one file is pasted into another, and names both
places; a five-line copy, comments and lone braces do not count."""
import os
import shutil
import sys
import tempfile

from check_runner import checker

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHECK = os.path.join(REPO, "scripts", "check-duplicates.py")
failures = []


_, expect = checker(CHECK, failures)


BLOCK = ["int pasted_a = 1;", "int pasted_b = pasted_a + 2;", "int pasted_c = pasted_b * 3;",
         "int pasted_d = pasted_c - 4;", "int pasted_e = pasted_d / 5;", "int pasted_f = pasted_e % 6;"]

with tempfile.TemporaryDirectory() as tmp:
    expect("the repository passes", REPO, 0, "no repeated block")

    def copy(lines_a, lines_b):
        root = os.path.join(tmp, "repo")
        if os.path.exists(root):
            shutil.rmtree(root)
        for folder in ("core", "web"):
            shutil.copytree(os.path.join(REPO, folder), os.path.join(root, folder))
        with open(os.path.join(root, "core/src/base/checks.cpp"), "a", encoding="utf-8") as f:
            f.write("\n" + "\n".join(lines_a) + "\n")
        with open(os.path.join(root, "core/src/memory/zero.cpp"), "a", encoding="utf-8") as f:
            f.write("\n" + "\n".join(lines_b) + "\n")
        return root

    root = copy(BLOCK, BLOCK)
    expect("six lines written twice fail", root, 1, "core/src/memory/zero.cpp:")
    expect("… naming the first place", root, 1, "repeats core/src/base/checks.cpp:")
    spaced = [BLOCK[0], "// a comment", "}", *BLOCK[1:]]
    expect("comments and braces between them do not hide the copy", copy(BLOCK, spaced), 1, "repeated block")
    expect("five lines written twice pass", copy(BLOCK[:5], BLOCK[:5]), 0, "no repeated block")

if failures:
    print("\n".join(failures))
    print(f"{len(failures)} failed")
    sys.exit(1)
print("check-duplicates: every copy was caught")
