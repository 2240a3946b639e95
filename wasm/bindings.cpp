// memplan — the WebAssembly boundary. The only file that includes <emscripten/bind.h>.
// Thin by design: free functions taking doubles or JSON text and returning JSON text; every failure
// is returned as data ({"errors":[{field, message}]}) for the JS wrapper (web/memplan.js) to throw.
#include <emscripten/bind.h>

#include <string>

#include <nlohmann/json.hpp>

#include "memplan/analyze.hpp"
#include "memplan/arch.hpp"
#include "memplan/json.hpp"
#include "memplan/presets.hpp"
#include "memplan/zero.hpp"

namespace {

using ordered_json = nlohmann::ordered_json;

ordered_json errors_json(const memplan::diagnostics& errors) {
    ordered_json out = ordered_json::array();
    for (const auto& e : errors) out.push_back({{"field", e.field}, {"message", e.message}});
    return out;
}

std::string dump(const ordered_json& value) {
    return value.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

/// {"value": N, "errors": []} or {"value": null, "errors": [{field, message}, ...]}.
std::string outcome_json(const memplan::outcome<std::uint64_t>& result) {
    ordered_json out;
    out["value"] = result.ok() ? ordered_json(result.value) : ordered_json(nullptr);
    out["errors"] = errors_json(result.errors);
    return dump(out);
}

/// Model-state bytes per GPU (ZeRO card); numbers arrive as doubles and are checked in the core.
std::string model_state_bytes(double params, double gpus, double stage) {
    return outcome_json(memplan::model_state_bytes_checked(params, gpus, stage));
}

/// Largest parameter count whose model states fit in `gpu_bytes` per GPU (ZeRO card).
std::string max_params(double gpu_bytes, double gpus, double stage) {
    return outcome_json(memplan::max_params_checked(gpu_bytes, gpus, stage));
}

/// `memplan estimate`; a non-empty `hf_config_json` replaces the model (`--hf-config`).
std::string estimate(std::string config_json, std::string hf_config_json) {
    return memplan::estimate_json(config_json, hf_config_json);
}

std::string analyze(std::string config_json, std::string hf_config_json) {
    return memplan::analyze_json(config_json, hf_config_json);
}

/// core/data/models.json as compiled in (`memplan presets --json`).
std::string presets() { return memplan::model_presets_json(); }

/// The model a configuration describes (preset, Hugging Face config and overrides applied), as the
/// explicit memplan model keys that reproduce it, with its exact parameter counts:
/// {"model": {...}, "params": N|null, "params_active": N|null, "errors": [...]}.
/// Serialisation of the public model_config only; every rule that reads a model lives in the core.
std::string resolve_model(std::string config_json, std::string hf_config_json) {
    const auto parsed = memplan::parse_config(config_json, hf_config_json);
    ordered_json out;
    out["model"] = nullptr;
    out["params"] = nullptr;
    out["params_active"] = nullptr;
    if (!parsed.ok()) {
        out["errors"] = errors_json(parsed.errors);
        return dump(out);
    }
    const memplan::model_config& m = parsed.value.model;
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
    model["norm"] = memplan::to_string(m.norm);
    model["norms_per_layer"] = m.norms_per_layer;
    model["mlp"] = memplan::to_string(m.mlp);
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
        const auto counted = memplan::count_params(m);
        if (counted.ok()) {
            out["params"] = counted.value.total;
            out["params_active"] = counted.value.active;
        }
        out["errors"] = errors_json(counted.errors);
    } else {
        out["errors"] = ordered_json::array();
    }
    return dump(out);
}

}  // namespace

EMSCRIPTEN_BINDINGS(memplan) {
    emscripten::function("modelStateBytes", &model_state_bytes);
    emscripten::function("maxParams", &max_params);
    emscripten::function("estimate", &estimate);
    emscripten::function("analyze", &analyze);
    emscripten::function("presets", &presets);
    emscripten::function("resolveModel", &resolve_model);
}
