// The stored models with their counts (memplan/report/json.hpp): core/data/models.json as compiled
// in, each model's exact parameter counts and cache sizes added from the totals-only estimate.
#include "io/json_text.hpp"
#include "memplan/io/json.hpp"
#include "memplan/memory/estimate.hpp"
#include "memplan/report/json.hpp"
#include "report/json.hpp"

namespace memplan {

std::string model_presets_json() {
    nlohmann::ordered_json doc = detail::presets_document();  // a copy of the document parsed once
    if (!doc.is_object() || !doc.contains("models")) return detail::presets_text();
    for (auto& model : doc["models"]) {
        const std::string id = model.value("id", std::string());
        // One sequence of one token in bf16 on one GPU: the per-token and per-sequence cache sizes.
        const auto parsed = parse_config(R"({"mode": "infer", "infer": {"context_len": 1}, "model": {"preset": ")" + id + R"("}})");
        if (!parsed.ok()) continue;
        estimate_options totals;  // the fields below only: no per-tensor list, no warning texts
        totals.want_tensors = false;
        totals.want_warnings = false;
        const estimate_result r = estimate_memory(parsed.value, totals);
        if (!r.errors.empty()) continue;
        model["params"] = r.params;
        model["params_active"] = r.details.params_active;
        model["param_breakdown"] = detail::param_parts_json(r.details.param_parts);
        model["layer_kinds"] = detail::layer_kinds_json(r.details.layer_kinds);
        model["kv_cache_bytes_per_token"] = r.details.kv_cache_bytes_per_token;
        model["state_bytes_per_sequence"] = r.details.state_bytes_per_sequence;
    }
    return detail::dump_json(doc);
}

}  // namespace memplan
