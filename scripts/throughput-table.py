#!/usr/bin/env python3
"""Writes the validation table of docs/planner.md from the throughput corpus (tests/data/throughput/):
for every published run, memplan's step time (`memplan step-time --json` on the published layout)
against the measured one, with the signed error. The Catch2 test tests/core/test_step_time.cpp checks
the same numbers against the goals; this script only regenerates the table between the markers:

    python3 scripts/throughput-table.py build/dev/memplan            # prints the table
    python3 scripts/throughput-table.py build/dev/memplan --write    # and writes it into docs/planner.md
"""
import glob
import json
import os
import statistics
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BEGIN, END = "<!-- throughput-table begin -->", "<!-- throughput-table end -->"


def measured_step_s(case):
    """A published tokens/s per GPU: global batch x seq_len over GPUs x that rate. Otherwise the paper's
    Eq. 3 (Narayanan et al. 2021): F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)), over GPUs x achieved."""
    if "published_tokens_per_s_per_gpu" in case:
        tokens = case["global_batch"] * case["config"]["train"]["seq_len"]
        return tokens / (case["gpus"] * case["published_tokens_per_s_per_gpu"])
    m = case["config"]["model"]
    b, s, v = case["global_batch"], case["config"]["train"]["seq_len"], m["vocab_size"]
    l, h = m["num_hidden_layers"], m["hidden_size"]
    flops = 96 * b * s * l * h * h * (1 + s / (6 * h) + v / (16 * l * h))
    return flops / (case["gpus"] * case["published_tflops_per_gpu"] * 1e12)


def main():
    cli = sys.argv[1]
    rows, errors, outside = [], [], []
    for path in sorted(glob.glob(os.path.join(REPO, "tests/data/throughput/*.json"))):
        doc = json.load(open(path))
        calibrated = doc.get("calibrated", True)
        for case in doc["cases"]:
            request = json.dumps(case["config"])
            flags = [] if case.get("overlap_grad_reduce", True) else ["--no-overlap-grad-reduce"]
            out = subprocess.run([cli, "step-time", "--config", "-", "--gpu", case["gpu"], "--global-batch",
                                  str(case["global_batch"]), *flags, "--json"], input=request, capture_output=True, text=True, check=True)
            r = json.loads(out.stdout)
            measured = measured_step_s(case)
            error = r["step_s"] / measured - 1
            p = case["config"]["parallel"]
            p.setdefault("tp", 1)
            p.setdefault("pp", 1)
            tokens = case["global_batch"] * case["config"]["train"]["seq_len"] / measured / case["gpus"]
            if calibrated:
                errors.append(error)
            (rows if calibrated else outside).append(f"| {case['name']} | {case['gpus']:,} | {p['tp']} × {p['pp']} | {case['global_batch']:,} | "
                        f"{measured:.2f} | {r['step_s']:.2f} | {error * 100:+.1f} % | {tokens:,.0f} | {r['tokens_per_s_per_gpu']:,.0f} | "
                        f"{r['mfu'] * 100:.1f} % | {r['bottleneck']} | {'yes' if r['fits'] else 'no'} |")
    median = statistics.median(abs(e) for e in errors)
    table = "\n".join([
        "| Run | GPUs | tp × pp | Batch | Measured step (s) | memplan (s) | Error | Measured tokens/s/GPU | memplan tokens/s/GPU | memplan MFU | Bottleneck | Fits (memplan) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
        *rows,
        "",
        f"Median |error| {median * 100:.1f} %, largest |error| {max(abs(e) for e in errors) * 100:.1f} % over {len(errors)} runs.",
    ] + ([
        "",
        "Outside the calibration (not held to the goals; the answer warns on these GPU kinds, `gpu.gemm_efficiency`):",
        "",
        "| Run | GPUs | tp × pp | Batch | Measured step (s) | memplan (s) | Error | Measured tokens/s/GPU | memplan tokens/s/GPU | memplan MFU | Bottleneck | Fits (memplan) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
        *outside,
    ] if outside else []))
    print(table)
    if "--write" in sys.argv:
        doc_path = os.path.join(REPO, "docs/planner.md")
        text = open(doc_path).read()
        start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
        open(doc_path, "w").write(text[:start] + "\n" + table + "\n" + text[end:])


if __name__ == "__main__":
    main()
