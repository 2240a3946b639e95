// JSON schema v1 of memplan configurations and results (docs/schema.md). The `model` section and
// Hugging Face config.json import are read in model_json.cpp.
#include "memplan/json.hpp"

#include <set>

#include <nlohmann/json.hpp>

#include "checks.hpp"
#include "json_input.hpp"
#include "json_text.hpp"
#include "model_json.hpp"

namespace memplan {

namespace {
using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;
using detail::dump_json;
using detail::errors_json;

using detail::object_reader;
using detail::read_model;
using detail::read_model_object;
using detail::parse_document;

/// Reads the schema fields whose path lies directly in `section` ("" = the top level) and records
/// which were given.
void read_section(object_reader& r, const std::string& section, estimate_config& c, std::set<std::string>& given) {
    for (const auto& field : config_fields()) {
        const std::string path = field.path;
        const auto dot = path.rfind('.');
        const std::string owner = dot == std::string::npos ? "" : path.substr(0, dot);
        if (owner == section && r.read(field, c)) given.insert(path);
    }
}

}  // namespace

outcome<estimate_config> parse_config(const std::string& json_text, const std::string& hf_config_text) {
    outcome<estimate_config> out;
    const json doc = parse_document(json_text, "config", out.errors);
    if (!out.ok()) return out;
    estimate_config& c = out.value;
    object_reader top(doc, "", out.errors);
    std::int64_t version = 1;
    top.signed_integer("version", version, 1, 1, "must be 1");
    std::set<std::string> given;
    read_section(top, "", c, given);
    for (const char* section : {"parallel", "model", "train", "infer", "overhead", "gpu"}) {
        if (std::string(section) == "model") {
            if (const json* model = top.find("model"); model != nullptr) {
                if (!model->is_object()) top.fail("model", "must be an object");
                else read_model(*model, "model", c.model, out.errors);
            }
            continue;
        }
        top.object(section, [&](object_reader& r) { read_section(r, section, c, given); });
    }
    top.finish();
    if (out.ok()) {
        const diagnostics layout =
            resolve_layout(c, given.count("parallel.zero_stage") != 0, given.count("parallel.zero_shard_size") != 0);
        out.errors.insert(out.errors.end(), layout.begin(), layout.end());
    }
    if (!hf_config_text.empty()) {
        // A Hugging Face config.json replaces the model section.
        const json hf = parse_document(hf_config_text, "hf_config", out.errors);
        if (out.ok()) {
            c.model = model_config{};
            object_reader r(hf, "hf_config", out.errors, /*lenient=*/true);
            read_model_object(r, c.model, 0);
        }
    }
    return out;
}

std::string to_json(const estimate_result& r) { return dump_json(detail::result_json(r, nullptr)); }

std::string to_json(const estimate_result& r, const estimate_config* config) {
    return dump_json(detail::result_json(r, config));
}

ordered_json detail::result_json(const estimate_result& r, const estimate_config* config) {
    ordered_json out;
    if (r.errors.empty()) {
        const memory_breakdown& b = r.per_gpu;
        const estimate_details& d = r.details;
        out["params"] = r.params;
        out["data_parallel"] = r.data_parallel;
        out["per_gpu"] = ordered_json{{"weights", b.weights},
                                      {"gradients", b.gradients},
                                      {"optimizer_states", b.optimizer_states},
                                      {"activations", b.activations},
                                      {"logits", b.logits},
                                      {"communication", b.communication},
                                      {"kv_cache", b.kv_cache},
                                      {"misc", b.misc},
                                      {"total", b.total}};
        out["details"] = ordered_json{{"params_active", d.params_active},
                                      {"params_on_gpu", d.params_on_gpu},
                                      {"stage", d.stage},
                                      {"layers_on_gpu", d.layers_on_gpu},
                                      {"microbatches_in_flight", d.microbatches_in_flight},
                                      {"layer_activation_bytes", d.layer_activation_bytes},
                                      {"quantization_overhead_bytes", d.quantization_overhead_bytes},
                                      {"kv_cache_bytes_per_token", d.kv_cache_bytes_per_token},
                                      {"host_bytes_per_node", d.host_bytes_per_node},
                                      {"nvme_bytes_per_node", d.nvme_bytes_per_node}};
        ordered_json tensors = ordered_json::array();
        for (const auto& t : d.layer_activations)
            tensors.push_back(ordered_json{{"name", t.name}, {"bytes", t.bytes}, {"note", t.note}});
        out["details"]["layer_activations"] = tensors;
        if (r.has_capacity)
            out["gpu"] = ordered_json{{"fits", r.fits},
                                      {"headroom_bytes", r.headroom_bytes},
                                      {"shortfall_bytes", r.shortfall_bytes},
                                      {"capacity_bytes", r.capacity_bytes}};
        if (config != nullptr) out["config"] = detail::config_echo_json(*config);
    }
    out["warnings"] = errors_json(r.warnings);
    out["errors"] = errors_json(r.errors);
    return out;
}

std::string estimate_json(const std::string& json_text, const std::string& hf_config_text) {
    const auto config = parse_config(json_text, hf_config_text);
    if (!config.ok()) {
        estimate_result failed;
        failed.errors = config.errors;
        return to_json(failed);
    }
    return to_json(estimate(config.value), &config.value);
}

std::string errors_json_text(const diagnostics& errors) {
    return dump_json(ordered_json{{"errors", errors_json(errors)}});
}

std::string outcome_json_text(const outcome<std::uint64_t>& result) {
    ordered_json out;
    out["value"] = result.ok() ? ordered_json(result.value) : ordered_json(nullptr);
    out["errors"] = errors_json(result.errors);
    return dump_json(out);
}

}  // namespace memplan
