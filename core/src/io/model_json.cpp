// The `model` section of a configuration: memplan's own model keys, presets, and Hugging Face
// config.json import (lenient: keys that cannot change memory are ignored); and the resolved model
// as explicit keys.
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

/// A positive size in a vision config object `o` (1 … 2^24), or `fallback` when the key is absent or
/// null; anything else is an error naming `prefix` + key, and 0.
std::uint64_t vision_size(object_reader& r, const json& o, const char* key, std::uint64_t fallback, const std::string& prefix) {
    const auto it = o.find(key);
    if (it == o.end() || it->is_null()) return fallback;
    if (!it->is_number_unsigned() || it->get<std::uint64_t>() == 0 || it->get<std::uint64_t>() > 16777216) {
        r.fail(prefix + key, detail::integer_range_message(1, 16777216));
        return 0;
    }
    return it->get<std::uint64_t>();
}

/// A size a tower cannot be counted without: vision_size with no fallback, an absent or null key an error
/// naming it and `tower`; `complete` turns false on any failure (or a value of 0).
u128 required_vision_size(object_reader& r, const json& o, const char* key, const std::string& prefix,
                          const char* tower, bool& complete) {
    const auto it = o.find(key);
    if (it == o.end() || it->is_null()) {
        r.fail(prefix + key, std::string("is required to count ") + tower + " (a positive integer)");
        complete = false;
        return 0;
    }
    const std::uint64_t value = vision_size(r, o, key, 0, prefix);  // an invalid value fails there
    if (value == 0) complete = false;
    return value;
}

/// A true/false value of the nested object `o` at `key` (named `field` in errors): `fallback` when
/// absent or null; any other type is an error, and `fallback`.
bool flag_in(object_reader& r, const json& o, const char* key, bool fallback, const std::string& field) {
    const auto it = o.find(key);
    if (it == o.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) {
        r.fail(field, "must be true or false");
        return fallback;
    }
    return it->get<bool>();
}

/// A ViT vision tower as SigLIP (modeling_siglip.py SiglipVisionTransformer without head): patch
/// convolution C·p²·d + d, position embeddings (image/p)²·d, per layer two LayerNorms (2·2d),
/// q/k/v/o with biases (4d² + 4d) and an MLP d×f + f + f×d + d, and a final LayerNorm 2d.
bool siglip_params(object_reader& r, const json& v, std::uint64_t& out) {
    const std::string prefix = r.field("vision_config") + ".";
    const auto get = [&](const char* key, std::uint64_t fallback) { return vision_size(r, v, key, fallback, prefix); };
    // Defaults of SiglipVisionConfig (configuration_siglip.py).
    const u128 d = get("hidden_size", 768), f = get("intermediate_size", 3072), layers = get("num_hidden_layers", 12),
               c = get("num_channels", 3), patch = get("patch_size", 16), image = get("image_size", 224);
    if (d == 0 || f == 0 || layers == 0 || c == 0 || patch == 0 || image == 0) return false;
    if (const auto it = v.find("vision_use_head"); it != v.end() && it->is_boolean() && it->get<bool>()) {
        r.fail(r.field("vision_config.vision_use_head"), "is not supported yet (SigLIP attention-pooling head)");
        return false;
    }
    const u128 grid = image / patch;
    const u128 total = c * patch * patch * d + d + grid * grid * d + layers * (4 * d + 4 * d * d + 4 * d + 2 * d * f + f + d) + 2 * d;
    out = static_cast<std::uint64_t>(std::min<u128>(total, max_param_count));
    return true;
}

/// Pixtral vision tower and Mistral 3 projector (modeling_pixtral.py PixtralVisionModel:
/// patch_conv C·p²·d without bias, ln_pre RMSNorm d, per layer attention_norm and ffn_norm (2d),
/// q/k/v/o without bias (4d²) and a gated MLP 3·d·f; modeling_mistral3.py Mistral3MultiModalProjector:
/// norm d, patch_merger d·s² × d, linear_1 d × h and linear_2 h × h, with biases when
/// multimodal_projector_bias).
bool pixtral_params(object_reader& r, const json& outer, const json& v, std::uint64_t text_hidden, std::uint64_t& out) {
    const auto get = [&](const json& o, const char* key, std::uint64_t fallback, const std::string& where) {
        return vision_size(r, o, key, fallback, r.field(where));
    };
    // Defaults of PixtralVisionConfig and Mistral3Config.
    const u128 d = get(v, "hidden_size", 1024, "vision_config."), f = get(v, "intermediate_size", 4096, "vision_config."),
               layers = get(v, "num_hidden_layers", 24, "vision_config."), c = get(v, "num_channels", 3, "vision_config."),
               patch = get(v, "patch_size", 16, "vision_config."), merge = get(outer, "spatial_merge_size", 2, "");
    if (d == 0 || f == 0 || layers == 0 || c == 0 || patch == 0 || merge == 0) return false;
    if (const auto it = outer.find("vision_feature_layer"); it != outer.end() && !(it->is_number_integer() && it->get<std::int64_t>() == -1)) {
        r.fail(r.field("vision_feature_layer"), "is supported as -1 only (one feature layer)");
        return false;
    }
    const bool bias = flag_in(r, outer, "multimodal_projector_bias", false, r.field("multimodal_projector_bias"));
    const u128 h = text_hidden;
    const u128 tower = c * patch * patch * d + d + layers * (2 * d + 4 * d * d + 3 * d * f);
    const u128 projector = d + d * merge * merge * d + d * h + h * h + (bias ? 2 * h : 0);
    out = static_cast<std::uint64_t>(std::min<u128>(tower + projector, max_param_count));
    return true;
}

/// Llama 4 vision tower and projector, as transformers' src/transformers/models/llama4/modeling_llama4.py
/// (commit 63210d0e3b74c2119b7998ff65bc6a2729283626) builds them; defaults of Llama4VisionConfig
/// (configuration_llama4.py, commit b17cfe48c5a9631dcf9f57f3865a055903800f81).
bool llama4_vision_params(object_reader& r, const json& v, std::uint64_t text_hidden, std::uint64_t& out) {
    const std::string prefix = r.field("vision_config") + ".";
    const auto get = [&](const char* key, std::uint64_t fallback) { return vision_size(r, v, key, fallback, prefix); };
    const u128 d = get("hidden_size", 768), layers = get("num_hidden_layers", 34), heads = get("num_attention_heads", 16),
               c = get("num_channels", 3), f = get("intermediate_size", 5632), out_dim = get("vision_output_dim", 7680),
               image = get("image_size", 448), patch = get("patch_size", 14), p_in = get("projector_input_dim", 4096),
               p_out = get("projector_output_dim", 4096);
    if (d == 0 || layers == 0 || heads == 0 || c == 0 || f == 0 || out_dim == 0 || image == 0 || patch == 0 || p_in == 0 || p_out == 0)
        return false;
    // Llama4VisionAttention: head_dim = hidden_size // num_attention_heads (integer division).
    if (heads > d) {
        r.fail(r.field("vision_config.num_attention_heads"), "must not exceed vision_config.hidden_size (" + std::to_string(static_cast<std::uint64_t>(d)) + ")");
        return false;
    }
    // Llama4VisionMLP2 feeds fc1's projector_input_dim outputs to fc2 (projector_output_dim inputs), and
    // Llama4MultiModalProjector reads vision_output_dim features: a checkpoint whose sizes differ does not run.
    if (p_in != p_out) {
        r.fail(r.field("vision_config.projector_output_dim"), "must equal vision_config.projector_input_dim (" + std::to_string(static_cast<std::uint64_t>(p_in)) + ")");
        return false;
    }
    if (out_dim != p_out) {
        r.fail(r.field("vision_config.vision_output_dim"), "must equal vision_config.projector_output_dim (" + std::to_string(static_cast<std::uint64_t>(p_out)) + ")");
        return false;
    }
    const u128 attn_width = heads * (d / heads);  // num_heads · head_dim: q/k/v output width, o_proj input width
    // Llama4UnfoldConvolution: linear C·p² × d, bias=False.
    const u128 patch_embedding = c * patch * patch * d;
    // Llama4VisionModel: class_embedding d; positional_embedding_vlm ((image_size // patch_size)² + 1) × d.
    const u128 grid = image / patch;
    const u128 embeddings = d + (grid * grid + 1) * d;
    // Llama4VisionModel: layernorm_pre and layernorm_post, nn.LayerNorm (weight and bias) each.
    const u128 outer_norms = 2 * 2 * d;
    // Llama4VisionEncoderLayer: q/k/v d × attn_width with bias, o_proj attn_width × d with bias (Llama4VisionAttention);
    // Llama4VisionMLP fc1 d × f and fc2 f × d with biases; input_layernorm and post_attention_layernorm (2 · 2d).
    const u128 layer = 3 * (d * attn_width + attn_width) + (attn_width * d + d) + (d * f + f) + (f * d + d) + 2 * 2 * d;
    // Llama4VisionPixelShuffleMLP → Llama4VisionMLP2: fc1 intermediate_size × projector_input_dim and
    // fc2 projector_output_dim × projector_output_dim, both bias=False.
    const u128 adapter = f * p_in + p_out * p_out;
    // Llama4MultiModalProjector: linear_1 vision_output_dim × text hidden_size, bias=False (the modelling file
    // does not read multi_modal_projector_bias).
    const u128 projector = out_dim * text_hidden;
    const u128 total = patch_embedding + embeddings + outer_norms + layers * layer + adapter + projector;
    out = static_cast<std::uint64_t>(std::min<u128>(total, max_param_count));
    return true;
}

/// Qwen3-VL's vision tower as transformers' src/transformers/models/qwen3_vl/modeling_qwen3_vl.py (commit
/// 68a7b7e272a36928120316249af3ee3cac595818) builds it; no defaults are assumed: each size is read from
/// vision_config (Qwen3VLVisionConfig's defaults differ between releases), a missing one is refused.
bool qwen3_vl_vision_params(object_reader& r, const json& v, std::uint64_t& out) {
    const std::string prefix = r.field("vision_config") + ".";
    bool complete = true;
    const auto need = [&](const char* key) { return required_vision_size(r, v, key, prefix, "Qwen3-VL's vision tower", complete); };
    const u128 d = need("hidden_size"), f = need("intermediate_size"), depth = need("depth"), c = need("in_channels"),
               patch = need("patch_size"), t = need("temporal_patch_size"), positions = need("num_position_embeddings"),
               merge = need("spatial_merge_size"), out_d = need("out_hidden_size");
    (void)need("num_heads");  // head_dim = hidden_size // num_heads shapes no weight (qkv is d × 3d)
    if (!complete || d == 0 || f == 0 || depth == 0 || c == 0 || patch == 0 || t == 0 || positions == 0 || merge == 0 || out_d == 0)
        return false;
    u128 deepstack = 0;
    if (const auto it = v.find("deepstack_visual_indexes"); it != v.end() && !it->is_null()) {
        if (!it->is_array()) {
            r.fail(prefix + "deepstack_visual_indexes", "must be a list of vision layer indexes");
            return false;
        }
        for (const auto& i : *it)
            if (!i.is_number_integer() || i.get<std::int64_t>() < 0 || static_cast<u128>(i.get<std::int64_t>()) >= depth) {
                r.fail(prefix + "deepstack_visual_indexes", "must hold layer indexes from 0 to depth − 1");
                return false;
            }
        deepstack = it->size();
    }
    // Qwen3VLVisionPatchEmbed: Conv3d(in_channels, d, kernel (temporal_patch_size, p, p), bias=True).
    const u128 patch_embed = c * t * patch * patch * d + d;
    // Qwen3VLVisionModel.pos_embed: nn.Embedding(num_position_embeddings, d); the rotary table is a buffer.
    const u128 pos_embed = positions * d;
    // Qwen3VLVisionBlock: norm1 and norm2 LayerNorm (2 · 2d); Qwen3VLVisionAttention qkv d × 3d and proj d × d,
    // both with bias; Qwen3VLVisionMLP linear_fc1 d × f and linear_fc2 f × d, both with bias.
    const u128 block = 2 * 2 * d + (3 * d * d + 3 * d) + (d * d + d) + (d * f + f) + (f * d + d);
    // Qwen3VLVisionPatchMerger over H = d · spatial_merge_size²: norm LayerNorm (of d, or of H after the
    // shuffle: the deepstack mergers), linear_fc1 H × H and linear_fc2 H × out_hidden_size, both with bias.
    const u128 h = d * merge * merge;
    const u128 merger_linears = (h * h + h) + (h * out_d + out_d);
    const u128 merger = 2 * d + merger_linears;
    const u128 deepstack_mergers = deepstack * (2 * h + merger_linears);
    const u128 total = patch_embed + pos_embed + depth * block + merger + deepstack_mergers;
    out = static_cast<std::uint64_t>(std::min<u128>(total, max_param_count));
    return true;
}

/// Gemma 4's vision tower and its embedding projection, as transformers src/transformers/models/gemma4/modeling_gemma4.py
/// (commit c308a309e651a7e033f683353f3f75aa66d29502) builds them, at Gemma4VisionConfig's defaults (configuration_gemma4.py,
/// commit 351f643ab9f582c01026b6d75aab3e2c5a8338cd) where a key is absent. Keys that shape no weight: rope_parameters,
/// pooling_kernel_size (average pooling), attention_bias and global_head_dim (Gemma4VisionAttention reads neither),
/// max_position_embeddings, rms_norm_eps, hidden_activation, the processor's sequence lengths.
bool gemma4_vision_params(object_reader& r, const json& v, std::uint64_t text_hidden, std::uint64_t& out) {
    const std::string prefix = r.field("vision_config") + ".";
    const auto get = [&](const char* key, std::uint64_t fallback) { return vision_size(r, v, key, fallback, prefix); };
    const u128 d = get("hidden_size", 768), f = get("intermediate_size", 3072), layers = get("num_hidden_layers", 16),
               heads = get("num_attention_heads", 12), kv = get("num_key_value_heads", 12), hd = get("head_dim", 64),
               patch = get("patch_size", 16), positions = get("position_embedding_size", 10240);
    if (d == 0 || f == 0 || layers == 0 || heads == 0 || kv == 0 || hd == 0 || patch == 0 || positions == 0) return false;
    const bool clipped = flag_in(r, v, "use_clipped_linears", false, prefix + "use_clipped_linears");
    const bool standardize = flag_in(r, v, "standardize", false, prefix + "standardize");
    // Gemma4VisionPatchEmbedder: input_proj 3·p² × d without bias; position_embedding_table 2 × positions × d.
    const u128 embedder = 3 * patch * patch * d + 2 * positions * d;
    // Gemma4VisionEncoderLayer: q d × heads·hd, k and v d × kv·hd, o heads·hd × d (Gemma4ClippableLinear, no bias;
    // with use_clipped_linears four scalar buffers each, input_min/max and output_min/max); q_norm and k_norm hd,
    // v_norm without weight; four RMSNorms d; Gemma4VisionMLP gate, up d × f and down f × d (clippable too).
    const u128 layer = d * heads * hd + 2 * d * kv * hd + heads * hd * d + 2 * hd + 4 * d + 3 * d * f + (clipped ? 7 * 4 : 0);
    // Gemma4VisionModel: std_bias and std_scale (d each, persistent buffers) with standardize; the pooler has no weight.
    const u128 standardizer = standardize ? 2 * d : 0;
    // Gemma4MultimodalEmbedder: embedding_projection d × text hidden_size without bias; its norm has no weight.
    const u128 projection = d * text_hidden;
    const u128 total = embedder + layers * layer + standardizer + projection;
    out = static_cast<std::uint64_t>(std::min<u128>(total, max_param_count));
    return true;
}

/// Kimi K2.5's MoonViT tower and projector, as vLLM's vllm/model_executor/models/kimi_k25_vit.py (commit
/// 055e47c28003156421365af985d676fc921cb075) builds them (MoonViT3dPretrainedModel, KimiK25MultiModalProjector):
/// biases and LayerNorms unless attn_bias, linear_bias, patch_embed_proj_bias or norm_type say otherwise. Every
/// size is read from vision_config under the checkpoint's names (vt_hidden_size, …); a missing one is refused.
bool moonvit_params(object_reader& r, const json& v, std::uint64_t text_hidden, std::uint64_t& out) {
    const std::string prefix = r.field("vision_config") + ".";
    bool complete = true;
    const auto need = [&](const char* key) { return required_vision_size(r, v, key, prefix, "the MoonViT vision tower", complete); };
    // A string key that must be one of `allowed` (the first is its default when `fallback` and the key is absent).
    const auto choice = [&](const char* key, std::initializer_list<const char*> allowed, bool fallback) {
        const auto it = v.find(key);
        std::string list;
        for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + "\"" + a + "\"";
        if ((it == v.end() || it->is_null()) && fallback) return std::string(*allowed.begin());
        const std::string value = it != v.end() && it->is_string() ? it->get<std::string>() : "";
        for (const char* a : allowed)
            if (value == a) return value;
        r.fail(prefix + key, (it == v.end() || it->is_null() ? std::string("is required") : "is " + it->dump()) +
                                 ": the MoonViT tower memplan counts has " + list);
        complete = false;
        return std::string();
    };
    const u128 d = need("vt_hidden_size"), f = need("vt_intermediate_size"), layers = need("vt_num_hidden_layers"),
               heads = need("vt_num_attention_heads"), patch = need("patch_size"), pos_h = need("init_pos_emb_height"),
               pos_w = need("init_pos_emb_width"), mm = need("mm_hidden_size"), text = need("text_hidden_size");
    (void)need("init_pos_emb_time");  // sizes time_weight, a non-persistent sin-cos buffer: no weight
    // qkv_hidden_size: q/k/v width (vLLM MoonViTEncoderLayer: the vision width when absent).
    const u128 qkv = vision_size(r, v, "qkv_hidden_size", static_cast<std::uint64_t>(d), prefix);
    u128 kh = 0, kw = 0;
    if (const auto it = v.find("merge_kernel_size"); it != v.end() && it->is_array() && it->size() == 2 &&
                                                     (*it)[0].is_number_unsigned() && (*it)[1].is_number_unsigned() &&
                                                     (*it)[0].get<std::uint64_t>() >= 1 && (*it)[0].get<std::uint64_t>() <= 64 &&
                                                     (*it)[1].get<std::uint64_t>() >= 1 && (*it)[1].get<std::uint64_t>() <= 64) {
        kh = (*it)[0].get<std::uint64_t>();
        kw = (*it)[1].get<std::uint64_t>();
    } else {
        r.fail(prefix + "merge_kernel_size", "must be a list of two integers from 1 to 64 such as [2, 2]");
        complete = false;
    }
    (void)choice("pos_emb_type", {"divided_fixed"}, false);
    (void)choice("merge_type", {"sd2_tpool"}, false);
    (void)choice("video_attn_type", {"spatial_temporal"}, true);
    (void)choice("mlp_type", {"mlp2"}, true);
    const std::string projector = choice("mm_projector_type", {"patchmerger", "patchmergerv2"}, false);
    const bool rms = choice("norm_type", {"layernorm", "rmsnorm"}, true) == "rmsnorm";
    const bool attn_bias = flag_in(r, v, "attn_bias", true, prefix + "attn_bias");
    const bool linear_bias = flag_in(r, v, "linear_bias", true, prefix + "linear_bias");
    const bool patch_bias = flag_in(r, v, "patch_embed_proj_bias", true, prefix + "patch_embed_proj_bias");
    if (!complete || d == 0 || f == 0 || layers == 0 || heads == 0 || patch == 0 || pos_h == 0 || pos_w == 0 ||
        mm == 0 || text == 0 || qkv == 0)
        return false;
    // QKVParallelLinear(head_size = qkv_hidden_size // num_heads): the heads must split the q/k/v width.
    if (qkv % heads != 0) {
        r.fail(prefix + "vt_num_attention_heads", "must divide the q/k/v width " + std::to_string(static_cast<std::uint64_t>(qkv)));
        return false;
    }
    // The checkpoint's PatchMergerMLP normalises mm_hidden_size features and vLLM's the tower's width: one tower.
    if (mm != d) {
        r.fail(prefix + "mm_hidden_size", "must equal vision_config.vt_hidden_size (" + std::to_string(static_cast<std::uint64_t>(d)) + ")");
        return false;
    }
    if (text != text_hidden) {
        r.fail(prefix + "text_hidden_size", "must equal the language model's hidden_size (" + std::to_string(text_hidden) + ")");
        return false;
    }
    const auto norm = [rms](u128 width) { return rms ? width : 2 * width; };  // nn.RMSNorm weight; nn.LayerNorm weight and bias
    // MoonVision3dPatchEmbed: proj Conv2d(3, d, kernel p × p) with bias unless patch_embed_proj_bias is false;
    // Learnable2DInterpPosEmbDivided_fixed.weight (init_pos_emb_height, init_pos_emb_width, d).
    const u128 patch_embed = 3 * patch * patch * d + (patch_bias ? d : 0) + pos_h * pos_w * d;
    // MoonViTEncoderLayer: norm0 and norm1, wqkv d × 3·qkv and wo qkv × d (biases with attn_bias), MLP2 fc0 d × f
    // and fc1 f × d (biases with linear_bias).
    const u128 block = 2 * norm(d) + (d * 3 * qkv + (attn_bias ? 3 * qkv : 0)) + (qkv * d + (attn_bias ? d : 0)) +
                       (d * f + (linear_bias ? f : 0)) + (f * d + (linear_bias ? d : 0));
    // MoonViT3dEncoder.final_layernorm (norm_type).
    const u128 encoder = layers * block + norm(d);
    // KimiK25MultiModalProjector over H = d · kh · kw: patchmerger pre_norm LayerNorm(d), linear_1 H × H and
    // linear_2 H × text hidden, both with bias; patchmergerv2 linear_1 and linear_2 without bias, post_norm RMSNorm.
    const u128 h = d * kh * kw;
    const u128 projector_params = projector == "patchmerger" ? 2 * d + (h * h + h) + (h * text + text)
                                                             : h * h + h * text + text;
    const u128 total = patch_embed + encoder + projector_params;
    out = static_cast<std::uint64_t>(std::min<u128>(total, max_param_count));
    return true;
}

/// The vision tower and projector of a multimodal checkpoint (vision_config beside the language model of
/// `outer_type`, whose family's tower is `kind`) into m.vision_params; a tower memplan cannot count is
/// refused, naming vision_config, so that no total silently leaves it out (and the resolved keys, which
/// hold vision_params, say the same).
void read_vision_tower(object_reader& r, const json& outer, const json& vision, vision_tower kind,
                       const std::string& outer_type, model_config& m) {
    std::uint64_t tower = 0;
    if (kind == vision_tower::siglip) {
        // modeling_gemma3.py Gemma3MultiModalProjector: mm_input_projection_weight d_vision × h and
        // mm_soft_emb_norm (RMSNorm d_vision), after a SigLIP tower.
        if (siglip_params(r, vision, tower)) {
            // The width siglip_params read (a null hidden_size is SiglipVisionConfig's default 768).
            const std::uint64_t dv = vision_size(r, vision, "hidden_size", 768, r.field("vision_config") + ".");
            m.vision_params = tower + dv * m.hidden_size + dv;
        }
    } else if (kind == vision_tower::pixtral) {
        if (pixtral_params(r, outer, vision, m.hidden_size, tower)) m.vision_params = tower;
        for (const char* k : {"spatial_merge_size", "multimodal_projector_bias", "vision_feature_layer"}) (void)r.find(k);
    } else if (kind == vision_tower::llama4) {
        if (llama4_vision_params(r, vision, m.hidden_size, tower)) m.vision_params = tower;
    } else if (kind == vision_tower::qwen3_vl) {
        if (qwen3_vl_vision_params(r, vision, tower)) m.vision_params = tower;
    } else if (kind == vision_tower::gemma4) {
        if (gemma4_vision_params(r, vision, m.hidden_size, tower)) m.vision_params = tower;
    } else if (kind == vision_tower::moonvit) {
        if (moonvit_params(r, vision, m.hidden_size, tower)) m.vision_params = tower;
    } else {
        r.fail(r.field("vision_config"), "is not supported yet for model_type " +
                                             (outer_type.empty() ? std::string("\"\"") : outer_type) +
                                             " (its vision tower cannot be counted; leave vision_config out to size the language model alone)");
    }
}

/// NVIDIA ModelOpt's quantization_config (quant_method "modelopt": quant_algo NVFP4 or FP8, the modules left
/// unquantized in `ignore`, as Model Optimizer's Hugging Face export writes them; vLLM reads the same keys in
/// model_executor/layers/quantization/modelopt.py). memplan packs every linear layer, the routed experts only
/// (model.quant_experts_only) or every MLP with the attention unquantized (model.quant_mixer_kept), so the ignore
/// list must say one of the three: each pattern names lm_head, a vision tower, the MTP layers, a router, or per
/// layer the attention, the shared experts or the whole layer; every other pattern, and a list that matches
/// none of the three, is refused naming quantization_config.ignore.
void read_modelopt(object_reader& r, const json& q, const std::string& field, model_config& m) {
    const auto algo_it = q.find("quant_algo");
    const std::string algo = algo_it != q.end() && algo_it->is_string() ? algo_it->get<std::string>() : "";
    if (algo == "NVFP4") {
        m.checkpoint = checkpoint_format::nvfp4;
        m.quant_block = 16;
        if (const auto groups = q.find("config_groups"); groups != q.end() && groups->is_object())
            for (const auto& g : groups->items())
                if (const auto w = g.value().find("weights"); w != g.value().end() && w->is_object())
                    if (const auto gs = w->find("group_size"); gs != w->end() && gs->is_number_unsigned() &&
                                                              gs->get<std::uint64_t>() != 16)
                        return r.fail(field + ".config_groups", "NVFP4 weights must use groups of 16 (found " +
                                                                    gs->dump() + ")");
    } else if (algo == "FP8") {
        m.checkpoint = checkpoint_format::fp8_tensor;
    } else {
        return r.fail(field + ".quant_algo", "must be \"NVFP4\" or \"FP8\" for quant_method modelopt (" +
                                                 (algo.empty() ? std::string("none given") : "'" + algo + "'") +
                                                 " is not supported yet)");
    }
    const auto ignore_it = q.find("ignore");
    if (ignore_it == q.end() || ignore_it->is_null()) return;  // every linear layer packed
    const std::string where = field + ".ignore";
    if (!ignore_it->is_array()) return r.fail(where, "must be a list of module name patterns");
    const std::uint64_t L = m.num_hidden_layers;
    std::vector<char> whole(L, 0), attention(L, 0), shared(L, 0);
    bool any_layer = false;
    // What a pattern keeps in bf16 in each layer it reaches: the layer, its mixer, its shared experts or its
    // router; anything else is no part memplan can keep apart.
    enum class part { layer, mixer, shared_experts, router, other };
    const auto part_of = [](const std::string& rest) {
        const auto has = [&rest](const char* x) { return rest.find(x) != std::string::npos; };
        if (rest == "*") return part::layer;
        if (has("shared_expert")) return part::shared_experts;  // shared_expert, shared_experts, shared_expert_gate
        if (has("self_attn") || has("linear_attn")) return part::mixer;
        if (has("experts") || (has("mlp.") && !has(".gate"))) return part::other;
        if (has("gate")) return part::router;  // mlp.gate, block_sparse_moe.gate
        return part::other;
    };
    const auto mark = [&](std::uint64_t i, part k) {
        any_layer = true;
        if (k == part::layer) whole[i] = 1;
        else if (k == part::mixer) attention[i] = 1;
        else if (k == part::shared_experts) shared[i] = 1;
    };
    for (const auto& e : *ignore_it) {
        if (!e.is_string()) return r.fail(where, "must be a list of module name patterns");
        const std::string p = e.get<std::string>();
        const auto has = [&p](const char* x) { return p.find(x) != std::string::npos; };
        // lm_head (memplan keeps it in bf16), the vision tower and its projector (counted in bf16), the MTP layers.
        if (has("lm_head") || has("visual") || has("vision") || has("mm_projector") || has("mtp")) continue;
        const auto layers = p.find("layers.");
        if (layers == std::string::npos) {
            // A pattern over every layer (Qwen3.5-397B-A17B-NVFP4's "*.mlp.shared_expert.*").
            const part k = p.rfind('*', 0) == 0 ? part_of(p.substr(1)) : part::other;
            if (k == part::other || k == part::layer)
                return r.fail(where, "names \"" + p + "\", a module memplan cannot keep in bf16 apart (lm_head, the "
                                     "vision tower, the MTP layers and per layer the attention, the shared experts, "
                                     "the router or the whole layer are)");
            for (std::uint64_t i = 0; i < L; ++i) mark(i, k);
            continue;
        }
        const std::size_t at = layers + 7;
        std::size_t end = at;
        while (end < p.size() && p[end] >= '0' && p[end] <= '9') ++end;
        if (end == at || end >= p.size())
            return r.fail(where, "names \"" + p + "\", which no layer index begins");
        const std::string digits = p.substr(at, end - at);
        if (p[end] == '*' && end + 1 == p.size()) {
            // fnmatch's "layers.7*": every layer whose index begins with those digits, whole.
            for (std::uint64_t i = 0; i < L; ++i)
                if (std::to_string(i).rfind(digits, 0) == 0) mark(i, part::layer);
            continue;
        }
        if (p[end] != '.') return r.fail(where, "names \"" + p + "\", which no layer index ends");
        const std::uint64_t i = digits.size() > 9 ? L : std::stoull(digits);
        if (i >= L) continue;  // the MTP layer that follows the decoder layers (GLM-5.1-NVFP4's layer 78)
        const part k = part_of(p.substr(end + 1));
        if (k == part::other)
            return r.fail(where, "names \"" + p + "\", a module memplan cannot keep in bf16 apart (per layer the "
                                 "attention, the shared experts, the router or the whole layer are)");
        mark(i, k);
    }
    if (!any_layer) return;
    const auto mlps = resolved_layer_mlp(m);
    const auto kinds = resolved_layer_attention(m);
    const auto mixer_kept = [&](std::uint64_t i) {
        return !(i < kinds.size() && kinds[i] != attention_kind::none) || attention[i] != 0;
    };
    // The routed experts only: every layer's other linear layers unquantized (GLM-5.1-NVFP4, Qwen3.5-NVFP4).
    bool experts_only = true;
    for (std::uint64_t i = 0; i < L && experts_only; ++i)
        experts_only = whole[i] || (i < mlps.size() && mlps[i] == layer_mlp_kind::moe && mixer_kept(i) &&
                                    (m.shared_expert_intermediate_size == 0 || shared[i]));
    if (experts_only) {
        m.quant_experts_only = true;
        return;
    }
    // Every MLP packed, the mixers unquantized (Kimi-K2.5-NVFP4, Gemma-4-31B-IT-NVFP4).
    for (std::uint64_t i = 0; i < L; ++i)
        if (whole[i] || shared[i] || !mixer_kept(i))
            return r.fail(where, "keeps in bf16 a set of modules memplan cannot represent (layer " + std::to_string(i) +
                                     "): it packs every linear layer, the routed experts only, or every MLP with the "
                                     "attention unquantized");
    m.quant_mixer_kept = true;
}

/// A compressed-tensors quantization_config (Kimi K2.5): one group of symmetric int4 weights in groups of
/// group_size, packed eight to an int32 (format pack-quantized; compressed-tensors pack_quantized.py), with an
/// ignore list that keeps every module but the routed experts in bf16. Anything else is refused, naming the key.
void read_compressed_tensors(object_reader& r, const json& q, const std::string& field, model_config& m) {
    const auto word = [](const json& o, const char* key) {
        const auto it = o.find(key);
        return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    const auto empty = [](const json& o, const char* key) {
        const auto it = o.find(key);
        return it == o.end() || it->is_null();
    };
    if (const std::string format = word(q, "format"); format != "pack-quantized")
        return r.fail(field + ".format", "'" + format + "' is not supported yet (compressed-tensors pack-quantized int4 is)");
    if (const auto status = q.find("quantization_status"); status != q.end() && !status->is_null() &&
                                                           !(status->is_string() && status->get<std::string>() == "compressed"))
        return r.fail(field + ".quantization_status", "must be \"compressed\" (the packed weights of a released checkpoint)");
    for (const char* key : {"kv_cache_scheme", "sparsity_config", "transform_config"})
        if (!empty(q, key)) return r.fail(field + "." + key, "is not supported yet (weight-only int4 is)");
    const auto groups = q.find("config_groups");
    if (groups == q.end() || !groups->is_object() || groups->size() != 1)
        return r.fail(field + ".config_groups", "must hold one group (several schemes in one checkpoint are not supported yet)");
    const std::string where = field + ".config_groups." + groups->begin().key();
    const json& group = groups->begin().value();
    if (!group.is_object()) return r.fail(where, "must be an object");
    if (const std::string format = word(group, "format"); group.contains("format") && !group["format"].is_null() &&
                                                          format != "pack-quantized")
        return r.fail(where + ".format", "'" + format + "' is not supported yet (pack-quantized int4 is)");
    if (group.value("targets", json()) != json::array({"Linear"}))
        return r.fail(where + ".targets", "must be [\"Linear\"] (other targets are not supported yet)");
    for (const char* key : {"input_activations", "output_activations"})
        if (!empty(group, key)) return r.fail(where + "." + key, "is not supported yet (weight-only int4 is: null)");
    const auto w = group.find("weights");
    if (w == group.end() || !w->is_object()) return r.fail(where + ".weights", "must be an object");
    const std::string wf = where + ".weights.";
    if (w->value("num_bits", json()) != 4) return r.fail(wf + "num_bits", "must be 4 (other widths are not supported yet)");
    if (word(*w, "type") != "int") return r.fail(wf + "type", "must be \"int\" (float formats are not supported yet)");
    if (word(*w, "strategy") != "group") return r.fail(wf + "strategy", "must be \"group\" (other strategies are not supported yet)");
    if (w->value("symmetric", json()) != true)
        return r.fail(wf + "symmetric", "must be true (zero points of asymmetric groups are not supported yet)");
    for (const char* key : {"actorder", "block_structure"})
        if (!empty(*w, key)) return r.fail(wf + key, "must be null (not supported yet)");
    if (const auto d = w->find("dynamic"); d != w->end() && !d->is_null() && *d != false)
        return r.fail(wf + "dynamic", "must be false (stored scales)");
    const auto gs = w->find("group_size");
    if (gs == w->end() || !gs->is_number_unsigned() || gs->get<std::uint64_t>() == 0 || gs->get<std::uint64_t>() > 1048576)
        return r.fail(wf + "group_size", detail::integer_range_message(1, 1048576));
    // The ignore list: memplan keeps the modules these patterns name in bf16 and packs the routed experts
    // (quant_experts_only); the four kinds below must all be ignored, and nothing else may be named.
    const auto ignore = q.find("ignore");
    if (ignore == q.end() || !ignore->is_array())
        return r.fail(field + ".ignore", "must list the modules kept in bf16 (attention, shared experts, dense MLPs, lm_head)");
    static const char* const needed[][2] = {{"lm_head", "re:.*lm_head.*"},
                                            {"re:.*self_attn.*", nullptr},
                                            {"re:.*shared_experts.*", nullptr},
                                            {"re:.*mlp\\.(gate|up|gate_up|down)_proj.*", nullptr}};
    static const char* const towers[] = {"re:.*vision_tower.*", "re:.*mm_projector.*", "re:vision_tower.*", "re:mm_projector.*"};
    bool found[4] = {false, false, false, false};
    for (const auto& e : *ignore) {
        const std::string name = e.is_string() ? e.get<std::string>() : "";
        bool known = std::any_of(std::begin(towers), std::end(towers), [&name](const char* t) { return name == t; });
        for (int i = 0; i < 4; ++i)
            for (const char* pattern : needed[i])
                if (pattern != nullptr && name == pattern) found[i] = known = true;
        if (!known)
            return r.fail(field + ".ignore", "names " + e.dump() + ", which memplan does not model (it keeps lm_head, "
                                             "self_attn, shared_experts, the dense MLPs and the vision tower in bf16 "
                                             "and packs the routed experts)");
    }
    for (int i = 0; i < 4; ++i)
        if (!found[i])
            return r.fail(field + ".ignore", std::string("must list ") + needed[i][0] +
                                             " (memplan models checkpoints whose routed experts alone are int4)");
    m.checkpoint = checkpoint_format::int4_group;
    m.quant_block = gs->get<std::uint64_t>();
    m.quant_g_idx = false;
    m.quant_symmetric = true;
    m.quant_experts_only = true;
}

/// quantization_config of a released checkpoint.
void read_quantization(object_reader& r, model_config& m) {
    const json* q = r.find("quantization_config");
    if (q == nullptr) return;
    const std::string field = r.field("quantization_config");
    if (!q->is_object()) return r.fail(field, "must be an object");
    const auto method_it = q->find("quant_method");
    // ModelOpt's older exports name only their producer (Qwen3-32B-FP8-Static-PerTensor: producer modelopt 0.31).
    if (const auto producer = q->find("producer"); (method_it == q->end() || method_it->is_null()) &&
                                                  producer != q->end() && producer->is_object() &&
                                                  producer->value("name", std::string()) == "modelopt")
        return read_modelopt(r, *q, field, m);
    if (method_it == q->end() || !method_it->is_string())
        return r.fail(field + ".quant_method", "must be a string (fp8, mxfp4, bitsandbytes, awq, gptq, compressed-tensors, modelopt are supported)");
    const std::string method = method_it->get<std::string>();
    const auto flag = [&](const char* key) { return flag_in(r, *q, key, false, field + "." + key); };
    if (method == "fp8") {
        // DeepSeek-V3 / Qwen3 FP8: weight_block_size [128, 128] (transformers finegrained_fp8.py).
        const auto bs = q->find("weight_block_size");
        if (bs == q->end() || !bs->is_array() || bs->size() != 2 || !(*bs)[0].is_number_unsigned() ||
            (*bs)[0] != (*bs)[1] || (*bs)[0].get<std::uint64_t>() == 0)
            return r.fail(field + ".weight_block_size", "must be a square block such as [128, 128] (other FP8 layouts are not supported yet)");
        m.checkpoint = checkpoint_format::fp8_block;
        m.quant_block = (*bs)[0].get<std::uint64_t>();
        // modules_to_not_convert (GLM-5-FP8): memplan already keeps every module that is no packed matrix in bf16,
        // and eh_proj and the indexer's weights_proj too (arch.cpp); a list naming any other module describes
        // another checkpoint and is refused, naming the module.
        if (const auto kept = q->find("modules_to_not_convert"); kept != q->end() && !kept->is_null()) {
            const std::string where = field + ".modules_to_not_convert";
            if (!kept->is_array()) return r.fail(where, "must be a list of module names");
            static const char* const unpacked[] = {
                "lm_head", "embed_tokens", "norm", "layernorm", "enorm", "hnorm", "k_norm", "k_norm.bias", "mlp.gate",
                "mlp.gate.e_score_correction_bias", "eh_proj", "indexers_proj", "indexer.weights_proj",
                // MiniMax-M2's router (block_sparse_moe.gate, no other module of it holds "gate": its experts are
                // w1/w2/w3) and its e_score_correction_bias.
                "gate", "e_score_correction_bias"};
            for (const auto& e : *kept) {
                const std::string name = e.is_string() ? e.get<std::string>() : "";
                const bool known = std::any_of(std::begin(unpacked), std::end(unpacked), [&name](const char* suffix) {
                    const std::string s = suffix;
                    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0 &&
                           (name.size() == s.size() || name[name.size() - s.size() - 1] == '.' ||
                            name[name.size() - s.size() - 1] == '_');
                });
                if (!known)
                    return r.fail(where, "names " + e.dump() + ", which memplan counts as an fp8 matrix (embeddings, "
                                         "lm_head, norms, the router, eh_proj and the indexer's weights_proj are kept "
                                         "in bf16 already)");
            }
        }
    } else if (method == "mxfp4") {
        // transformers quantizer_mxfp4.py: only the MoE experts are MXFP4; gpt-oss lists attention,
        // router, embeddings and lm_head in modules_to_not_convert.
        const model_family* family = find_family(m.model_type);
        if (m.num_experts == 0 && (family == nullptr || !family->mxfp4_checkpoint))
            return r.fail(field, "mxfp4 is supported for MoE experts only (gpt-oss)");
        m.checkpoint = checkpoint_format::mxfp4;
        m.quant_experts_only = true;
    } else if (method == "bitsandbytes") {
        if (flag("load_in_4bit")) {
            m.checkpoint = checkpoint_format::nf4;
            m.quant_block = 64;  // bitsandbytes Linear4bit blocksize
            m.quant_double = flag("bnb_4bit_use_double_quant");
        } else if (flag("load_in_8bit")) {
            m.checkpoint = checkpoint_format::int8;
        } else {
            return r.fail(field, "bitsandbytes needs load_in_4bit or load_in_8bit");
        }
    } else if (method == "awq" || method == "gptq") {
        const std::uint64_t bits = q->contains("bits") && (*q)["bits"].is_number_unsigned() ? (*q)["bits"].get<std::uint64_t>()
                                   : q->contains("w_bit") && (*q)["w_bit"].is_number_unsigned() ? (*q)["w_bit"].get<std::uint64_t>() : 0;
        if (bits != 4) return r.fail(field + ".bits", "must be 4 (other widths are not supported yet)");
        std::uint64_t group = 0;
        for (const char* k : {"group_size", "q_group_size"})
            if (q->contains(k) && (*q)[k].is_number_integer() && (*q)[k].get<std::int64_t>() > 0) group = (*q)[k].get<std::uint64_t>();
        if (group == 0) return r.fail(field + ".group_size", "must be a positive group size (per-channel is not supported yet)");
        m.checkpoint = checkpoint_format::int4_group;
        m.quant_block = group;
        m.quant_g_idx = method == "gptq";
    } else if (method == "modelopt") {
        read_modelopt(r, *q, field, m);
    } else if (method == "compressed-tensors") {
        read_compressed_tensors(r, *q, field, m);
    } else {
        r.fail(field + ".quant_method", "'" + method + "' is not supported yet (fp8, mxfp4, bitsandbytes, awq, gptq, compressed-tensors, modelopt are)");
    }
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
