// memplan — per-GPU memory of training or inference of a transformer under a parallel layout.
// Conventions: everything is for the most loaded GPU; every byte count is an exact integer,
// rounded up to a whole byte; no figure is scaled by a hidden factor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/activations.hpp"
#include "memplan/config.hpp"
#include "memplan/types.hpp"

namespace memplan {

/// The named parts of one GPU's memory; total is their sum.
struct memory_breakdown {
    std::uint64_t weights = 0;
    std::uint64_t gradients = 0;
    std::uint64_t optimizer_states = 0;
    std::uint64_t activations = 0;
    std::uint64_t logits = 0;
    std::uint64_t communication = 0;
    std::uint64_t kv_cache = 0;
    std::uint64_t misc = 0;
    std::uint64_t total = 0;
};

/// Figures behind the breakdown, for display and checking.
struct estimate_details {
    std::uint64_t params_active = 0;       ///< parameters used per token (MoE: top-k experts)
    std::uint64_t params_on_gpu = 0;       ///< parameters of the reported stage's tp/ep slice (before ZeRO)
    std::uint64_t stage = 0;               ///< pipeline stage reported (0 = first), the most loaded one
    std::uint64_t layers_on_gpu = 0;       ///< transformer layers of that stage
    std::uint64_t microbatches_in_flight = 0;  ///< micro-batches whose activations that stage holds
    std::uint64_t layer_activation_bytes = 0;  ///< activations one layer keeps for one micro-batch
    std::uint64_t quantization_overhead_bytes = 0;  ///< group scales and zero points included in weights
    std::uint64_t kv_cache_bytes_per_token = 0;     ///< KV bytes per token of one sequence on this GPU
    std::uint64_t host_bytes_per_node = 0; ///< CPU RAM for offloaded states, per node
    std::uint64_t nvme_bytes_per_node = 0; ///< NVMe space for offloaded states, per node
    std::vector<activation_tensor> layer_activations;  ///< tensors one layer keeps for one micro-batch (training)
};

/// The answer to one estimate_config.
struct estimate_result {
    std::uint64_t params = 0;          ///< parameters of the whole model
    std::uint64_t data_parallel = 0;   ///< gpus / (tp · pp · cp)
    memory_breakdown per_gpu;
    estimate_details details;
    bool has_capacity = false;         ///< a GPU size was given
    bool fits = false;                 ///< total ≤ capacity
    std::uint64_t capacity_bytes = 0;  ///< the GPU size given (gpu.memory_bytes)
    std::uint64_t headroom_bytes = 0;  ///< capacity − total when it fits
    std::uint64_t shortfall_bytes = 0; ///< total − capacity when it does not
    diagnostics warnings;
    diagnostics errors;
};

/// Checks every field of `config` against its allowed range; empty when all is well.
diagnostics validate(const estimate_config& config);

/// Per-GPU memory for `config`; result.errors is non-empty (and nothing else is set) when the input is invalid.
estimate_result estimate(const estimate_config& config);

}  // namespace memplan
