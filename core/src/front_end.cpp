#include "memplan/front_end.hpp"

#include "json_text.hpp"
#include "memplan/analyze.hpp"
#include "memplan/estimate.hpp"
#include "memplan/json.hpp"

namespace memplan {

using detail::ordered_json;

namespace {

json_reply reply(const json_request& request, bool analysis) {
    auto text_of = [analysis](const std::string& config, const std::string& hf) {
        return analysis ? analyze_json(config, hf) : estimate_json(config, hf);
    };
    if (!request.preset.empty() && !request.hf_config_text.empty()) {
        // Both would replace the model: refuse rather than pick one.
        estimate_result failed;
        failed.errors = {{"preset", "cannot be combined with hf_config (each replaces the model)"}};
        if (!analysis) return {to_json(failed), false};
        ordered_json out;
        out["estimate"] = ordered_json::parse(to_json(failed), nullptr, false);
        out["errors"] = detail::errors_json(failed.errors);
        return {detail::dump_json(out), false};
    }
    // The configuration as given is checked first (its own model section included).
    auto parsed = parse_config(request.config_text, request.hf_config_text);
    if (!parsed.ok()) return {text_of(request.config_text, request.hf_config_text), false};
    std::string config = request.config_text;
    if (!request.preset.empty()) {
        // The schema's own way to name a preset: {"model": {"preset": ID}} (docs/schema.md).
        nlohmann::json doc = nlohmann::json::parse(config, nullptr, /*allow_exceptions=*/false);
        doc["model"] = nlohmann::json{{"preset", request.preset}};
        config = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        parsed = parse_config(config);
        if (!parsed.ok()) return {text_of(config, ""), false};
    }
    const bool ok = estimate(parsed.value).errors.empty();  // analyze fails exactly when estimate does
    return {text_of(config, request.hf_config_text), ok};
}

}  // namespace

json_reply estimate_reply(const json_request& request) { return reply(request, false); }

json_reply analyze_reply(const json_request& request) { return reply(request, true); }

outcome<model_config> preset_model(const std::string& id) {
    const nlohmann::json config{{"model", {{"preset", id}}}};
    const auto parsed = parse_config(config.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return {parsed.value.model, parsed.errors};
}

std::string zero_stages_json(const std::vector<std::int64_t>& stages, const std::vector<std::uint64_t>& values,
                             const std::string& key, bool single) {
    if (single) return detail::dump_json(ordered_json{{key, values.empty() ? 0 : values.front()}});
    ordered_json list = ordered_json::array();
    for (std::size_t i = 0; i < values.size() && i < stages.size(); ++i)
        list.push_back(ordered_json{{"stage", stages[i]}, {key, values[i]}});
    return detail::dump_json(ordered_json{{"stages", list}});
}

std::string deepspeed_rows_json(const std::vector<deepspeed_row>& rows) {
    ordered_json list = ordered_json::array();
    for (const auto& row : rows)
        list.push_back(ordered_json{{"options", row.options}, {"cpu_bytes", row.cpu_bytes}, {"gpu_bytes", row.gpu_bytes}});
    return detail::dump_json(ordered_json{{"rows", list}});
}

}  // namespace memplan
