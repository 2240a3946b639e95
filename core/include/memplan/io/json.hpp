// memplan — the JSON interface shared by the CLI (`memplan estimate`) and the WebAssembly API.
// Schema: docs/schema.md. The same text in gives the same text out, byte for byte, on every build.
#pragma once

#include <string>

#include "memplan/memory/estimate.hpp"

namespace memplan {

/// Parses a configuration object (schema v1); errors name the offending field ("parallel.tp").
/// A non-empty `hf_config_text` (a Hugging Face config.json) replaces the configuration's model.
outcome<estimate_config> parse_config(const std::string& json_text, const std::string& hf_config_text = "");

/// Serialises a result: params, data_parallel, per_gpu, gpu (when a capacity was given), warnings, errors.
std::string to_json(const estimate_result& result);

/// As above, followed by "config": the resolved configuration the estimate used (every schema
/// field, defaults filled in, FSDP names resolved to their ZeRO stage), before "warnings".
std::string to_json(const estimate_result& result, const estimate_config* config);

/// parse_config + estimate + to_json; malformed input yields a result object whose `errors` say why.
std::string estimate_json(const std::string& json_text, const std::string& hf_config_text = "");

/// The model a configuration describes (preset, Hugging Face config and overrides applied), as the
/// explicit memplan model keys that reproduce it, with its exact parameter counts:
/// {"model": {...}, "params": N|null, "params_active": N|null, "errors": [...]}.
std::string resolve_model_json(const std::string& config_json, const std::string& hf_config_json = "");

/// {"errors": [{field, message}, …]}: the error object every JSON front end prints.
std::string errors_json_text(const diagnostics& errors);

/// {"value": N, "errors": []} or {"value": null, "errors": [{field, message}, …]}.
std::string outcome_json_text(const outcome<std::uint64_t>& result);

}  // namespace memplan
