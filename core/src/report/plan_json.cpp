// The layout planner over JSON (memplan/report/json.hpp plan_json): reads the request, takes the GPU's
// rates from the catalogue (io/gpus.cpp), calls plan() and writes each ranked layout with its memory
// and its step-time rows. No arithmetic here beyond unit-free copying.
#include <algorithm>
#include <memory>

#include <nlohmann/json.hpp>

#include "io/json_text.hpp"
#include "memplan/io/gpus.hpp"
#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"
#include "memplan/search/plan.hpp"
#include "memplan/serving/serving.hpp"

namespace memplan {

namespace {
using ordered_json = nlohmann::ordered_json;

ordered_json failed(const diagnostics& errors) {
    return ordered_json{{"top", ordered_json::array()}, {"errors", detail::errors_json(errors)}};
}

/// An unsigned integer member, or `fallback` when absent; an error naming the key otherwise.
std::uint64_t count_member(const ordered_json& doc, const char* key, std::uint64_t fallback, diagnostics& errors) {
    if (!doc.contains(key)) return fallback;
    if (!doc[key].is_number_unsigned()) {
        errors.push_back({std::string("plan.") + key, "must be a whole number"});
        return fallback;
    }
    return doc[key].get<std::uint64_t>();
}

/// A boolean member, or `fallback`.
bool bool_member(const ordered_json& doc, const char* key, bool fallback, diagnostics& errors) {
    if (!doc.contains(key)) return fallback;
    if (!doc[key].is_boolean()) {
        errors.push_back({std::string("plan.") + key, "must be true or false"});
        return fallback;
    }
    return doc[key].get<bool>();
}

/// A fraction member in (0, 1], or `fallback`.
double fraction_member(const ordered_json& doc, const char* key, double fallback, diagnostics& errors) {
    if (!doc.contains(key)) return fallback;
    const double v = doc[key].is_number() ? doc[key].get<double>() : -1;
    if (!(v > 0 && v <= 1)) {
        errors.push_back({std::string("plan.") + key, "must be a number in (0, 1]"});
        return fallback;
    }
    return v;
}

/// The step-time rows, each with its exposed and busy seconds and its formula.
ordered_json terms_json(const step_time_result& time) {
    ordered_json terms = ordered_json::array();
    for (const step_term& t : time.terms)
        terms.push_back(ordered_json{{"name", std::string(t.name)}, {"seconds", t.seconds}, {"busy_seconds", t.busy_seconds}, {"how", std::string(t.how)}});
    return terms;
}

ordered_json layout_json(const plan_layout& l, run_mode mode) {
    ordered_json out{{"text", layout_text(l, mode)}, {"gpus", l.gpus}, {"tp", l.tp}, {"pp", l.pp}};
    if (mode == run_mode::infer) {
        out["replicas"] = l.dp;
        out["weight_dtype"] = to_string(l.weight_dtype);
        out["kv_dtype"] = to_string(l.kv_dtype);
        out["total_bytes"] = l.total_bytes;
        out["headroom_bytes"] = l.headroom_bytes;
        out["decode_step_s"] = l.decode_step_s;
        out["decode_tokens_per_s_per_gpu"] = l.decode_tokens_per_s_per_gpu;
        out["prefill_s"] = l.prefill_s;
        return out;
    }
    out["cp"] = l.cp;
    out["ep"] = l.ep;
    out["virtual_stages"] = l.virtual_stages;
    out["dp"] = l.dp;
    out["zero_stage"] = l.zero_stage;
    out["recompute"] = to_string(l.recompute);
    out["micro_batch"] = l.micro_batch;
    out["microbatches"] = l.time.microbatches;
    out["total_bytes"] = l.total_bytes;
    out["headroom_bytes"] = l.headroom_bytes;
    out["step_s"] = l.time.step_s;
    out["tokens_per_s_per_gpu"] = l.time.tokens_per_s_per_gpu;
    out["mfu"] = l.time.mfu;
    out["model_flops_per_step"] = l.time.model_flops_per_step;
    out["hardware_flops_per_step"] = l.time.hardware_flops_per_step;
    out["bottleneck"] = std::string(l.time.bottleneck);
    out["terms"] = terms_json(l.time);
    return out;
}

/// The GPU of a request: its catalogue rates, and its capacity where the configuration gives none.
const gpu_entry* request_gpu(const ordered_json& doc, plan_request& r, diagnostics& errors) {
    const std::string gpu_id = doc.contains("gpu") && doc["gpu"].is_string() ? doc["gpu"].get<std::string>() : "";
    const gpu_entry* gpu = find_gpu(gpu_id);
    if (gpu == nullptr) errors.push_back({"plan.gpu", "must be a GPU id from the catalogue (memplan gpus), got \"" + gpu_id + "\""});
    else if (!gpu->perf.ok()) errors.push_back({"plan.gpu", std::string(gpu->id) + " has no peak FLOP/s and bandwidths in the catalogue (gpus.json perf)"});
    else {
        r.gpu = gpu->perf;
        if (r.base.gpu_memory_bytes == 0) r.base.gpu_memory_bytes = gpu_capacity_bytes(*gpu);
        if (r.base.gpu_name.empty()) r.base.gpu_name = gpu->id;  // the GPU's name decides vLLM's defaults (A100)
    }
    r.gpu.gemm_efficiency = fraction_member(doc, "gemm_efficiency", r.gpu.gemm_efficiency, errors);
    r.gpu.attention_efficiency = fraction_member(doc, "attention_efficiency", r.gpu.attention_efficiency, errors);
    return gpu;
}

/// Reads a request's document, its configuration and its GPU: "" when they read, else the failure's JSON.
std::string read_request(const std::string& text, ordered_json& doc, plan_request& r, const gpu_entry*& gpu, diagnostics& errors) {
    doc = ordered_json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) return detail::dump_json(failed({{"request", "is not a valid JSON object"}}));
    const auto config = parse_config(doc.contains("config") ? doc["config"].dump() : std::string("{}"));
    if (!config.ok()) return detail::dump_json(failed(config.errors));
    r.base = config.value;
    gpu = request_gpu(doc, r, errors);
    return "";
}

}  // namespace

namespace {

/// A plan request's members read into `r` (the configuration and GPU included): "" when they read,
/// else the failure's JSON.
std::string read_plan_request(const std::string& request_json, plan_request& r, std::string& gpu_id) {
    ordered_json doc;
    const gpu_entry* gpu = nullptr;
    diagnostics errors;
    if (std::string failure = read_request(request_json, doc, r, gpu, errors); !failure.empty()) return failure;
    gpu_id = gpu != nullptr ? gpu->id : "";
    const std::uint64_t gpus = count_member(doc, "gpus", 0, errors);
    r.min_gpus = count_member(doc, "min_gpus", gpus, errors);
    r.max_gpus = count_member(doc, "max_gpus", gpus != 0 ? gpus : r.min_gpus, errors);
    r.global_batch_sequences = count_member(doc, "global_batch", 0, errors);
    r.top_n = count_member(doc, "top_n", r.top_n, errors);
    r.tp_within_node = bool_member(doc, "tp_within_node", r.tp_within_node, errors);
    r.vary_recompute = bool_member(doc, "vary_recompute", r.vary_recompute, errors);
    r.interleave = bool_member(doc, "interleave", r.interleave, errors);
    r.sequence_parallel = bool_member(doc, "sequence_parallel", r.sequence_parallel, errors);
    r.step.overlap_grad_reduce = bool_member(doc, "overlap_grad_reduce", r.step.overlap_grad_reduce, errors);
    r.max_micro_batch = count_member(doc, "max_micro_batch", r.max_micro_batch, errors);
    r.max_zero_stage = static_cast<std::int64_t>(std::min<std::uint64_t>(count_member(doc, "max_zero_stage", 3, errors), 4));
    if (!errors.empty()) return detail::dump_json(failed(errors));
    return "";
}

/// The answer of a plan, final or of the GPU counts searched so far (`done`).
std::string plan_result_json(const plan_stream& stream, run_mode mode, const std::string& gpu_id, std::uint64_t capacity) {
    const plan_result result = stream.result();
    if (!result.errors.empty()) return detail::dump_json(failed(result.errors));
    ordered_json top = ordered_json::array();
    for (const plan_layout& l : result.top) top.push_back(layout_json(l, mode));
    ordered_json by_gpus = ordered_json::array();
    for (const plan_count_row& row : result.by_gpus)
        by_gpus.push_back(ordered_json{{"gpus", row.gpus}, {"considered", row.considered}, {"fitting", row.fitting},
                                       {"best", row.has_best ? layout_json(row.best, mode) : ordered_json(nullptr)}});
    ordered_json rejected = ordered_json::array();
    for (const plan_rejection& x : result.rejected)
        rejected.push_back(ordered_json{{"reason", x.reason}, {"count", x.count}, {"example", x.example}});
    ordered_json out{{"mode", mode == run_mode::train ? "train" : "infer"},
                     {"gpu", gpu_id},
                     {"gpu_memory_bytes", capacity},
                     {"top", top},
                     {"considered", result.considered},
                     {"fitting", result.fitting},
                     {"rejected", rejected},
                     {"empty_reason", result.empty_reason},
                     {"warnings", detail::errors_json(result.warnings)},
                     {"gpu_counts", stream.gpu_counts()},
                     {"by_gpus", by_gpus},
                     {"done", stream.done()},
                     {"errors", ordered_json::array()}};
    return detail::dump_json(out);
}

}  // namespace

struct plan_json_stream::parts {
    std::string failure;  ///< the request's failure JSON, or ""
    std::string gpu_id;
    run_mode mode = run_mode::train;
    std::uint64_t capacity = 0;  ///< the GPU's memory the layouts were checked against
    std::unique_ptr<plan_stream> stream;
};

plan_json_stream::plan_json_stream(const std::string& request_json) : p_(std::make_unique<parts>()) {
    plan_request r;
    p_->failure = read_plan_request(request_json, r, p_->gpu_id);
    if (!p_->failure.empty()) return;
    p_->mode = r.base.mode;
    p_->capacity = r.base.gpu_memory_bytes;
    p_->stream = std::make_unique<plan_stream>(r);
}

plan_json_stream::~plan_json_stream() = default;

bool plan_json_stream::done() const { return !p_->stream || p_->stream->done(); }

std::string plan_json_stream::step() {
    if (!p_->stream) return p_->failure;
    p_->stream->step();
    return plan_result_json(*p_->stream, p_->mode, p_->gpu_id, p_->capacity);
}

std::string plan_json(const std::string& request_json) {
    plan_json_stream stream(request_json);
    std::string out = stream.step();
    while (!stream.done()) out = stream.step();
    return out;
}

std::string step_time_json(const std::string& request_json) {
    ordered_json doc;
    plan_request r;
    const gpu_entry* gpu = nullptr;
    diagnostics errors;
    if (std::string failure = read_request(request_json, doc, r, gpu, errors); !failure.empty()) return failure;
    step_options options;
    options.global_batch_sequences = count_member(doc, "global_batch", 0, errors);
    options.overlap_grad_reduce = bool_member(doc, "overlap_grad_reduce", options.overlap_grad_reduce, errors);
    if (!errors.empty()) return detail::dump_json(failed(errors));
    // The configuration the time is for is estimated first: what the estimate refuses, the step time
    // refuses too, and the estimate's warnings (an uneven pipeline split, a framework default, …) come
    // with the time's own caveats.
    const estimate_result memory = estimate_with_engine(r.base);
    if (!memory.errors.empty()) return detail::dump_json(failed(memory.errors));
    const step_time_result t = step_time(r.base, r.gpu, options);
    if (!t.errors.empty()) return detail::dump_json(failed(t.errors));
    diagnostics warnings = memory.warnings;
    warnings.insert(warnings.end(), t.warnings.begin(), t.warnings.end());
    ordered_json out{{"step_s", t.step_s},
                     {"tokens_per_s_per_gpu", t.tokens_per_s_per_gpu},
                     {"mfu", t.mfu},
                     {"model_flops_per_step", t.model_flops_per_step},
                     {"hardware_flops_per_step", t.hardware_flops_per_step},
                     {"microbatches", t.microbatches},
                     {"bottleneck", std::string(t.bottleneck)},
                     {"terms", terms_json(t)},
                     {"total_bytes", memory.needed_bytes},  // the figure the verdict decides on
                     {"fits", memory.has_capacity ? ordered_json(memory.fits) : ordered_json(nullptr)},
                     {"warnings", detail::errors_json(warnings)},
                     {"errors", ordered_json::array()}};
    return detail::dump_json(out);
}

}  // namespace memplan
