#!/usr/bin/env python3
"""scripts/check-docs.py fails when the documentation drifts from the repository: it passes on the
repository, and on a copy of it fails on a fixture added without the quoted count following, on a
quote of the GPU catalogue that is off, on a sentence that no longer quotes a count, on a Debian package
list that differs from scripts/setup.sh, on a link to a missing file and on a link to a missing heading.
With --cli (a fake memplan, a shell script) it fails when `--help` and docs/cli.md's command list differ
and when a console example prints something else."""
import json
import os
import shutil
import stat
import sys
import tempfile

from check_runner import checker

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CHECK = os.path.join(REPO, "scripts", "check-docs.py")
failures = []


run, expect = checker(CHECK, failures)


def fresh_copy(tmp):
    root = os.path.join(tmp, "repo")
    if os.path.exists(root):
        shutil.rmtree(root)
    os.makedirs(os.path.join(root, "scripts"))
    shutil.copy(os.path.join(REPO, "README.md"), root)
    for folder in ("docs", "core/data", "tests/data"):
        shutil.copytree(os.path.join(REPO, folder), os.path.join(root, folder))
    for name in ("setup.sh", "gen-cli-doc.py"):
        shutil.copy(os.path.join(REPO, "scripts", name), os.path.join(root, "scripts", name))
    return root


def edit(root, path, old, new):
    full = os.path.join(root, path)
    with open(full, encoding="utf-8") as f:
        text = f.read()
    assert old in text, f"{path} lacks {old!r}"
    with open(full, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new, 1))


def fake_cli(tmp, help_text, states_text):
    """A stand-in memplan: --help prints help_text, model-states prints states_text, the rest nothing."""
    for name, text in (("help.txt", help_text), ("states.txt", states_text)):
        with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
            f.write(text)
    path = os.path.join(tmp, "memplan")
    with open(path, "w", encoding="utf-8") as f:
        f.write(f'#!/bin/sh\ncase "$1" in\n  --help) cat "{tmp}/help.txt" ;;\n'
                f'  model-states) cat "{tmp}/states.txt" ;;\n'
                f'  max-params) echo \'{{"params":14545454545}}\' ;;\n'
                f'  transformer-mem) sed -n \'/^Number of Parameters/,/^(per GPU/p\' "{tmp}/cli.md" ;;\n'
                f'  analyze) cat >/dev/null; echo \'"max_context_len":125047,"context_limit_tokens":4096,"beyond_context_limit":true\' ;;\n'
                f'esac\n')
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return path


def generated_help(root):
    """The help text docs/cli.md holds now (between the markers, inside the fence)."""
    with open(os.path.join(root, "docs", "cli.md"), encoding="utf-8") as f:
        text = f.read()
    block = text.split("```text\n", 1)[1].split("```\n<!-- end: memplan --help -->", 1)[0]
    return block


def states_output(root):
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        lines = f.read().split("$ memplan model-states --params 7e9 --gpus 8\n", 1)[1].splitlines()
    return "\n".join(lines[:lines.index("")]) + "\n"


with tempfile.TemporaryDirectory() as tmp:
    expect("the repository's documents pass", REPO, 0, "ok")

    root = fresh_copy(tmp)
    expect("an unchanged copy passes", root, 0, "ok")

    shutil.copy(os.path.join(root, "tests/data/hf/qwen3_8b.json"), os.path.join(root, "tests/data/hf/qwen3_8b_copy.json"))
    expect("a fixture added without the quoted count following fails", root, 1,
           "says 70 real config.json fixtures in tests/data/hf/; the repository has 71")

    root = fresh_copy(tmp)
    with open(os.path.join(REPO, "core/data/gpus.json"), encoding="utf-8") as f:
        gpus = len(json.load(f)["gpus"])
    edit(root, "docs/coverage.md", "catalogue of %d GPUs" % gpus, "catalogue of %d GPUs" % (gpus - 1))
    expect("an off count of the GPU catalogue fails", root, 1, "docs/coverage.md:")

    root = fresh_copy(tmp)
    edit(root, "docs/cli.md", "tested on 48 configurations recorded by running the script",
         "tested on the configurations recorded by running the script")
    expect("a sentence that no longer quotes a count fails", root, 1, "no document quotes the transformer_mem.py")

    root = fresh_copy(tmp)
    edit(root, "docs/testing.md", "python3-torch clang", "clang")
    expect("a package list that differs from setup.sh fails", root, 1, "missing: python3-torch")

    root = fresh_copy(tmp)
    edit(root, "README.md", "(docs/page.md)", "(docs/no-such-page.md)")
    expect("a link to a missing file fails", root, 1, "docs/no-such-page.md does not exist")

    root = fresh_copy(tmp)
    edit(root, "README.md", "(docs/embedding.md#the-npm-package)", "(docs/embedding.md#the-pip-package)")
    expect("a link to a missing heading fails", root, 1, "has no heading #the-pip-package")

    root = fresh_copy(tmp)
    shutil.copy(os.path.join(root, "docs", "cli.md"), os.path.join(tmp, "cli.md"))
    help_text, states = generated_help(root), states_output(root)
    cli = fake_cli(tmp, help_text, states)
    expect("a CLI whose --help and examples match passes", root, 0, "CLI reference and examples", "--cli", cli)

    cli = fake_cli(tmp, help_text + "  memplan new-command\n", states)
    expect("a CLI with a command the reference lacks fails", root, 1, "+  memplan new-command", "--cli", cli)

    cli = fake_cli(tmp, help_text, states.replace("ZeRO stage 1: 38,500,000,000", "ZeRO stage 1: 38,500,000,001"))
    expect("an example whose output changed fails", root, 1, "the example prints something else", "--cli", cli)

if failures:
    print("\n".join(failures))
    sys.exit(1)
