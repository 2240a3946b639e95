# Writes the synthetic header fixtures of this folder (python3 tests/data/quantized_headers/make_headers.py from the
# repository root): each format's tensor names, dtypes and shapes computed from its published layout (see "_source").
import json, math
H, HEADS, KV, HD, I, V, L = 64, 4, 2, 16, 128, 32, 2
base = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "num_hidden_layers": L, "hidden_size": H,
        "num_attention_heads": HEADS, "num_key_value_heads": KV, "head_dim": HD, "intermediate_size": I,
        "vocab_size": V, "tie_word_embeddings": False, "rms_norm_eps": 1e-5, "hidden_act": "silu",
        "max_position_embeddings": 2048, "attention_bias": False, "mlp_bias": False}
mats = {"self_attn.q_proj": (HEADS*HD, H), "self_attn.k_proj": (KV*HD, H), "self_attn.v_proj": (KV*HD, H),
        "self_attn.o_proj": (H, HEADS*HD), "mlp.gate_proj": (I, H), "mlp.up_proj": (I, H), "mlp.down_proj": (H, I)}
cd = lambda a, b: -(-a // b)
def common(t, dt="BF16"):
    t += [("model.embed_tokens.weight", dt, [V, H]), ("model.norm.weight", dt, [H]), ("lm_head.weight", dt, [V, H])]
    for l in range(L):
        for n in ("input_layernorm", "post_attention_layernorm"): t.append((f"model.layers.{l}.{n}.weight", dt, [H]))
def write(name, source, qc, per_matrix, dt="BF16", torch_dtype="bfloat16"):
    cfg = dict(base, quantization_config=qc, torch_dtype=torch_dtype)
    t = []
    common(t, dt)
    for l in range(L):
        for m, (o, i) in mats.items(): t += per_matrix(f"model.layers.{l}.{m}", o, i)
    t.sort()
    doc = {"_source": source, "config": cfg, "tensors": [{"name": a, "dtype": b, "shape": c} for a, b, c in t]}
    with open(f"tests/data/quantized_headers/{name}.json", "w") as f:
        json.dump(doc, f, indent=1); f.write("\n")
REF = "Synthetic header of a 2-layer Llama-shaped model, derived from the format's published layout (not copied from a real checkpoint): "
G = 32
write("awq", REF + "AutoAWQ (github.com/casper-hansen/AutoAWQ at 030fe2a15b959425d278de8121f03ed895e3b10c) awq/modules/linear/gemm.py WQLinear_GEMM.from_linear (qweight int32 [in, out/8], qzeros int32 [in/g, out/8], scales fp16 [in/g, out]); group_size 32.",
      {"quant_method": "awq", "bits": 4, "group_size": G, "zero_point": True, "version": "gemm"},
      lambda p, o, i: [(p + ".qweight", "I32", [i, o // 8]), (p + ".qzeros", "I32", [i // G, o // 8]), (p + ".scales", "F16", [i // G, o])],
      "F16", "float16")
write("gptq", REF + "AutoGPTQ (github.com/AutoGPTQ/AutoGPTQ at c80855e25b165006688a642beaf0ee4f8400f27f) auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py QuantLinear (qweight int32 [in/8, out], qzeros int32 [in/g, out/8], scales fp16 [in/g, out], g_idx int32 [in]); group_size 32.",
      {"quant_method": "gptq", "bits": 4, "group_size": G, "desc_act": False, "sym": True},
      lambda p, o, i: [(p + ".qweight", "I32", [i // 8, o]), (p + ".qzeros", "I32", [i // G, o // 8]), (p + ".scales", "F16", [i // G, o]), (p + ".g_idx", "I32", [i])],
      "F16", "float16")
def nf4(p, o, i):
    n = o * i
    state = json.dumps({"quant_type": "nf4", "blocksize": 64, "dtype": "bfloat16", "shape": [o, i], "nested_blocksize": 256, "nested_dtype": "float32", "nested_offset": 0.0})
    w = p + ".weight"
    return [(w, "U8", [n // 2, 1]), (w + ".absmax", "U8", [cd(n, 64)]), (w + ".quant_map", "F32", [16]),
            (w + ".nested_absmax", "F32", [cd(cd(n, 64), 256)]), (w + ".nested_quant_map", "F32", [256]),
            (w + ".quant_state.bitsandbytes__nf4", "U8", [len(state)])]
write("nf4", REF + "bitsandbytes (github.com/bitsandbytes-foundation/bitsandbytes at 8b3c0f355c779170d55a1975df981df9e53b59fa) bitsandbytes/nn/modules.py Params4bit and bitsandbytes/functional.py QuantState.as_dict(packed=True) (weight uint8 [n/2, 1]; with double quantization absmax uint8 per 64, nested_absmax fp32 per 256 absmax, quant_map fp32 [16], nested_quant_map fp32 [256], the other fields as JSON in quant_state.bitsandbytes__nf4 uint8).",
      {"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": True, "bnb_4bit_compute_dtype": "bfloat16"}, nf4)
B = 32
write("fp8_block", REF + "transformers (github.com/huggingface/transformers at 3c48befbac8c4e11124f3bf1823d1407c6badc47) src/transformers/integrations/finegrained_fp8.py FP8Linear (weight float8_e4m3fn [out, in], weight_scale_inv fp32 [ceil(out/B), ceil(in/B)]); weight_block_size [32, 32].",
      {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic", "weight_block_size": [B, B]},
      lambda p, o, i: [(p + ".weight", "F8_E4M3", [o, i]), (p + ".weight_scale_inv", "F32", [cd(o, B), cd(i, B)])])
write("nvfp4", REF + "NVIDIA TensorRT Model Optimizer (github.com/NVIDIA/TensorRT-Model-Optimizer at 0d7d92d69c3bca933a350731f4ec543a78a10e3a) modelopt/torch/export/unified_export_hf.py and modelopt/torch/quantization/qtensor/nvfp4_tensor.py (weight uint8 [out, in/2], weight_scale float8_e4m3 [out, in/16], weight_scale_2 and input_scale fp32 scalars).",
      {"quant_method": "modelopt", "quant_algo": "NVFP4", "ignore": ["lm_head"], "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "float", "group_size": 16}, "input_activations": {"num_bits": 4, "type": "float", "group_size": 16}}}},
      lambda p, o, i: [(p + ".weight", "U8", [o, i // 2]), (p + ".weight_scale", "F8_E4M3", [o, i // 16]), (p + ".weight_scale_2", "F32", []), (p + ".input_scale", "F32", [])])
write("fp8_tensor", REF + "NVIDIA TensorRT Model Optimizer (github.com/NVIDIA/TensorRT-Model-Optimizer at 0d7d92d69c3bca933a350731f4ec543a78a10e3a) modelopt/torch/export/unified_export_hf.py, FP8 per-tensor (weight float8_e4m3 [out, in], weight_scale and input_scale fp32 scalars).",
      {"quant_method": "modelopt", "quant_algo": "FP8", "ignore": ["lm_head"]},
      lambda p, o, i: [(p + ".weight", "F8_E4M3", [o, i]), (p + ".weight_scale", "F32", []), (p + ".input_scale", "F32", [])])
# gpt-oss (transformers models/gpt_oss/modeling_gpt_oss.py names; integrations/mxfp4.py *_blocks / *_scales)
E, EI = 4, 64
cfg = {"model_type": "gpt_oss", "architectures": ["GptOssForCausalLM"], "num_hidden_layers": L, "hidden_size": H,
       "num_attention_heads": HEADS, "num_key_value_heads": KV, "head_dim": HD, "intermediate_size": EI,
       "num_local_experts": E, "num_experts_per_tok": 2, "experts_per_token": 2, "vocab_size": V, "tie_word_embeddings": False,
       "attention_bias": True, "layer_types": ["sliding_attention", "full_attention"], "sliding_window": 128,
       "rms_norm_eps": 1e-5, "hidden_act": "silu", "max_position_embeddings": 4096, "torch_dtype": "bfloat16",
       "quantization_config": {"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"]}}
t = []
common(t)
for l in range(L):
    p = f"model.layers.{l}."
    for m, (o, i) in {"q_proj": (HEADS*HD, H), "k_proj": (KV*HD, H), "v_proj": (KV*HD, H), "o_proj": (H, HEADS*HD)}.items():
        t += [(p + f"self_attn.{m}.weight", "BF16", [o, i]), (p + f"self_attn.{m}.bias", "BF16", [o])]
    t += [(p + "self_attn.sinks", "BF16", [HEADS]), (p + "mlp.router.weight", "BF16", [E, H]), (p + "mlp.router.bias", "BF16", [E])]
    for m, (o, i) in {"gate_up_proj": (2 * EI, H), "down_proj": (H, EI)}.items():
        t += [(p + f"mlp.experts.{m}_blocks", "U8", [E, o, i // 32, 16]), (p + f"mlp.experts.{m}_scales", "U8", [E, o, i // 32]),
              (p + f"mlp.experts.{m}_bias", "BF16", [E, o])]
t.sort()
doc = {"_source": "Synthetic header of a 2-layer gpt-oss-shaped model, derived from the published layout (not copied from a real checkpoint): transformers (github.com/huggingface/transformers at 0189b1d09a03a87ec4f59831acb93cc1832d14e7) src/transformers/models/gpt_oss/modeling_gpt_oss.py module names and src/transformers/integrations/mxfp4.py Mxfp4GptOssExperts (loaded by quantizers/quantizer_mxfp4.py): experts' *_blocks uint8 [experts, out, in/32, 16] and *_scales uint8 e8m0 [experts, out, in/32], everything else bf16.",
       "config": cfg, "tensors": [{"name": a, "dtype": b, "shape": c} for a, b, c in t]}
with open("tests/data/quantized_headers/mxfp4.json", "w") as f:
    json.dump(doc, f, indent=1); f.write("\n")
