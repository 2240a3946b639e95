// The page's derived views. No new formula lives here: every figure is estimate() (estimate.cpp) or
// the ZeRO model-state arithmetic (zero.cpp) evaluated on a copy of the configuration with one field
// changed; searches rely only on monotonicity of those functions, stated where used.
#include "memplan/search/analyze.hpp"

#include <algorithm>
#include <functional>
#include <numeric>

#include <nlohmann/json.hpp>

#include "memplan/config/schema.hpp"
#include "memplan/memory/zero.hpp"
#include "memplan/serving/serving.hpp"
#include "base/bisect.hpp"
#include "base/small_sort.hpp"
#include "serving/engines.hpp"

namespace memplan {

namespace {

std::uint64_t largest_params(const estimate_config& config, const model_counts& counts);
std::uint64_t fewest_gpus(const estimate_config& config, const model_counts& counts);

/// estimate() without the per-tensor activation list: every search below reads totals only. `counts`
/// is count_model(config.model), counted once per analysis: no change below touches the model except
/// model.params, which no count reads.
estimate_result estimate_totals(const estimate_config& config, const model_counts& counts) {
    estimate_options options;
    options.want_tensors = false;
    options.want_warnings = false;  // no search reads them
    options.counts = &counts;
    return estimate_with_engine(config, options);
}

/// True when `config` estimates without error and fits its GPU.
bool fits(const estimate_config& config, const model_counts& counts) {
    const estimate_result r = estimate_totals(config, counts);
    return r.errors.empty() && r.fits;
}

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
stage_analysis analyze_stage(const estimate_config& config, std::int64_t stage, std::uint64_t dp, const model_counts& counts) {
    stage_analysis out;
    out.stage = stage;
    const estimate_config staged = with_stage(config, stage);
    const estimate_result r = estimate_totals(staged, counts);
    out.ok = r.errors.empty();
    out.total = out.ok ? r.per_gpu.total : 0;
    out.fits = out.ok && r.fits;
    if (config.gpu_memory_bytes == 0) return out;
    out.model_states_max_params = model_states_largest(config, dp, stage);
    out.max_params = largest_params(staged, counts);
    out.fewest_gpus = fewest_gpus(staged, counts);
    return out;
}

/// A value as written, for a suggestion's `from` and `to` (typed again by the field's schema row).
std::string text(bool value) { return value ? "true" : "false"; }
std::string text(std::uint64_t value) { return std::to_string(value); }
std::string text(std::int64_t value) { return std::to_string(value); }
std::string text(const char* name) { return name; }

/// One candidate change: its field, the values as JSON text and the changed configuration.
struct candidate {
    std::string field;
    std::string from;
    std::string to;
    estimate_config config;
};

/// The single changes worth trying for `c`, each applicable to it (the list in analyze.hpp).
std::vector<candidate> candidates(const estimate_config& c) {
    std::vector<candidate> out;
    const auto add = [&](const char* field, std::string from, std::string to,
                         const std::function<void(estimate_config&)>& change) {
        candidate k{field, std::move(from), std::move(to), c};
        change(k.config);
        if (validate(k.config).empty()) out.push_back(std::move(k));
    };
    const parallel_config& p = c.parallel;
    const train_config& t = c.train;
    if (c.mode == run_mode::train) {
        if (p.zero_stage < 3)  // shard one more kind of model state over data parallel (ZeRO §5)
            add("parallel.zero_stage", text(p.zero_stage), text(p.zero_stage + 1),
                [](estimate_config& k) { ++k.parallel.zero_stage; });
        if (t.recompute != recompute_mode::full)  // keep only each layer's input (Korthikanti §5)
            add("train.recompute", text(to_string(t.recompute)), text("full"),
                [](estimate_config& k) { k.train.recompute = recompute_mode::full; });
        if (!t.flash_attention)  // attention scores never stored (Dao et al. 2022)
            add("train.flash_attention", text(false), text(true),
                [](estimate_config& k) { k.train.flash_attention = true; });
        if (p.tp > 1 && !p.sequence_parallel)  // shard norm/dropout activations over tp (Korthikanti §4.2.2)
            add("parallel.sequence_parallel", text(false), text(true),
                [](estimate_config& k) { k.parallel.sequence_parallel = true; });
        // Fine-tuning recipes, for models counted from their architecture (adapter bytes come from the
        // layers' shapes, not from an explicit model.params).
        const bool architecture = c.model.params == 0;
        if (architecture && t.adapter_type == adapter_kind::none && t.optimizer != optimizer_kind::none)
            // LoRA on every block linear (PEFT all-linear, r = train.adapter_rank): gradients and optimizer
            // states for the adapters only (Hu et al. 2021, §4.2).
            add("train.adapter_type", text("none"), text("lora"),
                [](estimate_config& k) { k.train.adapter_type = adapter_kind::lora; });
        if (architecture && t.adapter_type != adapter_kind::none && t.base_dtype != base_precision::nf4)
            // QLoRA: the frozen base in 4-bit NormalFloat (Dettmers et al. 2023, §3).
            add("train.base_dtype", text(to_string(t.base_dtype)), text("nf4"),
                [](estimate_config& k) { k.train.base_dtype = base_precision::nf4; });
        if (architecture && t.optimizer == optimizer_kind::adam && t.optimizer_state_dtype == float_precision::fp32)
            // 8-bit Adam states (Dettmers et al. 2022): 2 bytes instead of 8 per trainable parameter.
            add("train.optimizer", text("adam"), text("adam_8bit"),
                [](estimate_config& k) { k.train.optimizer = optimizer_kind::adam_8bit; });
        if (t.micro_batch > 1)  // activations scale with the micro-batch
            add("train.micro_batch", text(t.micro_batch), text(std::uint64_t{1}),
                [](estimate_config& k) { k.train.micro_batch = 1; });
    }
    if (p.gpus <= max_gpu_count / 2)  // twice the data-parallel degree at the same tp · pp
        add("parallel.gpus", text(p.gpus), text(p.gpus * 2), [](estimate_config& k) { k.parallel.gpus *= 2; });
    // Twice the tensor-parallel degree on the same GPUs; validate() rejects it unless the heads and the
    // GPU count allow it.
    add("parallel.tp", text(p.tp), text(p.tp * 2), [](estimate_config& k) { k.parallel.tp *= 2; });
    return out;
}

/// The candidates that lower the per-GPU total below `current`, largest saving first.
std::vector<suggestion> suggestions_for(const estimate_config& c, std::uint64_t current, const model_counts& counts) {
    std::vector<suggestion> out;
    for (const candidate& k : candidates(c)) {
        const estimate_result r = estimate_totals(k.config, counts);
        if (!r.errors.empty() || r.per_gpu.total >= current) continue;
        out.push_back({k.field, k.from, k.to, r.per_gpu.total, current - r.per_gpu.total, r.fits});
    }
    // Stable: equal savings keep the order of candidates().
    detail::stable_sort_small(out, [](const suggestion& a, const suggestion& b) { return a.saving_bytes > b.saving_bytes; });
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
            const estimate_result r = estimate_totals(with_stage(with_data_parallel(c, dp), s), counts);
            const auto i = static_cast<std::size_t>(s);
            point.ok[i] = r.errors.empty();
            point.totals[i] = point.ok[i] ? r.per_gpu.total : 0;
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
    return fewest_gpus(config, count_model(config.model));
}

namespace {
std::uint64_t largest_params(const estimate_config& config, const model_counts& counts) {
    if (config.gpu_memory_bytes == 0) return 0;
    // The total is non-decreasing in model.params (weights, gradients, optimizer states and buffers
    // grow with it; activations do not depend on it), so "fits" holds on a prefix of [1, 2^49].
    // The search starts at 1: params = 0 would mean "from the architecture".
    return detail::largest_true(max_param_count, [&](std::uint64_t n) { return fits(with_params(config, n), counts); });
}

std::uint64_t fewest_gpus(const estimate_config& config, const model_counts& counts) {
    if (config.gpu_memory_bytes == 0) return 0;
    const parallel_config& p = config.parallel;
    const std::uint64_t model_parallel = p.tp * p.pp * p.cp;
    // Valid data-parallel degrees: ep and the ZeRO shard group must divide dp · cp, i.e. dp must be a
    // multiple of step = L / gcd(L, cp) with L = lcm(ep, shard group).
    const std::uint64_t group = std::lcm(p.ep, p.zero_shard_size != 0 ? p.zero_shard_size : 1);
    const std::uint64_t step = group / std::gcd(group, p.cp);
    const std::uint64_t k_max = max_gpu_count / model_parallel / step;  // gpus ≤ 2^20 (validate)
    // The total is non-increasing in dp (ZeRO shards divide by dp; nothing else depends on it), so
    // "fits" holds on a suffix of the valid degrees: find its first element.
    if (k_max == 0 || !fits(with_data_parallel(config, k_max * step), counts)) return 0;
    const std::uint64_t k = detail::smallest_true(1, k_max, [&](std::uint64_t n) {
        return fits(with_data_parallel(config, n * step), counts);
    });
    return k * step * model_parallel;
}

std::uint64_t largest_fitting(const estimate_config& config, const model_counts& counts, std::uint64_t hi,
                              const std::function<void(estimate_config&, std::uint64_t)>& set) {
    if (config.gpu_memory_bytes == 0) return 0;
    // Callers pass a field the total is non-decreasing in, so "fits" holds on a prefix of [1, hi].
    return detail::largest_true(hi, [&](std::uint64_t v) {
        estimate_config probe = config;
        set(probe, v);
        return fits(probe, counts);
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
        const estimate_result r = estimate_totals(probe, counts);
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
/// Serving: true when `config` serves — with an engine, it starts and holds infer.batch requests of
/// max_model_len at once (num_blocks ≥ batch × blocks per request); without one, it fits.
bool serves(const estimate_config& config, const model_counts& counts, estimate_result* out = nullptr) {
    estimate_result r = estimate_totals(config, counts);
    bool ok = r.errors.empty();
    if (ok && config.infer.engine == serving_engine::none) ok = r.fits;
    else if (ok) {
        const serving_result& s = r.serving;
        ok = s.starts && s.max_concurrency_numerator / s.max_concurrency_denominator >= config.infer.batch;
    }
    if (out != nullptr) *out = std::move(r);
    return ok;
}

/// Serving's inverse answers and suggestions (inference mode with a GPU size).
serving_analysis serving_for_analysis(const estimate_config& c, const estimate_result& current,
                                      const workload_limits& limits, const model_counts& counts) {
    serving_analysis out;
    if (c.mode != run_mode::infer || c.gpu_memory_bytes == 0) return out;
    out.present = true;
    const bool engine = c.infer.engine != serving_engine::none;
    // Fewest GPUs of one replica: tensor × pipeline sizes in powers of two, fewest GPUs first and, at
    // equal count, the smaller pipeline (validate() rejects sizes the heads or layers do not allow).
    // Data-parallel replicas are not tried: each holds the whole model, so per-GPU memory stays.
    for (std::uint64_t gpus = 1; gpus <= sweep_max_gpus && out.fewest_gpus == 0; gpus *= 2)
        for (std::uint64_t pp = 1; pp <= gpus; pp *= 2) {
            estimate_config k = c;
            k.parallel.tp = gpus / pp;
            k.parallel.pp = pp;
            k.parallel.cp = 1;
            k.parallel.ep = 1;
            k.parallel.virtual_stages = 1;
            k.parallel.gpus = gpus;
            if (validate(k).empty() && serves(k, counts)) {
                out.fewest_gpus = gpus;
                out.fewest_tp = gpus / pp;
                out.fewest_pp = pp;
                break;
            }
        }
    if (engine) {
        const serving_result& s = current.serving;
        out.max_concurrent_requests = s.starts ? s.max_concurrency_numerator / s.max_concurrency_denominator : 0;
        out.longest_max_model_len = s.max_model_len_that_starts;
    } else {
        out.max_concurrent_requests = limits.max_batch;
        out.longest_max_model_len = limits.max_context_len;
    }

    // Single changes that belong to serving: a narrower KV cache or weights, a larger tensor-parallel
    // group, a shorter max_model_len, a larger share of the GPU for the engine. Never ZeRO stages.
    const infer_config& inf = c.infer;
    std::vector<candidate> list;
    const auto add = [&](const char* field, std::string from, std::string to,
                         const std::function<void(estimate_config&)>& change) {
        candidate k{field, std::move(from), std::move(to), c};
        change(k.config);
        if (validate(k.config).empty()) list.push_back(std::move(k));
    };
    if (dtype_bits(inf.kv_dtype) > 8)  // fp8 KV cache: half the bytes of bf16 per token
        add("infer.kv_dtype", text(to_string(inf.kv_dtype)), text("fp8"),
            [](estimate_config& k) { k.infer.kv_dtype = dtype::fp8; });
    for (const dtype narrower : {dtype::fp8, dtype::int8, dtype::int4})
        if (dtype_bits(inf.weight_dtype) > dtype_bits(narrower) &&
            (narrower != dtype::int8 || inf.weight_dtype != dtype::fp8))
            add("infer.weight_dtype", text(to_string(inf.weight_dtype)), text(to_string(narrower)),
                [narrower](estimate_config& k) { k.infer.weight_dtype = narrower; });
    if (c.parallel.gpus <= max_gpu_count / 2)
        add("parallel.tp", text(c.parallel.tp), text(c.parallel.tp * 2), [](estimate_config& k) {
            k.parallel.tp *= 2;
            k.parallel.gpus *= 2;
        });
    if (engine) {
        const std::uint64_t len = inf.max_model_len != 0 ? inf.max_model_len : inf.context_len;
        if (len >= 2)
            add("infer.max_model_len", text(len), text(len / 2),
                [len](estimate_config& k) { k.infer.max_model_len = len / 2; });
        // The engine's share of the GPU (its utilization or fraction) raised to 0.95.
        const detail::engine* e = detail::find_engine(inf.engine);
        if (e != nullptr && inf.*(e->share_permille) < 950) {
            const auto share = e->share_permille;
            add(e->share_field, text(inf.*share), text(std::uint64_t{950}), [share](estimate_config& k) { k.infer.*share = 950; });
        }
    } else if (inf.context_len >= 2) {
        add("infer.context_len", text(inf.context_len), text(inf.context_len / 2), [](estimate_config& k) {
            k.infer.context_len /= 2;
            k.infer.prefill_tokens = std::min(k.infer.prefill_tokens, k.infer.context_len);
        });
    }
    for (const candidate& k : list) {
        estimate_result r;
        const bool ok = serves(k.config, counts, &r);
        if (!r.errors.empty()) continue;
        // Helps: more KV tokens with an engine (or serving where it did not), a lower total without one.
        const bool helps = engine ? (r.serving.kv_capacity_tokens > current.serving.kv_capacity_tokens ||
                                     (r.serving.starts && !current.serving.starts))
                                  : r.per_gpu.total < current.per_gpu.total;
        if (!helps) continue;
        out.suggestions.push_back({k.field, k.from, k.to, ok, engine ? r.serving.kv_capacity_tokens : 0, r.per_gpu.total});
    }
    // Those that make it serve first; then the most KV tokens (engine) or the lowest total (none).
    detail::stable_sort_small(out.suggestions, [engine](const serving_suggestion& a, const serving_suggestion& b) {
        if (a.serves != b.serves) return a.serves;
        return engine ? a.kv_capacity_tokens > b.kv_capacity_tokens : a.total < b.total;
    });
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
    for (std::int64_t s = 0; s < 4; ++s)
        out.stages[static_cast<std::size_t>(s)] = analyze_stage(config, s, out.result.data_parallel, counts);
    out.suggestions = suggestions_for(config, out.result.per_gpu.total, counts);
    out.sweep = sweep_for(config, counts);
    out.limits = limits_for(config, counts);
    out.context_sweep = context_sweep_for(config, counts);
    out.serving = serving_for_analysis(config, out.result, out.limits, counts);
    return out;
}

}  // namespace memplan
