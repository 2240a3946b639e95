// Transformer architectures: the derived sizes of a model whose family's defaults (families.cpp) are
// filled in, its layer kinds and their validation, the warnings an architecture gives, the linear modules
// adapters target and the KV cache's layer groups. The exact parameter counts, layer by layer, are in
// params.cpp (the layers themselves built by build_layer, layer_build.hpp).
#include "memplan/model/arch.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "base/checks.hpp"
#include "model/layer_build.hpp"

namespace memplan {

using detail::build_layer;
using detail::narrow;
using detail::u128;

std::uint64_t resolved_head_dim(const model_config& m) {
    if (m.head_dim != 0) return m.head_dim;
    return m.num_attention_heads != 0 ? m.hidden_size / m.num_attention_heads : 0;
}
std::uint64_t resolved_kv_heads(const model_config& m) {
    return m.num_key_value_heads != 0 ? m.num_key_value_heads : m.num_attention_heads;
}
std::uint64_t resolved_ffn(const model_config& m) {
    return m.intermediate_size != 0 ? m.intermediate_size : 4 * m.hidden_size;
}
std::uint64_t resolved_sliding_layers(const model_config& m) {
    if (!m.layer_attention.empty()) {
        std::uint64_t n = 0;
        for (auto k : m.layer_attention) n += k == attention_kind::sliding ? 1 : 0;
        return n;
    }
    if (m.sliding_window == 0) return 0;
    return m.sliding_window_layers != 0 ? m.sliding_window_layers : m.num_hidden_layers;
}

std::vector<attention_kind> resolved_layer_attention(const model_config& m) {
    if (m.layer_attention.size() == m.num_hidden_layers) return m.layer_attention;
    std::vector<attention_kind> kinds(m.num_hidden_layers,
                                      m.kv_lora_rank != 0 ? attention_kind::mla : attention_kind::full);
    // Uniform models: the last sliding_window_layers layers slide (Qwen2's max_window_layers order).
    const std::uint64_t sliding = m.kv_lora_rank != 0 ? 0 : resolved_sliding_layers(m);
    for (std::uint64_t i = m.num_hidden_layers - std::min(sliding, m.num_hidden_layers); i < m.num_hidden_layers; ++i)
        kinds[i] = attention_kind::sliding;
    return kinds;
}

std::vector<layer_mlp_kind> resolved_layer_mlp(const model_config& m) {
    if (m.layer_mlp.size() == m.num_hidden_layers) return m.layer_mlp;
    return std::vector<layer_mlp_kind>(m.num_hidden_layers, m.num_experts != 0 ? layer_mlp_kind::moe : layer_mlp_kind::dense);
}

layer_kind_counts count_layer_kinds(const model_config& m) {
    layer_kind_counts c;
    for (auto k : resolved_layer_attention(m)) {
        switch (k) {
            case attention_kind::full: ++c.full; break;
            case attention_kind::sliding: ++c.sliding; break;
            case attention_kind::chunked: ++c.chunked; break;
            case attention_kind::mla: ++c.mla; break;
            case attention_kind::linear: ++c.linear; break;
            case attention_kind::mamba: ++c.mamba; break;
            case attention_kind::none: ++c.no_attention; break;
        }
    }
    for (auto k : resolved_layer_mlp(m)) {
        if (k == layer_mlp_kind::dense) ++c.dense;
        else if (k == layer_mlp_kind::moe) ++c.moe;
        else ++c.no_mlp;
    }
    return c;
}

diagnostics validate_architecture(const model_config& m) {
    diagnostics errors;
    if (m.num_hidden_layers == 0 || m.hidden_size == 0 || m.num_attention_heads == 0) return errors;
    if (m.head_dim == 0 && m.kv_lora_rank == 0 && m.hidden_size % m.num_attention_heads != 0)
        errors.push_back({"model.hidden_size", "must be divisible by model.num_attention_heads (" +
                                                   std::to_string(m.num_attention_heads) +
                                                   ") when model.head_dim is not given"});
    const std::uint64_t kv = resolved_kv_heads(m);
    if (kv > m.num_attention_heads || m.num_attention_heads % kv != 0)
        errors.push_back({"model.num_key_value_heads", "must divide model.num_attention_heads (" +
                                                           std::to_string(m.num_attention_heads) + ")"});
    const std::uint64_t sliding_kv = m.sliding_num_key_value_heads;
    if (sliding_kv != 0 && (sliding_kv > m.num_attention_heads || m.num_attention_heads % sliding_kv != 0))
        errors.push_back({"model.sliding_num_key_value_heads", "must divide model.num_attention_heads (" +
                                                                   std::to_string(m.num_attention_heads) + ")"});
    const std::uint64_t full_kv = m.full_num_key_value_heads;
    if (full_kv != 0 && (full_kv > m.num_attention_heads || m.num_attention_heads % full_kv != 0))
        errors.push_back({"model.full_num_key_value_heads", "must divide model.num_attention_heads (" +
                                                                std::to_string(m.num_attention_heads) + ")"});
    if (m.full_value_from_key && m.v_head_dim != 0)
        errors.push_back({"model.full_value_from_key", "cannot be true with model.v_head_dim: values that are the key "
                                                       "projection have the key's width"});
    if (m.num_experts != 0 && (m.experts_per_token == 0 || m.experts_per_token > m.num_experts))
        errors.push_back({"model.num_experts_per_tok", "must be from 1 to the number of experts (" +
                                                           std::to_string(m.num_experts) + ")"});
    if (m.num_experts == 0 && m.experts_per_token != 0)
        errors.push_back({"model.num_experts_per_tok", "needs model.num_local_experts (or num_experts)"});
    if (m.sliding_window_layers > m.num_hidden_layers)
        errors.push_back({"model.sliding_window_layers", "must not exceed model.num_hidden_layers (" +
                                                             std::to_string(m.num_hidden_layers) + ")"});
    const std::string layers = std::to_string(m.num_hidden_layers);
    if (!m.layer_attention.empty() && m.layer_attention.size() != m.num_hidden_layers)
        errors.push_back({"model.layer_types", "must list one entry per layer (" + layers + ")"});
    if (!m.layer_mlp.empty() && m.layer_mlp.size() != m.num_hidden_layers)
        errors.push_back({"model.mlp_layer_types", "must list one entry per layer (" + layers + ")"});
    if (!errors.empty()) return errors;
    const layer_kind_counts k = count_layer_kinds(m);
    if (k.moe != 0 && m.num_experts == 0)
        errors.push_back({"model.mlp_layer_types", "lists moe layers but model.num_local_experts is 0"});
    if (k.sliding != 0 && m.sliding_window == 0)
        errors.push_back({"model.sliding_window", "is required by the sliding layers of model.layer_types"});
    // The MTP module is counted as a decoder layer like the model's last (DeepSeek-V3); a model whose last layer
    // has no attention (Nemotron-H's, an MoE layer, its MTP block an attention and an MoE layer: vLLM
    // nemotron_h_mtp.py at 01ca2773) has another module, not counted yet.
    if (m.mtp && m.num_nextn_predict_layers != 0 && !m.layer_attention.empty() &&
        m.layer_attention.back() == attention_kind::none)
        errors.push_back({"model.mtp", "cannot be true for a model whose last layer has no attention (Nemotron-H's "
                                       "MTP block of an attention and an MoE layer is not counted yet): set it false"});
    if (k.chunked != 0 && m.attention_chunk_size == 0)
        errors.push_back({"model.attention_chunk_size", "is required by the chunked layers of model.layer_types"});
    if (k.mla != 0 && (m.kv_lora_rank == 0 || m.qk_nope_head_dim + m.qk_rope_head_dim == 0 || m.v_head_dim == 0))
        errors.push_back({"model.kv_lora_rank", "MLA layers need kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim and v_head_dim"});
    // A checkpoint's recurrent state is kept in a float type (vLLM mamba_utils.py MambaStateDtypeCalculator).
    if (m.ssm_state_dtype != dtype::fp32 && m.ssm_state_dtype != dtype::bf16 && m.ssm_state_dtype != dtype::fp16)
        errors.push_back({"model.ssm_state_dtype", "must be fp32, bf16 or fp16"});
    // A rotary width wider than a head rotates channels that do not exist (RoFormer §3.2: pairs of a head's channels).
    if (m.rotary_dim != 0 && m.rotary_dim > resolved_head_dim(m))
        errors.push_back({"model.rotary_dim", "must be at most the head width (" + std::to_string(resolved_head_dim(m)) +
                                                  "); 0 rotates the whole head"});
    // DeepSeek Sparse Attention's indexer: wq_b reads the query latent and both caches keep an fp32 scale per 128
    // values (DeepSeek-V3.2-Exp inference/model.py Indexer; sparse_mla_token_bytes).
    if ((m.index_n_heads == 0) != (m.index_head_dim == 0))
        errors.push_back({"model.index_n_heads", "the sparse-attention indexer needs both index_n_heads and index_head_dim"});
    else if (m.o_groups != 0) {
        // DeepSeek-V4 (modular_deepseek_v4.py): its sliding layers carry the compressors; checked here, not the MLA
        // indexer's rules.
        const bool csa = std::find(m.compress_ratios.begin(), m.compress_ratios.end(), 4) != m.compress_ratios.end();
        if (k.sliding != m.num_hidden_layers)
            errors.push_back({"model.layer_types", "DeepSeek-V4's layers are all sliding-window layers (with their compressors)"});
        if (m.q_lora_rank == 0 || m.o_lora_rank == 0 || (u128{m.num_attention_heads} * resolved_head_dim(m)) % m.o_groups != 0)
            errors.push_back({"model.o_groups", "DeepSeek-V4 needs q_lora_rank, o_lora_rank and o_groups dividing "
                                                "num_attention_heads · head_dim"});
        if (csa && m.index_n_heads == 0)
            errors.push_back({"model.index_n_heads", "DeepSeek-V4's CSA layers (compress ratio 4) need the indexer's "
                                                     "index_n_heads and index_head_dim"});
    } else if (m.index_n_heads != 0 && (k.mla == 0 || m.q_lora_rank == 0))
        errors.push_back({"model.index_n_heads", "the sparse-attention indexer is modelled on MLA layers with q_lora_rank "
                                                 "(DeepSeek-V3.2) only"});
    else if (m.index_n_heads != 0 && (m.index_head_dim % 128 != 0 || m.kv_lora_rank % 128 != 0 ||
                                      m.index_head_dim < m.qk_rope_head_dim))
        errors.push_back({"model.index_head_dim", "the sparse-attention caches are modelled for index_head_dim and "
                                                  "kv_lora_rank multiples of 128 (one fp32 scale per 128 values), "
                                                  "index_head_dim at least qk_rope_head_dim"});
    if (k.linear != 0 && (m.linear_num_key_heads == 0 || m.linear_num_value_heads == 0 || m.linear_key_head_dim == 0 ||
                          m.linear_value_head_dim == 0 || m.linear_conv_kernel_dim == 0))
        errors.push_back({"model.linear_num_value_heads", "linear-attention layers need linear_num_key_heads, "
                                                          "linear_num_value_heads, linear_key_head_dim, "
                                                          "linear_value_head_dim and linear_conv_kernel_dim"});
    // Kimi Delta Attention (vLLM kda.py): num_heads heads of head_dim for queries, keys and values alike.
    if (k.linear != 0 && m.linear_kda &&
        (m.linear_num_key_heads != m.linear_num_value_heads || m.linear_key_head_dim != m.linear_value_head_dim))
        errors.push_back({"model.linear_kda", "Kimi Delta Attention needs linear_num_key_heads = linear_num_value_heads "
                                              "and linear_key_head_dim = linear_value_head_dim"});
    if (k.mamba != 0) {
        if (m.mamba_version != 1 && m.mamba_version != 2)
            errors.push_back({"model.mamba_version", "must be 1 or 2 when model.layer_types has mamba layers"});
        else if (m.mamba_d_inner == 0 || m.mamba_d_state == 0 || m.mamba_d_conv == 0 ||
                 (m.mamba_version == 1 && m.mamba_dt_rank == 0) ||
                 (m.mamba_version == 2 && (m.mamba_num_heads == 0 || m.mamba_n_groups == 0)))
            errors.push_back({"model.mamba_d_inner", "Mamba layers need mamba_d_inner, mamba_d_state, mamba_d_conv "
                                                     "and (Mamba-1) mamba_dt_rank or (Mamba-2) mamba_num_heads "
                                                     "and mamba_n_groups"});
        else if (m.mamba_version == 2 && m.mamba_d_inner % m.mamba_num_heads != 0)
            errors.push_back({"model.mamba_d_inner", "must be a multiple of model.mamba_num_heads"});
    }
    return errors;
}

diagnostics architecture_warnings(const model_config& m, run_mode mode) {
    diagnostics out;
    if (m.num_hidden_layers == 0 || m.hidden_size == 0 || m.num_attention_heads == 0) return out;
    const layer_kind_counts k = count_layer_kinds(m);
    if (k.mla + k.linear + k.mamba + k.no_attention != 0 || (k.dense != 0 && k.moe != 0))
        out.push_back({"model.layer_types",
                       mode == run_mode::train
                           ? "training activations are counted per layer as for a GQA attention layer with this model's "
                             "MLP (MoE when the model has experts); MLA, linear-attention, Mamba and mixed dense/MoE "
                             "layers keep other tensors, so the activation figure is an approximation"
                           : "the prefill workspace is sized as for a GQA attention layer with this model's MLP; MLA, "
                             "linear-attention, Mamba and mixed dense/MoE layers differ, so that row is an approximation"});
    // Training activations are built for one layer shape (activations.cpp); serving's workspace takes the wider kind.
    if (mode == run_mode::train && ((m.full_head_dim != 0 && m.full_head_dim != resolved_head_dim(m)) ||
                                    (m.full_num_key_value_heads != 0 && m.full_num_key_value_heads != resolved_kv_heads(m))))
        out.push_back({"model.full_head_dim",
                       "training activations are counted per layer with head_dim and num_key_value_heads; the "
                       "full-attention layers' own head width and KV heads (full_head_dim, full_num_key_value_heads) "
                       "are in the weights and the cache, not in the activation figure"});
    if (m.index_n_heads != 0)
        out.push_back({"model.index_n_heads",
                       "DeepSeek Sparse Attention: the indexer's weights and cache are counted; its scores of each "
                       "query against every cached token (a workspace of their own) are not in the activation "
                       "figure, and index_topk's sparsity is not in the step time"});
    return out;
}

// ---------------------------------------------------------------------------------------------
// Linear modules (LoRA) and cache groups (serving engines)

namespace {
/// The entry of `kinds` (a list of distinct layer kinds, each with `attention` and `mlp` members) for
/// the pair (attention, mlp), or kinds.end(): count_params and linear_modules build each pair once.
template <class Kind>
typename std::vector<Kind>::iterator find_kind(std::vector<Kind>& kinds, attention_kind attention, layer_mlp_kind mlp) {
    return std::find_if(kinds.begin(), kinds.end(), [&](const Kind& k) { return k.attention == attention && k.mlp == mlp; });
}
}  // namespace

std::vector<linear_module> linear_modules(const model_config& m) {
    std::vector<linear_module> out;
    if (m.num_hidden_layers == 0 || m.hidden_size == 0 || m.num_attention_heads == 0 || !validate_architecture(m).empty())
        return out;
    const auto attention = resolved_layer_attention(m);
    const auto mlps = resolved_layer_mlp(m);
    // A layer's matrices depend only on its (attention, MLP) kinds: each distinct pair is built once, in
    // the order of its first layer, and counted times its layers. The modules come out in the order and
    // with the counts of building every layer (a new name can only appear at a pair's first layer).
    struct kind_pair {
        attention_kind attention;
        layer_mlp_kind mlp;
        std::uint64_t layers;
    };
    std::vector<kind_pair> pairs;
    for (std::uint64_t i = 0; i < m.num_hidden_layers; ++i) {
        auto p = find_kind(pairs, attention[i], mlps[i]);
        if (p == pairs.end()) pairs.push_back({attention[i], mlps[i], 1});
        else ++p->layers;
    }
    for (const kind_pair& pair : pairs) {
        for (const auto& x : build_layer(m, pair.attention, pair.mlp).matrices) {
            auto it = std::find_if(out.begin(), out.end(), [&](const linear_module& l) {
                return l.name == x.name && l.d_in == x.d_in && l.d_out == x.d_out && l.expert == x.expert;
            });
            if (it == out.end()) {
                out.push_back({x.name, narrow(x.d_in), narrow(x.d_out), 0, x.expert});
                it = out.end() - 1;
            }
            it->count += narrow(u128{x.count} * pair.layers);
        }
    }
    return out;
}

std::vector<kv_layer_group> kv_layer_groups(const model_config& m) {
    std::vector<kv_layer_group> out;
    if (m.num_hidden_layers == 0 || m.hidden_size == 0 || m.num_attention_heads == 0) return out;
    const layer_kind_counts k = count_layer_kinds(m);
    const std::uint64_t kv = resolved_kv_heads(m), d = resolved_head_dim(m);
    // K of head_dim and V of v_head_dim per KV head where the values have their own width (build_layer).
    const std::uint64_t dv = m.v_head_dim != 0 && m.kv_lora_rank == 0 && m.v_head_dim != d ? m.v_head_dim : 0;
    const std::uint64_t sliding_kv = m.sliding_num_key_value_heads != 0 ? m.sliding_num_key_value_heads : kv;
    // Full layers with their own KV heads and head width (Gemma 4): K and V both cached, also where V is the key
    // projection (vLLM vllm/model_executor/models/gemma4.py Gemma4Attention at 001cabc1 loads K's weights into V's
    // slot and caches both).
    const std::uint64_t full_kv = m.full_num_key_value_heads != 0 ? m.full_num_key_value_heads : kv;
    const std::uint64_t full_d = m.full_head_dim != 0 ? m.full_head_dim : d;
    const std::uint64_t full_dv = m.v_head_dim != 0 && m.kv_lora_rank == 0 && m.v_head_dim != full_d ? m.v_head_dim : 0;
    if (k.full != 0) out.push_back({attention_kind::full, k.full, full_kv, full_d, 0, 0, 0, 0, 0, full_dv});
    if (k.sliding != 0) out.push_back({attention_kind::sliding, k.sliding, sliding_kv, d, 0, m.sliding_window, 0, 0, 0, dv});
    if (k.chunked != 0) out.push_back({attention_kind::chunked, k.chunked, kv, d, 0, m.attention_chunk_size, 0, 0, 0, dv});
    // One latent per token: kv_lora_rank + qk_rope_head_dim (DeepSeek-V2 §2.1.2, Eq. 10–11); with DeepSeek
    // Sparse Attention also the indexer's key of index_head_dim (DeepSeek-V3.2-Exp inference/model.py Indexer k_cache).
    if (k.mla != 0)
        out.push_back({attention_kind::mla, k.mla, 0, 0, m.kv_lora_rank + m.qk_rope_head_dim, 0, 0, m.qk_rope_head_dim,
                       m.index_n_heads != 0 ? m.index_head_dim : 0});
    if (k.linear != 0) {
        // vLLM mamba_utils.py gated_delta_net_state_shape: conv state (K − 1) × (2·nk·dk + nv·dv) and
        // recurrent state nv × dk × dv per sequence.
        const std::uint64_t conv_dim =
            2 * m.linear_num_key_heads * m.linear_key_head_dim + m.linear_num_value_heads * m.linear_value_head_dim;
        const std::uint64_t state = (m.linear_conv_kernel_dim > 0 ? m.linear_conv_kernel_dim - 1 : 0) * conv_dim +
                                    m.linear_num_value_heads * m.linear_key_head_dim * m.linear_value_head_dim;
        out.push_back({attention_kind::linear, k.linear, 0, 0, 0, 0, state, 0, 0});
    }
    if (k.mamba != 0) {
        // vLLM mamba_utils.py: Mamba-1 conv (K − 1) × I and SSM I × N; Mamba-2 conv (K − 1) × (I + 2GN)
        // and SSM nh × head_dim × N (= I × N).
        const std::uint64_t conv_dim =
            m.mamba_version == 2 ? m.mamba_d_inner + 2 * m.mamba_n_groups * m.mamba_d_state : m.mamba_d_inner;
        const std::uint64_t state = (m.mamba_d_conv > 0 ? m.mamba_d_conv - 1 : 0) * conv_dim + m.mamba_d_inner * m.mamba_d_state;
        out.push_back({attention_kind::mamba, k.mamba, 0, 0, 0, 0, state, 0, 0});
    }
    return out;
}

std::uint64_t cache_elements_per_token(const kv_layer_group& g) {
    switch (g.kind) {
        case attention_kind::full:
        case attention_kind::sliding:
        case attention_kind::chunked: return g.kv_heads * (g.head_dim + (g.v_head_dim != 0 ? g.v_head_dim : g.head_dim));  // K and V
        case attention_kind::mla: return g.latent_dim;
        default: return 0;
    }
}

std::uint64_t sparse_mla_token_bytes(const kv_layer_group& g, dtype kv) {
    constexpr std::uint64_t quant_block = 128;  // one fp32 scale per 128 values in both caches
    const std::uint64_t nope = g.latent_dim - g.rope_dim;
    // fp8: vLLM's fp8_ds_mla (vllm/v1/kv_cache_interface.py MLAAttentionSpec.real_page_size_bytes, 656 per token at
    // vllm-project/vllm 001cabc1; vllm/model_executor/models/config.py DeepseekV32ForCausalLM turns an fp8 cache
    // into it) and SGLang's NSA pool (model_runner_kv_cache_mixin.py calculate_mla_kv_cache_dim at sgl-project/sglang
    // 001ccef0): kv_lora_rank fp8 values + kv_lora_rank / 128 fp32 scales + the rotary part in bf16,
    // 512 + 16 + 128 = 656 B. Other dtypes: the latent's elements at their width, as without the indexer.
    const std::uint64_t latent = kv == dtype::fp8 ? nope + nope / quant_block * 4 + g.rope_dim * 2
                                                  : (g.latent_dim * dtype_bits(kv) + 7) / 8;
    // The indexer's key cache, whatever the KV dtype: index_head_dim fp8 values + an fp32 scale per 128 (vLLM
    // vllm/model_executor/models/deepseek_v2.py Indexer: head_dim + head_dim // quant_block_size * 4 uint8 per token,
    // vllm-project/vllm 002d6073; SGLang NSATokenToKVPool index_k_with_scale_buffer), 128 + 4 = 132 B.
    const std::uint64_t index_key = g.index_head_dim + g.index_head_dim / quant_block * 4;
    return latent + index_key;
}

}  // namespace memplan
