// memplan — the WebAssembly boundary, estimate-only part: what an embedded answer needs (the estimate,
// the schema, the stored models, GPUs, recipes and explanations, the number parser, the GPU search). Built alone
// as the estimate-only module memplan-estimate-core (dist/memplan-lite.js, the <memplan-estimate>
// element), and with wasm/bindings.cpp as the full module memplan-core (dist/memplan.js, the page).
// Thin by design: free functions taking doubles or JSON text and returning JSON text; every failure
// is returned as data ({"errors":[{field, message}]}) for the JS wrapper (web/memplan-api.js) to throw.
#include <emscripten/bind.h>

#include <cstdint>
#include <string>
#include <utility>

#include "memplan/api/front_end.hpp"
#include "memplan/base/units.hpp"
#include "memplan/config/schema.hpp"
#include "memplan/io/explanations.hpp"
#include "memplan/io/gpus.hpp"
#include "memplan/io/json.hpp"
#include "memplan/io/presets.hpp"
#include "memplan/io/recipes.hpp"
#include "memplan/report/json.hpp"

namespace {

/// `memplan estimate`; a non-empty `hf_config_json` replaces the model (`--hf-config`), a non-empty
/// `recipe` sets a fine-tuning recipe's values over the configuration (`--recipe ID`).
std::string estimate(std::string config_json, std::string hf_config_json, std::string recipe) {
    memplan::json_request request;
    request.config_text = std::move(config_json);
    request.hf_config_text = std::move(hf_config_json);
    request.recipe = std::move(recipe);
    return memplan::estimate_reply(request).text;
}

/// core/data/recipes.json as compiled in: the fine-tuning recipes (`memplan recipes --json`).
std::string recipes() { return memplan::recipes_json(); }

/// core/data/models.json as compiled in (`memplan presets --json`).
std::string presets() { return memplan::model_presets_json(); }

/// Every preset's id and name, without counting the models (memplan/io/presets.hpp preset_names_json).
std::string preset_names() { return memplan::preset_names_json(); }

/// GPU ids matching what a person typed ("h100 sxm", "4090"), best first.
std::string search_gpus(std::string query) { return memplan::search_gpus_json(query); }

/// The configuration schema: every field's path, type, range, default, choices, label and help.
std::string schema() { return memplan::schema_json(); }

/// core/data/gpus.json as compiled in: the GPU catalogue.
std::string gpus() { return memplan::gpu_catalogue_json(); }

/// One catalogue GPU by its exact id ({id, name, capacity_bytes}), or null.
std::string gpu(std::string id) { return memplan::gpu_json(id); }

/// How each breakdown row is computed, per run mode (`memplan explain --json`).
std::string explanations() { return memplan::explanations_json(); }

/// A number as people write it ("80 GiB", "8,000", "32K"), read by the core's parser; `max` arrives as a
/// double and is checked here only for being a whole number in range (the core's outcome JSON either way).
std::string parse_quantity(std::string text, std::string field, double max) {
    if (!(max >= 0) || max > static_cast<double>(memplan::max_exact_integer) || max != static_cast<double>(static_cast<std::uint64_t>(max))) {
        memplan::outcome<std::uint64_t> bad;
        bad.errors.push_back({"max", "must be a whole number from 0 to " + std::to_string(memplan::max_exact_integer)});
        return memplan::outcome_json_text(bad);
    }
    return memplan::outcome_json_text(memplan::parse_quantity(text, field, static_cast<std::uint64_t>(max)));
}

/// A number field's text read as that field reads it ("8K" tokens, "90%", "80GB"): the core's JSON.
std::string parse_field(std::string text, std::string path) { return memplan::field_text_json(path, text); }

}  // namespace

EMSCRIPTEN_BINDINGS(memplan_estimate) {
    emscripten::function("estimate", &estimate);
    emscripten::function("presets", &presets);
    emscripten::function("presetNames", &preset_names);
    emscripten::function("schema", &schema);
    emscripten::function("searchGpus", &search_gpus);
    emscripten::function("gpus", &gpus);
    emscripten::function("gpu", &gpu);
    emscripten::function("parseQuantity", &parse_quantity);
    emscripten::function("parseField", &parse_field);
    emscripten::function("explanations", &explanations);
    emscripten::function("recipes", &recipes);
}
