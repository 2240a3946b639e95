// memplan — transformer architectures: family defaults of Hugging Face model types and exact
// parameter counts (total, active per token, and where they live).
#pragma once

#include <cstdint>
#include <string>

#include "memplan/estimate.hpp"
#include "memplan/types.hpp"

namespace memplan {

/// Structural defaults of a Hugging Face `model_type` (norm, MLP, biases, tying, dropout, norms per
/// layer); sizes stay 0. Known families: gpt2, gpt_neox, llama, mistral, mixtral, qwen2, qwen2_moe,
/// gemma, gemma2, phi3. Anything else (and "") gets the GPT-style defaults of model_config.
model_config family_defaults(const std::string& model_type);

/// True when `model_type` is one of the families above.
bool is_known_family(const std::string& model_type);

/// Parameters of a model, split by where they live. Every count is exact.
struct param_breakdown {
    std::uint64_t total = 0;             ///< all parameters
    std::uint64_t active = 0;            ///< used for one token (MoE: top-k routed + shared experts)
    std::uint64_t embedding = 0;         ///< token embedding and learned positions (first pipeline stage)
    std::uint64_t lm_head = 0;           ///< untied output projection (last stage); 0 when tied
    std::uint64_t final_norm = 0;        ///< norm before the output projection (last stage)
    std::uint64_t per_layer = 0;         ///< one transformer block, all experts
    std::uint64_t per_layer_active = 0;  ///< one block as one token sees it
    std::uint64_t per_layer_experts = 0; ///< routed-expert parameters in one block (split by expert parallelism)
    std::uint64_t per_layer_linear = 0;  ///< weights of the block's linear layers outside the routed experts
    std::uint64_t per_layer_expert_linear = 0;  ///< weight matrices of the routed experts (their biases excluded)
};

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
