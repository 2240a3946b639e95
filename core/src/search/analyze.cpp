// The page's derived views. No new formula lives here: every figure is estimate() (estimate.cpp) or
// the ZeRO model-state arithmetic (zero.cpp) evaluated on a copy of the configuration with one field
// changed; searches rely only on monotonicity of those functions, stated where used.
#include "memplan/search/analyze.hpp"

#include <algorithm>
#include <functional>

#include <nlohmann/json.hpp>

#include "memplan/config/schema.hpp"
#include "memplan/memory/zero.hpp"
#include "memplan/serving/serving.hpp"
#include "base/bisect.hpp"
#include "search/probe.hpp"

namespace memplan {

namespace {

std::uint64_t largest_params(const estimate_config& config, const model_counts& counts);

/// `config` with model.params replaced by `params`.
estimate_config with_params(estimate_config config, std::uint64_t params) {
    config.model.params = params;
    return config;
}

/// `config` with `dp` data-parallel replicas of its tp · pp model-parallel group.
estimate_config with_data_parallel(estimate_config config, std::uint64_t dp) {
    config.parallel.gpus = dp * config.parallel.tp * config.parallel.pp * config.parallel.cp;
    return config;
}

/// `config` with parallel.zero_stage replaced by `stage`.
estimate_config with_stage(estimate_config config, std::int64_t stage) {
    config.parallel.zero_stage = stage;
    return config;
}

/// The ZeRO paper's largest model for this stage: max_params(capacity, N = dp, stage) counts the
/// parameters one data-parallel rank holds (Rajbhandari et al. 2020, Figure 1, 16 B/param Adam);
/// tensor and pipeline parallelism give each rank 1/(tp · pp) of the model, so the whole model is
/// tp · pp times that. Clamped to 2^49, the largest count memplan supports.
std::uint64_t model_states_largest(const estimate_config& config, std::uint64_t dp, std::int64_t stage) {
    const auto per_rank = max_params(config.gpu_memory_bytes, dp, stage);
    if (!per_rank.ok()) return max_param_count;  // only error left: the result exceeds 2^49
    const std::uint64_t model_parallel = config.parallel.tp * config.parallel.pp;
    if (per_rank.value > max_param_count / model_parallel) return max_param_count;
    return per_rank.value * model_parallel;
}

/// Estimates every stage of `config` with its fit and, given a capacity, its largest model and fewest GPUs.
stage_analysis analyze_stage(const estimate_config& config, std::int64_t stage, std::uint64_t dp, const model_counts& counts,
                             const fit_layout& fewest) {
    stage_analysis out;
    out.stage = stage;
    const estimate_config staged = with_stage(config, stage);
    const estimate_result r = detail::estimate_totals(staged, counts);
    out.ok = r.errors.empty();
    out.total = out.ok ? r.needed_bytes : 0;  // the figure the verdict decides on (needed_bytes)
    out.fits = out.ok && r.fits;
    if (config.gpu_memory_bytes == 0) return out;
    out.model_states_max_params = model_states_largest(config, dp, stage);
    out.max_params = largest_params(staged, counts);
    out.fewest_gpus = fewest.gpus;
    out.fewest_tp = fewest.tp;
    out.fewest_pp = fewest.pp;
    return out;
}

/// Per-GPU totals of the four stages for gpus = tp · pp · dp, dp = 1, 2, 4, … while gpus ≤ 1024.
std::vector<sweep_point> sweep_for(const estimate_config& c, const model_counts& counts) {
    std::vector<sweep_point> out;
    const std::uint64_t model_parallel = c.parallel.tp * c.parallel.pp * c.parallel.cp;
    for (std::uint64_t dp = 1; dp * model_parallel <= sweep_max_gpus; dp *= 2) {
        sweep_point point;
        point.gpus = dp * model_parallel;
        for (std::int64_t s = 0; s < 4; ++s) {
            const estimate_result r = detail::estimate_totals(with_stage(with_data_parallel(c, dp), s), counts);
            const auto i = static_cast<std::size_t>(s);
            point.ok[i] = r.errors.empty();
            point.totals[i] = point.ok[i] ? r.needed_bytes : 0;
        }
        out.push_back(point);
    }
    return out;
}

}  // namespace

std::uint64_t largest_fitting_params(const estimate_config& config) {
    return largest_params(config, count_model(config.model));
}

std::uint64_t fewest_fitting_gpus(const estimate_config& config) {
    if (config.gpu_memory_bytes == 0) return 0;
    const parallel_config& p = config.parallel;
    return p.tp * p.pp * p.cp * fewest_data_parallel(config, count_model(config.model), max_gpu_count + 1);
}

namespace {
std::uint64_t largest_params(const estimate_config& config, const model_counts& counts) {
    if (config.gpu_memory_bytes == 0) return 0;
    // The total is non-decreasing in model.params (weights, gradients, optimizer states and buffers
    // grow with it; activations do not depend on it), so "fits" holds on a prefix of [1, 2^49].
    // The search starts at 1: params = 0 would mean "from the architecture".
    return detail::largest_true(max_param_count, [&](std::uint64_t n) { return detail::fits(with_params(config, n), counts); });
}

std::uint64_t largest_fitting(const estimate_config& config, const model_counts& counts, std::uint64_t hi,
                              const std::function<void(estimate_config&, std::uint64_t)>& set) {
    if (config.gpu_memory_bytes == 0) return 0;
    // Callers pass a field the total is non-decreasing in, so "fits" holds on a prefix of [1, hi].
    return detail::largest_true(hi, [&](std::uint64_t v) {
        estimate_config probe = config;
        set(probe, v);
        return detail::fits(probe, counts);
    });
}

workload_limits limits_for(const estimate_config& c, const model_counts& counts) {
    workload_limits l;
    if (c.gpu_memory_bytes == 0) return l;
    if (c.mode == run_mode::train) {
        // Activations and logits grow with the micro-batch and with the sequence (Korthikanti Table 2);
        // the sequence is searched in steps of cp, which must divide it.
        l.max_micro_batch = largest_fitting(c, counts, 1048576, [](estimate_config& k, std::uint64_t v) { k.train.micro_batch = v; });
        const std::uint64_t cp = c.parallel.cp;
        l.max_seq_len = cp * largest_fitting(c, counts, 16777216 / cp, [cp](estimate_config& k, std::uint64_t v) { k.train.seq_len = v * cp; });
        // Adapter parameters, their states and the r-wide activations grow with the rank.
        if (c.train.adapter_type != adapter_kind::none)
            l.max_adapter_rank = largest_fitting(c, counts, 65536, [](estimate_config& k, std::uint64_t v) { k.train.adapter_rank = v; });
    } else {
        // The KV cache, workspace and logits grow with batch and context; a prefill chunk longer than
        // the context is shortened to it.
        l.max_batch = largest_fitting(c, counts, 1048576, [](estimate_config& k, std::uint64_t v) { k.infer.batch = v; });
        l.max_context_len = largest_fitting(c, counts, 16777216, [](estimate_config& k, std::uint64_t v) {
            k.infer.context_len = v;
            k.infer.prefill_tokens = std::min(k.infer.prefill_tokens, v);
        });
    }
    return l;
}

/// Serving: the configuration at context lengths 2^10 … 2^21 (a prefill chunk longer than the
/// context is shortened to it).
std::vector<context_point> context_sweep_for(const estimate_config& c, const model_counts& counts) {
    std::vector<context_point> out;
    if (c.mode != run_mode::infer) return out;
    for (std::uint64_t context = context_sweep_first; context <= context_sweep_last; context *= 2) {
        estimate_config probe = c;
        probe.infer.context_len = context;
        probe.infer.prefill_tokens = std::min(probe.infer.prefill_tokens, context);
        const estimate_result r = detail::estimate_totals(probe, counts);
        context_point point;
        point.context_len = context;
        point.ok = r.errors.empty();
        point.total_bytes = point.ok ? r.per_gpu.total : 0;
        point.kv_cache_bytes = point.ok ? r.per_gpu.kv_cache : 0;
        point.fits = point.ok && r.fits;
        out.push_back(point);
    }
    return out;
}
/// Serving's own answers (inference mode with a GPU size): concurrency and the longest length.
serving_analysis serving_for_analysis(const estimate_config& c, const estimate_result& current,
                                      const workload_limits& limits) {
    serving_analysis out;
    if (c.mode != run_mode::infer || c.gpu_memory_bytes == 0) return out;
    out.present = true;
    const bool engine = c.infer.engine != serving_engine::none;
    if (engine) {
        const serving_result& s = current.serving;
        out.max_concurrent_requests = s.starts ? s.max_concurrency_numerator / s.max_concurrency_denominator : 0;
        out.longest_max_model_len = s.max_model_len_that_starts;
    } else {
        out.max_concurrent_requests = limits.max_batch;
        out.longest_max_model_len = limits.max_context_len;
    }
    return out;
}

}  // namespace

analysis analyze(const estimate_config& config) {
    analysis out;
    out.result = estimate_with_engine(config);
    if (!out.result.errors.empty()) {
        out.errors = out.result.errors;
        return out;
    }
    out.has_capacity = config.gpu_memory_bytes != 0;
    const model_counts counts = count_model(config.model);  // once: every change below keeps the model
    // The one inverse search (inverse.hpp): fewest GPUs over layouts, the single changes and the plan.
    fit_answer fit = search_fit(config, out.result, counts);
    for (std::size_t s = 0; s < 4; ++s)
        out.stages[s] = analyze_stage(config, static_cast<std::int64_t>(s), out.result.data_parallel, counts, fit.by_stage[s]);
    out.suggestions = std::move(fit.single);
    out.fewest = fit.fewest;
    out.plan = std::move(fit.combined);
    out.plan_fits = fit.combined_fits;
    out.sweep = sweep_for(config, counts);
    out.limits = limits_for(config, counts);
    out.context_sweep = context_sweep_for(config, counts);
    out.serving = serving_for_analysis(config, out.result, out.limits);
    return out;
}

}  // namespace memplan
