// memplan — presets of published models, stored once in core/data/models.json and compiled in, so
// that the CLI and the page (through the WebAssembly module) read the same data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace memplan {

/// One published model: its architecture as a Hugging Face config.json subset, and where it comes from.
struct model_preset {
    const char* id;                ///< "llama-2-7b"
    const char* name;              ///< "Llama 2 7B"
    const char* source;            ///< where the architecture comes from
    std::uint64_t published_params;  ///< a published exact parameter count; 0 = none recorded
    const char* params_source;     ///< where that count comes from ("" if none)
};

/// All presets, in the order of core/data/models.json.
const model_preset* model_presets(std::size_t& count);

/// The preset with `id`, or nullptr.
const model_preset* find_preset(const std::string& id);


/// Presets matching what people type ("llama3", "Meta-Llama-3-70B", "meta-llama/Llama-3.1-8B",
/// "deepseek", "mistral 7b instruct", "qwen3 30b"), best first; empty when nothing matches. Words
/// are matched against each preset's id, name and source repository; organisation names and
/// "instruct"/"chat"/"base"/"it"/"hf" are ignored.
std::vector<const model_preset*> search_presets(const std::string& query);

/// search_presets as a JSON array of preset ids.
std::string search_presets_json(const std::string& query);

/// {"models": [{"id", "name", "source"}, …]}: every preset's id, display name and source, in catalogue order, read from
/// the table alone (no model is counted: model_presets_json counts each one, which takes a WebAssembly
/// module's first call tens of milliseconds per model).
std::string preset_names_json();

}  // namespace memplan
