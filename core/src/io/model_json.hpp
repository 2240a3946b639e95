// memplan — internal: reading the `model` section and Hugging Face config.json files.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "memplan/config/config.hpp"
#include "io/object_reader.hpp"

namespace memplan::detail {

/// Reads a `model` object at `path` (memplan's keys, a preset, or a Hugging Face config) into `m`.
void read_model(const nlohmann::ordered_json& object, const std::string& path, model_config& m, diagnostics& errors);


/// Reads a Hugging Face config.json given beside a configuration (`--hf-config`) into `m`.
void read_model_object(object_reader& r, model_config& m, int depth);

}  // namespace memplan::detail
