// memplan — DeepSpeed's ZeRO communication buffers as its code allocates them (reduce buckets,
// overlap_comm's second bucket, stage-3 prefetch, persistent parameters, the largest layer's working
// copy): counted in training under parallel.comm_buffers "deepspeed", and reproduced beside
// DeepSpeed's own estimator (memplan/reproduce/reference.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/base/types.hpp"
#include "memplan/config/config.hpp"

namespace memplan {

/// The ZeRO settings that size DeepSpeed's communication buffers (names and defaults of DeepSpeed's
/// deepspeed/runtime/zero/config.py).
struct deepspeed_comm_config {
    std::int64_t stage = 2;                           ///< 1, 2 or 3
    std::uint64_t reduce_bucket_size = 500000000;     ///< elements
    std::uint64_t allgather_bucket_size = 500000000;  ///< elements (stages 1 and 2 only)
    int overlap_comm = -1;                            ///< 0 or 1; -1 = DeepSpeed's default (on for stage 3 only)
    bool contiguous_gradients = true;
    std::uint64_t prefetch_bucket_size = 50000000;        ///< stage3_prefetch_bucket_size, elements
    std::uint64_t param_persistence_threshold = 100000;   ///< stage3_param_persistence_threshold, elements
    std::uint64_t max_live_parameters = 1000000000;       ///< stage3_max_live_parameters, elements
    std::uint64_t persistent_params = 0;      ///< parameters in tensors below the threshold (kept whole on every GPU)
    std::uint64_t largest_layer_params = 0;   ///< the largest module's own parameters (ZeRO-3 working copy)
    std::uint64_t bytes_per_element = 2;      ///< fp16/bf16
};

/// One named term of a reproduction: bytes, the formula in words and where it comes from.
struct reference_term {
    std::string name;
    std::uint64_t bytes = 0;
    std::string formula;
    std::string source;
};

/// DeepSpeed's GPU buffers beside the model states. `allocated` lists what the code allocates;
/// `guide_bytes` is the Hugging Face integration guide's rule of thumb for stages 1 and 2
/// (overlap_comm "uses 4.5x the allgather_bucket_size and reduce_bucket_size values").
struct deepspeed_comm_buffers {
    std::vector<reference_term> allocated;
    std::uint64_t allocated_bytes = 0;  ///< sum of `allocated`
    std::uint64_t guide_bytes = 0;      ///< 2 B × (allgather + reduce bucket) × (4.5 with overlap_comm, else 1); 0 at stage 3
    bool overlap_comm = false;          ///< the value used (default resolved)
    diagnostics errors;
};

/// DeepSpeed's largest_layer_params for a model: the largest module's own parameters — the embedding,
/// the untied output projection or the widest MLP linear (with its bias).
std::uint64_t deepspeed_largest_layer_params(const model_config& model);

/// Sizes DeepSpeed's communication buffers for `config`.
deepspeed_comm_buffers deepspeed_comm_buffer_bytes(const deepspeed_comm_config& config);

}  // namespace memplan
