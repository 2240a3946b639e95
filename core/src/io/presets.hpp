// memplan — internal: the stored models document (core/data/models.json, compiled in and parsed once).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace memplan::detail {

/// The stored config object of the preset `id` (an empty object when the entry has none), or nullptr
/// when there is no such preset.
const nlohmann::ordered_json* preset_config(const std::string& id);

/// The whole document, parsed once (report/presets_json.cpp adds each model's counts to a copy).
const nlohmann::ordered_json& presets_document();

/// The document's text as compiled in (what is listed when it does not parse as a models document).
const char* presets_text();

}  // namespace memplan::detail
