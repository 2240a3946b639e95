#!/usr/bin/env python3
"""Validates memplan's phases of a training step (details.phases) against the bytes a real step holds.

A small Llama-shaped causal LM (blocks.LlamaBlock: embedding, blocks, final RMSNorm, untied lm_head, fp32
cross-entropy) runs two training steps on the CPU with Debian's torch (/usr/bin/python3). A live-tensor
tracker (a TorchDispatchMode that records every output storage and follows it with a C++ weak reference,
torch.multiprocessing.reductions.StorageWeakRef) gives the bytes alive after every operation of the second
step: its model states before forward, the end of forward, the peak of the loss's backward (up to the
gradient of the logits), and the peak of the optimizer step, for full fine-tuning and for LoRA on a
frozen base, and for a Mixtral-shaped MoE variant (MoeMLP: 4 experts, top 2), recompute off and full. Each measured figure must equal memplan's
under a named relation below; any other difference is a failure.

The model runs in fp32 (weights, gradients, Adam states, activations): memplan is asked for fp32 weights
and gradients, whose model states and optimizer temporaries then compare byte for byte. Activations of
the layers themselves are checked tensor by tensor by validate_activations.py; here only the phases'
increments that do not depend on them are compared, and the layers' backward is reported, not matched.

Exit status: 0 all explained; 1 an unexplained difference; 77 torch cannot be imported (skipped).
Usage: validate_phases.py --memplan build/dev/memplan [--write-docs]
(--write-docs writes the section "## The whole step by phase" at the end of docs/validation.md.)
"""
import argparse
import json
import subprocess
import sys
import os

try:
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.multiprocessing.reductions import StorageWeakRef
except ImportError:  # ctest SKIP_RETURN_CODE: only when torch itself is missing
    print("validate_phases: torch (with TorchDispatchMode) cannot be imported by %s; skipped" % sys.executable)
    sys.exit(77)

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blocks  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

F32 = 4


class LiveBytes(TorchDispatchMode):
    """Bytes of every storage an operation has produced and that is still alive, after each operation;
    `peak` is the largest since the last reset. Storages that existed before the mode (parameters, the
    optimizer's states) are counted through `adopt`."""

    def __init__(self):
        super().__init__()
        self.refs = {}  # storage address -> (weak reference, bytes)
        self.peak = 0

    def _add(self, t):
        # 0-dim tensors (AdamW's step counters, the loss, wrapped Python numbers) are not tracked: scalars,
        # neither model states nor activations.
        if isinstance(t, torch.Tensor) and t.device.type == "cpu" and t.dim() > 0:
            s = t.storage()
            ptr = s.data_ptr()
            if ptr not in self.refs or self.refs[ptr][0].expired():
                self.refs[ptr] = (StorageWeakRef(s), s.size() * t.element_size())

    def adopt(self, tensors):
        for t in tensors:
            self._add(t)

    def live(self):
        for ptr in [p for p, (ref, _) in self.refs.items() if ref.expired()]:
            del self.refs[ptr]
        return sum(n for _, n in self.refs.values())

    def reset_peak(self):
        self.peak = self.live()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func.namespace == "profiler":  # Optimizer.step's record_function handle: bookkeeping, not data
            return out
        for t in out if isinstance(out, (tuple, list)) else [out]:
            self._add(t)
        self.peak = max(self.peak, self.live())
        return out


class MoeMLP(nn.Module):
    """A Mixtral-style sparse MLP (transformers modeling_mixtral MixtralSparseMoeBlock): a bias-free router,
    softmax over the experts, the top-k renormalised, each expert a SwiGLU MLP over the tokens routed to it."""

    def __init__(self, hidden, experts, top_k, ffn):
        super().__init__()
        self.top_k = top_k
        self.gate = nn.Linear(hidden, experts, bias=False)
        self.experts = nn.ModuleList(
            nn.ModuleDict({"w1": nn.Linear(hidden, ffn, bias=False), "w3": nn.Linear(hidden, ffn, bias=False),
                           "w2": nn.Linear(ffn, hidden, bias=False)}) for _ in range(experts))

    def forward(self, x):
        flat = x.reshape(-1, x.shape[-1])
        weights = F.softmax(self.gate(flat), dim=-1, dtype=torch.float32)
        weights, chosen = torch.topk(weights, self.top_k, dim=-1)
        weights = (weights / weights.sum(dim=-1, keepdim=True)).to(x.dtype)
        out = torch.zeros_like(flat)
        for e, expert in enumerate(self.experts):
            token, slot = torch.where(chosen == e)
            if token.numel() == 0:
                continue
            h = flat[token]
            y = expert["w2"](F.silu(expert["w1"](h)) * expert["w3"](h)) * weights[token, slot, None]
            out = out.index_add(0, token, y)
        return out.reshape(x.shape)


class MoeLlamaBlock(blocks.LlamaBlock):
    """The Llama block with its MLP replaced by MoeMLP (the MLP's three projections removed)."""

    def __init__(self, c):
        super().__init__(c["hidden"], c["heads"], c["kv_heads"], c["head_dim"], c["ffn"])
        del self.gate_proj, self.up_proj, self.down_proj
        self.moe = MoeMLP(c["hidden"], c["experts"], c["top_k"], c["ffn"])

    def forward(self, x, mask, cos, sin, selective=False):  # LlamaBlock.forward with the sparse MLP
        b, s, _ = x.shape
        a = self.input_layernorm(x)
        q = self.q_proj(a).view(b, s, -1, self.head_dim).transpose(1, 2)
        k = self.k_proj(a).view(b, s, -1, self.head_dim).transpose(1, 2)
        v = self.v_proj(a).view(b, s, -1, self.head_dim).transpose(1, 2)
        c, n = cos.unsqueeze(1), sin.unsqueeze(1)
        q = (q * c) + (blocks.rotate_half(q) * n)
        k = (k * c) + (blocks.rotate_half(k) * n)
        o = self.core(q, k, v, mask).transpose(1, 2).contiguous().reshape(b, s, -1)
        x = x + self.o_proj(o)
        return x + self.moe(self.post_attention_layernorm(x))


class TinyLlama(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embed = nn.Embedding(c["vocab"], c["hidden"])
        self.layers = nn.ModuleList(
            (MoeLlamaBlock(c) if c.get("experts") else
             blocks.LlamaBlock(c["hidden"], c["heads"], c["kv_heads"], c["head_dim"], c["ffn"])) for _ in range(c["layers"]))
        self.norm = blocks.LlamaRMSNorm(c["hidden"])
        self.lm_head = nn.Linear(c["hidden"], c["vocab"], bias=False)

    def forward(self, ids, mask, cos, sin, recompute):
        x = self.embed(ids)
        if recompute and not x.requires_grad:  # transformers' enable_input_require_grads, for a frozen embedding
            x.requires_grad_(True)
        for layer in self.layers:
            if recompute:
                x = torch.utils.checkpoint.checkpoint(layer, x, mask, cos, sin, use_reentrant=True)
            else:
                x = layer(x, mask, cos, sin)
        return self.lm_head(self.norm(x))


LORA_TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def measure(c, recompute, lora):
    torch.manual_seed(0)
    model = TinyLlama(c)
    if lora:  # PEFT-style: a frozen base (embeddings and lm_head too) with rank-r adapters on every linear
        for p in model.parameters():
            p.requires_grad_(False)
        for layer in model.layers:
            blocks.adapt(layer, LORA_TARGETS, lora, 0.0, quantized=False)
    trainable = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(trainable, lr=1e-3, foreach=True)
    ids = torch.randint(0, c["vocab"], (c["batch"], c["seq"]))
    mask = blocks.causal_mask(c["seq"], torch.float32)
    cos, sin = blocks.rotary_tables(c["batch"], c["seq"], c["head_dim"], torch.float32)
    out = {}

    def step(tracker):
        logits = model(ids, mask, cos, sin, recompute)
        loss = F.cross_entropy(logits.float().view(-1, c["vocab"]), ids.view(-1))
        if tracker:
            out["forward_end"] = tracker.live()
            tracker.reset_peak()
            marks = {}

            def mark(grad):
                marks.setdefault("loss", tracker.peak)

            logits.register_hook(mark)
        loss.backward()
        del logits, loss
        if tracker:
            out["loss_backward"] = marks["loss"]
            out["backward_peak"] = tracker.peak
            out["before_step"] = tracker.live()
            tracker.reset_peak()
        opt.step()
        if tracker:
            out["optimizer_step"] = tracker.peak
        opt.zero_grad(set_to_none=False)  # gradient buffers kept between steps, as memplan counts them

    step(None)  # the first step creates the gradients and Adam's states
    with LiveBytes() as tracker:
        tracker.adopt(list(model.parameters()) + [p.grad for p in trainable])
        tracker.adopt(t for s in opt.state.values() for t in s.values() if isinstance(t, torch.Tensor))
        tracker.adopt([ids, mask, cos, sin])
        out["states"] = tracker.live()
        tracker.reset_peak()
        step(tracker)
    out["params"] = sum(p.numel() for p in model.parameters())
    out["trainable"] = sum(p.numel() for p in trainable)
    return out


def memplan_config(c, recompute, lora, dtype="fp32", quantized=False):
    """memplan's configuration of the same run: the model's shape, its dtypes (AdamW's states take the
    parameters' dtype), recompute, and LoRA on every linear of a frozen base."""
    config = {
        "model": {"num_hidden_layers": c["layers"], "hidden_size": c["hidden"], "num_attention_heads": c["heads"],
                  "num_key_value_heads": c["kv_heads"], "head_dim": c["head_dim"], "intermediate_size": c["ffn"],
                  "vocab_size": c["vocab"], "tie_word_embeddings": False, "norm": "rmsnorm", "mlp": "gated",
                  "qkv_bias": False, "attention_out_bias": False, "mlp_bias": False, "dropout": False},
        "train": {"seq_len": c["seq"], "micro_batch": c["batch"], "weight_dtype": dtype, "grad_dtype": dtype,
                  "master_weights": False, "optimizer_state_dtype": dtype,
                  "recompute": "full" if recompute else "none", "flash_attention": False},
    }
    if c.get("experts"):
        config["model"].update({"num_local_experts": c["experts"], "num_experts_per_tok": c["top_k"],
                                "moe_intermediate_size": c["ffn"]})
    if lora:
        config["train"].update({"adapter_type": "lora", "adapter_rank": lora, "adapter_targets": "all-linear",
                                "adapter_dtype": dtype, "base_dtype": "nf4" if quantized else dtype})
    return config


def estimate(exe, config):
    run = subprocess.run([exe, "estimate", "--config", "-"], input=json.dumps(config), capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("validate_phases: memplan failed: " + run.stderr)
    return json.loads(run.stdout)


def memplan_phases(exe, c, recompute, lora):
    r = estimate(exe, memplan_config(c, recompute, lora))
    return r["per_gpu"], r["details"]["phases"], r["params"], r["details"]["params_trainable"]


def gpu_table(exe, path):
    """Signed errors of memplan's phases against bench/gpu/measure_peaks.py's measurements (allocated against
    allocated; misc, the CUDA context, is outside PyTorch's allocator and left out). Reported, not required."""
    with open(path) as f:
        data = json.load(f)
    print("GPU measurements: %s, torch %s (%s)" % (data["device"], data["torch"], path))
    for case in data["cases"]:
        if not case["measured"]:
            print("  %-62s %s" % (case["name"], case["error"]))
            continue
        r = estimate(exe, case["memplan_config"])
        ph, misc = r["details"]["phases"], r["per_gpu"]["misc"]
        cells = []
        for key, phase in (("forward", "forward_end"), ("loss_backward", "loss_backward"),
                           ("layer_backward", "layer_backward"), ("optimizer_step", "optimizer_step")):
            measured = case["measured"][key]["allocated"]
            cells.append("%s %+.1f%%" % (phase, 100.0 * (ph[phase] - misc - measured) / measured))
        print("  %-62s %s" % (case["name"], ", ".join(cells)))




# Relations between a measured CPU increment M and memplan's figure P; each gives the exact expected M.
RELATIONS = {
    "states": "model states: fp32 weights, gradients and AdamW's two moments, memplan's weights + gradients + "
              "optimizer_states (AdamW's 0-dim step counters are scalars, not tracked), plus the step's token ids, "
              "mask and rotary tables (inputs, not model states): M = P + inputs",
    "loss": "the loss's backward up to the logits' gradient: nll_loss's gradient of the log-probabilities and "
            "log_softmax's of its input, alive at once, fp32 (memplan: 2 · 4 · s·b·V): M = P",
    "optimizer-1.13": "foreach AdamW in torch 1.13 keeps two parameter-sized fp32 lists at once "
                      "(exp_avg_sq_sqrt and denom = _foreach_add(exp_avg_sq_sqrt, eps)); PyTorch ≥ 2.1 adds eps in "
                      "place and keeps one, which memplan counts: M = 2 · P",
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--memplan", required=True)
    ap.add_argument("--gpu-results", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                                                          "measured", "gpu-peaks.json"),
                    help="bench/gpu/measure_peaks.py's output; its table is printed when the file exists")
    ap.add_argument("--write-docs", action="store_true", help="write its section of docs/validation.md")
    args = ap.parse_args()
    table = []
    c = dict(layers=2, hidden=64, heads=4, kv_heads=2, head_dim=16, ffn=172, vocab=512, seq=32, batch=2)
    inputs = c["batch"] * c["seq"] * 8 + c["seq"] * c["seq"] * F32 + 2 * c["batch"] * c["seq"] * c["head_dim"] * F32
    failures = 0
    old = torch.__version__.startswith("1.")
    moe = dict(c, experts=4, top_k=2, ffn=96)  # Mixtral-shaped: 4 experts, 2 per token
    for shape, recompute, lora in ((c, False, 0), (c, True, 0), (c, False, 8), (c, True, 8), (moe, False, 0), (moe, True, 0)):
        m = measure(shape, recompute, lora)
        per_gpu, ph, params, trainable = memplan_phases(args.memplan, shape, recompute, lora)
        p_states = per_gpu["weights"] + per_gpu["gradients"] + per_gpu["optimizer_states"]
        rows = [
            ("states", m["states"], p_states + inputs, "states"),
            ("loss_backward - forward_end", m["loss_backward"] - m["forward_end"],
             ph["loss_backward"] - ph["forward_end"], "loss"),
            ("optimizer_step - before_step", m["optimizer_step"] - m["before_step"],
             (2 if old else 1) * ph["optimizer_temp_bytes"], "optimizer-1.13" if old else "same"),
        ]
        print("%s%s, recompute %s (base params: measured %d, memplan %d; trainable: measured %d, memplan %d)"
              % ("MoE " if shape.get("experts") else "", "LoRA r%d" % lora if lora else "full fine-tuning",
                 "full" if recompute else "none",
                 m["params"] - (m["trainable"] if lora else 0), params,
                 m["trainable"], trainable))
        if m["params"] - (m["trainable"] if lora else 0) != params or m["trainable"] != trainable:
            failures += 1
        setting = "%s%s, recompute %s" % ("MoE (4 experts, top 2) " if shape.get("experts") else "",
                                          "LoRA r%d (frozen base)" % lora if lora else "full fine-tuning",
                                          "full" if recompute else "none")
        for name, measured, expected, rel in rows:
            ok = measured == expected
            table.append((setting, name, measured, expected, rel, ok))
            failures += not ok
            print("  %-30s measured %10d  expected %10d  %s  [%s]" % (name, measured, expected, "ok" if ok else "FAIL", rel))
        print("  (reported, not matched) forward_end %d, backward peak %d, memplan layer_backward less misc %d"
              % (m["forward_end"], m["backward_peak"], ph["layer_backward"] - per_gpu["misc"]))
    for key, text in RELATIONS.items():
        print("  [%s] %s" % (key, text))
    if os.path.exists(args.gpu_results):
        gpu_table(args.memplan, args.gpu_results)
    if args.write_docs:
        write_docs(c, table)
    sys.exit(1 if failures else 0)


DOCS_MARKER = "## The whole step by phase"


def write_docs(c, table):
    """Replaces the section DOCS_MARKER … end of docs/validation.md (after the sections that
    validate_activations.py --write-docs keeps) with this run's table."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "validation.md")
    lines = [DOCS_MARKER, "",
             "Generated by `tests/validation/validate_phases.py --write-docs` (run in CI by ctest as `validate_phases`).",
             "A Llama-shaped model (%d layers, h=%d, %d heads, %d KV heads of %d, ffn %d, vocabulary %d, untied) runs"
             % (c["layers"], c["hidden"], c["heads"], c["kv_heads"], c["head_dim"], c["ffn"], c["vocab"]),
             "two training steps (s=%d, b=%d, fp32, AdamW foreach) on the CPU with Debian's torch %s, dense and"
             % (c["seq"], c["batch"], torch.__version__),
             "with a Mixtral-shaped sparse MLP (4 experts of ffn 96, top 2, a bias-free router); a live-tensor",
             "tracker (a `TorchDispatchMode` following every output storage with a weak reference) measures the",
             "second step's bytes by phase. Each row compares a measured figure with memplan's `details.phases`",
             "under a named relation, exactly. The layers' own activations are checked tensor by tensor above;",
             "the backward of the layers and the GPU allocator's reserved figure are measured on a GPU by",
             "`bench/gpu/measure_peaks.py`, not here.", "",
             "| relation | explanation |", "|---|---|"]
    lines += ["| `%s` | %s |" % (k, v) for k, v in RELATIONS.items()]
    lines += ["", "| setting | figure | measured CPU bytes | expected from memplan | relation | result |",
              "|---|---|---:|---:|---|---|"]
    lines += ["| %s | %s | %d | %d | `%s` | %s |" % (a, b, m, e, r, "equal" if ok else "**DIFFERENT**")
              for a, b, m, e, r, ok in table]
    with open(path) as f:
        text = f.read()
    at = text.find(DOCS_MARKER)
    head = text[:at] if at >= 0 else text.rstrip("\n") + "\n\n"
    with open(path, "w") as f:
        f.write(head + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
