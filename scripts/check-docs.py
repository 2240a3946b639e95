#!/usr/bin/env python3
"""Documentation whose figures come from the code, checked against the code.

Fails (exit 1, one line per problem) when README.md or docs/*.md no longer matches what the repository
produces:

  1. counts the text quotes of the repository's own data (CLAIMS below: the real config.json fixtures of
     tests/data/hf/, the public engine logs, the GPU catalogue, ...): every quote must equal the count,
     and each claim must still be quoted somewhere (so that a reworded sentence is noticed, not skipped);
  2. the Debian packages the text lists for scripts/setup.sh against the ones it installs;
  3. every relative link of README.md and docs/*.md: the file exists, and a #heading of a Markdown
     file is one of its headings (GitHub's anchors);
  4. with --cli PATH (a built memplan): the command list of docs/cli.md is what scripts/gen-cli-doc.py
     makes of `PATH --help`, and each `$ memplan ...` example of a console block in README.md and
     docs/cli.md prints what the block shows (the whole output, or, for a command ending in a
     `# … a … b …` comment, each fragment between the ellipses).

Usage: check-docs.py [--root REPO] [--cli PATH]
Standard library only; scripts/test.sh runs it without --cli beside the layer check, and with
--cli build/ci/memplan after the native build.
"""
import argparse
import glob
import importlib.util
import json
import os
import re
import subprocess
import sys
import unicodedata


def count_files(folder, suffix=".json"):
    return lambda root: sum(1 for n in os.listdir(os.path.join(root, folder)) if n.endswith(suffix))


def held_out_logs(root):
    n = 0
    for path in glob.glob(os.path.join(root, "tests/data/engine-logs/*.json")):
        with open(path, encoding="utf-8") as f:
            if json.load(f).get("held_out_set") == "2026-12":
                n += 1
    return n


def json_len(path, *keys):
    def count(root):
        with open(os.path.join(root, path), encoding="utf-8") as f:
            value = json.load(f)
        for key in keys:
            value = value[key]
        return value if isinstance(value, int) else len(value)
    return count


# (what, pattern whose group 1 is the quoted number, how the repository counts it)
CLAIMS = [
    ("real config.json fixtures in tests/data/hf/",
     r"(\d[\d,]*) real released `config\.json` files", count_files("tests/data/hf")),
    ("public vLLM start-up logs in tests/data/engine-logs/",
     r"(\d[\d,]*) public start-up logs \(`tests/data/engine-logs`\)", count_files("tests/data/engine-logs")),
    ("held-out logs of tests/data/engine-logs/ (held_out_set 2026-12)",
     r"(\d[\d,]*) of them a held-out set", held_out_logs),
    ("GPUs of core/data/gpus.json",
     r"catalogue of (\d[\d,]*) GPUs", json_len("core/data/gpus.json", "gpus")),
    ("transformer_mem.py configurations of tests/data/eleuther_transformer_mem_figures.json",
     r"tested on (\d[\d,]*) configurations recorded by running the script",
     json_len("tests/data/eleuther_transformer_mem_figures.json", "cases")),
    ("training runs behind the reserved range (tests/data/allocator/allocator-pairs.json)",
     r"ratio of (\d[\d,]*) public runs that print both",
     json_len("tests/data/allocator/allocator-pairs.json", "summary", "n_training_phase")),
]

LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


def doc_files(root):
    return [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))


def rel(root, path):
    return os.path.relpath(path, root)


def prose_lines(text):
    """(line number, line) outside fenced code blocks, with inline code spans blanked."""
    in_fence = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if not in_fence:
            yield number, CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)


def slug(heading, seen):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to '-', -1, -2 for repeats."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    text = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LNM")
    base = text.replace(" ", "-")
    n = seen.get(base, 0)
    seen[base] = n + 1
    return base if n == 0 else f"{base}-{n}"


def anchors(path, cache={}):
    if path not in cache:
        seen, out, in_fence = {}, set(), False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if FENCE.match(line):
                    in_fence = not in_fence
                elif not in_fence and (m := re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)):
                    out.add(slug(m.group(1), seen))
        cache[path] = out
    return cache[path]


def check_claims(root, texts):
    problems = []
    for what, pattern, count in CLAIMS:
        actual = count(root)
        quoted = 0
        for path, text in texts.items():
            for m in re.finditer(pattern, text):
                quoted += 1
                line = text.count("\n", 0, m.start()) + 1
                if int(m.group(1).replace(",", "")) != actual:
                    problems.append(f"{rel(root, path)}:{line}: says {m.group(1)} {what}; the repository has {actual}")
        if quoted == 0:
            problems.append(f"no document quotes the {what} any more (pattern {pattern!r}); "
                            "update CLAIMS in scripts/check-docs.py with the new wording")
    return problems


def check_packages(root, texts):
    with open(os.path.join(root, "scripts", "setup.sh"), encoding="utf-8") as f:
        setup = f.read()
    installed = set()
    for m in re.finditer(r"^packages\+?=\(([^)]*)\)", setup, re.M):
        installed.update(m.group(1).split())
    problems, quoted = [], 0
    for path, text in texts.items():
        for m in re.finditer(r"Debian packages\s+`([^`]+)`", text):
            quoted += 1
            listed = set(m.group(1).split())
            if listed != installed:
                line = text.count("\n", 0, m.start()) + 1
                problems.append(f"{rel(root, path)}:{line}: lists Debian packages that differ from scripts/setup.sh "
                                f"(missing: {' '.join(sorted(installed - listed)) or '-'}; "
                                f"not installed: {' '.join(sorted(listed - installed)) or '-'})")
    if not installed:
        problems.append("scripts/setup.sh: no packages=(...) line found")
    if quoted == 0:
        problems.append("no document lists the Debian packages of scripts/setup.sh (\"Debian packages `...`\")")
    return problems


def check_links(root, texts):
    problems = []
    for path, text in texts.items():
        for number, line in prose_lines(text):
            for m in LINK.finditer(line):
                target = m.group(1)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("//"):
                    continue  # http:, https:, mailto: ...: not the repository's
                file_part, _, anchor = target.partition("#")
                where = f"{rel(root, path)}:{number}"
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                if not os.path.abspath(dest).startswith(os.path.abspath(root) + os.sep):
                    problems.append(f"{where}: link {target} leaves the repository")
                elif not os.path.exists(dest):
                    problems.append(f"{where}: link {target}: {rel(root, dest)} does not exist")
                elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    problems.append(f"{where}: link {target}: {rel(root, dest)} has no heading #{anchor}")
    return problems


def console_examples(text):
    """(line, command, expected output lines) of each `$ memplan ...` in a ```console block."""
    lines, out, i = text.splitlines(), [], 0
    in_console = False
    while i < len(lines):
        line = lines[i]
        if FENCE.match(line):
            in_console = not in_console and line.strip().startswith("```console")
            i += 1
            continue
        if in_console and line.startswith("$ ") and re.search(r"(^\$ |\| *)memplan ", line + " " +
                                                               " ".join(lines[i + 1:i + 3])):
            start, command = i + 1, [line[2:]]
            while command[-1].endswith("\\"):
                i += 1
                command.append(lines[i])
            expected = []
            i += 1
            while i < len(lines) and not lines[i].startswith("$ ") and not FENCE.match(lines[i]) and lines[i].strip():
                expected.append(lines[i])
                i += 1
            out.append((start, "\n".join(command), expected))
            continue
        i += 1
    return out


def check_examples(root, cli, paths):
    problems = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for line, command, expected in console_examples(text):
            where = f"{rel(root, path)}:{line}"
            script = f'memplan() {{ "$MEMPLAN_CLI" "$@"; }}\nset -o pipefail\n{command}\n'
            p = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120,
                               env=dict(os.environ, MEMPLAN_CLI=os.path.abspath(cli)))
            comment = re.search(r"#\s*…(.*)…\s*$", command)
            if comment:
                fragments = [s.strip() for s in comment.group(1).split("…") if s.strip()]
                for fragment in fragments:
                    if fragment not in p.stdout:
                        problems.append(f"{where}: the example's output no longer contains {fragment}")
            elif [s.rstrip() for s in p.stdout.rstrip("\n").splitlines()] != [s.rstrip() for s in expected]:
                problems.append(f"{where}: the example prints something else now:\n" + p.stdout)
            if p.returncode != 0:
                problems.append(f"{where}: the example exits {p.returncode}: {p.stderr.strip()}")
    return problems


def check_cli(root, cli):
    spec = importlib.util.spec_from_file_location("gen_cli_doc", os.path.join(root, "scripts", "gen-cli-doc.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    problems = gen.check(cli, os.path.join(root, "docs", "cli.md"))
    return problems + check_examples(root, cli, [os.path.join(root, "README.md"), os.path.join(root, "docs", "cli.md")])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))
    ap.add_argument("--cli", help="a built memplan: also check docs/cli.md and the console examples against it")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    texts = {}
    for path in doc_files(root):
        with open(path, encoding="utf-8") as f:
            texts[path] = f.read()
    problems = check_claims(root, texts) + check_packages(root, texts) + check_links(root, texts)
    if args.cli:
        if not os.access(args.cli, os.X_OK):
            problems.append(f"--cli {args.cli}: not an executable file")
        else:
            problems += check_cli(root, args.cli)
    for p in problems:
        print(p)
    if problems:
        print(f"check-docs: {len(problems)} problem(s)", file=sys.stderr)
        sys.exit(1)
    print(f"check-docs: {len(texts)} documents, {len(CLAIMS)} counts, links"
          + (f", CLI reference and examples against {args.cli}" if args.cli else "") + ": ok")


if __name__ == "__main__":
    main()
