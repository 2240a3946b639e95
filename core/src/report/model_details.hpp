// memplan — internal: the model-structure fields of an estimate result (arch.cpp's parameter parts,
// layer kinds, recurrent state, weights by storage type) as JSON, for json.cpp and the presets list.
#pragma once

#include <nlohmann/json.hpp>

#include "memplan/memory/result.hpp"

namespace memplan {

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
