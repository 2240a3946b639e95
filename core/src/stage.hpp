// memplan — internal: the per-pipeline-stage parts that estimate() assembles (not public API).
// model_states.cpp: parameters per stage and optimizer bytes; train_memory.cpp: one training
// stage; infer_memory.cpp: one serving stage.
#pragma once

#include <cstdint>
#include <vector>

#include "checks.hpp"
#include "memplan/activations.hpp"
#include "memplan/arch.hpp"
#include "memplan/estimate.hpp"

namespace memplan::detail {

/// Bytes of `elements` values of `type`, rounded up (int4 packs two per byte).
inline u128 bytes_of(u128 elements, dtype type) { return ceil_div(elements * dtype_bits(type), 8); }

/// Parameters of one pipeline stage, split into the parts sharded differently.
struct stage_params {
    u128 layers = 0;
    u128 dense = 0;     ///< on this GPU after tp (attention, norms, shared parts, embeddings)
    u128 experts = 0;   ///< on this GPU after tp and ep
    u128 linear = 0;    ///< block linear weights on this GPU (what quantization packs)
};

/// Layers of stage i: L/pp each, the first L mod pp stages one more (an upper bound when uneven).
u128 layers_of_stage(const model_config& m, std::uint64_t pp, std::uint64_t i);

/// Parameters of pipeline stage `i` on one GPU (after tp and ep), split by how they are sharded.
stage_params params_of_stage(const estimate_config& c, const param_breakdown& counted, std::uint64_t i);

/// Optimizer-state bytes for `shard_params` parameters.
u128 optimizer_bytes(u128 shard_params, const train_config& t, const model_config& m);

/// Parts of one stage, in 128 bits before the range check.
struct parts128 {
    u128 weights = 0, gradients = 0, optimizer = 0, activations = 0, logits = 0, communication = 0, kv = 0;
    u128 host = 0, nvme = 0, quant_overhead = 0, kv_per_token = 0, layer_activation = 0, in_flight = 0;
    u128 dequant = 0;          ///< dequantization workspace of a quantized frozen base (its own per-GPU item)
    u128 base_weights = 0;     ///< frozen base weight bytes on this GPU (adapters)
    u128 trainable_weights = 0;///< adapter and modules_to_save weight bytes on this GPU
    u128 paged_spill = 0;      ///< paged optimizer states that may move to host memory
    u128 offloaded_activations = 0;  ///< checkpointed layer inputs kept in host memory
    std::vector<activation_tensor> layer_tensors;  ///< what one layer keeps for one micro-batch (training)
    u128 total() const { return weights + gradients + optimizer + activations + logits + communication + kv + dequant; }
};

/// One training stage: model states, activations, logits and buffers of pipeline stage `i`.
parts128 train_stage(const estimate_config& c, const param_breakdown& counted, std::uint64_t i);

/// One serving stage: weights, KV cache, prefill workspace and logits of pipeline stage `i`.
parts128 infer_stage(const estimate_config& c, const param_breakdown& counted, std::uint64_t i);

/// Fills the fine-tuning details (trainable parameters, base and adapter bytes, host spill) and
/// warnings of `result` from the reported stage (adapters.cpp).
void finetune_details(const estimate_config& c, const parts128& stage, estimate_result& result);

}  // namespace memplan::detail
