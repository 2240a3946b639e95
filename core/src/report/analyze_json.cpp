// analyze() as JSON (memplan/report/json.hpp): the estimate object of `memplan estimate` followed by
// the stages, suggestions, sweep, limits and, in serving, the context sweep and the engine's answers.
#include "io/json_text.hpp"
#include "memplan/config/schema.hpp"
#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"
#include "memplan/search/analyze.hpp"
#include "report/json.hpp"

namespace memplan {

namespace {
using ordered_json = nlohmann::ordered_json;

/// A count, or null where it has no meaning (no capacity, or "never").
ordered_json count_or_null(bool present, std::uint64_t value) {
    return present ? ordered_json(value) : ordered_json(nullptr);
}

ordered_json stage_json(const stage_analysis& s, bool has_capacity) {
    return ordered_json{{"stage", s.stage},
                        {"total", count_or_null(s.ok, s.total)},
                        {"fits", has_capacity ? ordered_json(s.fits) : ordered_json(nullptr)},
                        {"model_states_max_params", count_or_null(has_capacity, s.model_states_max_params)},
                        {"max_params", count_or_null(has_capacity, s.max_params)},
                        {"fewest_gpus", count_or_null(has_capacity && s.fewest_gpus != 0, s.fewest_gpus)},
                        {"fewest_tp", count_or_null(has_capacity && s.fewest_gpus != 0, s.fewest_tp)},
                        {"fewest_pp", count_or_null(has_capacity && s.fewest_gpus != 0, s.fewest_pp)}};
}

/// A suggestion's value in the JSON type of its field (schema.hpp): number, boolean or name.
ordered_json typed_value(const std::string& field, const std::string& value) {
    const field_spec* spec = find_field(field);
    if (spec == nullptr || spec->type == field_type::choice || spec->type == field_type::text) return value;
    if (spec->type == field_type::boolean) return value == "true";
    return std::stoull(value);
}

/// One change of the inverse search; inference adds whether it serves and, with an engine, its KV tokens.
ordered_json suggestion_json(const suggestion& s, bool has_capacity, bool infer) {
    ordered_json also = ordered_json::object();
    for (const auto& [field, value] : s.also) also[field] = typed_value(field, value);
    ordered_json out{{"field", s.field},
                     {"from", typed_value(s.field, s.from)},
                     {"to", typed_value(s.field, s.to)},
                     {"total", s.total},
                     {"saving_bytes", s.saving_bytes},
                     {"fits", has_capacity ? ordered_json(s.fits) : ordered_json(nullptr)},
                     {"also", also}};
    if (infer) {
        out["serves"] = has_capacity ? ordered_json(s.serves) : ordered_json(nullptr);
        out["kv_capacity_tokens"] = s.kv_capacity_tokens;
    }
    return out;
}

/// The fewest-GPUs layout, or null where none fits (or no capacity was given).
ordered_json fewest_json(const fit_layout& l, bool has_capacity) {
    if (!has_capacity || l.gpus == 0) return nullptr;
    return ordered_json{{"gpus", l.gpus}, {"tp", l.tp}, {"pp", l.pp}, {"dp", l.dp}, {"zero_stage", l.zero_stage}};
}

ordered_json sweep_json(const sweep_point& p) {
    ordered_json totals = ordered_json::array();
    for (std::size_t s = 0; s < 4; ++s) totals.push_back(count_or_null(p.ok[s], p.totals[s]));
    return ordered_json{{"gpus", p.gpus}, {"totals", totals}};
}

}  // namespace

std::string analyze_json(const std::string& config_json, const std::string& hf_config_json) {
    ordered_json out;
    const auto config = parse_config(config_json, hf_config_json);
    if (!config.ok()) {
        estimate_result failed;
        failed.errors = config.errors;
        out["estimate"] = detail::result_json(failed, nullptr);
        out["errors"] = detail::errors_json(config.errors);
        return detail::dump_json(out);
    }
    const analysis a = analyze(config.value);
    // The estimate object is exactly what `memplan estimate` prints for this configuration.
    out["estimate"] = detail::result_json(a.result, &config.value);
    if (a.errors.empty()) {
        ordered_json stages = ordered_json::array(), suggestions = ordered_json::array(),
                     sweep = ordered_json::array();
        for (const auto& s : a.stages) stages.push_back(stage_json(s, a.has_capacity));
        const bool infer = config.value.mode == run_mode::infer;
        for (const auto& s : a.suggestions) suggestions.push_back(suggestion_json(s, a.has_capacity, infer));
        for (const auto& p : a.sweep) sweep.push_back(sweep_json(p));
        out["stages"] = stages;
        out["suggestions"] = suggestions;
        out["fewest"] = fewest_json(a.fewest, a.has_capacity);
        ordered_json plan = ordered_json::array();
        for (const auto& s : a.plan) plan.push_back(suggestion_json(s, a.has_capacity, infer));
        out["plan"] = ordered_json{{"changes", plan}, {"fits", a.has_capacity ? ordered_json(a.plan_fits) : ordered_json(nullptr)}};
        out["sweep"] = sweep;
        const workload_limits& l = a.limits;
        const bool train = config.value.mode == run_mode::train;
        out["limits"] = ordered_json{{"max_micro_batch", count_or_null(a.has_capacity && train && l.max_micro_batch != 0, l.max_micro_batch)},
                                     {"max_seq_len", count_or_null(a.has_capacity && train && l.max_seq_len != 0, l.max_seq_len)},
                                     {"max_batch", count_or_null(a.has_capacity && !train && l.max_batch != 0, l.max_batch)},
                                     {"max_context_len", count_or_null(a.has_capacity && !train && l.max_context_len != 0, l.max_context_len)}};
        if (train && config.value.train.adapter_type != adapter_kind::none)  // appended: older readers see the same keys
            out["limits"]["max_adapter_rank"] = count_or_null(a.has_capacity && l.max_adapter_rank != 0, l.max_adapter_rank);
        // The model's context limit (max_position_embeddings; null when the config states none) and whether
        // the longest sequence or context that fits goes beyond it (appended).
        const std::uint64_t context_limit = config.value.model.max_position_embeddings;
        const auto beyond = [context_limit](std::uint64_t tokens) { return context_limit != 0 && tokens > context_limit; };
        out["limits"]["context_limit_tokens"] = count_or_null(context_limit != 0, context_limit);
        out["limits"]["beyond_context_limit"] = a.has_capacity && beyond(train ? l.max_seq_len : l.max_context_len);
        if (!train) {  // serving only: memory against the context length
        ordered_json contexts = ordered_json::array();
        for (const auto& p : a.context_sweep)
            contexts.push_back(ordered_json{{"context_len", p.context_len},
                                            {"total_bytes", count_or_null(p.ok, p.total_bytes)},
                                            {"kv_cache_bytes", count_or_null(p.ok, p.kv_cache_bytes)},
                                            {"fits", a.has_capacity && p.ok ? ordered_json(p.fits) : ordered_json(nullptr)},
                                            {"beyond_context_limit", beyond(p.context_len)}});
        out["context_sweep"] = contexts;
        if (a.serving.present) {  // serving's inverse answers (appended; inference mode with a GPU size)
            const serving_analysis& v = a.serving;
            // Its fewest GPUs and suggestions are the top-level `fewest` and `suggestions`: one answer.
            out["serving"] = ordered_json{{"max_concurrent_requests", v.max_concurrent_requests},
                                          {"longest_max_model_len", v.longest_max_model_len},
                                          {"longest_beyond_context_limit", beyond(v.longest_max_model_len)}};
        }
        }
    }
    out["errors"] = detail::errors_json(a.errors);
    if (!hf_config_json.empty()) detail::name_hf_config_fields(out);
    return detail::dump_json(out);
}

}  // namespace memplan
