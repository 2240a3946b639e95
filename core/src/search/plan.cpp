// The layout planner (memplan/search/plan.hpp). No memory formula lives here: every layout's memory
// is estimate()'s; every time is step_time()'s (training) or the decode/prefill model below (serving).
#include "memplan/search/plan.hpp"

#include <algorithm>
#include <cmath>

#include "memplan/base/limits.hpp"
#include "base/small_sort.hpp"
#include "search/probe.hpp"

namespace memplan {

namespace {

/// The GPU counts searched: min, every power of two strictly between, max.
std::vector<std::uint64_t> counts_searched(std::uint64_t lo, std::uint64_t hi) {
    std::vector<std::uint64_t> out{lo};
    for (std::uint64_t g = 1; g < hi; g *= 2)
        if (g > lo) out.push_back(g);
    if (hi != lo) out.push_back(hi);
    return out;
}

/// Keeps the best `n` layouts seen, sorted by score (stable: an earlier layout wins a tie).
struct top_list {
    std::size_t n;
    std::vector<plan_layout> items;
    void offer(plan_layout&& layout) {
        if (items.size() == n && !(layout.score_s < items.back().score_s)) return;
        const auto at = std::upper_bound(items.begin(), items.end(), layout.score_s,
                                         [](double score, const plan_layout& l) { return score < l.score_s; });
        items.insert(at, std::move(layout));
        if (items.size() > n) items.pop_back();
    }
};

/// Rejected families by reason (a handful of reasons: a list searched in order), the largest family
/// first, first seen first at equal counts.
struct rejections {
    std::vector<plan_rejection> list;
    void add(const std::string& reason, const plan_layout& example, run_mode mode) {
        for (plan_rejection& r : list)
            if (r.reason == reason) {
                ++r.count;
                return;
            }
        list.push_back({reason, 1, layout_text(example, mode)});
    }
    std::vector<plan_rejection> sorted() const {
        std::vector<plan_rejection> out = list;
        detail::stable_sort_small(out, [](const plan_rejection& a, const plan_rejection& b) { return a.count > b.count; });
        return out;
    }
};

estimate_config laid_out(const estimate_config& base, const plan_layout& l, bool sequence_parallel) {
    estimate_config k = base;
    k.parallel.gpus = l.gpus;
    k.parallel.tp = l.tp;
    k.parallel.pp = l.pp;
    k.parallel.cp = l.cp;
    k.parallel.ep = l.ep;
    k.parallel.virtual_stages = l.virtual_stages;
    k.parallel.zero_stage = l.zero_stage;
    k.parallel.fsdp = fsdp_strategy::unset;
    k.parallel.zero_shard_size = 0;
    k.train.recompute = l.recompute;
    if (l.recompute != recompute_mode::full) k.train.recompute_layers = 0;  // applies to full recompute only
    k.train.micro_batch = l.micro_batch;
    k.train.microbatches_in_flight = 0;
    k.parallel.sequence_parallel = sequence_parallel && l.tp > 1;  // Megatron-LM practice with tp > 1 (Korthikanti et al. 2022, §4.2.2)
    return k;
}

/// Request checks: each names its field and the allowed range.
diagnostics check(const plan_request& r) {
    diagnostics out;
    const auto range = [&out](const char* field, std::uint64_t value, std::uint64_t lo, std::uint64_t hi) {
        if (value < lo || value > hi)
            out.push_back({field, "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
                                      " (got " + std::to_string(value) + ")"});
    };
    range("plan.min_gpus", r.min_gpus, 1, max_plan_gpus);
    range("plan.max_gpus", r.max_gpus, 1, max_plan_gpus);
    if (out.empty() && r.min_gpus > r.max_gpus) out.push_back({"plan.min_gpus", "must not exceed plan.max_gpus"});
    range("plan.top_n", r.top_n, 1, max_plan_top_n);
    range("plan.max_micro_batch", r.max_micro_batch, 1, max_plan_micro_batch);
    if (r.max_zero_stage < 0 || r.max_zero_stage > 3) out.push_back({"plan.max_zero_stage", "must be 0, 1, 2 or 3"});
    if (r.base.gpu_memory_bytes == 0) out.push_back({"gpu.memory_bytes", "the planner needs the GPU's memory"});
    if (!r.gpu.ok()) out.push_back({"gpu.perf", "the planner needs the GPU's peak FLOP/s, HBM and network bandwidths (a GPU from the catalogue with perf figures)"});
    if (r.base.mode == run_mode::train) {
        range("plan.global_batch", r.global_batch_sequences, 1, max_batch_size);
        if (r.base.model.num_hidden_layers == 0) out.push_back({"model", "the planner needs the architecture (layers, widths, heads)"});
    }
    return out;
}

/// What a plan carries from one GPU count to the next: the request, what every count reuses, the
/// bounded ranking, the rejected families and the per-count rows.
struct search_state {
    plan_request r;
    model_counts counts;
    std::vector<std::uint64_t> gpus;  ///< the counts to search, ascending
    std::size_t next = 0;             ///< the next of them
    bool stopped = false;             ///< max_plan_layouts reached
    top_list top;
    rejections why;
    plan_result out;                  ///< considered, fitting, by_gpus, empty_reason (top and rejected: above)
    model_profile profile;
    std::vector<dtype> weights, caches;                  ///< serving: weight and KV precisions tried
    std::vector<std::uint64_t> eps, cps, pps;            ///< training: expert, context and pipeline parallel sizes
    std::vector<recompute_mode> policies;                ///< training: recompute policies tried
};

/// A fitting layout: offered to the ranking, and kept as its count's best when it beats that count's
/// best so far (strictly: the first at equal scores, as the ranking breaks ties).
void offer(search_state& s, plan_count_row& row, plan_layout&& layout) {
    ++s.out.fitting;
    ++row.fitting;
    if (!row.has_best || layout.score_s < row.best.score_s) {
        row.best = layout;
        row.has_best = true;
    }
    s.top.offer(std::move(layout));
}

void prepare_serving(search_state& s) {
    const estimate_config& base = s.r.base;
    s.profile = profile_model(base.model, base.infer.context_len);
    s.weights = {base.infer.weight_dtype};
    for (const dtype d : {dtype::fp8, dtype::int4})
        if (dtype_bits(d) < dtype_bits(base.infer.weight_dtype)) s.weights.push_back(d);
    s.caches = {base.infer.kv_dtype};
    if (dtype_bits(base.infer.kv_dtype) > 8) s.caches.push_back(dtype::fp8);
}

void serving_count(search_state& s, std::uint64_t gpus, plan_count_row& row) {
    const plan_request& r = s.r;
    const estimate_config& base = r.base;
    const double layers = static_cast<double>(std::max<std::uint64_t>(1, base.model.num_hidden_layers));
    const double h = static_cast<double>(base.model.hidden_size);
    for (std::uint64_t tp = 1; tp <= gpus && tp <= 64; tp *= 2)
        for (std::uint64_t pp = 1; tp * pp <= gpus && pp <= 64; pp *= 2) {
            if (gpus % (tp * pp) != 0) continue;
            plan_layout l;
            l.gpus = gpus;
            l.tp = tp;
            l.pp = pp;
            l.dp = gpus / (tp * pp);  // replicas
            if (r.tp_within_node && tp > base.parallel.gpus_per_node) {
                s.why.add("tensor parallelism wider than a node (parallel.gpus_per_node = " + std::to_string(base.parallel.gpus_per_node) + ")", l, base.mode);
                continue;
            }
            for (const dtype wd : s.weights)
                for (const dtype kd : s.caches) {
                    ++s.out.considered;
                    ++row.considered;
                    l.weight_dtype = wd;
                    l.kv_dtype = kd;
                    estimate_config k = base;
                    k.parallel.gpus = tp * pp;  // one replica: per-GPU memory does not depend on replicas
                    k.parallel.tp = tp;
                    k.parallel.pp = pp;
                    k.parallel.cp = 1;
                    k.parallel.ep = 1;
                    k.parallel.virtual_stages = 1;
                    k.infer.weight_dtype = wd;
                    k.infer.kv_dtype = kd;
                    const diagnostics invalid = validate(k);
                    if (!invalid.empty()) {
                        s.why.add(invalid.front().field + " " + invalid.front().message, l, base.mode);
                        continue;
                    }
                    estimate_result e;
                    if (!detail::serves(k, s.counts, &e)) {
                        s.why.add(e.errors.empty() ? "does not fit (serve) the GPU's memory" : e.errors.front().message, l, base.mode);
                        continue;
                    }
                    l.total_bytes = e.needed_bytes;
                    l.headroom_bytes = e.headroom_bytes;  // the estimate's own (0 when the total is above the GPU)
                    // Decode: each GPU reads its weights and the batch's KV cache once per step (memory-
                    // bound, Pope et al. 2022 §2), plus two tp all-reduces of batch × h per layer.
                    const double bytes = static_cast<double>(e.per_gpu.weights + e.per_gpu.kv_cache);
                    const double batch = static_cast<double>(base.infer.batch);
                    const double all_reduce = tp > 1 ? 2 * (static_cast<double>(tp) - 1) / static_cast<double>(tp) * batch * h * 2 /
                                                               r.gpu.intra_node_bytes_per_s + 2 * (static_cast<double>(tp) - 1) * r.gpu.intra_node_latency_s
                                                     : 0;
                    l.decode_step_s = bytes / r.gpu.hbm_bytes_per_s + 2 * std::ceil(layers / static_cast<double>(pp)) * all_reduce;
                    l.decode_tokens_per_s_per_gpu = batch / l.decode_step_s / static_cast<double>(tp);
                    // Prefill: the executed forward FLOPs of batch prompts of context_len on the replica's GPUs.
                    const double peak = (wd == dtype::fp8 && r.gpu.dense_fp8_flops_per_s > 0) ? r.gpu.dense_fp8_flops_per_s : r.gpu.dense_bf16_flops_per_s;
                    l.prefill_s = s.profile.flops.executed * batch * static_cast<double>(base.infer.context_len) /
                                  (static_cast<double>(tp * pp) * peak * r.gpu.gemm_efficiency);
                    l.score_s = 1 / l.decode_tokens_per_s_per_gpu;
                    offer(s, row, plan_layout(l));
                }
        }
}

void prepare_training(search_state& s) {
    const estimate_config& base = s.r.base;
    const model_config& model = base.model;
    s.profile = profile_model(model, base.train.seq_len);
    s.eps = {1};
    for (std::uint64_t e = 2; model.num_experts != 0 && e <= model.num_experts && e <= 64; e *= 2)
        if (model.num_experts % e == 0) s.eps.push_back(e);
    // Pipeline sizes: the powers of two and every divisor of the layer count (Megatron-LM's published
    // layouts use 35 stages for 105 layers, 12 for 96), up to 64 stages, ascending.
    for (std::uint64_t pp = 1; pp <= std::min<std::uint64_t>(64, std::max<std::uint64_t>(1, model.num_hidden_layers)); ++pp)
        if ((pp & (pp - 1)) == 0 || model.num_hidden_layers % pp == 0) s.pps.push_back(pp);
    s.cps = {1};  // context parallelism for long sequences: chunks of at least 4,096 tokens
    for (std::uint64_t c = 2; c <= 8 && base.train.seq_len / c >= 4096; c *= 2) s.cps.push_back(c);
    s.policies = {recompute_mode::none, recompute_mode::selective, recompute_mode::full};
    if (!s.r.vary_recompute) s.policies = {base.train.recompute};
}

/// One GPU count of the training search; false when max_plan_layouts stopped it.
bool training_count(search_state& s, std::uint64_t gpus, plan_count_row& row) {
    const plan_request& r = s.r;
    const estimate_config& base = r.base;
    const std::uint64_t layers = base.model.num_hidden_layers;
    const std::uint64_t global = r.global_batch_sequences;
    for (std::uint64_t tp = 1; tp <= gpus && tp <= 64; tp *= 2)
        for (const std::uint64_t pp : s.pps) {
            if (tp * pp > gpus) break;
            for (const std::uint64_t cp : s.cps) {
                if (gpus % (tp * pp * cp) != 0) continue;
                plan_layout l;
                l.gpus = gpus;
                l.tp = tp;
                l.pp = pp;
                l.cp = cp;
                l.dp = gpus / (tp * pp * cp);
                if (r.tp_within_node && tp > base.parallel.gpus_per_node) {
                    s.why.add("tensor parallelism wider than a node (parallel.gpus_per_node = " + std::to_string(base.parallel.gpus_per_node) + ")", l, base.mode);
                    continue;
                }
                if (global % l.dp != 0) {
                    s.why.add("plan.global_batch (" + std::to_string(global) + ") is not a multiple of dp", l, base.mode);
                    continue;
                }
                for (const std::uint64_t ep : s.eps)
                    for (std::uint64_t v = 1; v <= (pp > 1 && r.interleave ? 4 : 1); v *= 2) {
                        if (v > 1 && layers % (pp * v) != 0) continue;  // interleaving needs equal chunks
                        l.ep = ep;
                        l.virtual_stages = v;
                        const diagnostics invalid = validate(laid_out(base, l, r.sequence_parallel));
                        if (!invalid.empty()) {
                            s.why.add(invalid.front().field + " " + invalid.front().message, l, base.mode);
                            continue;
                        }
                        bool any = false;
                        const std::uint64_t per_replica = global / l.dp;
                        for (std::int64_t zero = 0; zero <= r.max_zero_stage; ++zero)
                            for (const recompute_mode policy : s.policies)
                                // The micro-batch ascending: activations grow with it, so the first that
                                // does not fit ends the sweep.
                                for (std::uint64_t mb = 1; mb <= per_replica && mb <= r.max_micro_batch; mb *= 2) {
                                    if (per_replica % mb != 0) continue;
                                    if (s.out.considered >= max_plan_layouts) {
                                        s.out.empty_reason = "stopped after " + std::to_string(max_plan_layouts) + " layouts (max_plan_layouts): narrow plan.min_gpus … plan.max_gpus";
                                        return false;
                                    }
                                    ++s.out.considered;
                                    ++row.considered;
                                    l.zero_stage = zero;
                                    l.recompute = policy;
                                    l.micro_batch = mb;
                                    const estimate_config k = laid_out(base, l, r.sequence_parallel);
                                    const estimate_result e = detail::estimate_totals(k, s.counts);
                                    if (!e.errors.empty() || !e.fits) break;
                                    step_options o = r.step;
                                    o.global_batch_sequences = global;
                                    plan_layout fit = l;
                                    fit.time = step_time(k, s.profile, r.gpu, o);
                                    if (!fit.time.errors.empty()) break;
                                    any = true;
                                    fit.total_bytes = e.needed_bytes;  // the step's peak where it is above the sum
                                    fit.headroom_bytes = e.headroom_bytes;  // against the step's peak where it is above the total
                                    // One GPU count: the step time; over a range the GPU-seconds per step
                                    // (the inverse of tokens/s per GPU), so that more GPUs do not win by count alone.
                                    fit.score_s = fit.time.step_s * static_cast<double>(gpus);
                                    offer(s, row, std::move(fit));
                                }
                        if (!any) {
                            l.zero_stage = 3;
                            l.recompute = recompute_mode::full;
                            l.micro_batch = 1;
                            s.why.add("does not fit the GPU's memory at any ZeRO stage, recompute policy or micro-batch", l, base.mode);
                        }
                    }
            }
        }
    return true;
}

}  // namespace

std::string layout_text(const plan_layout& l, run_mode mode) {
    std::string out = "tp " + std::to_string(l.tp) + " × pp " + std::to_string(l.pp);
    if (mode == run_mode::infer) {
        out += ", " + std::to_string(l.dp) + (l.dp == 1 ? " replica" : " replicas");
        out += ", weights " + std::string(to_string(l.weight_dtype)) + ", KV " + to_string(l.kv_dtype);
        return out;
    }
    if (l.virtual_stages > 1) out += " (v " + std::to_string(l.virtual_stages) + ")";
    if (l.cp > 1) out += " × cp " + std::to_string(l.cp);
    out += " × dp " + std::to_string(l.dp);
    if (l.ep > 1) out += ", ep " + std::to_string(l.ep);
    out += ", ZeRO " + std::to_string(l.zero_stage) + ", recompute " + to_string(l.recompute) +
           ", micro-batch " + std::to_string(l.micro_batch);
    return out;
}

struct plan_stream::state : search_state {};

plan_stream::plan_stream(const plan_request& request) : s_(std::make_unique<state>()) {
    search_state& s = *s_;
    s.r = request;
    s.top.n = static_cast<std::size_t>(request.top_n);
    s.out.errors = check(request);
    if (s.out.errors.empty()) s.out.errors = validate(request.base);
    if (!s.out.errors.empty()) return;
    s.counts = count_model(request.base.model);
    s.gpus = counts_searched(request.min_gpus, request.max_gpus);
    if (request.base.mode == run_mode::infer) {
        // The decode figure is a bound, not a measurement of an engine: say so once per answer.
        s.out.warnings.push_back({"plan", "serving ranks by the memory-bound decode time (each GPU reads its weights and "
                                          "the batch's KV cache once per step, Pope et al. 2022, section 2) without the "
                                          "engine's scheduling, kernels or sampling, and no measured engine throughput has "
                                          "checked it: compare layouts by it, do not budget time by it"});
        prepare_serving(s);
    } else {
        s.out.warnings = step_time_caveats(request.gpu, request.base);
        prepare_training(s);
    }
}

plan_stream::~plan_stream() = default;

bool plan_stream::done() const { return !s_->out.errors.empty() || s_->stopped || s_->next >= s_->gpus.size(); }

const std::vector<std::uint64_t>& plan_stream::gpu_counts() const { return s_->gpus; }

bool plan_stream::step() {
    if (done()) return false;
    search_state& s = *s_;
    const std::uint64_t gpus = s.gpus[s.next++];
    s.out.by_gpus.push_back(plan_count_row{gpus, 0, 0, false, {}});
    if (s.r.base.mode == run_mode::infer) serving_count(s, gpus, s.out.by_gpus.back());
    else s.stopped = !training_count(s, gpus, s.out.by_gpus.back());
    return true;
}

plan_result plan_stream::result() const {
    const search_state& s = *s_;
    plan_result out = s.out;
    if (!out.errors.empty()) return out;
    out.top = s.top.items;
    out.rejected = s.why.sorted();
    if (done() && out.top.empty() && out.empty_reason.empty())
        out.empty_reason = out.rejected.empty() ? "no layout to try in plan.min_gpus … plan.max_gpus"
                                                : "every layout was excluded; the largest family: " + out.rejected.front().reason;
    return out;
}

plan_result plan(const plan_request& request) {
    plan_stream stream(request);
    while (stream.step()) {
    }
    return stream.result();
}

}  // namespace memplan
