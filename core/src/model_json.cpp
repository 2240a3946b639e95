// The `model` section of a configuration: memplan's own model keys, presets, and Hugging Face
// config.json import (lenient: keys that cannot change memory are ignored); and the resolved model
// as explicit keys.
#include "model_json.hpp"

#include "json_text.hpp"
#include "memplan/arch.hpp"
#include "memplan/json.hpp"
#include "memplan/presets.hpp"

namespace memplan {

namespace detail {
namespace {
using json = nlohmann::json;

/// Structural defaults for a family; an unknown family is recognised by its keys (RMSNorm epsilon,
/// SiLU activation), as most recent decoder-only models are Llama-like.
model_config defaults_for(const json& object, const std::string& model_type) {
    if (model_type.empty() || is_known_family(model_type)) return family_defaults(model_type);
    model_config m = family_defaults("");
    m.model_type = model_type;
    if (object.contains("rms_norm_eps")) {
        m = family_defaults("llama");
        m.model_type = model_type;
    }
    const auto act = object.find("hidden_act");
    if (act != object.end() && act->is_string()) {
        const std::string a = act->get<std::string>();
        m.mlp = (a == "silu" || a == "swiglu" || a == "swish") ? mlp_kind::gated : m.mlp;
    }
    return m;
}

}  // namespace

void read_model_object(object_reader& r, model_config& m, int depth);

namespace {

/// Hugging Face config.json keys (lenient), and memplan's own structural keys.
void read_model_keys(object_reader& r, model_config& m) {
    r.integer("params", m.params, 0, max_param_count);
    // Sizes, with GPT-2's names as aliases (n_layer, n_embd, n_head, n_inner).
    for (const char* k : {"num_hidden_layers", "n_layer", "num_layers"}) r.integer(k, m.num_hidden_layers, 1, 65536);
    for (const char* k : {"hidden_size", "n_embd", "d_model"}) r.integer(k, m.hidden_size, 1, 1048576);
    for (const char* k : {"num_attention_heads", "n_head"}) r.integer(k, m.num_attention_heads, 1, 65536);
    r.integer("num_key_value_heads", m.num_key_value_heads, 1, 65536);
    r.integer("head_dim", m.head_dim, 1, 65536);
    for (const char* k : {"intermediate_size", "n_inner", "ffn_hidden_size"}) r.integer(k, m.intermediate_size, 1, 1048576);
    r.integer("vocab_size", m.vocab_size, 1, 16777216);
    r.boolean("tie_word_embeddings", m.tie_word_embeddings);
    r.integer("learned_positions", m.learned_positions, 0, 16777216);
    if (m.model_type == "gpt2") r.integer("n_positions", m.learned_positions, 0, 16777216);
    r.name("norm", m.norm, "layernorm, rmsnorm");
    r.name("mlp", m.mlp, "plain, gated");
    r.integer("norms_per_layer", m.norms_per_layer, 0, 16);
    bool attention_bias = m.qkv_bias;
    if (r.has("attention_bias")) {  // Llama-family key: biases on q, k, v and o
        r.boolean("attention_bias", attention_bias);
        m.qkv_bias = m.attention_out_bias = attention_bias;
    }
    r.boolean("qkv_bias", m.qkv_bias);
    r.boolean("attention_out_bias", m.attention_out_bias);
    r.boolean("mlp_bias", m.mlp_bias);
    r.boolean("dropout", m.dropout);
    // Dropout probabilities of HF configs: any positive one means dropout layers are active in training.
    bool any_probability = false, any_positive = false;
    for (const char* k : {"attention_dropout", "hidden_dropout", "resid_pdrop", "attn_pdrop", "embd_pdrop",
                          "hidden_dropout_prob", "attention_probs_dropout_prob"}) {
        double p = 0;
        if (r.probability(k, p)) {
            any_probability = true;
            any_positive = any_positive || p > 0;
        }
    }
    if (any_probability && !r.raw().contains("dropout")) m.dropout = any_positive;
    // Mixture of experts: Mixtral's num_local_experts, Qwen2-MoE's num_experts.
    for (const char* k : {"num_local_experts", "num_experts"}) r.integer(k, m.num_experts, 0, 65536);
    r.integer("num_experts_per_tok", m.experts_per_token, 0, 65536);
    r.integer("moe_intermediate_size", m.moe_intermediate_size, 1, 1048576);
    r.integer("shared_expert_intermediate_size", m.shared_expert_intermediate_size, 0, 1048576);
    // Sliding-window attention.
    r.integer("sliding_window", m.sliding_window, 0, 16777216);
    r.integer("sliding_window_layers", m.sliding_window_layers, 0, 65536);
    bool use_window = true;
    if (r.has("use_sliding_window")) r.boolean("use_sliding_window", use_window);
    if (!use_window) m.sliding_window = 0;  // Qwen2: the window is configured but switched off
    std::uint64_t max_window_layers = 0;
    if (use_window && r.has("max_window_layers") && m.sliding_window != 0) {
        // Qwen2: layers from max_window_layers on use the window (modeling_qwen2.py).
        r.integer("max_window_layers", max_window_layers, 0, 65536);
        if (max_window_layers < m.num_hidden_layers) m.sliding_window_layers = m.num_hidden_layers - max_window_layers;
    }
    if (m.model_type == "gemma2" && m.sliding_window != 0 && m.sliding_window_layers == 0)
        m.sliding_window_layers = (m.num_hidden_layers + 1) / 2;  // even layers slide (modeling_gemma2.py)
    if (const json* types = r.find("layer_types"); types != nullptr && types->is_array()) {
        std::uint64_t sliding = 0;  // newer configs list each layer's attention kind
        for (const auto& t : *types)
            if (t.is_string() && t.get<std::string>() == "sliding_attention") ++sliding;
        if (m.sliding_window != 0) m.sliding_window_layers = sliding;
    }
}

}  // namespace

void read_model_object(object_reader& r, model_config& m, int depth) {
    const json& obj = r.raw();
    // A preset: the stored config of a published model, which the remaining keys may override.
    if (const json* preset = r.find("preset"); preset != nullptr) {
        if (!preset->is_string() || find_preset(preset->get<std::string>()) == nullptr) {
            r.fail(r.field("preset"), "must be the id of a model preset (memplan presets)");
            return;
        }
        const json stored = json::parse(find_preset(preset->get<std::string>())->config_json, nullptr, false);
        object_reader inner(stored, r.field("preset"), r.errors(), /*lenient=*/true);
        read_model_object(inner, m, depth + 1);
    }
    // Multimodal configs keep the language model under text_config.
    if (const json* text = r.find("text_config"); text != nullptr && text->is_object() && depth < 2 &&
                                                   !obj.contains("num_hidden_layers")) {
        object_reader inner(*text, r.field("text_config"), r.errors(), /*lenient=*/true);
        read_model_object(inner, m, depth + 1);
        return;
    }
    std::string model_type = m.model_type;
    r.text("model_type", model_type);
    if (model_type != m.model_type || !r.has("preset")) {
        const model_config sizes = m;
        m = defaults_for(obj, model_type);
        // keep sizes read from a preset
        m.params = sizes.params;
        m.num_hidden_layers = sizes.num_hidden_layers;
        m.hidden_size = sizes.hidden_size;
        m.num_attention_heads = sizes.num_attention_heads;
        m.num_key_value_heads = sizes.num_key_value_heads;
        m.head_dim = sizes.head_dim;
        m.intermediate_size = sizes.intermediate_size;
        m.vocab_size = sizes.vocab_size;
    }
    read_model_keys(r, m);
}


void read_model(const json& object, const std::string& path, model_config& m, diagnostics& errors) {
    // A Hugging Face config (it names its model_type, or comes from a preset) may carry any keys.
    const bool lenient = object.contains("model_type") || object.contains("preset") || object.contains("text_config");
    object_reader r(object, path, errors, lenient);
    read_model_object(r, m, 0);
    r.finish();
}
}  // namespace detail

using ordered_json = nlohmann::ordered_json;
using detail::dump_json;
using detail::errors_json;

/// The model a configuration describes (preset, Hugging Face config and overrides applied), as the
/// explicit memplan model keys that reproduce it, with its exact parameter counts:
/// {"model": {...}, "params": N|null, "params_active": N|null, "errors": [...]}.
std::string resolve_model_json(const std::string& config_json, const std::string& hf_config_json) {
    const auto parsed = parse_config(config_json, hf_config_json);
    ordered_json out;
    out["model"] = nullptr;
    out["params"] = nullptr;
    out["params_active"] = nullptr;
    if (!parsed.ok()) {
        out["errors"] = errors_json(parsed.errors);
        return dump_json(out);
    }
    const model_config& m = parsed.value.model;
    ordered_json model;
    // Keys whose allowed range starts at 1 are left out when 0 ("not given": the core's default).
    const auto positive = [&model](const char* key, std::uint64_t value) {
        if (value != 0) model[key] = value;
    };
    if (!m.model_type.empty()) model["model_type"] = m.model_type;
    if (m.params != 0) model["params"] = m.params;
    positive("num_hidden_layers", m.num_hidden_layers);
    positive("hidden_size", m.hidden_size);
    positive("num_attention_heads", m.num_attention_heads);
    positive("num_key_value_heads", m.num_key_value_heads);
    positive("head_dim", m.head_dim);
    positive("intermediate_size", m.intermediate_size);
    positive("vocab_size", m.vocab_size);
    model["tie_word_embeddings"] = m.tie_word_embeddings;
    model["learned_positions"] = m.learned_positions;
    model["norm"] = to_string(m.norm);
    model["norms_per_layer"] = m.norms_per_layer;
    model["mlp"] = to_string(m.mlp);
    model["qkv_bias"] = m.qkv_bias;
    model["attention_out_bias"] = m.attention_out_bias;
    model["mlp_bias"] = m.mlp_bias;
    model["dropout"] = m.dropout;
    model["num_local_experts"] = m.num_experts;
    model["num_experts_per_tok"] = m.experts_per_token;
    positive("moe_intermediate_size", m.moe_intermediate_size);
    model["shared_expert_intermediate_size"] = m.shared_expert_intermediate_size;
    model["sliding_window"] = m.sliding_window;
    model["sliding_window_layers"] = m.sliding_window_layers;
    out["model"] = model;
    if (m.num_hidden_layers != 0 && m.hidden_size != 0 && m.num_attention_heads != 0) {
        const auto counted = count_params(m);
        if (counted.ok()) {
            out["params"] = counted.value.total;
            out["params_active"] = counted.value.active;
        }
        out["errors"] = errors_json(counted.errors);
    } else {
        out["errors"] = ordered_json::array();
    }
    return dump_json(out);
}

}  // namespace memplan
