#include "memplan/api/front_end.hpp"

#include "io/json_text.hpp"
#include "memplan/report/json.hpp"
#include "report/json.hpp"
#include "memplan/search/analyze.hpp"
#include "memplan/reproduce/compare.hpp"
#include "memplan/api/estimate.hpp"
#include "memplan/io/json.hpp"
#include "memplan/io/presets.hpp"
#include "memplan/io/recipes.hpp"
#include "memplan/config/schema.hpp"

namespace memplan {

using detail::ordered_json;

namespace {

enum class reply_kind { estimate, analyze, compare };

/// The reply of `kind` that holds only `errors` (in the shape of estimate_json, analyze_json or compare_json).
json_reply failed_reply(reply_kind kind, const diagnostics& errors) {
    estimate_result failed;
    failed.errors = errors;
    if (kind == reply_kind::estimate) return {to_json(failed), false};
    ordered_json out;
    if (kind == reply_kind::compare)
        out = ordered_json{{"memplan", nullptr}, {"tools", ordered_json::array()}, {"deepspeed_buffers", nullptr}};
    else
        out["estimate"] = detail::result_json(failed, nullptr);
    out["errors"] = detail::errors_json(failed.errors);
    return {detail::dump_json(out), false};
}

/// Sets a recipe's values over the configuration document `doc` (the recipe's win). A recipe whose
/// fields the configuration's run mode does not read is refused (it would change nothing).
diagnostics apply_recipe(const recipe& r, run_mode mode, ordered_json& doc) {
    for (const auto& v : r.values) {
        const field_spec* field = find_field(v.path);
        if (field != nullptr && std::string(field->modes).find(to_string(mode)) == std::string::npos)
            return {{"recipe", r.id + " sets " + v.path + ", which mode " + to_string(mode) + " does not read (set \"mode\": \"" +
                                   field->modes + "\")"}};
    }
    for (const auto& v : r.values) {
        const std::size_t dot = v.path.find('.');
        ordered_json& section = doc[v.path.substr(0, dot)];
        if (!section.is_object()) section = ordered_json::object();
        detail::parse_json(v.json, section[v.path.substr(dot + 1)]);
    }
    return {};
}

/// A reply's text with the day-one path's outcome (day_one_json's object; null when the path was not taken):
/// its assumptions first among the warnings (of the estimate itself in analyze's reply; compare's gets a
/// "warnings" list), or, where it could not estimate either, its errors after the families' own.
std::string with_day_one(const std::string& text, const ordered_json& day_one) {
    if (day_one.is_null()) return text;
    ordered_json out;
    if (!detail::parse_json(text, out) || !out.is_object()) return text;
    if (!day_one["errors"].empty()) {
        for (const auto& e : day_one["errors"])
            out["errors"].push_back({{"field", e["field"]},
                                     {"message", std::string("(the day-one estimate from the stored tensors) ") +
                                                     e["message"].get<std::string>()}});
        return detail::dump_json(out);
    }
    ordered_json& holder = out.contains("estimate") && out["estimate"].is_object() ? out["estimate"] : out;
    ordered_json warnings = ordered_json::array();
    for (const auto& a : day_one["assumptions"]) warnings.push_back({{"field", "hf_model"}, {"message", a}});
    if (holder.contains("warnings") && holder["warnings"].is_array())
        for (const auto& w : holder["warnings"]) warnings.push_back(w);
    holder["warnings"] = warnings;
    return detail::dump_json(out);
}

/// The reply of `kind`, its text written by `text_of` (estimate_json, analyze_json or compare_json:
/// passed in, so that a program asking only for estimates links none of the analyses).
json_reply reply(const json_request& request, reply_kind kind,
                 std::string (*text_of)(const std::string& config, const std::string& hf)) {
    // Both would replace the model: refuse rather than pick one.
    if (!request.preset.empty() && !request.hf_config_text.empty())
        return failed_reply(kind, {{"preset", "cannot be combined with hf_config (each replaces the model)"}});
    const recipe* applied = request.recipe.empty() ? nullptr : find_recipe(request.recipe);
    if (!request.recipe.empty() && applied == nullptr)
        return failed_reply(kind, {{"recipe", "must be one of: " + recipe_ids() + " (memplan recipes lists them)"}});
    // The configuration as given is checked first (its own model section included).
    std::string hf = request.hf_config_text;
    auto parsed = parse_config(request.config_text, hf);
    std::string config = request.config_text;
    ordered_json day_one;  // the day-one model, when the families refuse the config and its tensors are given
    if (!parsed.ok() && !hf.empty() && !request.stored_tensors.empty() && request.day_one != nullptr) {
        detail::parse_json(request.day_one(hf, request.stored_tensors), day_one);
        ordered_json doc;
        if (day_one["errors"].empty() && detail::parse_json(config, doc) && doc.is_object()) {
            if (doc.contains("model") && doc["model"].is_object() && !doc["model"].empty())
                day_one["assumptions"].push_back("the configuration's own model keys are not applied: the day-one "
                                                 "model replaces its model section");
            doc["model"] = day_one["model"];
            const std::string candidate = detail::dump_json(doc);
            if (auto again = parse_config(candidate); again.ok()) {
                parsed = std::move(again);
                config = candidate;
                hf.clear();
            } else {
                // The configuration's other sections refused beside the day-one model: said, not dropped.
                day_one["errors"] = detail::errors_json(again.errors);
            }
        }
        if (!parsed.ok()) return {with_day_one(text_of(request.config_text, request.hf_config_text), day_one), false};
    }
    if (!parsed.ok()) return {text_of(request.config_text, hf), false};
    if (!request.preset.empty() || applied != nullptr) {
        nlohmann::ordered_json doc;
        detail::parse_json(config, doc);  // parse_config just accepted it
        // The schema's own way to name a preset: {"model": {"preset": ID}} (docs/schema.md).
        if (!request.preset.empty()) doc["model"] = nlohmann::ordered_json{{"preset", request.preset}};
        if (applied != nullptr) {
            const diagnostics refused = apply_recipe(*applied, parsed.value.mode, doc);
            if (!refused.empty()) return failed_reply(kind, refused);
        }
        config = detail::dump_json(doc);
        parsed = parse_config(config, hf);
        if (!parsed.ok()) return {with_day_one(text_of(config, hf), day_one), false};
    }
    const bool ok = estimate(parsed.value).errors.empty();  // analyze fails exactly when estimate does
    return {with_day_one(text_of(config, hf), day_one), ok};
}

}  // namespace

json_reply estimate_reply(const json_request& request) { return reply(request, reply_kind::estimate, &estimate_json); }

json_reply analyze_reply(const json_request& request) { return reply(request, reply_kind::analyze, &analyze_json); }

json_reply compare_reply(const json_request& request) { return reply(request, reply_kind::compare, &compare_json); }

json_reply preset_fits_reply(const std::string& config_text) {
    const auto parsed = parse_config(config_text);
    ordered_json models = ordered_json::array();
    if (parsed.ok()) {
        std::size_t count = 0;
        const model_preset* all = model_presets(count);
        estimate_options totals_only;
        totals_only.want_tensors = false;  // the per-tensor lists are not read here
        for (std::size_t i = 0; i < count; ++i) {
            const auto model = preset_model(all[i].id);
            if (!model.ok()) continue;
            estimate_config c = parsed.value;
            c.model = model.value;
            follow_model_state_dtype(c);
            const estimate_result r = estimate(c, totals_only);
            if (!r.errors.empty()) continue;  // this setup cannot hold the model
            models.push_back(ordered_json{{"id", all[i].id},
                                          {"name", all[i].name},
                                          {"params", r.params},
                                          {"total_bytes", r.needed_bytes},
                                          {"fits", r.has_capacity ? ordered_json(verdict_fits(r)) : ordered_json(nullptr)},
                                          {"beyond_context_limit", c.model.max_position_embeddings != 0 &&
                                                                       asked_context(c).tokens > c.model.max_position_embeddings}});
        }
    }
    return {detail::dump_json(ordered_json{{"models", models}, {"errors", detail::errors_json(parsed.errors)}}), parsed.ok()};
}

std::string preset_fits_json(const std::string& config_text) { return preset_fits_reply(config_text).text; }

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
