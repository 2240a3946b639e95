// The `model` section of a configuration: memplan's own model keys, presets, and Hugging Face
// config.json import (lenient: keys that cannot change memory are ignored); and the resolved model
// as explicit keys. A multimodal config's vision tower is counted in vision_tower.cpp, a released
// checkpoint's quantization_config read in quantization.cpp.
#include "io/object_reader.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <memory>

#include "base/checks.hpp"
#include "config/names.hpp"
#include "io/json_text.hpp"
#include "memplan/model/arch.hpp"
#include "memplan/model/families.hpp"
#include "memplan/io/presets.hpp"

namespace memplan {

namespace detail {
namespace {
using json = nlohmann::ordered_json;

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

/// A value that says something: not null, 0, false, "" or an empty list.
bool meaningful(const json& v) {
    if (v.is_null()) return false;
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_number()) return v.get<double>() != 0;
    if (v.is_string() || v.is_array() || v.is_object()) return !v.empty();
    return true;
}

/// Reads a list of layer indices (moe_layers, mlp_only_layers); false (with an error) when not one.
bool index_list(object_reader& r, const char* key, std::uint64_t layers, std::vector<char>& out) {
    out.assign(layers, 0);
    const json* v = r.find(key);
    if (v == nullptr) return true;
    if (!v->is_array()) {
        r.fail(r.field(key), "must be a list of layer indices");
        return false;
    }
    for (const auto& e : *v) {
        if (!e.is_number_unsigned() || e.get<std::uint64_t>() >= layers) {
            r.fail(r.field(key), "must list layer indices from 0 to " + std::to_string(layers == 0 ? 0 : layers - 1));
            return false;
        }
        out[e.get<std::size_t>()] = 1;
    }
    return true;
}

/// An integer HF key read into a value, marking it understood.
std::uint64_t hf_int(object_reader& r, const char* key, std::uint64_t fallback, std::uint64_t lo, std::uint64_t hi) {
    std::uint64_t v = fallback;
    r.integer(key, v, lo, hi);
    return v;
}

/// The reads a family's row makes (memplan/model/families.hpp), over one object of the reader.
class json_config_keys final : public hf_config_keys {
public:
    explicit json_config_keys(object_reader& r) : r_(r) {}
    /// Over a nested object `o` named `path` (lenient: keys it does not read are ignored).
    json_config_keys(const json& o, const std::string& path, diagnostics& errors)
        : owned_(std::make_unique<object_reader>(o, path, errors, /*lenient=*/true)), r_(*owned_) {}
    bool contains(const char* key) const override { return r_.raw().contains(key); }
    bool given(const char* key) const override {
        const auto it = r_.raw().find(key);
        return it != r_.raw().end() && !it->is_null();
    }
    std::uint64_t integer(const char* key, std::uint64_t fallback, std::uint64_t lo, std::uint64_t hi) override {
        return hf_int(r_, key, fallback, lo, hi);
    }
    void boolean(const char* key, bool& out) override { r_.boolean(key, out); }
    void text(const char* key, std::string& out) override { r_.text(key, out); }
    bool index_list(const char* key, std::uint64_t layers, std::vector<char>& out) override {
        return detail::index_list(r_, key, layers, out);
    }
    bool flag_list(const char* key, std::vector<char>& out) override {
        const json* v = r_.find(key);
        if (v == nullptr || !v->is_array() || v->empty()) return false;
        out.clear();
        for (const auto& e : *v) {
            if (e.is_number_float() && !std::isfinite(e.get<double>())) {  // Python's Infinity or NaN
                r_.fail(r_.field(key), "must list 0 or 1 per layer");
                return false;
            }
            out.push_back(e.is_number() && e.get<double>() != 0 ? 1 : 0);
        }
        return true;
    }
    bool integer_list(const char* key, std::uint64_t hi, std::vector<std::uint64_t>& out) override {
        out.clear();
        const json* v = r_.find(key);
        if (v == nullptr || v->is_null()) return false;
        const bool valid = v->is_array() && std::all_of(v->begin(), v->end(), [hi](const json& e) {
            return e.is_number_unsigned() && e.get<std::uint64_t>() <= hi;
        });
        if (!valid) {
            r_.fail(r_.field(key), "must be a list of integers from 0 to " + std::to_string(hi));
            return false;
        }
        for (const auto& e : *v) out.push_back(e.get<std::uint64_t>());
        return true;
    }
    bool text_list(const char* key, std::vector<std::string>& out) override {
        out.clear();
        const json* v = r_.find(key);
        if (v == nullptr || !v->is_array()) return false;
        if (!std::all_of(v->begin(), v->end(), [](const json& e) { return e.is_string(); })) {
            r_.fail(r_.field(key), "must be a list of strings");
            return false;
        }
        for (const auto& e : *v) out.push_back(e.get<std::string>());
        return true;
    }
    bool integer_or_word(const char* key, const char* word, std::uint64_t& out) override {
        const json* v = r_.find(key);
        if (v == nullptr) return true;
        if (v->is_number_unsigned()) {
            out = v->get<std::uint64_t>();
            return true;
        }
        return v->is_string() && v->get<std::string>() == word;
    }
    bool name_list(const char* key, std::vector<std::string>& out) override {
        out.clear();
        const json* v = r_.find(key);
        if (v == nullptr) return true;
        const bool names = v->is_array() && std::all_of(v->begin(), v->end(), [](const json& e) { return e.is_string(); });
        if (!names) {
            r_.fail(r_.field(key), "must be a list of names");
            return false;
        }
        for (const auto& e : *v) out.push_back(e.get<std::string>());
        return true;
    }
    void fail(const char* key, const std::string& message) override { r_.fail(r_.field(key), message); }
    std::unique_ptr<hf_config_keys> object(const char* key) override {
        const json* v = r_.find(key);
        if (v == nullptr || !v->is_object()) return nullptr;
        return std::make_unique<json_config_keys>(*v, r_.field(key), r_.errors());
    }

private:
    std::unique_ptr<object_reader> owned_;  // the reader of a nested object, when this reads one
    object_reader& r_;
};

/// The family's names for the size `field`, read after memplan's own key of it.
void read_size_aliases(object_reader& r, const model_family* family, std::uint64_t model_config::*field, model_config& m) {
    if (family == nullptr) return;
    for (const size_alias& a : family->size_aliases)
        if (a.field == field) r.integer(a.name, m.*field, a.lo, a.hi);
}

/// The model_type of a config.json without one, from the model classes its `architectures` names
/// (the first that a family of memplan lists, as transformers registers it); "" with an error naming
/// `architectures` (not a list of names) or `model_type` (no class memplan knows).
std::string type_of_architectures(object_reader& r) {
    const json* classes = r.find("architectures");
    if (classes == nullptr) return "";
    const bool names = classes->is_array() && !classes->empty() &&
                       std::all_of(classes->begin(), classes->end(), [](const json& c) { return c.is_string(); });
    if (!names) {
        r.fail(r.field("architectures"), "must be a non-empty list of model class names such as [\"Qwen3ForCausalLM\"]");
        return "";
    }
    for (const auto& c : *classes)
        if (std::string type = model_type_of_architecture(c.get<std::string>()); !type.empty()) return type;
    std::string known;
    for (const model_family& f : model_families())
        for (const family_architecture& a : f.architectures) known += std::string(known.empty() ? "" : ", ") + a.class_name;
    r.fail(r.field("model_type"), "is required: architectures " + classes->dump() +
                                      " names no model class memplan knows (" + known + ")");
    return "";
}

/// True when `key` is a standard Hugging Face key (memplan/model/families.hpp standard_hf_keys).
bool standard_key(const std::string& key) {
    const auto& keys = standard_hf_keys();
    return std::find_if(keys.begin(), keys.end(), [&key](const char* k) { return key == k; }) != keys.end();
}

/// The model_type names of every family, for messages.
std::string known_model_types() {
    std::string out;
    for (const model_family& f : model_families()) {
        out += std::string(out.empty() ? "" : ", ") + f.model_type;
        for (const char* alias : f.aliases) out += std::string(", ") + alias;
    }
    return out;
}

}  // namespace

void read_model_object(object_reader& r, model_config& m, int depth);

namespace {

/// memplan's own per-layer lists: `layer_types` (attention kinds; Hugging Face names accepted) and
/// `mlp_layer_types` (dense, moe, none).
void read_layer_lists(object_reader& r, model_config& m) {
    if (const json* types = r.find("layer_types"); types != nullptr) {
        std::vector<attention_kind> kinds;
        bool ok = types->is_array();
        for (const auto& t : ok ? *types : json::array()) {
            attention_kind k{};
            if (!t.is_string() || !parse_enum(t.get<std::string>(), k)) {
                r.fail(r.field("layer_types"), "has an unknown layer type " + t.dump() + " (known: " +
                                                   names_of(attention_kind{}).aliases_then_names(", ") + ")");
                ok = false;
                break;
            }
            kinds.push_back(k);
        }
        if (!types->is_array()) r.fail(r.field("layer_types"), "must be a list with one attention kind per layer");
        if (ok) m.layer_attention = kinds;
    }
    if (const json* types = r.find("mlp_layer_types"); types != nullptr) {
        std::vector<layer_mlp_kind> kinds;
        bool ok = types->is_array();
        for (const auto& t : ok ? *types : json::array()) {
            layer_mlp_kind k{};
            std::string name = t.is_string() ? t.get<std::string>() : "";
            if (name == "sparse") name = "moe";
            if (!parse_enum(name, k)) {
                r.fail(r.field("mlp_layer_types"),
                       "has an unknown MLP kind " + t.dump() + " (known: " + names_of(layer_mlp_kind{}).joined(", ") + ")");
                ok = false;
                break;
            }
            kinds.push_back(k);
        }
        if (!types->is_array()) r.fail(r.field("mlp_layer_types"), "must be a list with one MLP kind per layer");
        if (ok) m.layer_mlp = kinds;
    }
}

/// Hugging Face config.json keys (lenient), and memplan's own structural keys.
void read_model_keys(object_reader& r, model_config& m) {
    const model_family* family = find_family(m.model_type);
    r.integer("params", m.params, 0, max_param_count);
    r.integer("stored_weight_bytes", m.stored_weight_bytes, 0, max_exact_integer);
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
    read_size_aliases(r, family, &model_config::learned_positions, m);
    // The context limit: max_position_embeddings (GPT-2: n_positions, also its learned position table).
    r.integer("max_position_embeddings", m.max_position_embeddings, 0, max_context_limit);
    if (family != nullptr && family->context_from_positions && m.max_position_embeddings == 0)
        m.max_position_embeddings = m.learned_positions;
    r.name("norm", m.norm, names_of(norm_kind{}).joined(", ").c_str());
    r.name("mlp", m.mlp, names_of(mlp_kind{}).joined(", ").c_str());
    r.integer("norms_per_layer", m.norms_per_layer, 0, 16);
    bool attention_bias = m.qkv_bias;
    if (r.has("attention_bias")) {  // Llama-family key: biases on q, k, v and o
        r.boolean("attention_bias", attention_bias);
        m.qkv_bias = attention_bias;
        // GLM-4-MoE's attention_bias applies to q/k/v only (its row: attention_bias_on_output).
        m.attention_out_bias = family == nullptr || family->attention_bias_on_output ? attention_bias : false;
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
    // Mixture of experts: Mixtral's num_local_experts, Qwen2-MoE's num_experts, DeepSeek's n_routed_experts.
    for (const char* k : {"num_local_experts", "num_experts"}) r.integer(k, m.num_experts, 0, 65536);
    r.integer("num_experts_per_tok", m.experts_per_token, 0, 65536);
    read_size_aliases(r, family, &model_config::experts_per_token, m);
    r.integer("moe_intermediate_size", m.moe_intermediate_size, 1, 1048576);
    r.integer("shared_expert_intermediate_size", m.shared_expert_intermediate_size, 0, 1048576);
    // Sliding-window attention.
    r.integer("sliding_window", m.sliding_window, 0, 16777216);
    r.integer("sliding_window_layers", m.sliding_window_layers, 0, 65536);
    bool use_window = true;
    if (r.has("use_sliding_window")) r.boolean("use_sliding_window", use_window);
    if (!use_window) m.sliding_window = 0;  // Qwen2: the window is configured but switched off
    if (use_window && r.has("max_window_layers") && m.sliding_window != 0) {
        // Qwen2 (modeling_qwen2.py / configuration_qwen2.py layer_types): layers from max_window_layers on
        // use the window; with max_window_layers ≥ num_hidden_layers no layer does.
        std::uint64_t max_window_layers = 0;
        r.integer("max_window_layers", max_window_layers, 0, 65536);
        if (max_window_layers >= m.num_hidden_layers) m.sliding_window = 0;
        else m.sliding_window_layers = m.num_hidden_layers - max_window_layers;
    }
    const std::uint64_t period = family != nullptr ? family->window_period : 0;
    if (period != 0 && m.sliding_window != 0 && m.sliding_window_layers == 0 && m.num_hidden_layers != 0) {
        // The family's alternation (Gemma 2: even layers slide, odd ones attend globally).
        m.layer_attention.assign(m.num_hidden_layers, attention_kind::full);
        for (std::uint64_t i = 0; i < m.num_hidden_layers; i += period) m.layer_attention[i] = attention_kind::sliding;
        m.sliding_window_layers = (m.num_hidden_layers + period - 1) / period;
    }
    read_layer_lists(r, m);
    if (!m.layer_attention.empty()) {
        std::uint64_t sliding = 0;  // newer configs list each layer's attention kind
        for (auto k : m.layer_attention) sliding += k == attention_kind::sliding ? 1 : 0;
        m.sliding_window_layers = sliding;
    }
    // memplan's own keys for the structures of 2025–2026 models (arch.hpp / config.hpp).
    r.integer("attention_chunk_size", m.attention_chunk_size, 0, 16777216);
    r.boolean("qk_norm", m.qk_norm);
    r.boolean("attention_sinks", m.attention_sinks);
    r.boolean("sliding_attention_sinks", m.sliding_attention_sinks);
    r.integer("sliding_num_key_value_heads", m.sliding_num_key_value_heads, 0, 65536);
    r.integer("full_head_dim", m.full_head_dim, 0, 65536);
    r.integer("full_num_key_value_heads", m.full_num_key_value_heads, 0, 65536);
    r.boolean("full_value_from_key", m.full_value_from_key);
    r.boolean("attention_output_gate", m.attention_output_gate);
    r.integer("q_lora_rank", m.q_lora_rank, 0, 1048576);
    r.integer("kv_lora_rank", m.kv_lora_rank, 0, 1048576);
    r.integer("qk_nope_head_dim", m.qk_nope_head_dim, 0, 65536);
    r.integer("qk_rope_head_dim", m.qk_rope_head_dim, 0, 65536);
    r.integer("v_head_dim", m.v_head_dim, 0, 65536);
    // Partial rotary embedding: int(head_dim × partial_rotary_factor) channels rotate (transformers
    // modeling_rope_utils.py _compute_default_rope_parameters; vLLM's get_rope narrows rotary_dim the same
    // way); GPT-NeoX names the fraction rotary_pct (configuration_gpt_neox.py). memplan's rotary_dim wins.
    // transformers v5 configs keep the fraction inside rope_parameters (Qwen3.5's text_config).
    const auto rotary_fraction = [&m](object_reader& from, const char* k) {
        double fraction = 1;
        if (from.probability(k, fraction) && fraction < 1) {
            const double width = static_cast<double>(resolved_head_dim(m)) * fraction;
            m.rotary_dim = width >= 1 ? static_cast<std::uint64_t>(width) : 1;
        }
    };
    for (const char* k : {"partial_rotary_factor", "rotary_pct"}) rotary_fraction(r, k);
    if (const json* rope = r.find("rope_parameters"); rope != nullptr && rope->is_object()) {
        object_reader inner(*rope, r.field("rope_parameters"), r.errors(), /*lenient=*/true);
        rotary_fraction(inner, "partial_rotary_factor");
    }
    r.integer("rotary_dim", m.rotary_dim, 0, 65536);
    r.integer("index_n_heads", m.index_n_heads, 0, 65536);
    r.integer("index_head_dim", m.index_head_dim, 0, 65536);
    r.boolean("router_bias", m.router_bias);
    r.boolean("shared_expert_gate", m.shared_expert_gate);
    r.boolean("router_scales", m.router_scales);
    r.boolean("layer_scalar", m.layer_scalar);
    r.integer("moe_latent_size", m.moe_latent_size, 0, 1048576);
    r.integer("linear_num_key_heads", m.linear_num_key_heads, 0, 65536);
    r.integer("linear_num_value_heads", m.linear_num_value_heads, 0, 65536);
    r.integer("linear_key_head_dim", m.linear_key_head_dim, 0, 65536);
    r.integer("linear_value_head_dim", m.linear_value_head_dim, 0, 65536);
    r.integer("linear_conv_kernel_dim", m.linear_conv_kernel_dim, 0, 1024);
    r.boolean("linear_kda", m.linear_kda);
    r.integer("mamba_version", m.mamba_version, 0, 2);
    r.integer("mamba_d_inner", m.mamba_d_inner, 0, 1048576);
    r.integer("mamba_d_state", m.mamba_d_state, 0, 65536);
    r.integer("mamba_d_conv", m.mamba_d_conv, 0, 1024);
    r.integer("mamba_dt_rank", m.mamba_dt_rank, 0, 1048576);
    r.integer("mamba_num_heads", m.mamba_num_heads, 0, 65536);
    r.integer("mamba_n_groups", m.mamba_n_groups, 0, 65536);
    r.boolean("mamba_conv_bias", m.mamba_conv_bias);
    r.boolean("mamba_proj_bias", m.mamba_proj_bias);
    r.integer("num_nextn_predict_layers", m.num_nextn_predict_layers, 0, 64);
    read_size_aliases(r, family, &model_config::num_nextn_predict_layers, m);
    r.boolean("mtp", m.mtp);
    r.name("ssm_state_dtype", m.ssm_state_dtype, names_of(dtype{}).joined(", ").c_str());
    r.integer("vision_params", m.vision_params, 0, max_param_count);
    r.name("checkpoint", m.checkpoint, names_of(checkpoint_format{}).joined(", ").c_str());
    r.integer("quant_block", m.quant_block, 0, 1048576);
    r.boolean("quant_experts_only", m.quant_experts_only);
    r.boolean("quant_mixer_kept", m.quant_mixer_kept);
    r.boolean("quant_double", m.quant_double);
    r.boolean("quant_g_idx", m.quant_g_idx);
    r.boolean("quant_symmetric", m.quant_symmetric);
}

/// The sizes every Hugging Face config must state: a config.json as a checkpoint stores it gives them, and the
/// configuration classes' defaults (LlamaConfig: 32,000 × 11,008) describe another model. vocab_size sizes the
/// embedding and the head; the feed-forward width (intermediate_size, GPT-2's n_inner, ffn_hidden_size) is
/// required where a layer has a dense MLP or experts of that width (no moe_intermediate_size). GPT-2's
/// `"n_inner": null` is its documented 4 × n_embd (GPT2Config), so a present null counts as stated.
void require_sizes(object_reader& r, const model_config& m) {
    const json& obj = r.raw();
    // Layers, width and heads missing are named by the validator first (memory/validate.cpp).
    if (m.num_hidden_layers == 0 || m.hidden_size == 0 || m.num_attention_heads == 0) return;
    if (!obj.contains("vocab_size") && !obj.contains("padded_vocab_size"))
        r.fail(r.field("vocab_size"), "is required: the embedding and the output head are vocab_size × hidden_size "
                                      "(memplan does not assume a default)");
    bool dense = m.layer_mlp.empty() ? (m.num_experts == 0 || m.moe_intermediate_size == 0) : m.moe_intermediate_size == 0;
    for (layer_mlp_kind k : m.layer_mlp) dense = dense || k == layer_mlp_kind::dense;
    if (!m.layer_mlp.empty() && std::all_of(m.layer_mlp.begin(), m.layer_mlp.end(),
                                            [](layer_mlp_kind k) { return k == layer_mlp_kind::none; }))
        dense = false;
    bool stated = false;
    for (const char* k : {"intermediate_size", "n_inner", "ffn_hidden_size", "intermediate_size_mlp"})
        stated = stated || obj.contains(k);
    if (dense && !stated)
        r.fail(r.field("intermediate_size"), "is required: the feed-forward width of the dense layers (or of experts "
                                             "without moe_intermediate_size); memplan does not assume a default");
}

}  // namespace

void read_model_object(object_reader& r, model_config& m, int depth) {
    const json& obj = r.raw();
    // A preset: the stored config of a published model, which the remaining keys may override.
    if (const json* preset = r.find("preset"); preset != nullptr) {
        // The stored document, parsed once (presets.cpp); null for an id that is no preset.
        const json* stored = preset->is_string() ? preset_config(preset->get<std::string>()) : nullptr;
        if (stored == nullptr) {
            r.fail(r.field("preset"), "must be the id of a model preset (memplan presets)");
            return;
        }
        object_reader inner(*stored, r.field("preset"), r.errors(), /*lenient=*/true);
        read_model_object(inner, m, depth + 1);
    }
    // A config.json without model_type names its family by its model classes (transformers
    // models/auto/modeling_auto.py maps each class to one model_type).
    std::string architecture_type;
    if (!obj.contains("model_type") && !obj.contains("preset") && obj.contains("architectures"))
        architecture_type = type_of_architectures(r);
    // Multimodal configs keep the language model under text_config and the vision tower under vision_config.
    if (const json* text = r.find("text_config"); text != nullptr && text->is_object() && depth < 2 &&
                                                   !obj.contains("num_hidden_layers")) {
        object_reader inner(*text, r.field("text_config"), r.errors(), /*lenient=*/true);
        std::string outer_type;
        if (const auto it = obj.find("model_type"); it != obj.end() && it->is_string()) outer_type = it->get<std::string>();
        if (!architecture_type.empty()) outer_type = architecture_type;
        model_config text_model = m;
        // Families whose text_config may leave keys at the configuration class's defaults.
        const auto tt = text->find("model_type");
        const std::string text_type = tt != text->end() && tt->is_string() ? tt->get<std::string>() : "";
        read_model_object(inner, text_model, depth + 1);
        m = text_model;
        // A tie_word_embeddings beside text_config that the language model does not give, and that differs from
        // the language model's own default: which one ties lm_head is not settled by the file, so it is refused,
        // not guessed (V · h parameters either way).
        if (const json* tie = r.find("tie_word_embeddings"); tie != nullptr && tie->is_boolean() &&
            !text->contains("tie_word_embeddings") && tie->get<bool>() != m.tie_word_embeddings)
            r.fail(r.field("tie_word_embeddings"),
                   std::string("is ") + (tie->get<bool>() ? "true" : "false") + " but text_config's language model (" +
                       text_type + ") defaults to " + (m.tie_word_embeddings ? "tied" : "untied") +
                       " embeddings; give tie_word_embeddings inside text_config");
        r.find("model_type");
        // The tower of a multimodal family (a row with a text_config type); any other is refused.
        const model_family* outer_family = find_family(outer_type);
        const vision_tower kind = outer_family != nullptr && outer_family->text_config_type != nullptr
                                      ? outer_family->tower
                                      : vision_tower::none;
        // A tower memplan counts reads an empty vision_config at its configuration class's defaults, as
        // transformers builds it (Gemma3Config: SiglipVisionConfig(**vision_config)).
        if (const json* vision = r.find("vision_config"); vision != nullptr && !vision->is_object())
            r.fail(r.field("vision_config"), "must be an object (the vision tower's configuration)");
        else if (vision != nullptr && (!vision->empty() || kind != vision_tower::none))
            read_vision_tower(r, obj, *vision, kind, outer_type, m);
        read_quantization(r, m);
        // Other towers of a multimodal checkpoint are not modelled: refused, not ignored.
        for (const char* k : {"audio_config", "speech_config", "talker_config"})
            if (const auto it = obj.find(k); it != obj.end() && meaningful(*it))
                r.fail(r.field(k), "is not supported yet for model_type " + outer_type);
        for (const char* k : {"mtp", "checkpoint"}) (void)r.find(k);
        r.boolean("mtp", m.mtp);
        return;
    }
    std::string model_type = m.model_type;
    r.text("model_type", model_type);
    if (!architecture_type.empty()) model_type = architecture_type;
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
        m.mtp = sizes.mtp;
        m.vision_params = sizes.vision_params;
    }
    const model_family* family = find_family(model_type);
    json_config_keys keys(r);
    if (family != nullptr && family->text_config_defaults != nullptr && depth > 0) family->text_config_defaults(keys, m);
    read_model_keys(r, m);
    const bool hf = (obj.contains("model_type") || !architecture_type.empty()) && !obj.contains("preset");
    if (hf) {
        // The family's layer patterns (MoE placement, attention kinds per layer, hybrid mixers).
        if (family != nullptr && family->read_keys != nullptr) family->read_keys(keys, m);
        read_quantization(r, m);
        // A flattened config (language keys at the top level) of a family that defines vision_config; for the
        // others the family-key check below refuses it.
        const auto understood = [family](const char* key) { return family != nullptr && family_reads(*family, key); };
        if (const json* vision = r.find("vision_config"); vision != nullptr && understood("vision_config")) {
            if (!vision->is_object()) r.fail(r.field("vision_config"), "must be an object (the vision tower's configuration)");
            else read_vision_tower(r, obj, *vision, family->tower, model_type, m);
        }
        // Keys that change memory and that this family does not define: refused, not ignored.
        for (const char* key : family_only_keys()) {
            const auto it = obj.find(key);
            if (it == obj.end() || !meaningful(*it)) continue;
            if (understood(key)) continue;
            r.fail(r.field(key), "is not supported yet for model_type " + (model_type.empty() ? std::string("\"\"") : model_type));
        }
        // A family memplan does not know: read with assumed defaults only when every key of its config is
        // one memplan reads or a standard one; any other key may change the count, and is refused.
        std::string unread;
        if (!model_type.empty() && !is_known_family(model_type))
            for (auto it = obj.begin(); it != obj.end(); ++it) {
                const std::string& key = it.key();
                const auto& only = family_only_keys();
                if (r.looked_up(key) || standard_key(key) ||
                    std::find_if(only.begin(), only.end(), [&key](const char* k) { return key == k; }) != only.end())
                    continue;
                unread += (unread.empty() ? "" : ", ") + key;
            }
        if (!unread.empty()) {
            r.fail(r.field("model_type"), "'" + model_type + "' is not a family memplan knows, and its config has keys " +
                                              "memplan does not read, which may change the count: " + unread +
                                              " (known model_type: " + known_model_types() + ")");
        } else if (!model_type.empty() && !is_known_family(model_type)) {
            m.assumptions.push_back(
                "model_type '" + model_type + "' is not a family memplan knows: counted as a decoder with " +
                (m.norm == norm_kind::rmsnorm ? "RMSNorm (rms_norm_eps given)" : "LayerNorm") + ", a " +
                (m.mlp == mlp_kind::gated ? "gated" : "plain") + " MLP (hidden_act), " +
                (m.qkv_bias ? "attention biases" : "no attention biases") + ", " +
                (m.tie_word_embeddings ? "tied" : "untied") + " embeddings" +
                (m.num_experts != 0 ? ", Mixtral-style experts (router without bias, no shared expert)" : "") +
                ", no QK-norm and no other per-head weights");
        }
        // A text_config its family lets leave keys at the configuration class's defaults (Gemma 3's omits
        // vocab_size, as the released files do) is read at those defaults, not refused. Checked last, so that
        // a key memplan refuses is named first.
        if (r.errors().empty() && (family == nullptr || family->text_config_defaults == nullptr || depth == 0))
            require_sizes(r, m);
    }
}

void read_model(const json& object, const std::string& path, model_config& m, diagnostics& errors) {
    // A Hugging Face config (it names its model_type) may carry any keys that cannot change memory;
    // an object built on a preset is memplan's own and stays strict.
    const bool lenient = (object.contains("model_type") || object.contains("text_config") || object.contains("architectures")) &&
                         !object.contains("preset");
    object_reader r(object, path, errors, lenient);
    read_model_object(r, m, 0);
    r.finish();
}
}  // namespace detail

}  // namespace memplan
