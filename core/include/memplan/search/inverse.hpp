// memplan — the one search behind every inverse answer: the fewest GPUs that fit (searching the
// tensor, pipeline and data-parallel degrees and, in training, the ZeRO stage), the single changes
// that would make it fit, each with its resulting total, and the best combined plan. The page's
// views, the CLI and the JS API all read this one answer.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "memplan/memory/estimate.hpp"

namespace memplan {

/// The smallest layout found: gpus = tp · pp · cp · dp (cp and ep as configured); gpus = 0 = none.
struct fit_layout {
    std::uint64_t gpus = 0;
    std::uint64_t tp = 0;
    std::uint64_t pp = 0;
    std::uint64_t dp = 0;
    std::int64_t zero_stage = 0;  ///< the stage searched (training); inference keeps the configured one
};

/// One change to the configuration and its effect.
struct suggestion {
    std::string field;        ///< dotted path of the changed field ("parallel.zero_stage")
    std::string from;         ///< its current value as written ("1", "false", "none"); typed by the field's schema row
    std::string to;           ///< the changed value, as written
    std::uint64_t total = 0;  ///< with the change: the verdict's figure (gpu.needed_bytes), or the per-GPU total without a GPU size
    std::uint64_t saving_bytes = 0;  ///< current total − new total; 0 when the change helps an engine without lowering it
    bool fits = false;        ///< the changed configuration fits the GPU
    bool serves = false;      ///< inference: it serves (engine: starts with infer.batch requests; none: fits)
    std::uint64_t kv_capacity_tokens = 0;  ///< inference with an engine: the KV pool's tokens with the change
    /// Other fields the change sets with it, as written (doubling tp in serving doubles parallel.gpus).
    std::vector<std::pair<std::string, std::string>> also;
};

/// Largest tensor- and pipeline-parallel degrees the layout search tries (powers of two).
constexpr std::uint64_t fit_search_max_tp = 64;
constexpr std::uint64_t fit_search_max_pp = 64;
/// Inference: the largest replica (tp · pp GPUs) the search tries.
constexpr std::uint64_t fit_search_max_replica_gpus = 1024;
/// Most changes in the combined plan.
constexpr std::size_t fit_plan_max_changes = 8;

/// The one inverse answer.
struct fit_answer {
    fit_layout fewest;                    ///< fewest GPUs: training over every ZeRO stage; inference one replica
    std::array<fit_layout, 4> by_stage{}; ///< training: fewest GPUs at each ZeRO stage; inference: `fewest` four times
    std::vector<suggestion> single;       ///< single changes that help, ranked (fit / serve first, then the largest saving or the most KV tokens)
    std::vector<suggestion> combined;     ///< the best combined plan: the changes applied in order, each total after it
    bool combined_fits = false;           ///< the plan reaches a configuration that fits (serves)
};

/// Fewest GPUs with parallel.zero_stage held at `stage` (training) searching tp (powers of two up to
/// parallel.gpus_per_node and the limit above), pp (powers of two) and dp; inference searches one
/// replica's tp · pp and ignores `stage`.
fit_layout fewest_layout(const estimate_config& config, const model_counts& counts, std::int64_t stage);

/// Training: the fewest data-parallel degree for `config` as laid out (tp, pp, cp, stage) whose GPUs
/// stay below `below_gpus`; 0 = none.
std::uint64_t fewest_data_parallel(const estimate_config& config, const model_counts& counts, std::uint64_t below_gpus);

/// The single changes worth trying for `config`, ranked; `current` is its estimate.
std::vector<suggestion> single_changes(const estimate_config& config, const estimate_result& current, const model_counts& counts);

/// The whole answer (config must validate; without gpu.memory_bytes only the single changes that
/// lower the total are listed).
fit_answer search_fit(const estimate_config& config, const estimate_result& current, const model_counts& counts);

}  // namespace memplan
