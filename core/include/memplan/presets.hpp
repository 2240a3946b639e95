// memplan — presets of published models, stored once in core/data/models.json and compiled in, so
// that the CLI and the page (through the WebAssembly module) read the same data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace memplan {

/// One published model: its architecture as a Hugging Face config.json subset, and where it comes from.
struct model_preset {
    const char* id;                ///< "llama-2-7b"
    const char* name;              ///< "Llama 2 7B"
    const char* source;            ///< where the architecture comes from
    std::uint64_t published_params;  ///< a published exact parameter count; 0 = none recorded
    const char* params_source;     ///< where that count comes from ("" if none)
    const char* config_json;       ///< the architecture fields, as JSON text
};

/// All presets, in the order of core/data/models.json.
const model_preset* model_presets(std::size_t& count);

/// The preset with `id`, or nullptr.
const model_preset* find_preset(const std::string& id);

/// core/data/models.json as it was compiled in.
const char* model_presets_json();

}  // namespace memplan
