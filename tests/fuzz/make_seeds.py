#!/usr/bin/env python3
"""Writes the fuzzer's seed corpus: real configurations from the repository.

Sources: tests/data/*.json (Hugging Face configs), every preset of core/data/models.json (by id, and
its stored config.json as a Hugging Face text), the JSON examples of docs/*.md, and the JSON literals
of the C++ and node tests. A seed is "CONFIG" or "CONFIG\\0HF_CONFIG" (the fuzz target's format).
Usage: make_seeds.py OUT_DIR (run by scripts/fuzz.sh; the output is not committed)."""
import hashlib
import json
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parents[2]
out = pathlib.Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
seeds = set()


def add(config, hf=None):
    text = config if isinstance(config, str) else json.dumps(config)
    if hf is not None:
        text += "\0" + (hf if isinstance(hf, str) else json.dumps(hf))
    seeds.add(text)


def objects_in(text):
    """Every substring of `text` that parses as a JSON object, outermost first."""
    found = []
    decoder = json.JSONDecoder()
    i = text.find("{")
    while i != -1:
        try:
            value, end = decoder.raw_decode(text, i)
            if isinstance(value, dict):
                found.append(text[i:end])
                i = text.find("{", end)
                continue
        except ValueError:
            pass
        i = text.find("{", i + 1)
    return found


# Hugging Face config.json files of the tests: as an --hf-config text and as the model object.
for path in sorted((root / "tests/data").glob("*.json")):
    text = path.read_text()
    if "model_type" in text:
        add("{}", text)
        add({"mode": "infer", "infer": {"context_len": 4096}}, text)
        add({"model": json.loads(text)})

# Presets: by id (training and inference), and their stored configs as Hugging Face texts.
presets = json.loads((root / "core/data/models.json").read_text())["models"]
for i, p in enumerate(presets):
    add({"model": {"preset": p["id"]}, "parallel": {"gpus": 8, "zero_stage": i % 4}, "gpu": {"memory_bytes": 80e9}})
    add({"mode": "infer", "model": {"preset": p["id"]}, "infer": {"batch": 4, "context_len": 8192,
         "weight_dtype": "int4", "quant_group_size": 128}, "gpu": {"memory_bytes": 80e9}})
    add({"mode": "train" if i % 2 else "infer"}, p["config"])

# JSON objects in the documentation and in the tests' literals (C++ raw strings, JS strings).
for path in sorted(list((root / "docs").glob("*.md")) + [root / "README.md"]):
    for obj in objects_in(path.read_text()):
        add(obj)
for path in sorted((root / "tests/core").glob("*.cpp")):
    for literal in re.findall(r'R"\((.*?)\)"', path.read_text(), re.S):
        for obj in objects_in(literal):
            add(obj)
for path in sorted((root / "tests/wasm").glob("*.mjs")):
    for literal in re.findall(r"'(\{.*?\})'", path.read_text()):
        for obj in objects_in(literal):
            add(obj)

for text in seeds:
    name = hashlib.sha1(text.encode()).hexdigest()
    (out / name).write_bytes(text.encode())
print(f"make_seeds: {len(seeds)} seeds in {out}")
