// Transformer architectures: family defaults and exact parameter counts.
// Counts follow the modules Hugging Face transformers instantiates for each family
// (modeling_llama.py, modeling_gpt2.py, modeling_gpt_neox.py, modeling_mixtral.py, …); tests pin
// them to the published totals (Llama-2-7B 6,738,415,616; Llama-3-8B 8,030,261,248; Mixtral-8x7B
// 46,702,792,704 total and 12,879,925,248 active).
#include "memplan/arch.hpp"

#include <array>

#include "checks.hpp"

namespace memplan {

using detail::u128;

namespace {
/// Llama-style block: RMSNorm, gated MLP, no biases, no dropout, untied embeddings
/// (Touvron et al. 2023, §2.2; modeling_llama.py).
model_config llama_style() {
    model_config m;
    m.norm = norm_kind::rmsnorm;
    m.mlp = mlp_kind::gated;
    m.qkv_bias = false;
    m.attention_out_bias = false;
    m.mlp_bias = false;
    m.dropout = false;
    m.tie_word_embeddings = false;
    return m;
}

constexpr std::array<const char*, 10> known_families = {"gpt2",  "gpt_neox",  "llama", "mistral", "mixtral",
                                                        "qwen2", "qwen2_moe", "gemma", "gemma2",  "phi3"};
}  // namespace

bool is_known_family(const std::string& model_type) {
    for (const char* f : known_families)
        if (model_type == f) return true;
    return false;
}

model_config family_defaults(const std::string& model_type) {
    model_config m;  // GPT-style: LayerNorm, plain MLP, biases, dropout, tied embeddings
    if (model_type == "gpt2") {
        // modeling_gpt2.py: Conv1D layers with biases, LayerNorm, learned positions, tied lm_head, dropout 0.1.
    } else if (model_type == "gpt_neox") {
        // modeling_gpt_neox.py: biases everywhere, LayerNorm, rotary, untied embed_out; Pythia trains without dropout.
        m.tie_word_embeddings = false;
        m.dropout = false;
    } else if (model_type == "llama" || model_type == "mistral" || model_type == "mixtral" || model_type == "phi3") {
        m = llama_style();
    } else if (model_type == "qwen2" || model_type == "qwen2_moe") {
        m = llama_style();
        m.qkv_bias = true;  // modeling_qwen2.py: q_proj, k_proj, v_proj with bias=True, o_proj without
    } else if (model_type == "gemma" || model_type == "gemma2") {
        m = llama_style();
        m.tie_word_embeddings = true;  // Gemma ties lm_head to embed_tokens (Gemma Team 2024, §2)
        if (model_type == "gemma2") m.norms_per_layer = 4;  // pre- and post-norm around attention and MLP
    }
    m.model_type = model_type;
    return m;
}

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
    if (m.sliding_window == 0) return 0;
    return m.sliding_window_layers != 0 ? m.sliding_window_layers : m.num_hidden_layers;
}

diagnostics validate_architecture(const model_config& m) {
    diagnostics errors;
    if (m.num_hidden_layers == 0 || m.hidden_size == 0 || m.num_attention_heads == 0) return errors;
    if (m.head_dim == 0 && m.hidden_size % m.num_attention_heads != 0)
        errors.push_back({"model.hidden_size", "must be divisible by model.num_attention_heads (" +
                                                   std::to_string(m.num_attention_heads) +
                                                   ") when model.head_dim is not given"});
    const std::uint64_t kv = resolved_kv_heads(m);
    if (kv > m.num_attention_heads || m.num_attention_heads % kv != 0)
        errors.push_back({"model.num_key_value_heads", "must divide model.num_attention_heads (" +
                                                           std::to_string(m.num_attention_heads) + ")"});
    if (m.num_experts != 0 && (m.experts_per_token == 0 || m.experts_per_token > m.num_experts))
        errors.push_back({"model.num_experts_per_tok", "must be from 1 to the number of experts (" +
                                                           std::to_string(m.num_experts) + ")"});
    if (m.num_experts == 0 && m.experts_per_token != 0)
        errors.push_back({"model.num_experts_per_tok", "needs model.num_local_experts (or num_experts)"});
    if (m.sliding_window_layers > m.num_hidden_layers)
        errors.push_back({"model.sliding_window_layers", "must not exceed model.num_hidden_layers (" +
                                                             std::to_string(m.num_hidden_layers) + ")"});
    return errors;
}

namespace {
/// Weights and biases of one MLP of width f (plain: up + down; gated: gate + up + down).
struct mlp_params {
    u128 weights = 0;
    u128 biases = 0;
};
mlp_params mlp_of(const model_config& m, u128 f) {
    const u128 h = m.hidden_size;
    if (m.mlp == mlp_kind::gated)  // gate_proj, up_proj: h×f; down_proj: f×h (SwiGLU, Shazeer 2020)
        return {3 * h * f, m.mlp_bias ? 2 * f + h : 0};
    return {2 * h * f, m.mlp_bias ? f + h : 0};  // c_fc h×f, c_proj f×h (Vaswani et al. 2017, §3.3)
}
}  // namespace

outcome<param_breakdown> count_params(const model_config& m) {
    outcome<param_breakdown> out;
    if (m.num_hidden_layers == 0 || m.hidden_size == 0 || m.num_attention_heads == 0) {
        out.errors.push_back({"model", "needs num_hidden_layers, hidden_size and num_attention_heads"});
        return out;
    }
    out.errors = validate_architecture(m);
    if (!out.ok()) return out;
    const u128 h = m.hidden_size;
    const u128 d = resolved_head_dim(m);
    const u128 q_width = u128{m.num_attention_heads} * d;
    const u128 kv_width = u128{resolved_kv_heads(m)} * d;
    const u128 norm = m.norm == norm_kind::layernorm ? 2 * h : h;  // LayerNorm: weight + bias; RMSNorm: weight

    // Attention: q h×(a·d), k and v h×(kv·d), o (a·d)×h (Vaswani et al. 2017, §3.2.2; GQA: Ainslie et al. 2023).
    const u128 attention_weights = h * q_width + 2 * h * kv_width + q_width * h;
    const u128 attention_biases = (m.qkv_bias ? q_width + 2 * kv_width : 0) + (m.attention_out_bias ? h : 0);

    u128 layer_linear = attention_weights, layer_total = 0, layer_active = 0, layer_experts = 0, expert_linear = 0;
    const u128 norms = u128{m.norms_per_layer} * norm;
    if (m.num_experts == 0) {
        const auto mlp = mlp_of(m, resolved_ffn(m));
        layer_linear += mlp.weights;
        layer_total = attention_weights + attention_biases + mlp.weights + mlp.biases + norms;
        layer_active = layer_total;
    } else {
        // MoE (Fedus et al. 2022; Jiang et al. 2024, Mixtral §2.1): E experts, a router h×E without
        // bias, optionally a shared expert with a sigmoid gate h×1 (Qwen2-MoE).
        const u128 expert_ffn = m.moe_intermediate_size != 0 ? m.moe_intermediate_size : resolved_ffn(m);
        const auto expert = mlp_of(m, expert_ffn);
        const u128 one_expert = expert.weights + expert.biases;
        const u128 router = h * m.num_experts;
        u128 shared = 0;
        if (m.shared_expert_intermediate_size != 0) {
            const auto s = mlp_of(m, m.shared_expert_intermediate_size);
            shared = s.weights + s.biases + h;  // + shared_expert_gate h×1
            layer_linear += s.weights;
        }
        layer_experts = u128{m.num_experts} * one_expert;
        expert_linear = u128{m.num_experts} * expert.weights;
        const u128 common = attention_weights + attention_biases + router + shared + norms;
        layer_total = common + layer_experts;
        layer_active = common + u128{m.experts_per_token} * one_expert;
    }
    const u128 embedding = u128{m.vocab_size} * h + u128{m.learned_positions} * h;
    const u128 lm_head = m.tie_word_embeddings ? 0 : u128{m.vocab_size} * h;
    const u128 total = u128{m.num_hidden_layers} * layer_total + embedding + lm_head + norm;
    const u128 active = u128{m.num_hidden_layers} * layer_active + embedding + lm_head + norm;
    if (total > max_param_count) {
        out.errors.push_back({"model", "has more than " + detail::to_decimal(max_param_count) +
                                           " parameters, the largest count memplan supports"});
        return out;
    }
    param_breakdown& p = out.value;
    p.total = static_cast<std::uint64_t>(total);
    p.active = static_cast<std::uint64_t>(active);
    p.embedding = static_cast<std::uint64_t>(embedding);
    p.lm_head = static_cast<std::uint64_t>(lm_head);
    p.final_norm = static_cast<std::uint64_t>(norm);
    p.per_layer = static_cast<std::uint64_t>(layer_total);
    p.per_layer_active = static_cast<std::uint64_t>(layer_active);
    p.per_layer_experts = static_cast<std::uint64_t>(layer_experts);
    p.per_layer_linear = static_cast<std::uint64_t>(layer_linear);
    p.per_layer_expert_linear = static_cast<std::uint64_t>(expert_linear);
    return out;
}

}  // namespace memplan
