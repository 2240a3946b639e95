// The model-structure fields of an estimate result as JSON (model_details.hpp).
#include "report/model_details.hpp"

namespace memplan {

namespace detail {
nlohmann::ordered_json param_parts_json(const model_param_parts& q) {
    nlohmann::ordered_json out;
    const std::pair<const char*, const param_part*> parts[] = {
        {"embedding", &q.embedding}, {"attention", &q.attention}, {"mlp", &q.mlp},       {"experts", &q.experts},
        {"shared_experts", &q.shared_experts}, {"router", &q.router}, {"norms", &q.norms}, {"output", &q.output},
        {"mtp", &q.mtp},             {"vision", &q.vision}};
    for (const auto& [name, part] : parts) out[name] = {{"total", part->total}, {"active", part->active}};
    return out;
}

nlohmann::ordered_json layer_kinds_json(const layer_kind_counts& k) {
    nlohmann::ordered_json out;
    out["attention"] = {{"full", k.full},     {"sliding", k.sliding}, {"chunked", k.chunked}, {"mla", k.mla},
                        {"linear", k.linear}, {"mamba", k.mamba},     {"none", k.no_attention}};
    out["mlp"] = {{"dense", k.dense}, {"moe", k.moe}, {"none", k.no_mlp}};
    return out;
}
}  // namespace detail

void write_model_details(nlohmann::ordered_json& details, const estimate_details& d) {
    details["param_breakdown"] = detail::param_parts_json(d.param_parts);
    details["layer_kinds"] = detail::layer_kinds_json(d.layer_kinds);
    details["state_bytes_per_sequence"] = d.state_bytes_per_sequence;
    nlohmann::ordered_json by_dtype = nlohmann::ordered_json::object();
    for (const auto& [name, bytes] : d.weight_bytes_by_dtype) by_dtype[name] = bytes;
    details["weight_bytes_by_dtype"] = by_dtype;
}

}  // namespace memplan
