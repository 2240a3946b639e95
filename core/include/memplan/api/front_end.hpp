// memplan — what a front end (the CLI) needs beyond the JSON interface of json.hpp and analyze.hpp:
// a request with a preset or a fine-tuning recipe named outside the configuration, replies that carry
// an ok flag next to their text, and the JSON of the reproduction commands' reports. The core writes
// all JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/api/estimate.hpp"
#include "memplan/io/checkpoint.hpp"
#include "memplan/io/json.hpp"
#include "memplan/reproduce/reference.hpp"
#include "memplan/base/types.hpp"

namespace memplan {

/// One estimate or analyze request as a front end receives it.
struct json_request {
    std::string config_text = "{}";  ///< the configuration (docs/schema.md)
    std::string hf_config_text;      ///< a Hugging Face config.json that replaces the model; "" = none
    std::string preset;              ///< a model preset id that replaces the model; "" = none
    std::string recipe;              ///< a fine-tuning recipe id (memplan/io/recipes.hpp); "" = none
    /// The tensors the model's checkpoint stores (its safetensors headers), beside hf_config_text: when the
    /// families refuse that config, the day-one path (memplan/report/json.hpp day_one_json) estimates it from
    /// them, its assumptions first among the reply's warnings. Empty = no day-one path.
    std::vector<stored_tensor> stored_tensors;
    /// The day-one path itself (memplan/report/json.hpp day_one_json), given by the front end that offers it with
    /// stored_tensors: a program that never has tensors (the estimate-only WebAssembly module) links none of it.
    std::string (*day_one)(const std::string& hf_config_text, const std::vector<stored_tensor>& tensors) = nullptr;
};

/// The printed JSON and whether it holds a result (valid configuration, no errors).
struct json_reply {
    std::string text;
    bool ok = false;
};

/// estimate_json for a request. A preset replaces the configuration's model section by
/// {"preset": ID}, exactly as a Hugging Face config does; the configuration's own model section is
/// still checked. A preset together with a Hugging Face config is an error naming `preset`. A recipe
/// sets its values over the configuration (they win over the configuration's own); an unknown recipe
/// id, or a recipe whose fields the configuration's run mode does not read, is an error naming `recipe`.
json_reply estimate_reply(const json_request& request);

/// analyze_json for a request (same rules as estimate_reply).
json_reply analyze_reply(const json_request& request);

/// compare_json for a request (same rules): memplan beside the other estimators (memplan/compare.hpp).
json_reply compare_reply(const json_request& request);

/// Which stored models fit a setup: every preset (memplan/presets.hpp, in catalogue order) estimated
/// with the rest of the configuration unchanged, its model section replaced by {"preset": ID}.
/// {"models": [{"id", "name", "params", "total_bytes", "fits", "beyond_context_limit"}], "errors": [...]}:
/// `total_bytes` the per-GPU bytes that decide the fit (needed_bytes), `fits` the verdict (null without gpu.memory_bytes),
/// `beyond_context_limit` whether the context asked passes the model's max_position_embeddings. A preset the setup cannot hold (a
/// tensor-parallel degree that does not divide its heads, …) is left out; an invalid configuration
/// gives its errors and no models.
std::string preset_fits_json(const std::string& config_text);

/// preset_fits_json with the ok flag (the configuration was valid).
json_reply preset_fits_reply(const std::string& config_text);


/// {"key": N} when `single`, else {"stages": [{"stage": S, "key": N}, …]}: the ZeRO model-state
/// figures of `memplan model-states` (key "bytes") and `memplan max-params` (key "params").
std::string zero_stages_json(const std::vector<std::int64_t>& stages, const std::vector<std::uint64_t>& values,
                             const std::string& key, bool single);

/// {"rows": [{"options": …, "cpu_bytes": N, "gpu_bytes": N}, …]}: DeepSpeed's estimator table.
std::string deepspeed_rows_json(const std::vector<deepspeed_row>& rows);

}  // namespace memplan
