#!/usr/bin/env python3
"""Validates memplan's per-tensor activation figures against the tensors PyTorch really saves.

Runs reference blocks written the way Hugging Face writes them (blocks.py: a GPT-2 block and a
Llama block) on the CPU with Debian's torch (/usr/bin/python3), records every tensor autograd saves
for backward (torch.autograd.graph.saved_tensors_hooks, one entry per storage), and compares them
tensor by tensor with `activation_table` (memplan's layer_activation_tensors /
stored_activation_tensors). Every measured tensor and every memplan tensor must be matched by one
row of the explicit mapping below, and every row's relation must hold exactly: a difference is
either one of the named, explained CPU-vs-CUDA or eager-vs-fused differences, or a failure.

Exit status: 0 all explained; 1 an unexplained difference; 77 torch cannot be imported (skipped).
Usage: validate_activations.py --memplan-table build/dev/activation_table [--write-docs]
"""
import argparse
import json
import os
import subprocess
import sys

try:
    import torch
except ImportError:  # ctest SKIP_RETURN_CODE: only when torch itself is missing
    print("validate_activations: torch cannot be imported by %s; skipped" % sys.executable)
    sys.exit(77)

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blocks  # noqa: E402

E = 2  # bytes per bf16 element: the blocks run in bf16, memplan is asked for bf16 activations

# Relations between measured CPU bytes M and memplan GPU bytes P; each gives the exact expected M.
RELATIONS = {
    "same": ("identical: the tensor the CUDA kernels keep", lambda P, c: P),
    "cpu-dropout": (
        "CPU dropout (torch 1.13 _dropout: input * noise) keeps the scaled noise in the activation dtype "
        "(2 B/element); CUDA native_dropout keeps a 1-byte bool mask: M = 2·P",
        lambda P, c: P * E),
    "cpu-ln-stats": (
        "CPU layer_norm keeps mean and rstd in the input dtype (bf16); CUDA layer_norm keeps them in fp32: M = P/2",
        lambda P, c: P * E // 4),
    "eager-rmsnorm": (
        "HF's eager LlamaRMSNorm (autograd of composed ops, on any device) keeps the fp32 upcast x (pow), "
        "x² (mean) and the bf16 normalized x (weight product); a fused CUDA RMSNorm keeps the bf16 input: M = 5·P",
        lambda P, c: P * (4 + 4 + E) // E),
    "eager-softmax-fp32": (
        "HF Llama's eager softmax runs in fp32: its fp32 output (softmax backward) and its bf16 cast (value "
        "product) are kept; a fused softmax keeps one bf16 output for both: M = 3·P",
        lambda P, c: P * (4 + E) // E),
    "python-scalar": (
        "0-dim float64 wrapped Python scalar of the score scaling, kept by MulBackward0; fused softmax takes "
        "the scale as an argument: not an activation, 8 B",
        lambda P, c: 8),
    "shared-mask": (
        "additive causal mask (1, 1, s, s), built once per model and shared by all layers (a checkpoint "
        "input): not a per-layer activation",
        lambda P, c: c["seq"] * c["seq"] * E),
    "shared-rotary": (
        "rotary cos or sin table (b, s, d), computed once per model and shared by all layers: not a "
        "per-layer activation",
        lambda P, c: c["batch"] * c["seq"] * c["head_dim"] * E),
}


def gpt2_rows(cfg, recompute):
    """(memplan tensors, measured labels, relation) for the GPT-2 block."""
    if recompute == "full":
        return [(["layer.input"], ["checkpoint[0]"], "same"), ([], ["checkpoint[1]"], "shared-mask")]
    drop = cfg["dropout"]
    rows = [
        (["attn.norm.input"], ["ln_1[0]"], "same"),
        (["attn.norm.stats"], ["ln_1[3]", "ln_1[4]"], "cpu-ln-stats"),
        (["attn.qkv_input"], ["c_attn[1]"], "same"),
    ]
    if recompute == "selective":  # q, k, v are views of one c_attn output: one storage
        rows += [(["attn.q", "attn.k", "attn.v"], ["core[0]"], "same"), ([], ["core[3]"], "shared-mask")]
    else:
        rows += [
            (["attn.q"], ["scores[0]"], "same"),
            (["attn.k"], ["scores[1]"], "same"),
            ([], ["scale[0]"], "python-scalar"),
            (["attn.core.softmax_output"], ["softmax[0]"], "same"),
            (["attn.v"], ["pv[1]"], "same"),
        ]
        if drop:
            rows += [
                (["attn.core.dropout_mask"], ["attn_dropout[0]"], "cpu-dropout"),
                (["attn.core.dropout_output"], ["pv[0]"], "same"),
            ]
    rows += [(["attn.proj_input"], ["c_proj[1]"], "same")]
    if drop:
        rows += [(["attn.dropout_mask"], ["resid_dropout[0]"], "cpu-dropout")]
    rows += [
        (["mlp.norm.input"], ["ln_2[0]"], "same"),
        (["mlp.norm.stats"], ["ln_2[3]", "ln_2[4]"], "cpu-ln-stats"),
        (["mlp.fc_input"], ["c_fc[1]"], "same"),
        (["mlp.act_input"], ["gelu[0]"], "same"),
        (["mlp.act_output"], ["mlp_proj[1]"], "same"),
    ]
    if drop:
        rows += [(["mlp.dropout_mask"], ["mlp_dropout[0]"], "cpu-dropout")]
    return rows


def llama_rows(cfg, recompute):
    """(memplan tensors, measured labels, relation) for the Llama block."""
    if recompute == "full":
        return [
            (["layer.input"], ["checkpoint[0]"], "same"),
            ([], ["checkpoint[1]"], "shared-mask"),
            ([], ["checkpoint[2]"], "shared-rotary"),
            ([], ["checkpoint[3]"], "shared-rotary"),
        ]
    rows = []
    for norm, memplan in (("input_layernorm", "attn.norm"), ("post_attention_layernorm", "mlp.norm")):
        if cfg.get("kernels") == "eager":  # memplan's eager model: the upcast, its square, and the bf16 normalized x
            rows += [([memplan + ".input_fp32"], [norm + "[0]"], "same"),
                     ([memplan + ".squared_fp32"], [norm + "[1]"], "same"),
                     ([memplan + ".normalized"], [norm + "[6]"], "same")]
        else:
            rows.append(([memplan + ".input"], [norm + "[0]", norm + "[1]", norm + "[6]"], "eager-rmsnorm"))
        rows.append(([memplan + ".stats"], [norm + "[2]"], "same"))
        if norm == "input_layernorm":
            rows += [
                (["attn.qkv_input"], ["qkv_proj[0]"], "same"),
                ([], ["rotary[0]"], "shared-rotary"),
                ([], ["rotary[1]"], "shared-rotary"),
            ]
            if recompute == "selective":  # the checkpointed core's inputs: q and k after rotary, v (g-wide)
                rows += [
                    (["attn.q"], ["core[0]"], "same"),
                    (["attn.k"], ["core[1]"], "same"),
                    (["attn.v"], ["core[2]"], "same"),
                    ([], ["core[3]"], "shared-mask"),
                ]
            else:  # eager core: K and V repeated to all heads (repeat_kv) and copied by matmul
                rows += [
                    (["attn.q"], ["scores[0]"], "same"),
                    (["attn.k"], ["scores[1]"], "same"),
                    ([], ["scale[0]"], "python-scalar"),
                    (["attn.core.softmax_output"], ["softmax[0]", "pv[0]"], "eager-softmax-fp32"),
                    (["attn.v"], ["pv[1]"], "same"),
                ]
            rows.append((["attn.proj_input"], ["o_proj[0]"], "same"))
    rows += [
        (["mlp.fc_input"], ["gate_proj[0]"], "same"),
        (["mlp.act_input"], ["silu[0]"], "same"),
        (["mlp.act_output"], ["product[0]"], "same"),
        (["mlp.up_output"], ["product[1]"], "same"),
        (["mlp.down_input"], ["down_proj[0]"], "same"),
    ]
    return rows


def lora_module_rows(name, scope, dropout):
    """The tensors one adapted linear adds: lora_B's r-wide input, the 8-byte scaling scalar, and with
    lora_dropout its dropped-out input (kept by lora_A) and the dropout's noise."""
    base = "lora.%s.%s" % (scope, name)
    rows = [([base + ".a_output"], [name + ".lora_B[0]"], "same"), ([], [name + ".scale[0]"], "python-scalar")]
    if dropout:
        rows += [([base + ".dropout_input"], [name + ".lora_A[0]"], "same"),
                 ([base + ".dropout_mask"], [name + ".dropout[0]"], "cpu-dropout")]
    return rows


def lora_rows(cfg, recompute):
    """(memplan tensors, measured labels, relation) for the Llama block with LoRA on a frozen (4-bit) base,
    against memplan's adapter and eager-kernel model: a frozen linear keeps nothing; an adapted one keeps
    its input through lora_A (shared by the adapters of one input) and lora_B's input."""
    if recompute == "full":
        return llama_rows(cfg, "full")
    targets, drop = cfg["targets"], cfg["lora_dropout"]
    rows = []
    for norm, memplan in (("input_layernorm", "attn.norm"), ("post_attention_layernorm", "mlp.norm")):
        # The norm weight is frozen: the weight product keeps no activation (no ".normalized").
        rows += [([memplan + ".input_fp32"], [norm + "[0]"], "same"),
                 ([memplan + ".squared_fp32"], [norm + "[1]"], "same"),
                 ([memplan + ".stats"], [norm + "[2]"], "same")]
        if norm == "input_layernorm":
            qkv = [n for n in ("q_proj", "k_proj", "v_proj") if n in targets]
            if qkv and not drop:
                rows.append((["attn.qkv_input"], [qkv[0] + ".lora_A[0]"], "same"))
            for n in qkv:
                rows += lora_module_rows(n, "attn", drop)
            rows += [
                ([], ["rotary[0]"], "shared-rotary"),
                ([], ["rotary[1]"], "shared-rotary"),
                (["attn.q"], ["scores[0]"], "same"),
                (["attn.k"], ["scores[1]"], "same"),
                ([], ["scale[0]"], "python-scalar"),
                (["attn.core.softmax_output"], ["softmax[0]", "pv[0]"], "eager-softmax-fp32"),
                (["attn.v"], ["pv[1]"], "same"),
            ]
            if "o_proj" in targets:
                if not drop:
                    rows.append((["attn.proj_input"], ["o_proj.lora_A[0]"], "same"))
                rows += lora_module_rows("o_proj", "attn", drop)
    gate_up = [n for n in ("gate_proj", "up_proj") if n in targets]
    if gate_up and not drop:
        rows.append((["mlp.fc_input"], [gate_up[0] + ".lora_A[0]"], "same"))
    for n in gate_up:
        rows += lora_module_rows(n, "mlp", drop)
    rows += [
        (["mlp.act_input"], ["silu[0]"], "same"),
        (["mlp.act_output"], ["product[0]"], "same"),
        (["mlp.up_output"], ["product[1]"], "same"),
    ]
    if "down_proj" in targets:
        if not drop:
            rows.append((["mlp.down_input"], ["down_proj.lora_A[0]"], "same"))
        rows += lora_module_rows("down_proj", "mlp", drop)
    return rows


ALL_LINEAR = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def configs():
    """GPT-2 sizes × dropout on/off and Llama sizes × GQA ratio 1/4/8 (and an explicit head_dim), each
    under recompute none / selective / full."""
    out = []
    for h, a, s, b in ((64, 4, 16, 2), (96, 6, 32, 1), (128, 8, 24, 2)):
        for dropout in (True, False):
            out.append({"block": "gpt2", "hidden": h, "heads": a, "kv_heads": a, "head_dim": h // a,
                        "ffn": 4 * h, "seq": s, "batch": b, "dropout": dropout})
    for h, a, g, d, f, s, b in ((64, 4, 4, 16, 172, 16, 2), (128, 8, 2, 16, 344, 32, 1),
                                (128, 8, 1, 16, 352, 24, 2), (96, 8, 2, 16, 256, 16, 2)):
        out.append({"block": "llama", "hidden": h, "heads": a, "kv_heads": g, "head_dim": d, "ffn": f,
                    "seq": s, "batch": b, "dropout": False})
    out = [dict(c, recompute=r) for c in out for r in ("none", "selective", "full")]
    # Eager kernels with every weight trained: memplan's eager RMSNorm tensors one by one.
    out.append({"block": "llama", "hidden": 64, "heads": 4, "kv_heads": 2, "head_dim": 16, "ffn": 172, "seq": 16,
                "batch": 2, "dropout": False, "kernels": "eager", "recompute": "none"})
    # LoRA (bf16 base) and QLoRA-style (4-bit base) blocks: targets, rank, lora_dropout, recompute.
    lora = (
        (("q_proj", "v_proj"), 8, 0.0, False),
        (ALL_LINEAR, 8, 0.0, False),
        (("o_proj", "down_proj"), 4, 0.0, False),
        (("q_proj", "v_proj", "up_proj"), 8, 0.1, False),
        (("q_proj", "v_proj"), 8, 0.0, True),
        (ALL_LINEAR, 16, 0.0, True),
        (("k_proj", "gate_proj", "down_proj"), 8, 0.05, True),
    )
    for h, a, g, d, f, s, b in ((64, 4, 2, 16, 172, 16, 2), (128, 8, 2, 16, 344, 32, 1)):
        for targets, r, p, quantized in lora:
            for recompute in ("none", "full"):
                out.append({"block": "llama-lora", "hidden": h, "heads": a, "kv_heads": g, "head_dim": d, "ffn": f,
                            "seq": s, "batch": b, "dropout": False, "kernels": "eager", "targets": targets, "rank": r,
                            "lora_dropout": p, "quantized": quantized, "recompute": recompute})
    return out


def describe(c):
    text = "%s h=%d a=%d" % (c["block"], c["hidden"], c["heads"])
    if c["block"] != "gpt2":
        text += " kv=%d d=%d f=%d" % (c["kv_heads"], c["head_dim"], c["ffn"])
    text += " s=%d b=%d" % (c["seq"], c["batch"])
    if c["block"] == "gpt2":
        text += " dropout=%s" % ("0.1" if c["dropout"] else "0")
    if c.get("kernels") == "eager" and c["block"] == "llama":
        text += " kernels=eager"
    if c["block"] == "llama-lora":
        text += " %s r=%d targets=%s lora_dropout=%s" % ("4-bit base" if c["quantized"] else "bf16 base", c["rank"],
                                                         ",".join(c["targets"]), c["lora_dropout"])
    return text + " recompute=" + c["recompute"]


def memplan_table(binary, c):
    args = [binary, "--hidden", c["hidden"], "--heads", c["heads"], "--kv-heads", c["kv_heads"],
            "--head-dim", c["head_dim"], "--ffn", c["ffn"], "--seq", c["seq"], "--batch", c["batch"],
            "--dropout", int(c["dropout"]), "--recompute", c["recompute"], "--dtype", "bf16",
            "--norm", "layernorm" if c["block"] == "gpt2" else "rmsnorm",
            "--mlp", "plain" if c["block"] == "gpt2" else "gated", "--kernels", c.get("kernels", "fused")]
    if c["block"] == "llama-lora":
        args += ["--adapter", "lora", "--rank", c["rank"], "--targets", ",".join(c["targets"]),
                 "--adapter-dropout", int(c["lora_dropout"] > 0)]
    result = subprocess.run([str(x) for x in args], check=True, capture_output=True, text=True)
    return {t["name"]: t["bytes"] for t in json.loads(result.stdout)["tensors"]}


def measure(c):
    torch.manual_seed(0)
    dt = torch.bfloat16
    x = torch.randn(c["batch"], c["seq"], c["hidden"], dtype=dt, requires_grad=True)
    mask = blocks.causal_mask(c["seq"], dt)
    if c["block"] == "gpt2":
        block = blocks.GPT2Block(c["hidden"], c["heads"], 0.1 if c["dropout"] else 0.0).to(dt)
        extra = (mask,)
    else:
        block = blocks.LlamaBlock(c["hidden"], c["heads"], c["kv_heads"], c["head_dim"], c["ffn"]).to(dt)
        extra = (mask,) + blocks.rotary_tables(c["batch"], c["seq"], c["head_dim"], dt)
        if c["block"] == "llama-lora":
            blocks.adapt(block, c["targets"], c["rank"], c["lora_dropout"], c["quantized"])
    return blocks.measure(block, x, extra, c["recompute"])


def check(c, measured, planned):
    """Rows of the agreement table and the list of problems for one configuration."""
    rows_spec = {"gpt2": gpt2_rows, "llama": llama_rows, "llama-lora": lora_rows}[c["block"]](c, c["recompute"])
    by_label = {}
    for entry in measured:
        for label in [entry["label"]] + entry["also"]:
            by_label[label] = entry
    problems, rows = [], []
    # Resolve each row's labels to storages; rows whose labels reach the same storage (e.g. q, k and v
    # saved as views of one c_attn output when matmul needs no copy) merge: a storage counts once.
    resolved = []
    for names, labels, relation in rows_spec:
        entries = []
        for label in labels:
            entry = by_label.get(label)
            if entry is None:
                problems.append("no measured tensor %s" % label)
            elif all(entry is not e for e in entries):
                entries.append(entry)
        resolved.append([list(names), list(labels), relation, entries])
    merged = []
    for row in resolved:
        for other in merged:
            if any(e is f for e in row[3] for f in other[3]):
                if other[2] != row[2]:
                    problems.append("one storage under relations %s and %s" % (other[2], row[2]))
                other[0] += row[0]
                other[1] += row[1]
                other[3] += [e for e in row[3] if all(e is not f for f in other[3])]
                break
        else:
            merged.append(row)
    used_entries, used_names = set(), set()
    for names, labels, relation, entries in merged:
        for name in names:
            if name not in planned:
                problems.append("memplan has no tensor %s" % name)
        M = sum(e["bytes"] for e in entries)
        P = sum(planned.get(n, 0) for n in names)
        expected = RELATIONS[relation][1](P, c)
        ok = M == expected
        if not ok:
            problems.append("%s vs %s: measured %d B, memplan %d B, relation %s expects %d B"
                            % ("+".join(names) or "-", "+".join(labels), M, P, relation, expected))
        used_entries |= {id(e) for e in entries}
        used_names |= set(names)
        rows.append({"memplan": " + ".join(names) or "—",
                     "measured": " + ".join("%s %s %s" % (e["label"], e["dtype"], tuple(e["shape"])) for e in entries),
                     "M": M, "P": P, "relation": relation, "ok": ok})
    for entry in measured:
        if id(entry) not in used_entries:
            problems.append("unexplained measured tensor %s %s %s (%d B)"
                            % (entry["label"], entry["dtype"], entry["shape"], entry["bytes"]))
    for name in planned:
        if name not in used_names:
            problems.append("unexplained memplan tensor %s (%d B)" % (name, planned[name]))
    return rows, problems


PRESERVED_MARKER = "## Published fine-tuning peaks"


def write_docs(path, results):
    lines = [
        "# Activation memory: memplan against PyTorch's saved tensors",
        "",
        "Generated by `tests/validation/validate_activations.py --write-docs` (run in CI by ctest as",
        "`validate_activations`). Each configuration runs a reference block written the way Hugging Face",
        "writes it (`tests/validation/blocks.py`: GPT-2 with LayerNorm, Conv1D, eager attention, GELU,",
        "dropout; Llama with LlamaRMSNorm's fp32 upcast, GQA with repeat_kv, rotary, eager attention,",
        "SwiGLU) in bf16 on the CPU with Debian's torch %s, records every tensor autograd saves for" % torch.__version__,
        "backward with `torch.autograd.graph.saved_tensors_hooks` (one row per storage; a storage saved",
        "twice counts once; parameters excluded), and compares it with memplan's per-tensor figures for",
        "the GPU (`layer_activation_tensors` / `stored_activation_tensors`, bf16, tp = 1, no",
        "FlashAttention). Full recompute runs the block under `torch.utils.checkpoint`; selective recompute",
        "checkpoints the attention core. A difference is allowed only as one of the relations below,",
        "exactly; anything else fails the run.",
        "",
        "Fine-tuning blocks (`llama-lora`): the Llama block with every weight frozen and LoRA adapters",
        "(`blocks.LoraLinear`, PEFT's `base_layer(x) + lora_B(lora_A(dropout(x))) * scaling`, in bf16) on",
        "the named projections; with a \"4-bit base\" every projection stores packed 4-bit codes and",
        "per-64 absmax as buffers and is dequantized inside an autograd Function, as bitsandbytes'",
        "MatMul4Bit does. memplan is asked with `--adapter lora --targets … --kernels eager` (eager",
        "LlamaRMSNorm tensors). The \"kernels=eager\" Llama row checks the eager RMSNorm tensors with every",
        "weight trained.",
        "",
        "Not covered by measurement (a single CPU process): tensor and sequence parallelism,",
        "FlashAttention, MoE, DoRA; those are checked against Korthikanti et al. 2022 and hand derivations",
        "in `tests/core/memory/test_activations.cpp` and `tests/core/memory/test_finetune.cpp`.",
        "",
        "## Relations (measured CPU bytes M, memplan GPU bytes P)",
        "",
        "| relation | explanation |",
        "|---|---|",
    ]
    for key, (text, _) in RELATIONS.items():
        lines.append("| `%s` | %s |" % (key, text))
    lines += ["", "## Summary", "", "| configuration | measured CPU bytes | memplan GPU bytes | rows | result |",
              "|---|---:|---:|---:|---|"]
    for c, rows, problems in results:
        lines.append("| %s | %d | %d | %d | %s |" % (describe(c), sum(r["M"] for r in rows), sum(r["P"] for r in rows),
                                                    len(rows), "all explained" if not problems else "FAILED"))
    lines += ["", "## Tensor by tensor", ""]
    for c, rows, problems in results:
        lines += ["### " + describe(c), "", "| memplan tensor | measured tensor(s) (label dtype shape) | measured CPU bytes | "
                  "memplan GPU bytes | difference |", "|---|---|---:|---:|---|"]
        for r in rows:
            lines.append("| `%s` | %s | %d | %d | %s%s |" % (r["memplan"], r["measured"] or "—", r["M"], r["P"],
                                                           r["relation"], "" if r["ok"] else " **UNEXPLAINED**"))
        lines.append("")
    # Hand-written sections after the generated part (published fine-tuning peaks) are kept.
    kept = ""
    if os.path.exists(path):
        with open(path) as f:
            text = f.read()
        marker = text.find(PRESERVED_MARKER)
        if marker >= 0:
            kept = "\n" + text[marker:]
    with open(path, "w") as f:
        f.write("\n".join(lines) + kept)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memplan-table", required=True, help="path of the activation_table program")
    parser.add_argument("--write-docs", action="store_true", help="write docs/validation.md")
    args = parser.parse_args()
    torch.set_num_threads(1)
    results, failures = [], 0
    for c in configs():
        rows, problems = check(c, measure(c), memplan_table(args.memplan_table, c))
        results.append((c, rows, problems))
        print("%-4s %s" % ("ok" if not problems else "FAIL", describe(c)))
        for p in problems:
            print("     " + p)
        failures += bool(problems)
    if args.write_docs:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        write_docs(os.path.join(root, "docs", "validation.md"), results)
    print("%d configurations, %d with unexplained differences" % (len(results), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
