// Transformer architectures: exact parameter counts, layer by layer, of a model whose family's
// defaults (families.cpp) are filled in. Counts follow the modules Hugging Face transformers
// instantiates for each family (the modelling file is named at each formula); tests pin them to
// published totals (Llama-2-7B 6,738,415,616; Llama-3-8B 8,030,261,248; Mixtral-8x7B 46,702,792,704
// total and 12,879,925,248 active; DeepSeek-V3 671,026,419,200; Qwen3-30B-A3B 30,532,122,624;
// gpt-oss-20b 20,914,757,184; Qwen3-8B 8,190,735,360).
#include "memplan/model/arch.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "base/checks.hpp"
#include "model/layer_build.hpp"

namespace memplan {

using detail::build_layer;
using detail::ceil_div;
using detail::layer_build;
using detail::matrix;
using detail::narrow;
using detail::u128;

namespace {
u128 norm_params(const model_config& m, u128 width) { return m.norm == norm_kind::layernorm ? 2 * width : width; }

/// MLP of width f: gated (gate_proj, up_proj h×f; down_proj f×h; SwiGLU, Shazeer 2020) or plain
/// (up h×f, down f×h; Vaswani et al. 2017, §3.3); biases when mlp_bias.
u128 add_mlp(const model_config& m, u128 f, const char* prefix, bool expert, u128 count, std::vector<matrix>& mats,
            u128 width = 0) {
    const u128 h = width != 0 ? width : m.hidden_size;  // the width it reads and writes (a latent MoE's experts)
    const bool gated = m.mlp == mlp_kind::gated;
    const std::string p = prefix;
    if (gated) {
        mats.push_back({p == "experts" ? "experts.gate_proj" : p == "shared_expert" ? "shared_expert.gate_proj" : "gate_proj", h, f, count, expert});
        mats.push_back({p == "experts" ? "experts.up_proj" : p == "shared_expert" ? "shared_expert.up_proj" : "up_proj", h, f, count, expert});
    } else {
        mats.push_back({p == "experts" ? "experts.up_proj" : p == "shared_expert" ? "shared_expert.up_proj" : "up_proj", h, f, count, expert});
    }
    mats.push_back({p == "experts" ? "experts.down_proj" : p == "shared_expert" ? "shared_expert.down_proj" : "down_proj", f, h, count, expert});
    const u128 weights = (gated ? 3 : 2) * h * f;
    const u128 biases = m.mlp_bias ? (gated ? 2 * f : f) + h : 0;
    return count * (weights + biases);
}

/// DeepSeek-V4's layer `i` (an MTP module's: num_hidden_layers + its index): its compression ratio.
u128 dsv4_ratio(const model_config& m, std::uint64_t i) { return i < m.compress_ratios.size() ? m.compress_ratios[i] : 0; }

/// The variant of layer `i` beyond its (attention, MLP) kinds: DeepSeek-V4's compression ratio and hash routing.
u128 layer_variant(const model_config& m, std::uint64_t i) {
    if (m.o_groups == 0) return 0;
    return 2 * dsv4_ratio(m, i) + (i < m.num_hash_layers ? 1 : 0);
}

}  // namespace

/// Layer `layer` (its index, for the per-layer variants of DeepSeek-V4; any other family ignores it).
layer_build detail::build_layer(const model_config& m, attention_kind a, layer_mlp_kind f, std::uint64_t layer) {
    layer_build L;
    const u128 h = m.hidden_size;
    const u128 heads = m.num_attention_heads;
    auto& mats = L.matrices;
    if (m.o_groups != 0 && a == attention_kind::sliding) {
        // DeepSeek-V4 (transformers modular_deepseek_v4.py at 02356fec, DeepseekV4Attention): q_a_proj h×q_lora,
        // q_norm q_lora, q_b_proj q_lora×a·d (q_head_norm has no weight); kv_proj h×d and kv_norm d (one shared-KV
        // head); o_a_proj, a DeepseekV4GroupedLinear of weight (g·o_lora)×(a·d/g), i.e. a·d·o_lora; o_b_proj
        // g·o_lora×h; sinks a. No biases.
        const u128 d = resolved_head_dim(m), q = m.q_lora_rank, g = m.o_groups, r = m.o_lora_rank;
        mats.push_back({"q_a_proj", h, q, 1, false});
        mats.push_back({"q_b_proj", q, heads * d, 1, false});
        mats.push_back({"kv_proj", h, d, 1, false});
        mats.push_back({"o_a_proj", heads * d / g, g * r, 1, false});
        mats.push_back({"o_b_proj", g * r, h, 1, false});
        L.attention = h * q + q + q * heads * d + h * d + d + heads * d * r + g * r * h + heads;
        const u128 ratio = dsv4_ratio(m, layer);
        if (ratio != 0) {
            // DeepseekV4CSACompressor (ratio 4, overlapping windows: coff 2) / DeepseekV4HCACompressor (coff 1):
            // kv_proj and gate_proj h×coff·d, position_bias ratio×coff·d, kv_norm d. Not packed matrices: vLLM builds
            // the compressors' fused wkv/wgate with quant_config None (bf16 in the checkpoint; position_bias fp32).
            const u128 coff = ratio == 4 ? 2 : 1;
            L.attention += 2 * h * coff * d + ratio * coff * d + d;
            if (ratio == 4) {
                // DeepseekV4Indexer (CSA only, coff 2): kv_proj and gate_proj h×2·di, position_bias ratio×2·di,
                // kv_norm di, q_b_proj q_lora×ni·di, weights_proj h×ni. Only q_b_proj is a packed matrix (its own
                // compressor is bf16 as above; weights_proj unquantized as DeepSeek-V3.2's).
                const u128 ni = m.index_n_heads, di = m.index_head_dim;
                mats.push_back({"compressor.indexer.q_b_proj", q, ni * di, 1, false});
                L.attention += 2 * h * 2 * di + ratio * 2 * di + di + q * ni * di + h * ni;
            }
        }
    } else switch (a) {
        case attention_kind::full:
        case attention_kind::sliding:
        case attention_kind::chunked: {
            // q h×(a·d) (×2 with an output gate, modeling_qwen3_next.py), k and v h×(kv·d), o (a·d)×h
            // (Vaswani et al. 2017, §3.2.2; GQA: Ainslie et al. 2023); explicit head_dim may exceed h/a.
            // A value width of its own (v_head_dim, not MLA) makes v h×(kv·dv) and o (a·dv)×h, and sliding layers
            // may have their own KV heads (vLLM vllm/model_executor/models/mimo_v2_flash.py MiMoV2Attention at 01ed47b4).
            // Full layers may have their own head width and KV heads, and no v_proj where the values are the key
            // projection (transformers src/transformers/models/gemma4/modeling_gemma4.py Gemma4TextAttention at
            // c308a309: global_head_dim, num_global_key_value_heads and v_proj None with attention_k_eq_v).
            const bool full = a == attention_kind::full;
            const u128 d = full && m.full_head_dim != 0 ? u128{m.full_head_dim} : u128{resolved_head_dim(m)};
            const u128 dv = m.v_head_dim != 0 && m.kv_lora_rank == 0 ? u128{m.v_head_dim} : d;
            const u128 kv_heads = a == attention_kind::sliding && m.sliding_num_key_value_heads != 0
                                      ? u128{m.sliding_num_key_value_heads}
                                  : full && m.full_num_key_value_heads != 0 ? u128{m.full_num_key_value_heads}
                                                                            : u128{resolved_kv_heads(m)};
            const u128 q = heads * d * (m.attention_output_gate ? 2 : 1);
            const u128 kv = kv_heads * d;
            const u128 v = full && m.full_value_from_key ? 0 : kv_heads * dv;
            mats.push_back({"q_proj", h, q, 1, false});
            mats.push_back({"k_proj", h, kv, 1, false});
            if (v != 0) mats.push_back({"v_proj", h, v, 1, false});
            mats.push_back({"o_proj", heads * dv, h, 1, false});
            L.attention = h * q + h * kv + h * v + heads * dv * h;
            L.attention += (m.qkv_bias ? q + kv + v : 0) + (m.attention_out_bias ? h : 0);
            if (m.qk_norm && m.qk_norm_full_width)  // q_norm a·d, k_norm kv·d (modeling_olmo2.py Olmo2Attention)
                L.attention += norm_params(m, heads * d) + norm_params(m, kv);
            else if (m.qk_norm)
                L.attention += 2 * norm_params(m, d);  // q_norm, k_norm over head_dim (modeling_qwen3.py)
            if (m.attention_sinks) L.attention += heads;           // sinks, one per head (modeling_gpt_oss.py)
            // MiMo-V2-Flash: attention_sink_bias, one per head, on the sliding layers only (mimo_v2_flash.py at 01ed47b4).
            else if (m.sliding_attention_sinks && a == attention_kind::sliding) L.attention += heads;
            break;
        }
        case attention_kind::mla: {
            // modeling_deepseek_v3.py DeepseekV3Attention: q_a_proj h×q_lora, q_a_layernorm, q_b_proj
            // q_lora×a·(nope+rope) (or q_proj h×a·(nope+rope) without q_lora_rank); kv_a_proj_with_mqa
            // h×(kv_lora+rope), kv_a_layernorm, kv_b_proj kv_lora×a·(nope+v); o_proj a·v×h.
            const u128 qk = u128{m.qk_nope_head_dim} + m.qk_rope_head_dim;
            const u128 bias = m.qkv_bias ? 1 : 0;
            if (m.q_lora_rank != 0) {
                mats.push_back({"q_a_proj", h, m.q_lora_rank, 1, false});
                mats.push_back({"q_b_proj", m.q_lora_rank, heads * qk, 1, false});
                L.attention += h * m.q_lora_rank + bias * m.q_lora_rank + m.q_lora_rank + u128{m.q_lora_rank} * heads * qk;
            } else {
                mats.push_back({"q_proj", h, heads * qk, 1, false});
                L.attention += h * heads * qk;
            }
            const u128 kv_a = u128{m.kv_lora_rank} + m.qk_rope_head_dim;
            mats.push_back({"kv_a_proj_with_mqa", h, kv_a, 1, false});
            mats.push_back({"kv_b_proj", m.kv_lora_rank, heads * (u128{m.qk_nope_head_dim} + m.v_head_dim), 1, false});
            mats.push_back({"o_proj", heads * m.v_head_dim, h, 1, false});
            L.attention += h * kv_a + bias * kv_a + m.kv_lora_rank +
                           u128{m.kv_lora_rank} * heads * (u128{m.qk_nope_head_dim} + m.v_head_dim) +
                           heads * m.v_head_dim * h + bias * h;
            if (m.index_n_heads != 0) {
                // DeepSeek-V3.2-Exp inference/model.py Indexer (vLLM deepseek_v2.py Indexer at 002d6073): wq_b
                // q_lora×(index_n_heads·index_head_dim), wk h×index_head_dim, k_norm a LayerNorm (weight and bias)
                // over index_head_dim, weights_proj h×index_n_heads; no biases. weights_proj is bf16 in the
                // checkpoint (that file's comment) and unquantized in vLLM (quant_config=None): not a packed matrix.
                const u128 n = m.index_n_heads, d = m.index_head_dim;
                mats.push_back({"indexer.wq_b", m.q_lora_rank, n * d, 1, false});
                mats.push_back({"indexer.wk", h, d, 1, false});
                L.attention += u128{m.q_lora_rank} * n * d + h * d + 2 * d + h * n;
            }
            break;
        }
        case attention_kind::linear: {
            if (m.linear_kda) {
                // vLLM vllm/model_executor/layers/kda.py (commit 01a7e5d91d42e6232d746d12f898a590f1ee77f9)
                // KimiDeltaAttention, nh heads of d, P = nh · d: q_proj, k_proj, v_proj h×P; f_a_proj h×d and
                // f_b_proj d×P (decay gate); dt_bias P; b_proj h×nh; q/k/v_conv1d P×K each, no bias; A_log nh;
                // g_a_proj h×d and g_b_proj d×P (output gate); o_norm d; o_proj P×h; no biases.
                const u128 nh = m.linear_num_value_heads, d = m.linear_value_head_dim, P = nh * d;
                for (const char* name : {"q_proj", "k_proj", "v_proj"}) mats.push_back({name, h, P, 1, false});
                mats.push_back({"f_a_proj", h, d, 1, false});
                mats.push_back({"f_b_proj", d, P, 1, false});
                mats.push_back({"b_proj", h, nh, 1, false});
                mats.push_back({"g_a_proj", h, d, 1, false});
                mats.push_back({"g_b_proj", d, P, 1, false});
                mats.push_back({"o_proj", P, h, 1, false});
                L.attention = 3 * h * P + (h * d + d * P) + P + h * nh + 3 * P * m.linear_conv_kernel_dim + nh +
                              (h * d + d * P) + d + P * h;
                break;
            }
            // modeling_qwen3_next.py Qwen3NextGatedDeltaNet: in_proj_qkvz h×(2·nk·dk + 2·nv·dv), in_proj_ba
            // h×2nv, conv1d (2·nk·dk + nv·dv)×K without bias, dt_bias nv, A_log nv, gated norm dv, out_proj nv·dv×h.
            const u128 key = u128{m.linear_num_key_heads} * m.linear_key_head_dim;
            const u128 value = u128{m.linear_num_value_heads} * m.linear_value_head_dim;
            const u128 nv = m.linear_num_value_heads;
            mats.push_back({"in_proj_qkvz", h, 2 * key + 2 * value, 1, false});
            mats.push_back({"in_proj_ba", h, 2 * nv, 1, false});
            mats.push_back({"out_proj", value, h, 1, false});
            L.attention = h * (2 * key + 2 * value) + h * 2 * nv + (2 * key + value) * m.linear_conv_kernel_dim + 2 * nv +
                          m.linear_value_head_dim + value * h;
            break;
        }
        case attention_kind::mamba: {
            const u128 I = m.mamba_d_inner, N = m.mamba_d_state, K = m.mamba_d_conv;
            const u128 proj_bias = m.mamba_proj_bias ? 1 : 0, conv_bias = m.mamba_conv_bias ? 1 : 0;
            if (m.mamba_version == 1) {
                // modeling_jamba.py JambaMambaMixer: in_proj h×2I, conv1d I×K (+I), x_proj I×(R + 2N),
                // dt_proj R×I + I, A_log I×N, D I, out_proj I×h, dt/b/c layernorms R + N + N.
                const u128 R = m.mamba_dt_rank;
                mats.push_back({"in_proj", h, 2 * I, 1, false});
                mats.push_back({"x_proj", I, R + 2 * N, 1, false});
                mats.push_back({"dt_proj", R, I, 1, false});
                mats.push_back({"out_proj", I, h, 1, false});
                L.attention = h * 2 * I + proj_bias * 2 * I + I * K + conv_bias * I + I * (R + 2 * N) + R * I + I +
                              I * N + I + I * h + proj_bias * h + R + 2 * N;
            } else {
                // modeling_nemotron_h.py NemotronHMamba2Mixer: in_proj h×(2I + 2GN + nh), conv1d (I + 2GN)×K
                // (+ bias), dt_bias, A_log, D (nh each), gated RMSNorm I, out_proj I×h.
                const u128 G = m.mamba_n_groups, nh = m.mamba_num_heads;
                const u128 conv = I + 2 * G * N;
                mats.push_back({"in_proj", h, 2 * I + 2 * G * N + nh, 1, false});
                mats.push_back({"out_proj", I, h, 1, false});
                L.attention = h * (2 * I + 2 * G * N + nh) + proj_bias * (2 * I + 2 * G * N + nh) + conv * K +
                              conv_bias * conv + 3 * nh + I + I * h + proj_bias * h;
            }
            break;
        }
        case attention_kind::none: break;
    }
    for (auto& x : mats) x.mixer = true;  // every matrix so far projects for the mixer
    if (f == layer_mlp_kind::dense) {
        L.mlp = add_mlp(m, resolved_ffn(m), "", false, 1, mats);
    } else if (f == layer_mlp_kind::moe) {
        // MoE (Fedus et al. 2022; Jiang et al. 2024, Mixtral §2.1): E experts of moe_intermediate_size, a
        // router h×E (+ E bias: gpt-oss router bias, DeepSeek-V3 e_score_correction_bias), optionally a
        // shared expert (DeepSeek: moe_intermediate_size · n_shared_experts wide) with a sigmoid gate h×1
        // (Qwen2-MoE, Qwen3-Next).
        const u128 expert_ffn = m.moe_intermediate_size != 0 ? m.moe_intermediate_size : resolved_ffn(m);
        // Latent MoE (transformers modeling_nemotron_h.py NemotronHMoE at 008d9e95): the experts read and write
        // moe_latent_size, fc1_latent_proj h×latent and fc2_latent_proj latent×h (biases with mlp_bias) around them.
        const u128 latent = m.moe_latent_size;
        if (latent != 0) {
            mats.push_back({"fc1_latent_proj", h, latent, 1, false});
            mats.push_back({"fc2_latent_proj", latent, h, 1, false});
            L.mlp = 2 * h * latent + (m.mlp_bias ? latent + h : 0);
        }
        std::vector<matrix> one;
        const u128 one_expert = add_mlp(m, expert_ffn, "experts", true, 1, one, latent);
        for (auto& mat : one) mat.count = m.num_experts;
        mats.insert(mats.end(), one.begin(), one.end());
        L.experts = u128{m.num_experts} * one_expert;
        L.experts_active = u128{m.experts_per_token} * one_expert;
        L.router = h * m.num_experts + (m.router_bias ? m.num_experts : 0);
        // DeepSeek-V4's first num_hash_layers layers (modular_deepseek_v4.py DeepseekV4HashRouter): no
        // e_score_correction_bias but the tid2eid table, vocab_size × top-k (a persistent buffer in the checkpoint).
        if (m.o_groups != 0 && layer < m.num_hash_layers)
            L.router = h * m.num_experts + u128{m.vocab_size} * m.experts_per_token;
        // Gemma 4 (modeling_gemma4.py Gemma4TextRouter at c308a309): scale over h and per_expert_scale over E; its norm
        // has no weight.
        if (m.router_scales) L.router += h + m.num_experts;
        if (m.shared_expert_intermediate_size != 0)
            L.shared = add_mlp(m, m.shared_expert_intermediate_size, "shared_expert", false, 1, mats) +
                       (m.shared_expert_gate ? h : 0);
    }
    L.norms = u128{m.norms_per_layer} * norm_params(m, h);
    // Gemma 4's layer_scalar: a buffer of one element per decoder layer, stored in the checkpoint (modeling_gemma4.py
    // Gemma4TextDecoderLayer at c308a309, register_buffer("layer_scalar", torch.ones(1))).
    if (m.layer_scalar) L.norms += 1;
    // Manifold-constrained hyper-connections (modular_deepseek_v4.py DeepseekV4HyperConnection, attn_hc and ffn_hc):
    // each fn (2+m)·m × m·h, base (2+m)·m, scale 3.
    if (m.hc_mult != 0) {
        const u128 hc = m.hc_mult, mix = (2 + hc) * hc;
        L.norms += 2 * (mix * hc * h + mix + 3);
    }
    return L;
}

namespace {
/// Bytes of one matrix kind in the checkpoint's native format, and the scales among them.
struct packed_bytes {
    u128 bytes = 0, scales = 0;
};
packed_bytes native_matrix(const model_config& m, const matrix& x) {
    const u128 n = x.d_in * x.d_out;
    packed_bytes p;
    switch (m.checkpoint) {
        case checkpoint_format::none: p.bytes = 2 * n; break;
        case checkpoint_format::fp8_block: {
            // DeepSeek-V3 inference/convert.py + kernel.py: e4m3 weight and an fp32 weight_scale_inv per
            // block of B×B (B = weight_block_size, 128), partial edge blocks included.
            const u128 b = m.quant_block != 0 ? m.quant_block : 128;
            p.scales = ceil_div(x.d_out, b) * ceil_div(x.d_in, b) * 4;
            p.bytes = n + p.scales;
            break;
        }
        case checkpoint_format::mxfp4:
            // OCP Microscaling spec v1.0 §5: 32 FP4 values share one E8M0 scale byte (4.25 bits per weight).
            p.scales = x.d_out * ceil_div(x.d_in, 32);
            p.bytes = ceil_div(n, 2) + p.scales;
            break;
        case checkpoint_format::nf4: {
            // bitsandbytes 4-bit (Dettmers et al. 2023, QLoRA §3): one fp32 absmax per block of 64 weights.
            const u128 b = m.quant_block != 0 ? m.quant_block : 64;
            // Double quantization (QLoRA §3): int8 absmax per block and an fp32 constant per 256 of them.
            p.scales = m.quant_double ? ceil_div(n, b) + ceil_div(ceil_div(n, b), 256) * 4 : ceil_div(n, b) * 4;
            p.bytes = ceil_div(n, 2) + p.scales;
            break;
        }
        case checkpoint_format::int8:
            // bitsandbytes LLM.int8() (Dettmers et al. 2022, §3): row-wise fp32 scale (SCB) per output row.
            p.scales = x.d_out * 4;
            p.bytes = n + p.scales;
            break;
        case checkpoint_format::int4_group: {
            // AWQ / GPTQ (Lin et al. 2024 §3; Frantar et al. 2023 §4): 4-bit weights, per group of G along
            // the input an fp16 scale and a packed 4-bit zero point.
            const u128 g = m.quant_block != 0 ? m.quant_block : 128;
            const u128 groups = x.d_out * ceil_div(x.d_in, g);
            if (m.quant_symmetric) {
                // compressed-tensors pack_quantized.py (PackedQuantizationCompressor.compression_param_info):
                // weight_packed int32 (d_out, ⌈d_in / 8⌉), weight_shape int32 (2), a weight_scale per group in the
                // checkpoint's dtype (bf16) and no weight_zero_point for symmetric groups.
                p.scales = groups * 2 + 8 + (m.quant_g_idx ? 4 * x.d_in : 0);
                p.bytes = x.d_out * ceil_div(x.d_in, 8) * 4 + p.scales;
                break;
            }
            p.scales = groups * 2 + ceil_div(groups, 2) + (m.quant_g_idx ? 4 * x.d_in : 0);  // GPTQ g_idx int32
            p.bytes = ceil_div(n, 2) + p.scales;
            break;
        }
        case checkpoint_format::nvfp4: {
            // NVIDIA ModelOpt NVFP4 (TensorRT Model Optimizer, modelopt/torch/quantization/qtensor/nvfp4_tensor.py):
            // e2m1 values two per byte (weight), an e4m3 scale per 16 along the input (weight_scale), and the fp32
            // weight_scale_2 and input_scale of the matrix.
            const u128 g = m.quant_block != 0 ? m.quant_block : 16;
            p.scales = x.d_out * ceil_div(x.d_in, g) + 2 * 4;
            p.bytes = ceil_div(n, 2) + p.scales;
            break;
        }
        case checkpoint_format::fp8_tensor:
            // ModelOpt FP8 (per-tensor): e4m3 weight, fp32 weight_scale and input_scale of the matrix.
            p.scales = 2 * 4;
            p.bytes = n + p.scales;
            break;
    }
    return p;
}

/// The layer's parameters summarised, with its native checkpoint bytes.
struct layer_summary {
    u128 total = 0, active = 0, experts = 0, linear = 0, expert_linear = 0;
    u128 native = 0, native_expert = 0, native_scales = 0, native_fp32 = 0, packed_dense = 0, packed_expert = 0;
};
layer_summary summarise(const model_config& m, const layer_build& L) {
    layer_summary s;
    s.total = L.total();
    s.active = L.active();
    s.experts = L.experts;
    u128& packed_dense = s.packed_dense;  // parameters that are packed, per side
    u128& packed_expert = s.packed_expert;
    for (const auto& x : L.matrices) {
        const u128 weights = x.d_in * x.d_out * x.count;
        (x.expert ? s.expert_linear : s.linear) += weights;
        const bool quantized = m.checkpoint != checkpoint_format::none && (x.expert || !m.quant_experts_only) &&
                               !(x.mixer && m.quant_mixer_kept);
        if (!quantized) continue;
        const packed_bytes p = native_matrix(m, x);
        (x.expert ? s.native_expert : s.native) += p.bytes * x.count;
        (x.expert ? packed_expert : packed_dense) += weights;
        s.native_scales += p.scales * x.count;
    }
    // Everything not packed (biases, norms, router, unquantized matrices) stays bf16.
    s.native += 2 * (s.total - s.experts - packed_dense);
    s.native_expert += 2 * (s.experts - packed_expert);
    // but the router's correction bias of an FP8 checkpoint is fp32 (DeepSeek-V3 inference/model.py,
    // Gate: nn.Parameter(torch.empty(n_routed_experts, dtype=torch.float32))).
    if (m.checkpoint == checkpoint_format::fp8_block && m.router_bias && L.router != 0) {
        s.native += 2 * u128{m.num_experts};
        s.native_fp32 += 4 * u128{m.num_experts};
    }
    return s;
}

/// `n` layers of summary `s` as layer_params, each count clamped (parameters at max_param_count + 1,
/// bytes at 4 · max_param_count) so that a model too large to support is refused by the total's
/// check and no count wraps.
layer_params clamped_params(const layer_summary& s, u128 n, attention_kind attention, layer_mlp_kind mlp) {
    const auto count = [n](u128 v) { return narrow(std::min<u128>(n * v, max_param_count + 1)); };
    const auto bytes = [n](u128 v) { return narrow(std::min<u128>(n * v, 4 * u128{max_param_count})); };
    layer_params lp;
    lp.attention = attention;
    lp.mlp = mlp;
    lp.total = count(s.total);
    lp.active = count(s.active);
    lp.experts = count(s.experts);
    lp.linear = count(s.linear);
    lp.expert_linear = count(s.expert_linear);
    lp.native_bytes = bytes(s.native);
    lp.native_expert_bytes = bytes(s.native_expert);
    lp.native_scale_bytes = bytes(s.native_scales);
    lp.native_fp32_bytes = bytes(s.native_fp32);
    lp.packed_params = count(s.packed_dense);
    lp.packed_expert_params = count(s.packed_expert);
    return lp;
}
}  // namespace

namespace {
/// The counts of layer_params, the kinds aside.
constexpr std::uint64_t layer_params::*layer_counts[] = {
    &layer_params::total,        &layer_params::active,       &layer_params::experts,
    &layer_params::linear,       &layer_params::expert_linear, &layer_params::native_bytes,
    &layer_params::native_expert_bytes, &layer_params::native_scale_bytes, &layer_params::native_fp32_bytes,
    &layer_params::packed_params,       &layer_params::packed_expert_params};
}  // namespace

layer_params& layer_params::operator+=(const layer_params& other) {
    for (const auto count : layer_counts) this->*count += other.*count;
    return *this;
}

layer_params& layer_params::operator*=(std::uint64_t n) {
    for (const auto count : layer_counts) this->*count *= n;
    return *this;
}

bool layer_params::operator==(const layer_params& other) const {
    for (const auto count : layer_counts)
        if (count != &layer_params::active && this->*count != other.*count) return false;
    return true;
}

outcome<param_breakdown> count_params(const model_config& m) {
    outcome<param_breakdown> out;
    if (m.num_hidden_layers == 0 || m.hidden_size == 0 || m.num_attention_heads == 0) {
        out.errors.push_back({"model", "needs num_hidden_layers, hidden_size and num_attention_heads"});
        return out;
    }
    out.errors = validate_architecture(m);
    if (!out.ok()) return out;
    const u128 h = m.hidden_size;
    const auto attention = resolved_layer_attention(m);
    const auto mlps = resolved_layer_mlp(m);
    param_breakdown& p = out.value;

    // Sums by place, over the layers.
    u128 attn = 0, mlp = 0, experts = 0, experts_active = 0, shared = 0, router = 0, norms = 0;
    u128 total = 0, active = 0;
    layer_summary largest;
    // A layer's counts depend only on its (attention, MLP) kinds: each distinct pair is built once.
    struct built_kind {
        attention_kind attention;
        layer_mlp_kind mlp;
        u128 variant;
        layer_build build;
        layer_summary summary;
    };
    std::vector<built_kind> built;
    for (std::uint64_t i = 0; i < m.num_hidden_layers; ++i) {
        const u128 variant = layer_variant(m, i);
        auto b = std::find_if(built.begin(), built.end(), [&](const built_kind& k) {
            return k.attention == attention[i] && k.mlp == mlps[i] && k.variant == variant;
        });
        if (b == built.end()) {
            layer_build L = build_layer(m, attention[i], mlps[i], i);
            const layer_summary summary = summarise(m, L);
            built.push_back({attention[i], mlps[i], variant, std::move(L), summary});
            b = built.end() - 1;
        }
        const layer_build& L = b->build;
        attn += L.attention;
        mlp += L.mlp;
        experts += L.experts;
        experts_active += L.experts_active;
        shared += L.shared;
        router += L.router;
        norms += L.norms;
        const layer_summary& s = b->summary;
        total += s.total;
        active += s.active;
        p.layers.push_back(clamped_params(s, 1, attention[i], mlps[i]));
        if (i == 0 || s.total > largest.total) largest = s;
        if (total > max_param_count) break;
    }
    // DeepSeek-V4's hc_head (modular_deepseek_v4.py DeepseekV4HyperHead: hc_fn m × m·h, hc_base m, hc_scale 1),
    // counted with the final norm.
    const u128 hc_head = m.hc_mult != 0 ? u128{m.hc_mult} * m.hc_mult * h + m.hc_mult + 1 : 0;
    const u128 final_norm = norm_params(m, h) + hc_head;
    const u128 embedding = u128{m.vocab_size} * h + u128{m.learned_positions} * h;
    const u128 lm_head = m.tie_word_embeddings ? 0 : u128{m.vocab_size} * h;

    // Multi-token prediction (DeepSeek-V3 §2.2; modeling in DeepSeek-V3 inference/model.py and vLLM
    // deepseek_mtp.py): per module one decoder layer like the last one, enorm and hnorm (h each),
    // eh_proj 2h×h and shared_head.norm (h); its copies of the embedding and output head are the
    // main model's and are not counted again.
    u128 mtp = 0, mtp_active = 0;
    layer_summary mtp_layer;
    if (m.mtp && m.num_nextn_predict_layers != 0 && m.o_groups != 0) {
        // DeepSeek-V4 (vLLM vllm/model_executor/models/deepseek_v4_mtp.py at 023da1fc,
        // DeepSeekV4MultiTokenPredictorLayer): enorm, hnorm, e_proj and h_proj h×h (quantized like the other
        // linears), hc_head_fn m × m·h, hc_head_base m, hc_head_scale 1, shared_head.norm h, and mtp_block, a decoder
        // layer numbered num_hidden_layers (its compress_ratios entry, score routing); embedding and head shared.
        const std::uint64_t index = m.num_hidden_layers;
        layer_build L = build_layer(m, attention.back(), mlps.back(), index);
        L.matrices.push_back({"e_proj", h, h, 1, false});
        L.matrices.push_back({"h_proj", h, h, 1, false});
        L.attention += 2 * h * h;
        L.norms += 3 * norm_params(m, h) + hc_head;
        mtp_layer = summarise(m, L);
        const u128 n = m.num_nextn_predict_layers;
        mtp = n * mtp_layer.total;
        mtp_active = n * mtp_layer.active;
        p.mtp_layer = clamped_params(mtp_layer, n, attention.back(), mlps.back());
    } else if (m.mtp && m.num_nextn_predict_layers != 0) {
        const layer_build L = build_layer(m, attention.back(), mlps.back());
        layer_build extra;
        extra.matrices.push_back({"eh_proj", 2 * h, h, 1, false});
        extra.attention = 2 * h * h;
        const u128 module_extra = 2 * h * h + 3 * norm_params(m, h);
        mtp_layer = summarise(m, L);
        // eh_proj stays bf16 in a quantized checkpoint: vLLM's deepseek_mtp.py (v0.11.0) builds it as a
        // plain nn.Linear without quant_config, so FP8 checkpoints store it without weight_scale_inv.
        model_config unquantized = m;
        unquantized.checkpoint = checkpoint_format::none;
        const layer_summary ex = summarise(unquantized, extra);
        mtp_layer.total += module_extra;
        mtp_layer.active += module_extra;
        mtp_layer.linear += ex.linear;
        mtp_layer.native += ex.native + 2 * (3 * norm_params(m, h));
        mtp_layer.native_scales += ex.native_scales;
        mtp_layer.packed_dense += ex.packed_dense;
        const u128 n = m.num_nextn_predict_layers;
        mtp = n * mtp_layer.total;
        mtp_active = n * mtp_layer.active;
        p.mtp_layer = clamped_params(mtp_layer, n, attention.back(), mlps.back());
    }
    const u128 vision = m.vision_params;
    const u128 all = total + embedding + lm_head + final_norm + mtp + vision;
    if (all > max_param_count) {
        out.errors.push_back({"model", "has more than " + detail::to_decimal(max_param_count) +
                                           " parameters, the largest count memplan supports"});
        out.value = param_breakdown{};
        return out;
    }
    p.total = narrow(all);
    // The vision tower is counted as active: image tokens pass through all of it.
    p.active = narrow(active + embedding + lm_head + final_norm + mtp_active + vision);
    p.embedding = narrow(embedding);
    p.lm_head = narrow(lm_head);
    p.final_norm = narrow(final_norm);
    p.per_layer = narrow(largest.total);
    p.per_layer_active = narrow(largest.active);
    p.per_layer_experts = narrow(largest.experts);
    p.per_layer_linear = narrow(largest.linear);
    p.per_layer_expert_linear = narrow(largest.expert_linear);
    p.vision = narrow(vision);
    model_param_parts& q = p.parts;
    q.embedding = {narrow(embedding), narrow(embedding)};
    q.attention = {narrow(attn), narrow(attn)};
    q.mlp = {narrow(mlp), narrow(mlp)};
    q.experts = {narrow(experts), narrow(experts_active)};
    q.shared_experts = {narrow(shared), narrow(shared)};
    q.router = {narrow(router), narrow(router)};
    q.norms = {narrow(norms + final_norm), narrow(norms + final_norm)};
    q.output = {narrow(lm_head), narrow(lm_head)};
    q.mtp = {narrow(mtp), narrow(mtp_active)};
    q.vision = {narrow(vision), narrow(vision)};
    return out;
}

}  // namespace memplan
