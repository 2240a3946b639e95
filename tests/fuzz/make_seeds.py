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

# One variant of a small base model per option value, so that every branch of the reader and of the
# formulas starts from a seed (the literals above cover few of them).
base_model = {"num_hidden_layers": 4, "hidden_size": 256, "num_attention_heads": 8, "num_key_value_heads": 2,
              "vocab_size": 1000}
moe_model = dict(base_model, num_local_experts=8, num_experts_per_tok=2, moe_intermediate_size=128,
                 shared_expert_intermediate_size=256)
dtypes = ["fp32", "bf16", "fp16", "fp8", "int8", "int4"]
variants = [("train", "optimizer", v) for v in ["adam", "adam_8bit", "sgd", "sgd_momentum", "lion", "adafactor", "none"]]
variants += [("train", k, v) for k in ["weight_dtype", "grad_dtype"] for v in dtypes]
variants += [("train", "recompute", v) for v in ["none", "selective", "full"]]
variants += [("train", "flash_attention", True), ("train", "master_weights", False), ("train", "microbatches_in_flight", 3),
             ("train", "seq_len", 3), ("train", "micro_batch", 1048576)]
variants += [("parallel", "zero_stage", v) for v in range(4)]
variants += [("parallel", "fsdp", v) for v in ["full_shard", "shard_grad_op", "hybrid_shard", "hybrid_shard_zero2", "no_shard"]]
variants += [("parallel", k, v) for k in ["offload_optimizer", "offload_params"] for v in ["none", "cpu", "nvme"]]
variants += [("parallel", "sequence_parallel", True), ("parallel", "partition_activations", True),
             ("parallel", "zero_shard_size", 2), ("parallel", "virtual_stages", 2), ("parallel", "gpus_per_node", 4)]
variants += [("infer", k, v) for k in ["weight_dtype", "kv_dtype"] for v in dtypes]
variants += [("infer", "quant_group_size", 128), ("infer", "prefill_tokens", 512), ("infer", "flash_attention", False),
             ("infer", "context_len", 1 << 24), ("infer", "batch", 1 << 20)]
variants += [("model", k, v) for k, v in [("norm", "rmsnorm"), ("mlp", "gated"), ("head_dim", 64), ("params", 7e9),
                                          ("learned_positions", 2048), ("tie_word_embeddings", False), ("dropout", False),
                                          ("qkv_bias", False), ("norms_per_layer", 4), ("sliding_window", 128),
                                          ("sliding_window_layers", 2), ("intermediate_size", 1000)]]
layouts = [{"gpus": 16, "tp": 2, "pp": 2, "zero_stage": 1}, {"gpus": 6, "pp": 3, "zero_stage": 3},
           {"gpus": 16, "tp": 8, "cp": 2}, {"gpus": 8}]
for n, (section, key, value) in enumerate(variants):
    for mode in ["train", "infer"]:
        model = dict(moe_model if n % 3 == 0 else base_model)
        parallel = dict(layouts[n % len(layouts)])
        config = {"mode": mode, "model": model, "parallel": parallel, "gpu": {"memory_bytes": 80e9}}
        if section == "model":
            model[key] = value
        elif section == "parallel":
            parallel[key] = value
            if key == "offload_params" and value != "none":
                parallel["zero_stage"] = 3
            if key == "virtual_stages":
                parallel["pp"] = 2
        else:
            config[section] = {key: value}
            if key == "quant_group_size":
                config[section]["weight_dtype"] = "int4"
        if n % 3 == 0 and "tp" not in parallel:
            parallel["ep"] = 2
        add(config)
# Hugging Face shapes: a multimodal text_config, Llama's attention_bias, Qwen2's windows, layer_types.
add("{}", {"model_type": "llava", "text_config": dict(base_model, model_type="llama", attention_bias=True)})
add({"mode": "infer"}, dict(base_model, model_type="qwen2", sliding_window=64, use_sliding_window=True,
                            max_window_layers=2, rms_norm_eps=1e-6, hidden_act="silu"))
add({"mode": "infer"}, dict(base_model, model_type="gemma2", sliding_window=64, layer_types=[
    "sliding_attention", "full_attention", "sliding_attention", "full_attention"], attention_dropout=0.0))
add({"mode": "infer"}, dict(base_model, model_type="somethingnew", rms_norm_eps=1e-5, hidden_act="swish", mlp_bias=True))
add({}, {"model_type": "gpt2", "n_layer": 2, "n_embd": 64, "n_head": 2, "n_positions": 1024, "vocab_size": 50257,
         "resid_pdrop": 0.1, "attn_pdrop": 0.1, "embd_pdrop": 0.1})

for text in seeds:
    name = hashlib.sha1(text.encode()).hexdigest()
    (out / name).write_bytes(text.encode())
print(f"make_seeds: {len(seeds)} seeds in {out}")
