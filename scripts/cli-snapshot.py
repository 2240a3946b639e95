#!/usr/bin/env python3
"""Writes the CLI's outputs over a fixed set of configurations into a folder, so that a refactoring can
be checked byte for byte against the build before it:

    python3 scripts/cli-snapshot.py OLD_CLI /tmp/before && python3 scripts/cli-snapshot.py build/ci/memplan /tmp/after
    diff -r /tmp/before /tmp/after

The set: every stored model in eight settings (training, ZeRO-3 over 16 GPUs with tp and pp, LoRA,
plain serving, vLLM with and without a draft model, a draft that is no preset, SGLang serving), every Hugging Face fixture of tests/data/hf in training and
serving, and every JSON fuzz regression, each through `estimate`, `analyze` and `fits` (fits once per
setting), and `compare` for the training settings; then `schema`, `presets` and `gpus` as JSON."""
import json
import os
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
cli, out_dir = sys.argv[1], sys.argv[2]
os.makedirs(out_dir, exist_ok=True)

SETTINGS = {
    "train": {"mode": "train", "train": {"seq_len": 4096, "micro_batch": 2, "recompute": "selective"},
              "parallel": {"gpus": 8, "zero_stage": 1}, "gpu": {"memory_bytes": 80e9}},
    "zero3": {"mode": "train", "parallel": {"gpus": 16, "tp": 2, "pp": 2, "zero_stage": 3},
              "train": {"seq_len": 8192, "recompute": "full"}, "gpu": {"memory_bytes": 141e9}},
    "lora": {"mode": "train", "train": {"adapter_type": "lora", "adapter_rank": 16, "base_dtype": "nf4",
                                        "double_quant": True, "optimizer": "adam_8bit", "paged_optimizer": True},
             "gpu": {"memory_bytes": 24e9}},
    "infer": {"mode": "infer", "infer": {"batch": 8, "context_len": 32768}, "parallel": {"gpus": 2, "tp": 2},
              "gpu": {"memory_bytes": 80e9}},
    "vllm": {"mode": "infer", "infer": {"engine": "vllm", "max_model_len": 8192, "kv_dtype": "fp8"},
             "parallel": {"gpus": 4, "tp": 4}, "gpu": {"memory_bytes": 85899345920}},
    "draft": {"mode": "infer", "infer": {"engine": "vllm", "max_model_len": 4096, "draft_preset": "llama-3.2-1b"},
              "gpu": {"memory_bytes": 85899345920}},
    "unknown-draft": {"mode": "infer", "infer": {"engine": "vllm", "draft_preset": "no-such-model"},
                      "gpu": {"memory_bytes": 85899345920}},
    "sglang": {"mode": "infer", "infer": {"engine": "sglang", "mem_fraction_static_permille": 880},
               "gpu": {"memory_bytes": 85899345920}},
}


def run(args, stdin_text, name):
    p = subprocess.run([cli] + args, input=stdin_text, capture_output=True, text=True)
    with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
        f.write(f"exit {p.returncode}\n{p.stdout}\n--- stderr\n{p.stderr}")


presets = json.loads(subprocess.run([cli, "presets", "--json"], capture_output=True, text=True).stdout)
ids = [m["id"] for m in (presets["models"] if isinstance(presets, dict) else presets)]
count = 0
for setting, config in SETTINGS.items():
    text = json.dumps(config)
    run(["fits", "--config", "-"], text, f"fits.{setting}")
    count += 1
    for pid in ids:
        for command in ["estimate", "analyze"] + (["compare"] if setting in ("train", "zero3") else []):
            run([command, "--config", "-", "--preset", pid], text, f"{command}.{setting}.{pid}")
            count += 1
hf_dir = os.path.join(REPO, "tests", "data", "hf")
for name in sorted(os.listdir(hf_dir)):
    for setting in ("train", "vllm"):
        for command in ("estimate", "analyze"):
            run([command, "--config", "-", "--hf-config", os.path.join(hf_dir, name)],
                json.dumps(SETTINGS[setting]), f"{command}.{setting}.hf.{name}")
            count += 1
reg_dir = os.path.join(REPO, "tests", "fuzz", "regressions")
for name in sorted(os.listdir(reg_dir)):
    with open(os.path.join(reg_dir, name), encoding="utf-8", errors="replace") as f:
        text = f.read()
    for command in ("estimate", "analyze", "fits"):
        run([command, "--config", "-"], text, f"{command}.regression.{name}")
        count += 1
for args, name in ((["schema", "--json"], "schema.json"), (["schema", "--markdown"], "schema.md"),
                   (["schema", "--typescript"], "schema.ts"), (["presets", "--json"], "presets.json"),
                   (["gpus", "--json"], "gpus.json")):
    run(args, "", name)
    count += 1
print(f"cli-snapshot: {count} outputs in {out_dir}")
