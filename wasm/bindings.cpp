// memplan — the WebAssembly boundary, the full module's own part: the analyses (inverse answers,
// comparisons, preset fits), the ZeRO card, the stored engines, and the numeric fast path.
// Linked with wasm/bindings_estimate.cpp (the estimate-only exports) into memplan-core (dist/memplan.js).
// The bindings are the only files that include <emscripten/bind.h>. Thin by design: free functions
// taking doubles or JSON text and returning JSON text; every failure is returned as data
// ({"errors":[{field, message}]}) for the JS wrapper (web/memplan-api.js) to throw.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>

#include <string>

#include "memplan/search/analyze.hpp"
#include "memplan/report/json.hpp"
#include "memplan/reproduce/compare.hpp"
#include "memplan/io/json.hpp"
#include "memplan/io/presets.hpp"
#include "memplan/api/front_end.hpp"
#include "memplan/memory/zero.hpp"
#include "memplan/report/hub.hpp"

namespace {

/// Model-state bytes per GPU (ZeRO, Rajbhandari et al. 2020, §5); numbers arrive as doubles and are checked in the core.
std::string model_state_bytes(double params, double gpus, double stage) {
    return memplan::outcome_json_text(memplan::model_state_bytes_checked(params, gpus, stage));
}

/// Largest parameter count whose model states fit in `gpu_bytes` per GPU (ZeRO, Rajbhandari et al. 2020, §5).
std::string max_params(double gpu_bytes, double gpus, double stage) {
    return memplan::outcome_json_text(memplan::max_params_checked(gpu_bytes, gpus, stage));
}

/// The page's derived views: inverse answers, stages, suggestions, sweeps (`memplan analyze`).
std::string analyze(std::string config_json, std::string hf_config_json) {
    return memplan::analyze_json(config_json, hf_config_json);
}

/// The layout planner (`memplan plan --json`): the request and the ranked layouts as JSON.
std::string plan(std::string request_json) { return memplan::plan_json(request_json); }

/// The model a configuration describes, as explicit memplan keys with its exact counts (core: json.hpp).
std::string resolve_model(std::string config_json, std::string hf_config_json) {
    return memplan::resolve_model_json(config_json, hf_config_json);
}

/// memplan beside the other estimators, term by term (`memplan compare`).
std::string compare(std::string config_json, std::string hf_config_json) {
    return memplan::compare_json(config_json, hf_config_json);
}

/// Preset ids matching what a person typed ("llama3 70b", "meta-llama/Llama-3.1-8B"), best first.
std::string search_presets(std::string query) { return memplan::search_presets_json(query); }

/// Which stored models fit the configuration's setup (memplan/api/front_end.hpp preset_fits_json).
std::string preset_fits(std::string config) { return memplan::preset_fits_json(config); }

/// The serving engines reproduced and the terms of their budget (`memplan engines --json`).
std::string engines() { return memplan::engines_json(); }

/// The training frameworks train.framework names, each with its pinned version and log line (`memplan frameworks --json`).
std::string frameworks() { return memplan::frameworks_json(); }

// ---- A model on the Hugging Face Hub (memplan/report/hub.hpp), for web/hub.js: the page fetches, the core reads.

/// A typed model id, revision or huggingface.co link: the id, revision and the addresses to fetch.
std::string hub_model(std::string text) { return memplan::hub_model_json(text); }

/// The header's range from the first 8 bytes of a safetensors file and the reply's Content-Range.
/// The bytes arrive as a Uint8Array, which embind copies into the std::string unchanged (a JS string
/// would arrive as UTF-8).
std::string safetensors_range(std::string first_bytes, std::string content_range, std::string file) {
    return memplan::safetensors_range_json(first_bytes, content_range, file);
}

/// The shard files a model.safetensors.index.json names.
std::string safetensors_index(std::string text, std::string file) { return memplan::safetensors_index_json(text, file); }

/// The stored tensors of the headers fetched, reconciled with memplan's count (`memplan checkpoint`).
std::string checkpoint_headers(std::string hf_config, std::string headers) {
    return memplan::checkpoint_headers_json(hf_config, headers);
}

/// A config.json the families refuse, estimated from the fetched headers' stored bytes and its declared
/// sizes (the day-one path): its memplan model keys and the assumptions they rest on.
std::string day_one_headers(std::string hf_config, std::string headers) {
    return memplan::day_one_headers_json(hf_config, headers);
}

/// The Hub API's per-dtype counts beside memplan's count, when the headers cannot be read.
std::string checkpoint_api(std::string hf_config, std::string api) { return memplan::checkpoint_api_json(hf_config, api); }

}  // namespace

EMSCRIPTEN_BINDINGS(memplan_analysis) {
    emscripten::function("modelStateBytes", &model_state_bytes);
    emscripten::function("maxParams", &max_params);
    emscripten::function("analyze", &analyze);
    emscripten::function("plan", &plan);
    // The planner one GPU count per step() (memplan/report/json.hpp plan_json_stream): web/memplan-api.js planSteps.
    emscripten::class_<memplan::plan_json_stream>("PlanStream")
        .constructor<std::string>()
        .function("step", &memplan::plan_json_stream::step)
        .function("done", &memplan::plan_json_stream::done);
    emscripten::function("resolveModel", &resolve_model);
    emscripten::function("compare", &compare);
    emscripten::function("searchPresets", &search_presets);
    emscripten::function("presetFits", &preset_fits);
    emscripten::function("engines", &engines);
    emscripten::function("frameworks", &frameworks);
    emscripten::function("hubModel", &hub_model);
    emscripten::function("safetensorsRange", &safetensors_range);
    emscripten::function("safetensorsIndex", &safetensors_index);
    emscripten::function("checkpointHeaders", &checkpoint_headers);
    emscripten::function("checkpointApi", &checkpoint_api);
    emscripten::function("dayOneHeaders", &day_one_headers);
}

// ---- The numeric fast path (memplan/api/fast_estimate.hpp) behind web/memplan.js loadFastEstimator():
// the configuration arrives as one double per schema field, written by JS straight into this
// object's input buffer, and the totals leave through its output buffer; no JSON text either way.
#include <cstdint>
#include <vector>

#include "memplan/api/fast_estimate.hpp"

namespace {
class fast_estimator {
public:
    fast_estimator()
        : in_(estimator_.field_count(), 0.0), out_(static_cast<std::size_t>(memplan::numeric_slot::count), 0.0) {}
    std::string fields() const { return estimator_.fields_json(); }
    int add_model(std::string model_json) { return estimator_.add_model(model_json); }
    /// Byte addresses of the buffers in the module's memory (HEAPF64 index = address / 8).
    std::uint32_t input_address() const { return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(in_.data())); }
    std::uint32_t output_address() const { return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(out_.data())); }
    /// This object's address, for memplan_fast_run.
    std::uint32_t address() const { return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(this)); }
    bool run(int model) { return estimator_.run(model, in_.data(), out_.data()); }

private:
    memplan::numeric_estimator estimator_;
    std::vector<double> in_;
    std::vector<double> out_;
};
}  // namespace

EMSCRIPTEN_BINDINGS(memplan_fast) {
    emscripten::class_<fast_estimator>("FastEstimator")
        .constructor<>()
        .function("fields", &fast_estimator::fields)
        .function("addModel", &fast_estimator::add_model)
        .function("inputAddress", &fast_estimator::input_address)
        .function("outputAddress", &fast_estimator::output_address)
        .function("address", &fast_estimator::address);
}

/// fast_estimator::run as a plain export (Module._memplan_fast_run(address, model)): one call per
/// estimate without embind's argument and `this` conversions, which cost as much as the estimate.
extern "C" EMSCRIPTEN_KEEPALIVE int memplan_fast_run(std::uint32_t self, int model) {
    return reinterpret_cast<fast_estimator*>(static_cast<std::uintptr_t>(self))->run(model) ? 1 : 0;
}
