#!/usr/bin/env python3
"""Measures a training step's peaks by phase on one CUDA GPU, for memplan's details.phases.

For each case — the small Llama-shaped models of tests/validation/validate_phases.py and a few real-size
shapes (Llama 3.2 1B full fine-tuning, Llama 3 8B LoRA, Llama 3 8B with a 4-bit frozen base), all built from
tests/validation/blocks.py with random weights (nothing is downloaded) — it runs two training steps and
records, for the second, torch.cuda.max_memory_allocated and max_memory_reserved over each phase: forward
(to the end of forward), the loss's backward (to the logits' gradient), the rest of backward, and the
optimizer step (torch.optim.AdamW, foreach). The results, with every setting and the memplan configuration
that describes the same run, go to a JSON file that validate_phases.py --gpu-results reads.

Unattended; about a few minutes on one H100/H200 (each case is two steps). Nothing requires it: without a
GPU it exits 77. Usage: measure_peaks.py [--out tests/data/measured/gpu-peaks.json] [--small-only]
"""
import argparse
import json
import os
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("measure_peaks: torch cannot be imported; skipped")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "validation"))
sys.dont_write_bytecode = True
import blocks  # noqa: E402
from validate_phases import TinyLlama, LORA_TARGETS, memplan_config  # noqa: E402

SMALL = dict(layers=2, hidden=64, heads=4, kv_heads=2, head_dim=16, ffn=172, vocab=512, seq=32, batch=2)
# Shapes of meta-llama/Llama-3.2-1B and meta-llama/Meta-Llama-3-8B (their config.json).
LLAMA_1B = dict(layers=16, hidden=2048, heads=32, kv_heads=8, head_dim=64, ffn=8192, vocab=128256, seq=2048, batch=1)
LLAMA_8B = dict(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256, seq=2048, batch=1)


def case(name, shape, dtype, recompute, lora=0, quantized=False):
    return dict(name=name, shape=shape, dtype=dtype, recompute=recompute, lora=lora, quantized=quantized)


CASES = [
    case("small full fp32", SMALL, "fp32", False),
    case("small full fp32 recompute", SMALL, "fp32", True),
    case("small LoRA r8 fp32", SMALL, "fp32", False, lora=8),
    case("small LoRA r8 fp32 recompute", SMALL, "fp32", True, lora=8),
    case("Llama 3.2 1B shape, full fine-tuning bf16, recompute full", LLAMA_1B, "bf16", True),
    case("Llama 3 8B shape, LoRA r16 bf16, recompute full", LLAMA_8B, "bf16", True, lora=16),
    # blocks.py's 4-bit emulation (QLoRA's layout, not bitsandbytes' kernels): its dequantization makes int64
    # codes and fp32 values, a larger transient than bitsandbytes' bf16 weight; recorded as such.
    case("Llama 3 8B shape, LoRA r16 on a 4-bit base (blocks.py emulation), recompute full", LLAMA_8B, "bf16", True,
         lora=16, quantized=True),
]


def mib(x):
    return round(x / 2**20, 1)


def run_case(cs):
    c, dtype = cs["shape"], torch.float32 if cs["dtype"] == "fp32" else torch.bfloat16
    dev = torch.device("cuda")
    blocks.LEVELS = blocks.LEVELS.to(dev)  # the 4-bit code book, read by blocks.dequantize_4bit at each call
    torch.manual_seed(0)
    if hasattr(torch, "set_default_device"):  # PyTorch ≥ 2.0: initialise on the GPU, not in host memory
        with torch.device(dev):
            model = TinyLlama(c).to(dtype)
    else:
        model = TinyLlama(c).to(dtype)
    if cs["lora"]:
        for p in model.parameters():
            p.requires_grad_(False)
        for layer in model.layers:
            blocks.adapt(layer, LORA_TARGETS, cs["lora"], 0.0, quantized=cs["quantized"])
    model.to(dev)
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(trainable, lr=1e-4, foreach=True)
    ids = torch.randint(0, c["vocab"], (c["batch"], c["seq"]), device=dev)
    mask = blocks.causal_mask(c["seq"], dtype).to(dev)
    cos, sin = (t.to(dev) for t in blocks.rotary_tables(c["batch"], c["seq"], c["head_dim"], dtype))
    out = {}

    def peaks(key):
        torch.cuda.synchronize()
        out[key] = {"allocated": torch.cuda.max_memory_allocated(), "reserved": torch.cuda.max_memory_reserved()}
        torch.cuda.reset_peak_memory_stats()

    def step(record):
        logits = model(ids, mask, cos, sin, cs["recompute"])
        loss = F.cross_entropy(logits.float().view(-1, c["vocab"]), ids.view(-1))
        if record:
            peaks("forward")
            out["forward_end_allocated"] = torch.cuda.memory_allocated()
            logits.register_hook(lambda g: peaks("loss_backward") and None)
        loss.backward()
        del logits, loss
        if record:
            peaks("layer_backward")
            out["before_step_allocated"] = torch.cuda.memory_allocated()
        opt.step()
        if record:
            peaks("optimizer_step")
        opt.zero_grad(set_to_none=False)

    step(False)
    torch.cuda.synchronize()
    out["states_allocated"] = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    t0 = time.time()
    step(True)
    out["step_seconds"] = round(time.time() - t0, 3)
    del model, opt
    torch.cuda.empty_cache()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "tests", "data", "measured", "gpu-peaks.json"))
    ap.add_argument("--small-only", action="store_true")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("measure_peaks: no CUDA device; skipped")
        sys.exit(77)
    results = {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0),
               "figures": "torch.cuda.max_memory_allocated / max_memory_reserved per phase, second step, bytes",
               "cases": []}
    for cs in CASES:
        if args.small_only and cs["shape"] is not SMALL:
            continue
        t0 = time.time()
        try:
            measured = run_case(cs)
            error = None
        except torch.cuda.OutOfMemoryError as e:  # recorded, not fatal: the other cases still run
            measured, error = None, str(e).splitlines()[0]
            torch.cuda.empty_cache()
        results["cases"].append({"name": cs["name"], "settings": {k: v for k, v in cs.items() if k != "name"},
                                 "memplan_config": memplan_config(cs["shape"], cs["recompute"], cs["lora"], cs["dtype"],
                                                                  cs["quantized"]),
                                 "measured": measured, "error": error})
        print("%-62s %6.1f s  %s" % (cs["name"], time.time() - t0,
                                    error or {k: mib(v["allocated"]) for k, v in measured.items() if isinstance(v, dict)}))
        sys.stdout.flush()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    print("measure_peaks: wrote", args.out)


if __name__ == "__main__":
    main()
