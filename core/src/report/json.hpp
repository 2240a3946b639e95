// memplan — internal: the JSON objects of an estimate result and of a configuration, for the
// writers of report/ (estimate, analyze, fits).
#pragma once

#include <nlohmann/json.hpp>

#include "memplan/config/config.hpp"
#include "memplan/memory/result.hpp"

namespace memplan::detail {

/// The result object of `memplan estimate`; with `config`, its resolved-configuration echo.
nlohmann::ordered_json result_json(const estimate_result& result, const estimate_config* config);

/// Adds the per-GPU parts that every result object lists, in their order (weights, gradients,
/// optimizer_states, activations, logits, communication, kv_cache), to `out`.
void add_memory_parts(nlohmann::ordered_json& out, const memory_breakdown& parts);

/// The configuration's schema fields as JSON sections ({"mode":…, "parallel":{…}, …}),
/// in schema order; an optional field left unset is null (report/schema_json.cpp).
nlohmann::ordered_json config_echo_json(const estimate_config& config);

/// With a Hugging Face config.json given beside the configuration (hf_config), the diagnostics about
/// its model name its keys: each entry of an "errors" list of `out`, at any depth, whose field starts
/// with "model." is renamed "hf_config." (and so is each "model.KEY" its message names) — except
/// model.mtp, which the configuration gives. Warnings keep memplan's model.* names.
void name_hf_config_fields(nlohmann::ordered_json& out);

}  // namespace memplan::detail
