// memplan — the derived views of the page, computed from one estimate_config by calling estimate()
// with single fields changed: all four ZeRO stages, the largest model and the fewest GPUs that fit,
// single changes that save memory, and per-GPU totals against the GPU count.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "memplan/memory/estimate.hpp"
#include "memplan/search/inverse.hpp"
#include "memplan/base/types.hpp"

namespace memplan {

/// One ZeRO stage applied to the whole configuration (only parallel.zero_stage changed).
struct stage_analysis {
    std::int64_t stage = 0;
    bool ok = false;                  ///< estimate() succeeded for this stage
    std::uint64_t total = 0;          ///< per-GPU total bytes
    bool fits = false;                ///< total ≤ gpu.memory_bytes (false without a capacity)
    std::uint64_t model_states_max_params = 0;  ///< ZeRO paper's largest model: model states only, 16 B/param Adam
    std::uint64_t max_params = 0;     ///< largest model.params that fits with the whole configuration; 0 = none
    std::uint64_t fewest_gpus = 0;    ///< fewest GPUs (dp · tp · pp, tp and pp searched) that fit; 0 = never up to 2^20 GPUs
    std::uint64_t fewest_tp = 0, fewest_pp = 0;  ///< the layout found
};

/// Per-GPU totals of the four ZeRO stages at one GPU count; ok[s] is false where estimate() failed.
struct sweep_point {
    std::uint64_t gpus = 0;
    std::array<bool, 4> ok{};
    std::array<std::uint64_t, 4> totals{};
};

/// Serving at one context length (everything else as configured).
struct context_point {
    std::uint64_t context_len = 0;
    bool ok = false;              ///< estimate() succeeded at this length
    std::uint64_t total_bytes = 0;
    std::uint64_t kv_cache_bytes = 0;
    bool fits = false;
};

/// Context lengths of the serving sweep: 2^10 … 2^21 tokens.
constexpr std::uint64_t context_sweep_first = 1024;
constexpr std::uint64_t context_sweep_last = 2097152;

/// The largest workload that fits the GPU, by changing one field; 0 = even the smallest does not fit
/// (or no capacity was given). Training fills the first two, inference the last two.
struct workload_limits {
    std::uint64_t max_micro_batch = 0;  ///< train.micro_batch
    std::uint64_t max_seq_len = 0;      ///< train.seq_len (a multiple of parallel.cp)
    std::uint64_t max_batch = 0;        ///< infer.batch at the configured context
    std::uint64_t max_context_len = 0;  ///< infer.context_len at the configured batch
    std::uint64_t max_adapter_rank = 0; ///< train.adapter_rank (training with an adapter only)
};

/// Serving's own answers (inference mode with a GPU size); its fewest GPUs and suggestions are the
/// analysis's (inverse.hpp), one answer for every view.
struct serving_analysis {
    bool present = false;
    std::uint64_t max_concurrent_requests = 0;  ///< engine: ⌊max concurrency⌋ at max_model_len; none: largest batch that fits
    std::uint64_t longest_max_model_len = 0;    ///< engine: longest max_model_len that starts; none: longest context that fits
};

/// Everything analyze() derives; `errors` non-empty means the configuration is invalid and nothing else is set.
struct analysis {
    estimate_result result;                 ///< the estimate of the configuration itself
    bool has_capacity = false;              ///< gpu.memory_bytes was given (fits, max params, fewest GPUs are meaningful)
    std::array<stage_analysis, 4> stages{};
    std::vector<suggestion> suggestions;    ///< single changes that help, ranked (inverse.hpp)
    fit_layout fewest;                      ///< fewest GPUs over layouts (and ZeRO stages in training)
    std::vector<suggestion> plan;           ///< the best combined plan, changes in order; empty when none fits
    bool plan_fits = false;                 ///< with the plan applied it fits (serves): true with no change when it already does
    std::vector<sweep_point> sweep;         ///< gpus = tp·pp·cp·dp for dp = 1, 2, 4, … while gpus ≤ 1024
    workload_limits limits;                 ///< largest micro-batch / sequence, or batch / context, that fits
    std::vector<context_point> context_sweep;  ///< serving: per-GPU memory against the context length
    serving_analysis serving;               ///< serving: concurrency and the longest max_model_len
    diagnostics errors;
};

/// Largest GPU count of the sweep.
constexpr std::uint64_t sweep_max_gpus = 1024;

/// Derives the page's views from `config`; every number comes from estimate() or zero.hpp.
analysis analyze(const estimate_config& config);

/// Largest model.params in [1, 2^49] whose estimate fits the GPU; 0 when even 1 parameter does not.
std::uint64_t largest_fitting_params(const estimate_config& config);

/// Fewest GPUs at the configured tp · pp (dp searched in [1, 2^20 / (tp · pp)]) that fit; 0 when none
/// does. analysis::fewest searches the layout too.
std::uint64_t fewest_fitting_gpus(const estimate_config& config);


}  // namespace memplan
