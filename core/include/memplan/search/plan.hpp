// memplan — the layout planner: for a model, a GPU kind and a GPU count (or a range), every valid
// layout (DP × TP × PP × CP × EP, interleaved stages, ZeRO stage, recompute, micro-batch) is checked
// for memory with estimate() and the fitting ones ranked by the step-time model (step_time.hpp: at one
// GPU count by step time, over a range by GPU-seconds per step);
// serving layouts (TP × PP, replicas, weight and KV precision) by decode throughput. Only a bounded
// top-N is kept while the layouts stream past; rejected families are counted with their reason, and
// each GPU count tried keeps one summary row (its best layout). plan_stream searches one GPU count per
// step, so that a caller can show the ranking of the counts searched so far.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "memplan/base/limits.hpp"
#include "memplan/base/types.hpp"
#include "memplan/memory/estimate.hpp"
#include "memplan/search/step_time.hpp"

namespace memplan {

/// What to plan: `base` carries the model, the GPU's memory, the workload (train.seq_len, dtypes,
/// optimizer; infer.batch, context) and gpus_per_node; its parallel layout is what the planner chooses.
struct plan_request {
    estimate_config base;
    gpu_perf gpu;
    std::uint64_t min_gpus = 0;   ///< GPU counts searched: min_gpus, every power of two between, max_gpus
    std::uint64_t max_gpus = 0;
    std::uint64_t global_batch_sequences = 0;  ///< training: sequences per optimizer step (required)
    std::uint64_t top_n = 10;
    bool tp_within_node = true;   ///< reject tensor parallelism wider than gpus_per_node
    step_options step;
    /// Training: what the search may vary (a published run's software may lack some of it).
    std::int64_t max_zero_stage = 3;          ///< ZeRO stages 0 … this
    bool vary_recompute = true;               ///< false: train.recompute as configured
    std::uint64_t max_micro_batch = max_plan_micro_batch;  ///< micro-batches 1, 2, 4, … up to this
    bool interleave = true;                   ///< false: plain 1F1B only (v = 1)
    bool sequence_parallel = true;            ///< sequence parallelism wherever tp > 1
};

/// One ranked layout.
struct plan_layout {
    std::uint64_t gpus = 0, tp = 1, pp = 1, cp = 1, ep = 1, virtual_stages = 1, dp = 1;
    std::int64_t zero_stage = 0;
    recompute_mode recompute = recompute_mode::none;
    std::uint64_t micro_batch = 1;
    dtype weight_dtype = dtype::bf16, kv_dtype = dtype::bf16;  ///< serving
    std::uint64_t total_bytes = 0;     ///< per-GPU memory of estimate()
    std::uint64_t headroom_bytes = 0;  ///< capacity − needed (the total, or the step's peak where it is above it)
    step_time_result time;             ///< training: the step-time model's rows
    double decode_tokens_per_s_per_gpu = 0;  ///< serving: infer.batch tokens per decode step / its time / GPUs
    double decode_step_s = 0;          ///< serving: bytes read per GPU / HBM bandwidth (+ tp all-reduces)
    double prefill_s = 0;              ///< serving: FLOPs of infer.batch prompts of context_len / the replica's rate
    double score_s = 0;                ///< what the ranking sorts by: training step_s · gpus (GPU-seconds per step); serving s per token per GPU
};

/// A family of layouts the planner excluded, with how many and one example.
struct plan_rejection {
    std::string reason;
    std::uint64_t count = 0;
    std::string example;
};

/// One GPU count the planner tried: how many layouts it enumerated there, how many fit, and the best
/// of them (the first at that count's best score, as the ranking breaks ties: the top layout of a plan
/// of that count alone).
struct plan_count_row {
    std::uint64_t gpus = 0;
    std::uint64_t considered = 0;
    std::uint64_t fitting = 0;
    bool has_best = false;  ///< false: no layout fits at this count
    plan_layout best;
};

struct plan_result {
    std::vector<plan_layout> top;           ///< ranked, best first, at most top_n
    std::vector<plan_count_row> by_gpus;    ///< one row per GPU count searched, counts ascending
    std::uint64_t considered = 0;           ///< layouts enumerated
    std::uint64_t fitting = 0;              ///< of those, valid and fitting memory
    std::vector<plan_rejection> rejected;   ///< why the others were excluded, the largest family first
    std::string empty_reason;               ///< when `top` is empty: the constraint that excluded everything
    diagnostics warnings;                   ///< what the times rest on (training: step_time_caveats; serving: the decode bound)
    diagnostics errors;                     ///< bad request: the field and the allowed range
};

/// Plans `request`; every layout evaluated is estimate()'s and step_time()'s answer.
plan_result plan(const plan_request& request);

/// The same search one GPU count at a time, counts ascending: after each step(), result() is the
/// ranking of the counts searched so far (the same bounded top-N, not a merge of separate plans); once
/// done(), it is exactly plan(request). A bad request is done at once with result().errors set.
class plan_stream {
public:
    explicit plan_stream(const plan_request& request);
    ~plan_stream();
    plan_stream(const plan_stream&) = delete;
    plan_stream& operator=(const plan_stream&) = delete;
    /// Searches the next GPU count; false when there was none left (or the search had stopped).
    bool step();
    bool done() const;
    /// Every GPU count the request searches (min_gpus, every power of two between, max_gpus); empty for a bad request.
    const std::vector<std::uint64_t>& gpu_counts() const;
    /// The answer so far; `empty_reason` is set only once done().
    plan_result result() const;

private:
    struct state;
    std::unique_ptr<state> s_;
};

/// "tp 8 × pp 4 × dp 2, ZeRO 1, selective recompute, micro-batch 1" for a layout.
std::string layout_text(const plan_layout& layout, run_mode mode);

}  // namespace memplan
