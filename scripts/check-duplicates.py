#!/usr/bin/env python3
"""Fails when a block of MIN_LINES or more identical code lines stands twice inside core/ or web/.

Lines are compared after folding white space; blank lines, comments, lone punctuation and include or
import lines are passed over (they repeat by nature), so a reported block is code written twice: call
one piece from both places instead. Data files (JSON) and tests are not read.

Usage: check-duplicates.py [--root REPO] [--min-lines N]
"""
import argparse
import os
import re
import sys

FOLDERS = ("core/src", "core/include", "web")
ENDINGS = (".cpp", ".hpp", ".js", ".mjs", ".css", ".html")
SKIP = re.compile(r"^(//|/\*|\*|#\s*include|import\s|export \{|[{}()\[\];,]+$)")


def significant_lines(path):
    """(line number, folded text) of the lines that count."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            text = " ".join(line.split())
            if text and not SKIP.match(text):
                out.append((number, text))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    parser.add_argument("--min-lines", type=int, default=6)
    args = parser.parse_args()
    root, n = os.path.abspath(args.root), args.min_lines
    seen = {}  # window text -> (file, first line, last line)
    repeats = []
    files = 0
    for folder in FOLDERS:
        for base, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith(ENDINGS) or name.endswith(".min.js"):
                    continue
                path = os.path.join(base, name)
                rel = os.path.relpath(path, root)
                files += 1
                lines = significant_lines(path)
                last_end = {}  # the end of the last reported block per other place, to report a run once
                for i in range(len(lines) - n + 1):
                    window = "\n".join(text for _, text in lines[i:i + n])
                    here = (rel, lines[i][0], lines[i + n - 1][0])
                    first = seen.get(window)
                    if first is None:
                        seen[window] = here
                        continue
                    if first[0] == rel and first[2] >= here[1]:
                        continue  # overlapping runs of one file (a repeated line pattern)
                    key = (first[0], rel)
                    if last_end.get(key, -1) >= here[1]:
                        continue
                    last_end[key] = here[2]
                    repeats.append((first, here))
    for first, here in repeats:
        print(f"{here[0]}:{here[1]}-{here[2]} repeats {first[0]}:{first[1]}-{first[2]}")
    if repeats:
        print(f"check-duplicates: {len(repeats)} repeated block(s) of {n}+ lines in {files} files")
        return 1
    print(f"check-duplicates: no repeated block of {n}+ code lines in {files} files of {', '.join(FOLDERS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
