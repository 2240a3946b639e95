// One serving stage: weights in their inference dtype, KV cache, prefill workspace and logits.
#include <algorithm>

#include "memplan/model/arch.hpp"
#include "memory/stage.hpp"

namespace memplan::detail {

u128 forward_live_bytes_per_token(const model_config& m, std::uint64_t tp) {
    // Derivation: residual + normed input + the widest intermediates, in bf16.
    const u128 h = m.hidden_size;
    const u128 d = resolved_head_dim(m);
    const u128 q_width = ceil_div(u128{m.num_attention_heads} * d, tp);
    const u128 kv_width = ceil_div(resolved_kv_heads(m), tp) * d;
    u128 attention_live = 2 * h + 2 * q_width + 2 * kv_width;  // residual, normed, q, k, v, attention output
    if (m.full_head_dim != 0 || m.full_num_key_value_heads != 0) {
        // Full layers of their own head width and KV heads (Gemma 4): the wider of the two kinds.
        const u128 fd = m.full_head_dim != 0 ? u128{m.full_head_dim} : d;
        const u128 fkv = m.full_num_key_value_heads != 0 ? u128{m.full_num_key_value_heads} : u128{resolved_kv_heads(m)};
        attention_live = std::max(attention_live, 2 * h + 2 * ceil_div(u128{m.num_attention_heads} * fd, tp) +
                                                      2 * ceil_div(fkv, tp) * fd);
    }
    u128 ffn = resolved_ffn(m);
    if (m.num_experts != 0)  // routed copies of each token: top-k experts plus the shared expert
        ffn = u128{m.experts_per_token} * (m.moe_intermediate_size != 0 ? m.moe_intermediate_size : resolved_ffn(m)) +
              m.shared_expert_intermediate_size;
    const u128 mlp_live = 2 * h + (m.mlp == mlp_kind::gated ? 3 : 2) * ceil_div(ffn, tp);  // gate, up, product
    return std::max(attention_live, mlp_live) * 2;  // bf16 activations
}

parts128 infer_stage(const estimate_config& c, const param_breakdown& counted, std::uint64_t i) {
    const model_config& m = c.model;
    const parallel_config& p = c.parallel;
    const infer_config& inf = c.infer;
    const stage_params sp = params_of_stage(c, counted, i);
    parts128 r;

    // Weights: block linear weights in the chosen dtype; embeddings, norms and biases stay bf16 when
    // the linear weights are quantized (as GPTQ and AWQ checkpoints keep them).
    const u128 local = sp.dense + sp.experts;
    if (m.stored_weight_bytes != 0 && !inf.weight_dtype_given) {
        // The checkpoint's stored bytes, as its headers give them (model.stored_weight_bytes), served as
        // stored: an engine loads safetensors tensors in their stored dtype unless told to quantize.
        r.weights = sp.native_bytes;
        r.weight_by_dtype = {{"stored", r.weights}};
    } else if (m.checkpoint != checkpoint_format::none && !inf.weight_dtype_given && m.params == 0) {
        // A quantized checkpoint (quantization_config) is served as released: its packed weights and
        // scales (params.cpp native_matrix), everything else bf16.
        r.weights = sp.native_bytes;
        r.quant_overhead = sp.native_scales;
        const u128 plain = local > sp.packed ? local - sp.packed : 0;
        const u128 fp32_params = sp.native_fp32 / 4, bf16 = 2 * (plain - std::min(plain, fp32_params));
        r.weight_by_dtype = {{to_string(m.checkpoint), r.weights - std::min(r.weights, bf16 + sp.native_fp32)}, {"bf16", bf16}};
        if (sp.native_fp32 != 0) r.weight_by_dtype.push_back({"fp32", sp.native_fp32});
    } else {
        const bool quantized = dtype_bits(inf.weight_dtype) < 16;
        const u128 packed = quantized ? sp.linear : local;
        r.weights = bytes_of(packed, inf.weight_dtype) + bytes_of(local - packed, quantized ? dtype::bf16 : inf.weight_dtype);
        if (inf.quant_group_size != 0) {
            // Group-wise quantization: one fp16 scale and one zero point of the weight width per group of G
            // weights (Frantar et al. 2023, GPTQ §4; Lin et al. 2024, AWQ §3).
            r.quant_overhead = ceil_div(ceil_div(packed, inf.quant_group_size) * (16 + dtype_bits(inf.weight_dtype)), 8);
            r.weights += r.quant_overhead;
        }
        const u128 packed_bytes = r.weights - bytes_of(local - packed, quantized ? dtype::bf16 : inf.weight_dtype);
        r.weight_by_dtype = {{to_string(inf.weight_dtype), packed_bytes}};
        if (quantized) r.weight_by_dtype.push_back({"bf16", r.weights - packed_bytes});
    }

    // KV cache, layer kind by layer kind (arch.cpp kv_layer_groups), for the stage's own layers:
    // - full attention: K and V for every KV head, head dim, token and sequence (Pope et al. 2022,
    //   "Efficiently Scaling Transformer Inference", §2); KV heads split over tp, replicated when tp
    //   exceeds them; context parallelism splits the tokens;
    // - sliding window / chunked layers keep at most `window` / `chunk` tokens (Beltagy et al. 2020;
    //   Jiang et al. 2023, Mistral §2; Llama 4 attention_chunk_size);
    // - MLA caches one latent of kv_lora_rank + qk_rope_head_dim per token, the same on every tp rank
    //   (DeepSeek-V2 §2.1.2; vLLM's MLA backends keep the latent unsplit); with DeepSeek Sparse Attention's
    //   indexer, the bytes vLLM and SGLang store (arch.hpp sparse_mla_token_bytes: the fp8_ds_mla latent under
    //   kv_dtype fp8, and the indexer's fp8 key with its scale whatever kv_dtype) — the layout follows the
    //   model, as those engines choose it, so kv_dtype keeps its meaning and needs no new value;
    // - linear attention and Mamba keep a fixed state per sequence in infer.state_dtype, split over tp.
    const auto kinds = resolved_layer_attention(m);
    const auto groups = kv_layer_groups(m);
    const auto group_of = [&groups](attention_kind k) {
        for (const auto& g : groups)
            if (g.kind == k) return g;
        return kv_layer_group{};
    };
    // Decode context parallelism stripes the full-attention and MLA caches over dcp ranks, token by token
    // (vllm/v1/kv_cache_interface.py FullAttentionSpec.max_memory_usage_bytes: cdiv(max_model_len, dcp));
    // windows and recurrent states stay whole on each rank.
    const std::uint64_t dcp = inf.decode_context_parallel_size;
    const u128 full_tokens = ceil_div(inf.context_len, u128{p.cp} * dcp);
    u128 token_elements = 0, kv_elements = 0, state_elements = 0;
    u128 sparse_token_bytes = 0, sparse_bytes = 0;  // MLA layers with the sparse-attention indexer, in bytes
    for (u128 l = sp.first_layer; l < sp.first_layer + sp.layers && l < kinds.size(); ++l) {
        const attention_kind k = kinds[static_cast<std::size_t>(l)];
        const kv_layer_group g = group_of(k);
        switch (k) {
            case attention_kind::full:
            case attention_kind::sliding:
            case attention_kind::chunked: {
                // K and V per KV head of the group (a sliding group may have its own KV heads and V width).
                const u128 per_token = ceil_div(g.kv_heads, p.tp) * (g.head_dim + (g.v_head_dim != 0 ? g.v_head_dim : g.head_dim));
                const u128 tokens =
                    g.window_tokens != 0 ? ceil_div(std::min<u128>(inf.context_len, g.window_tokens), p.cp) : full_tokens;
                // details.kv_cache_bytes_per_token: the growth per token over the layers that cache every
                // token; a window or chunk is capped (its bytes are in kv_elements at this context).
                if (g.window_tokens == 0) token_elements += per_token;
                kv_elements += per_token * tokens;
                break;
            }
            case attention_kind::mla:
                if (g.index_head_dim != 0) {
                    const u128 per_token = sparse_mla_token_bytes(g, inf.kv_dtype);
                    sparse_token_bytes += per_token;
                    sparse_bytes += per_token * full_tokens;
                    break;
                }
                token_elements += g.latent_dim;
                kv_elements += u128{g.latent_dim} * full_tokens;
                break;
            case attention_kind::linear:
            case attention_kind::mamba: state_elements += ceil_div(g.state_elements_per_sequence, p.tp); break;
            case attention_kind::none: break;
        }
    }
    r.state_per_sequence = bytes_of(state_elements, inf.state_dtype);
    r.kv = bytes_of(kv_elements * inf.batch, inf.kv_dtype) + sparse_bytes * inf.batch + r.state_per_sequence * inf.batch;
    r.kv_per_token = ceil_div(bytes_of(token_elements, inf.kv_dtype) + sparse_token_bytes, dcp);

    // Forward workspace: the largest set of tensors live at once inside one layer during one prefill
    // pass (forward_live_bytes_per_token). The pass holds batch × prefill tokens, or with chunked prefill
    // at most one scheduler step's tokens (prefill_chunk_tokens: a step of max_num_batched_tokens with
    // chunked prefill on, vllm/engine/arg_utils.py EngineArgs._set_default_args, vllm-project/vllm 99d7eb5d).
    const u128 prefill = ceil_div(inf.prefill_tokens != 0 ? inf.prefill_tokens : inf.context_len, p.cp);
    const std::uint64_t chunk = prefill_chunk_tokens(c);
    const u128 whole = u128{inf.batch} * prefill;
    const u128 pass = chunk != 0 ? std::min(whole, ceil_div(chunk, p.cp)) : whole;
    r.prefill_pass_tokens = pass;
    u128 workspace = pass * forward_live_bytes_per_token(m, p.tp);
    // Eager attention materialises fp16 scores and softmax (2 + 2 bytes each) of every query of the pass
    // against at most `prefill` keys of its sequence: batch × prefill² in one pass, as before chunking.
    if (!inf.flash_attention) workspace += ceil_div(m.num_attention_heads, p.tp) * pass * prefill * 4;
    r.activations = workspace;
    if (i + 1 == p.pp && m.vocab_size != 0)  // last position's logits: bf16 output + fp32 copy for sampling
        r.logits = u128{inf.batch} * m.vocab_size * (2 + 4);
    return r;
}

}  // namespace memplan::detail
