// compare() as JSON (memplan/report/json.hpp): memplan's figure beside every other tool's, term by term.
#include "io/json_text.hpp"
#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"
#include "memplan/reproduce/compare.hpp"
#include "report/json.hpp"

namespace memplan {

namespace {

nlohmann::ordered_json to_json_value(const comparison& cmp) {
    using detail::ordered_json;
    ordered_json out = ordered_json::object();
    if (cmp.errors.empty()) {
        const auto& b = cmp.memplan.per_gpu;
        ordered_json ours{{"total_bytes", b.total}, {"params", cmp.memplan.params}};
        detail::add_memory_parts(ours, b);
        ours["misc"] = b.misc;
        out["memplan"] = ours;
    } else {
        out["memplan"] = nullptr;
    }
    ordered_json tools = ordered_json::array();
    for (const auto& t : cmp.tools) {
        ordered_json terms = ordered_json::array();
        for (const auto& x : t.terms)
            terms.push_back(ordered_json{{"term", x.term}, {"tool_bytes", x.tool_bytes},
                                         {"memplan_bytes", x.memplan_bytes}, {"reason", x.reason}});
        tools.push_back(ordered_json{{"tool", t.tool}, {"version", t.version}, {"source", t.source},
                                     {"expressible", t.expressible}, {"lacks", t.lacks},
                                     {"figure", t.expressible ? ordered_json(t.figure_bytes) : ordered_json(nullptr)},
                                     {"figure_text", t.figure_text}, {"units", t.units}, {"terms", terms}});
    }
    out["tools"] = tools;
    if (cmp.has_deepspeed_buffers) {
        const auto& c = cmp.deepspeed_buffer_config;
        const auto& b = cmp.deepspeed_buffers;
        ordered_json allocated = ordered_json::array();
        for (const auto& x : b.allocated)
            allocated.push_back(ordered_json{{"name", x.name}, {"bytes", x.bytes}, {"formula", x.formula}, {"source", x.source}});
        out["deepspeed_buffers"] = ordered_json{
            {"stage", c.stage}, {"overlap_comm", b.overlap_comm}, {"reduce_bucket_size", c.reduce_bucket_size},
            {"allgather_bucket_size", c.allgather_bucket_size}, {"prefetch_bucket_size", c.prefetch_bucket_size},
            {"max_live_parameters", c.max_live_parameters}, {"largest_layer_params", c.largest_layer_params},
            {"allocated", allocated}, {"allocated_bytes", b.allocated_bytes}, {"guide_bytes", b.guide_bytes},
            {"memplan_communication_bytes", cmp.memplan.per_gpu.communication},
            {"assumptions", "DeepSpeed's defaults for reduce_bucket_size, overlap_comm, contiguous_gradients and "
                            "stage3_prefetch_bucket_size; persistent parameters (tensors below "
                            "stage3_param_persistence_threshold) not counted"}};
    } else {
        out["deepspeed_buffers"] = nullptr;
    }
    out["errors"] = detail::errors_json(cmp.errors);
    return out;
}
}  // namespace

std::string compare_json(const std::string& config_json, const std::string& hf_config_json) {
    const auto parsed = parse_config(config_json, hf_config_json);
    comparison cmp;
    if (!parsed.ok()) {
        cmp.errors = parsed.errors;
    } else {
        cmp = compare(parsed.value);
    }
    nlohmann::ordered_json out = to_json_value(cmp);
    if (parsed.ok() && !hf_config_json.empty()) detail::name_hf_config_fields(out);
    return detail::dump_json(out);
}

}  // namespace memplan
