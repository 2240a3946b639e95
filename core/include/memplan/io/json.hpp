// memplan — the JSON interface shared by the CLI (`memplan estimate`) and the WebAssembly API.
// Schema: docs/schema.md. The same text in gives the same text out, byte for byte, on every build.
#pragma once

#include <string>

#include "memplan/memory/estimate.hpp"

namespace memplan {

/// Parses a configuration object (schema v1); errors name the offending field ("parallel.tp").
/// A non-empty `hf_config_text` (a Hugging Face config.json) replaces the configuration's model.
outcome<estimate_config> parse_config(const std::string& json_text, const std::string& hf_config_text = "");

/// The model of a preset as a configuration naming it reads it ({"model": {"preset": ID}}); an
/// unknown id is an error naming `model.preset`.
outcome<model_config> preset_model(const std::string& id);


}  // namespace memplan
