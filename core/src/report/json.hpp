// memplan — internal: the JSON objects of an estimate result and of a configuration, for the
// writers of report/ (estimate, analyze, fits).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "memplan/config/config.hpp"
#include "memplan/io/checkpoint.hpp"
#include "memplan/memory/result.hpp"

namespace memplan::detail {

/// The result object of `memplan estimate`; with `config`, its resolved-configuration echo.
nlohmann::ordered_json result_json(const estimate_result& result, const estimate_config* config);

/// The explicit memplan model keys that reproduce `m` (resolve_model_json's "model"); the flags of the
/// 2025–2026 structures only where they differ from the family's defaults.
nlohmann::ordered_json model_keys_json(const model_config& m);

/// memplan's part of a stored tensor by its name (report/checkpoint_json.cpp): "embedding", "attention", "mlp",
/// "experts", "shared_experts", "router", "norms", "output", "mtp" (a layer index of `layers` or more), "vision",
/// "quantization" (scales, zero points, indices, tables), "buffers" (rotary inv_freq) or "other".
std::string part_of(const std::string& name, std::uint64_t layers);

/// Whether `s` ends with `suffix`.
inline bool ends_with(const std::string& s, const char* suffix) {
    const std::size_t n = std::char_traits<char>::length(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

/// The tensors of the safetensors headers a page fetched (`headers_json`: [{"file", "length", "header"}],
/// as checkpoint_headers_json takes them) appended to `tensors`; the errors name the file (a truncated reply,
/// a header that is not one) or "headers" (a list of another shape).
diagnostics stored_tensors_of_headers(const std::string& headers_json, std::vector<stored_tensor>& tensors);

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

namespace memplan {
// The model-structure fields of an estimate result (params.cpp's parameter parts, layer kinds, recurrent
// state, weights by storage type), for json.cpp and the presets list.


/// Adds to `details`: "param_breakdown" {embedding, attention, mlp, experts, shared_experts, router,
/// norms, output, mtp, vision: {total, active}}, "layer_kinds" {"attention": {full, sliding, chunked,
/// mla, linear, mamba, none}, "mlp": {dense, moe, none}}, "state_bytes_per_sequence" and
/// "weight_bytes_by_dtype" {name: bytes}. (params_active and kv_cache_bytes_per_token are already there.)
void write_model_details(nlohmann::ordered_json& details, const estimate_details& d);

namespace detail {
/// {"embedding": {"total": N, "active": N}, …} in the order above.
nlohmann::ordered_json param_parts_json(const model_param_parts& parts);
/// {"attention": {…}, "mlp": {…}}.
nlohmann::ordered_json layer_kinds_json(const layer_kind_counts& kinds);
}  // namespace detail

}  // namespace memplan
