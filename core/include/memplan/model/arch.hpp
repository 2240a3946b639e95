// memplan — transformer architectures: exact parameter counts (total, active per token, and where
// they live) and the cache layout per layer kind; the families' defaults are memplan/model/families.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/base/types.hpp"
#include "memplan/config/config.hpp"
#include "memplan/model/families.hpp"
#include "memplan/model/parts.hpp"

namespace memplan {

/// One decoder layer's parameters (layer i of the model), split by how they are sharded and packed.
struct layer_params {
    attention_kind attention = attention_kind::full;
    layer_mlp_kind mlp = layer_mlp_kind::dense;
    std::uint64_t total = 0;          ///< every parameter of the layer
    std::uint64_t active = 0;         ///< as one token sees it (top-k routed experts)
    std::uint64_t experts = 0;        ///< routed-expert parameters (split by expert parallelism)
    std::uint64_t linear = 0;         ///< linear weight matrices outside the routed experts
    std::uint64_t expert_linear = 0;  ///< weight matrices of the routed experts (their biases excluded)
    /// Bytes in the checkpoint's native format (model.checkpoint): packed matrices with their scales,
    /// everything else bf16; outside the routed experts, and of the routed experts.
    std::uint64_t native_bytes = 0, native_expert_bytes = 0;
    std::uint64_t native_scale_bytes = 0;  ///< scales and zero points inside those bytes
    std::uint64_t native_fp32_bytes = 0;   ///< parameters stored in fp32 inside those bytes (DeepSeek's router bias)
    std::uint64_t packed_params = 0, packed_expert_params = 0;  ///< weights the checkpoint packs (outside / inside experts)

    /// Adds `other`'s counts (the kinds stay): the sums of several layers.
    layer_params& operator+=(const layer_params& other);
    /// `n` such layers: every count times n (the kinds stay).
    layer_params& operator*=(std::uint64_t n);
    /// The same weights: equal in the ten counts that size a layer's memory (total, experts, linear,
    /// expert_linear, the four native byte counts, the two packed counts); `active` and the kinds
    /// are not compared.
    bool operator==(const layer_params& other) const;
    bool operator!=(const layer_params& other) const { return !(*this == other); }
};

/// Parameters of a model, split by where they live. Every count is exact.
struct param_breakdown {
    std::uint64_t total = 0;             ///< all parameters loaded (MTP only when model.mtp; vision tower included)
    std::uint64_t active = 0;            ///< used for one token (MoE: top-k routed + shared experts)
    std::uint64_t embedding = 0;         ///< token embedding and learned positions (first pipeline stage)
    std::uint64_t lm_head = 0;           ///< untied output projection (last stage); 0 when tied
    std::uint64_t final_norm = 0;        ///< norm before the output projection (last stage)
    std::uint64_t per_layer = 0;         ///< the largest transformer block, all experts
    std::uint64_t per_layer_active = 0;  ///< that block as one token sees it
    std::uint64_t per_layer_experts = 0; ///< routed-expert parameters in that block
    std::uint64_t per_layer_linear = 0;  ///< weights of that block's linear layers outside the routed experts
    std::uint64_t per_layer_expert_linear = 0;  ///< weight matrices of that block's routed experts
    std::vector<layer_params> layers;    ///< every decoder layer, in order
    /// The multi-token-prediction modules loaded, all of them together (each a decoder layer like the
    /// last plus its own norms and eh_proj; the last layer's kinds); every count 0 unless model.mtp.
    layer_params mtp_layer;
    std::uint64_t vision = 0;            ///< vision tower and projector (first stage)
    model_param_parts parts;             ///< where the parameters live (sums to total and active)
};

/// The attention and MLP kind of every layer (resolved from the per-layer lists or the uniform fields).
std::vector<attention_kind> resolved_layer_attention(const model_config& model);
std::vector<layer_mlp_kind> resolved_layer_mlp(const model_config& model);
layer_kind_counts count_layer_kinds(const model_config& model);

/// Warnings for the parts of an estimate that treat this architecture approximately (activations
/// and prefill workspace of MLA, linear-attention, Mamba and mixed dense/MoE layers).
diagnostics architecture_warnings(const model_config& model, run_mode mode);

/// One linear layer type of the model (for LoRA adapters): Hugging Face module name, its input and
/// output widths, and how many such matrices the model has (layers × experts).
struct linear_module {
    std::string name;  ///< "q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj", "experts.gate_proj", …
    std::uint64_t d_in = 0, d_out = 0, count = 0;
    bool expert = false;  ///< a routed expert's matrix
};
/// Every linear layer of the decoder layers (embedding and output projection excluded), grouped by name and shape.
std::vector<linear_module> linear_modules(const model_config& model);

/// Layers whose cache has the same shape (for serving engines' page sizes).
struct kv_layer_group {
    attention_kind kind = attention_kind::full;
    std::uint64_t layers = 0;
    std::uint64_t kv_heads = 0;       ///< K/V heads (0 for MLA, linear, mamba)
    std::uint64_t head_dim = 0;       ///< per-head width of K and V
    std::uint64_t latent_dim = 0;     ///< MLA: kv_lora_rank + qk_rope_head_dim cached per token
    std::uint64_t window_tokens = 0;  ///< tokens kept (sliding window or chunk); 0 = all tokens
    std::uint64_t state_elements_per_sequence = 0;  ///< linear attention / Mamba: conv + recurrent state per layer
    std::uint64_t rope_dim = 0;       ///< MLA: of latent_dim, the rotary part (qk_rope_head_dim)
    std::uint64_t index_head_dim = 0; ///< MLA with a sparse-attention indexer: its key cached per token; 0 = none
    std::uint64_t v_head_dim = 0;     ///< per-head width of V when it differs from K's head_dim; 0 = head_dim
};
/// The cache layout per layer kind (layers with no cache are left out).
std::vector<kv_layer_group> kv_layer_groups(const model_config& model);

/// Elements each token adds to one layer's cache (K and V, or the MLA latent), before tp.
std::uint64_t cache_elements_per_token(const kv_layer_group& group);

/// Bytes each token adds to one MLA layer of a model with DeepSeek Sparse Attention's indexer (group.index_head_dim
/// != 0), with KV elements of `kv`, as vLLM and SGLang store it: the latent (fp8: the fp8_ds_mla layout, fp8
/// values with an fp32 scale per 128 and the rotary part in bf16) plus the indexer's fp8 key with its fp32 scale.
std::uint64_t sparse_mla_token_bytes(const kv_layer_group& group, dtype kv);


/// Counts the parameters of `model`'s architecture; errors name the inconsistent field.
outcome<param_breakdown> count_params(const model_config& model);

/// Checks the architecture fields for consistency (heads vs hidden size, KV heads, experts, window).
diagnostics validate_architecture(const model_config& model);

/// head_dim, or hidden_size / num_attention_heads.
std::uint64_t resolved_head_dim(const model_config& model);
/// num_key_value_heads, or num_attention_heads.
std::uint64_t resolved_kv_heads(const model_config& model);
/// intermediate_size, or 4 · hidden_size.
std::uint64_t resolved_ffn(const model_config& model);
/// Layers that use a sliding window (0 without one).
std::uint64_t resolved_sliding_layers(const model_config& model);

}  // namespace memplan
