// memplan — the WebAssembly boundary. The only file that includes <emscripten/bind.h>.
// Thin by design: free functions taking doubles or JSON text and returning JSON text; every failure
// is returned as data ({"errors":[{field, message}]}) for the JS wrapper (web/memplan.js) to throw.
#include <emscripten/bind.h>

#include <string>

#include <nlohmann/json.hpp>

#include "memplan/analyze.hpp"
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

/// The model a configuration describes, as explicit memplan keys with its exact counts (core: json.hpp).
std::string resolve_model(std::string config_json, std::string hf_config_json) {
    return memplan::resolve_model_json(config_json, hf_config_json);
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
