// memplan — the WebAssembly boundary. The only file that includes <emscripten/bind.h>.
// Thin by design: free functions taking doubles or JSON text and returning JSON text; every failure
// is returned as data ({"errors":[{field, message}]}) for the JS wrapper (web/memplan.js) to throw.
#include <emscripten/bind.h>

#include <string>

#include "memplan/analyze.hpp"
#include "memplan/json.hpp"
#include "memplan/presets.hpp"
#include "memplan/schema.hpp"
#include "memplan/zero.hpp"

namespace {

/// Model-state bytes per GPU (ZeRO, Rajbhandari et al. 2020, §5); numbers arrive as doubles and are checked in the core.
std::string model_state_bytes(double params, double gpus, double stage) {
    return memplan::outcome_json_text(memplan::model_state_bytes_checked(params, gpus, stage));
}

/// Largest parameter count whose model states fit in `gpu_bytes` per GPU (ZeRO, Rajbhandari et al. 2020, §5).
std::string max_params(double gpu_bytes, double gpus, double stage) {
    return memplan::outcome_json_text(memplan::max_params_checked(gpu_bytes, gpus, stage));
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

/// The configuration schema: every field's path, type, range, default, choices, label and help.
std::string schema() { return memplan::schema_json(); }

}  // namespace

EMSCRIPTEN_BINDINGS(memplan) {
    emscripten::function("modelStateBytes", &model_state_bytes);
    emscripten::function("maxParams", &max_params);
    emscripten::function("estimate", &estimate);
    emscripten::function("analyze", &analyze);
    emscripten::function("presets", &presets);
    emscripten::function("resolveModel", &resolve_model);
    emscripten::function("schema", &schema);
}
