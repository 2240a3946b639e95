// One serving stage: weights in their inference dtype, KV cache, prefill workspace and logits.
#include <algorithm>

#include "stage.hpp"

namespace memplan::detail {

parts128 infer_stage(const estimate_config& c, const param_breakdown& counted, std::uint64_t i) {
    const model_config& m = c.model;
    const parallel_config& p = c.parallel;
    const infer_config& inf = c.infer;
    const stage_params sp = params_of_stage(c, counted, i);
    parts128 r;

    // Weights: block linear weights in the chosen dtype; embeddings, norms and biases stay bf16 when
    // the linear weights are quantized (as GPTQ and AWQ checkpoints keep them).
    const u128 local = sp.dense + sp.experts;
    const bool quantized = dtype_bits(inf.weight_dtype) < 16;
    const u128 packed = quantized ? sp.linear : local;
    r.weights = bytes_of(packed, inf.weight_dtype) + bytes_of(local - packed, quantized ? dtype::bf16 : inf.weight_dtype);
    if (inf.quant_group_size != 0) {
        // Group-wise quantization: one fp16 scale and one zero point of the weight width per group of G
        // weights (Frantar et al. 2023, GPTQ §4; Lin et al. 2024, AWQ §3).
        r.quant_overhead = ceil_div(ceil_div(packed, inf.quant_group_size) * (16 + dtype_bits(inf.weight_dtype)), 8);
        r.weights += r.quant_overhead;
    }

    // KV cache: K and V for every layer, KV head, head dim, token and sequence (Pope et al. 2022,
    // "Efficiently Scaling Transformer Inference", §2); KV heads split over tp, replicated when tp
    // exceeds them; context parallelism splits the tokens.
    const u128 layers = sp.layers;
    const u128 sliding_total = resolved_sliding_layers(m);
    const u128 sliding = ceil_div(layers * sliding_total, m.num_hidden_layers);
    const u128 heads = ceil_div(resolved_kv_heads(m), p.tp);
    const u128 per_token_layer = 2 * heads * resolved_head_dim(m);
    const u128 full_tokens = ceil_div(inf.context_len, p.cp);
    // Sliding-window layers cache at most `window` tokens (Beltagy et al. 2020; Jiang et al. 2023, Mistral §2).
    const u128 window_tokens = ceil_div(std::min<u128>(inf.context_len, m.sliding_window), p.cp);
    const u128 elements = per_token_layer * inf.batch * ((layers - sliding) * full_tokens + sliding * window_tokens);
    r.kv = bytes_of(elements, inf.kv_dtype);
    r.kv_per_token = bytes_of(per_token_layer * layers, inf.kv_dtype);

    // Forward workspace: the largest set of tensors live at once inside one layer during prefill of
    // batch × prefill tokens (derivation: residual + normed input + the widest intermediates).
    const u128 tp = p.tp;
    const u128 h = m.hidden_size;
    const u128 d = resolved_head_dim(m);
    const u128 prefill = ceil_div(inf.prefill_tokens != 0 ? inf.prefill_tokens : inf.context_len, p.cp);
    const u128 tokens = u128{inf.batch} * prefill;
    const u128 q_width = ceil_div(u128{m.num_attention_heads} * d, tp);
    const u128 kv_width = heads * d;
    u128 attention_live = 2 * h + 2 * q_width + 2 * kv_width;  // residual, normed, q, k, v, attention output
    u128 ffn = resolved_ffn(m);
    if (m.num_experts != 0)  // routed copies of each token: top-k experts plus the shared expert
        ffn = u128{m.experts_per_token} * (m.moe_intermediate_size != 0 ? m.moe_intermediate_size : resolved_ffn(m)) +
              m.shared_expert_intermediate_size;
    const u128 mlp_live = 2 * h + (m.mlp == mlp_kind::gated ? 3 : 2) * ceil_div(ffn, tp);  // gate, up, product
    u128 workspace = tokens * std::max(attention_live, mlp_live) * 2;  // bf16 activations
    if (!inf.flash_attention)  // eager attention materialises fp16 scores and softmax: 2 + 2 bytes each
        workspace += u128{inf.batch} * ceil_div(m.num_attention_heads, tp) * prefill * prefill * 4;
    r.activations = workspace;
    if (i + 1 == p.pp && m.vocab_size != 0)  // last position's logits: bf16 output + fp32 copy for sampling
        r.logits = u128{inf.batch} * m.vocab_size * (2 + 4);
    return r;
}

}  // namespace memplan::detail
