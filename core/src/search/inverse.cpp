// The one search behind every inverse answer (memplan/search/inverse.hpp). No new formula lives
// here: every figure is estimate() (memory/estimate.cpp, serving/) on a copy of the configuration
// with fields changed; the searches rely only on monotonicity of those functions, stated where used.
#include "memplan/search/inverse.hpp"

#include <algorithm>
#include <functional>
#include <numeric>

#include "memplan/base/limits.hpp"
#include "memplan/config/config.hpp"
#include "base/bisect.hpp"
#include "base/small_sort.hpp"
#include "search/probe.hpp"
#include "serving/engines.hpp"

namespace memplan {

namespace {

/// A value as written, for a suggestion's `from` and `to` (typed again by the field's schema row).
std::string text(bool value) { return value ? "true" : "false"; }
std::string text(std::uint64_t value) { return std::to_string(value); }
std::string text(std::int64_t value) { return std::to_string(value); }
std::string text(const char* name) { return name; }

/// One candidate change: what it says and the changed configuration.
struct candidate {
    suggestion said;
    estimate_config config;
};

using change_fn = std::function<void(estimate_config&)>;

/// The single changes worth trying for `c`, each valid for it. Training: ZeRO, recompute,
/// FlashAttention, sequence parallel, fine-tuning recipes, micro-batch, GPUs and the layout.
/// Inference: weight and KV-cache precision, the layout, batch, context and the engine's share.
std::vector<candidate> candidates(const estimate_config& c) {
    std::vector<candidate> out;
    const auto add = [&](const char* field, std::string from, std::string to, const change_fn& change,
                         std::vector<std::pair<std::string, std::string>> also = {}) {
        candidate k{suggestion{}, c};
        k.said.field = field;
        k.said.from = std::move(from);
        k.said.to = std::move(to);
        k.said.also = std::move(also);
        change(k.config);
        if (validate(k.config).empty()) out.push_back(std::move(k));
    };
    const parallel_config& p = c.parallel;
    const bool more_gpus = p.gpus <= max_gpu_count / 2;
    if (c.mode == run_mode::train) {
        const train_config& t = c.train;
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
        if (more_gpus)  // twice the data-parallel degree at the same tp · pp
            add("parallel.gpus", text(p.gpus), text(p.gpus * 2), [](estimate_config& k) { k.parallel.gpus *= 2; });
        // Twice the tensor- or pipeline-parallel degree on the same GPUs (data parallelism halves);
        // validate() rejects it unless the heads, the layers and the GPU count allow it.
        add("parallel.tp", text(p.tp), text(p.tp * 2), [](estimate_config& k) { k.parallel.tp *= 2; });
        add("parallel.pp", text(p.pp), text(p.pp * 2), [](estimate_config& k) { k.parallel.pp *= 2; });
        return out;
    }
    const infer_config& inf = c.infer;
    for (const dtype narrower : {dtype::fp8, dtype::int8, dtype::int4})  // narrower block weights
        if (dtype_bits(inf.weight_dtype) > dtype_bits(narrower) &&
            (narrower != dtype::int8 || inf.weight_dtype != dtype::fp8))
            add("infer.weight_dtype", text(to_string(inf.weight_dtype)), text(to_string(narrower)),
                [narrower](estimate_config& k) { k.infer.weight_dtype = narrower; });
    if (dtype_bits(inf.kv_dtype) > 8)  // fp8 KV cache: half the bytes of bf16 per token
        add("infer.kv_dtype", text(to_string(inf.kv_dtype)), text("fp8"),
            [](estimate_config& k) { k.infer.kv_dtype = dtype::fp8; });
    if (more_gpus) {  // one replica over twice the GPUs: tensor or pipeline parallelism doubled
        const std::vector<std::pair<std::string, std::string>> gpus{{"parallel.gpus", text(p.gpus * 2)}};
        add("parallel.tp", text(p.tp), text(p.tp * 2), [](estimate_config& k) {
            k.parallel.tp *= 2;
            k.parallel.gpus *= 2;
        }, gpus);
        add("parallel.pp", text(p.pp), text(p.pp * 2), [](estimate_config& k) {
            k.parallel.pp *= 2;
            k.parallel.gpus *= 2;
        }, gpus);
    }
    if (inf.batch >= 2)  // the KV cache and the logits scale with the batch
        add("infer.batch", text(inf.batch), text(inf.batch / 2), [](estimate_config& k) { k.infer.batch /= 2; });
    if (inf.engine != serving_engine::none) {
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
    } else if (inf.context_len >= 2) {  // a prefill chunk longer than the context is shortened to it
        add("infer.context_len", text(inf.context_len), text(inf.context_len / 2), [](estimate_config& k) {
            k.infer.context_len /= 2;
            k.infer.prefill_tokens = std::min(k.infer.prefill_tokens, k.infer.context_len);
        });
    }
    return out;
}

/// The candidates for `c` that help, each with its estimate, ranked. Helping means a lower figure of
/// the verdict (gpu.needed_bytes: the total, or in training the step's peak where it is above it; the
/// total without a GPU size), or with a serving engine more KV tokens or serving where `c` does not.
std::vector<candidate> ranked(const estimate_config& c, const estimate_result& current, const model_counts& counts) {
    const bool engine = c.mode == run_mode::infer && c.infer.engine != serving_engine::none;
    const bool current_serves = engine && current.serving.starts &&
        current.serving.max_concurrency_numerator / current.serving.max_concurrency_denominator >= c.infer.batch;
    std::vector<candidate> out;
    for (candidate& k : candidates(c)) {
        estimate_result r;
        const bool ok = detail::answers(k.config, counts, &r);
        if (!r.errors.empty()) continue;
        // A change that lowers the steady-state sum but not the step's peak does not make the step fit.
        const std::uint64_t total = r.has_capacity ? r.needed_bytes : r.per_gpu.total;
        const std::uint64_t was = current.has_capacity ? current.needed_bytes : current.per_gpu.total;
        const bool helps = engine ? (r.serving.kv_capacity_tokens > current.serving.kv_capacity_tokens || (ok && !current_serves))
                                  : total < was;
        if (!helps) continue;
        k.said.total = total;
        k.said.saving_bytes = total < was ? was - total : 0;
        k.said.fits = r.fits;
        k.said.serves = c.mode == run_mode::infer && ok;
        k.said.kv_capacity_tokens = engine ? r.serving.kv_capacity_tokens : 0;
        out.push_back(std::move(k));
    }
    // Stable: equal ranks keep the order of candidates(). A larger saving comes first, which puts the
    // changes that fit first (a lower total); with an engine, those that serve, then the most KV tokens.
    detail::stable_sort_small(out, [engine](const candidate& a, const candidate& b) {
        if (!engine) return a.said.saving_bytes > b.said.saving_bytes;
        if (a.said.serves != b.said.serves) return a.said.serves;
        return a.said.kv_capacity_tokens > b.said.kv_capacity_tokens;
    });
    return out;
}

/// `config` with `dp` data-parallel replicas of its tp · pp · cp group.
estimate_config with_data_parallel(estimate_config config, std::uint64_t dp) {
    config.parallel.gpus = dp * config.parallel.tp * config.parallel.pp * config.parallel.cp;
    return config;
}

}  // namespace

std::uint64_t fewest_data_parallel(const estimate_config& k, const model_counts& counts, std::uint64_t below) {
    const parallel_config& p = k.parallel;
    const std::uint64_t model_parallel = p.tp * p.pp * p.cp;
    // Valid data-parallel degrees: ep and the ZeRO shard group must divide dp · cp, i.e. dp must be a
    // multiple of step = L / gcd(L, cp) with L = lcm(ep, shard group).
    const std::uint64_t group = std::lcm(p.ep, p.zero_shard_size != 0 ? p.zero_shard_size : 1);
    const std::uint64_t step = group / std::gcd(group, p.cp);
    const std::uint64_t k_max = (below - 1) / model_parallel / step;
    // The total is non-increasing in dp (ZeRO shards divide by dp; nothing else depends on it), so
    // "fits" holds on a suffix of the valid degrees: find its first element.
    if (k_max == 0 || !detail::fits(with_data_parallel(k, k_max * step), counts)) return 0;
    return step * detail::smallest_true(1, k_max, [&](std::uint64_t n) {
        return detail::fits(with_data_parallel(k, n * step), counts);
    });
}

fit_layout fewest_layout(const estimate_config& config, const model_counts& counts, std::int64_t stage) {
    fit_layout best;
    if (config.gpu_memory_bytes == 0) return best;
    estimate_config k = config;
    k.parallel.virtual_stages = 1;  // interleaving needs the configured pp; the search starts plain 1F1B
    // Tensor parallelism stays inside a node (its all-reduces run every layer; Narayanan et al. 2021,
    // §3.3 takeaway #1); pipeline and data parallelism span nodes.
    const std::uint64_t max_tp = std::min(fit_search_max_tp, std::max<std::uint64_t>(1, config.parallel.gpus_per_node));
    if (config.mode == run_mode::infer) {
        // One replica: tp · pp in powers of two, fewest GPUs first and, at equal count, the smaller
        // pipeline. Data-parallel replicas are not tried: each holds the whole model.
        k.parallel.cp = 1;
        k.parallel.ep = 1;
        for (std::uint64_t gpus = 1; gpus <= fit_search_max_replica_gpus; gpus *= 2)
            for (std::uint64_t pp = 1; pp <= gpus && pp <= fit_search_max_pp; pp *= 2) {
                k.parallel.tp = gpus / pp;
                k.parallel.pp = pp;
                k.parallel.gpus = gpus;
                if (k.parallel.tp <= max_tp && validate(k).empty() && detail::serves(k, counts))
                    return fit_layout{gpus, gpus / pp, pp, 1, config.parallel.zero_stage};
            }
        return best;
    }
    // Training: every tp × pp (powers of two; validate() rejects what the heads or layers do not
    // allow), each with its fewest dp below the best found so far; tp · pp · cp ascending, so the
    // search stops once one model-parallel group alone reaches the best.
    k.parallel.zero_stage = stage;
    std::uint64_t below = max_gpu_count + 1;
    for (std::uint64_t mp = 1; mp <= fit_search_max_tp * fit_search_max_pp; mp *= 2) {
        if (mp * config.parallel.cp >= below) break;
        for (std::uint64_t pp = 1; pp <= mp && pp <= fit_search_max_pp; pp *= 2) {
            if (mp / pp > max_tp) continue;
            k.parallel.tp = mp / pp;
            k.parallel.pp = pp;
            const std::uint64_t dp = fewest_data_parallel(k, counts, below);
            if (dp == 0) continue;
            best = fit_layout{dp * mp * config.parallel.cp, mp / pp, pp, dp, stage};
            below = best.gpus;
        }
    }
    return best;
}

std::vector<suggestion> single_changes(const estimate_config& config, const estimate_result& current, const model_counts& counts) {
    std::vector<suggestion> out;
    for (candidate& k : ranked(config, current, counts)) out.push_back(std::move(k.said));
    return out;
}

fit_answer search_fit(const estimate_config& config, const estimate_result& current, const model_counts& counts) {
    fit_answer out;
    std::vector<candidate> first = ranked(config, current, counts);
    for (const candidate& k : first) out.single.push_back(k.said);
    if (config.gpu_memory_bytes == 0) return out;
    if (config.mode == run_mode::infer) {
        out.fewest = fewest_layout(config, counts, config.parallel.zero_stage);
        out.by_stage.fill(out.fewest);
    } else
        for (std::size_t s = 0; s < 4; ++s) {  // fewest GPUs over the stages; at equal count the lower stage
            const fit_layout l = fewest_layout(config, counts, static_cast<std::int64_t>(s));
            out.by_stage[s] = l;
            if (l.gpus != 0 && (out.fewest.gpus == 0 || l.gpus < out.fewest.gpus)) out.fewest = l;
        }
    // The combined plan, greedy: apply the best-ranked change, rank again from there, until it fits
    // (serves) or nothing helps; a single change that fits is the whole plan.
    estimate_config at = config;
    out.combined_fits = detail::answers(at, counts);
    std::vector<candidate> next = std::move(first);
    while (!out.combined_fits && !next.empty() && out.combined.size() < fit_plan_max_changes) {
        candidate& pick = next.front();
        out.combined.push_back(pick.said);
        at = pick.config;
        estimate_result r;
        out.combined_fits = detail::answers(at, counts, &r);
        if (!out.combined_fits) next = ranked(at, r, counts);
    }
    if (!out.combined_fits) out.combined.clear();  // no plan found: say none rather than a partial one
    return out;
}

}  // namespace memplan
