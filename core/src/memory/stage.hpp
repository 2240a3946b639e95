// memplan — internal: the per-pipeline-stage parts that estimate() assembles (not public API).
// model_states.cpp: parameters per stage and optimizer bytes; train_memory.cpp: one training
// stage; infer_memory.cpp: one serving stage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "base/checks.hpp"
#include "memplan/memory/activations.hpp"
#include "memplan/model/adapters.hpp"
#include "memplan/model/arch.hpp"
#include "memplan/memory/result.hpp"

namespace memplan::detail {

/// validate(config), with the model's validate_architecture errors given when known (model_counts::
/// architecture_errors; null: derived here).
diagnostics validate(const estimate_config& config, const diagnostics* architecture_errors,
                     bool fields_in_range = false);

/// Bytes of `elements` values of `type`, rounded up (int4 packs two per byte).
inline u128 bytes_of(u128 elements, dtype type) { return ceil_div(elements * dtype_bits(type), 8); }

/// Parameters of one pipeline stage, split into the parts sharded differently.
struct stage_params {
    u128 layers = 0;
    u128 dense = 0;     ///< on this GPU after tp (attention, norms, shared parts, embeddings)
    u128 experts = 0;   ///< on this GPU after tp and ep
    u128 linear = 0;    ///< block linear weights on this GPU (what quantization packs)
    u128 first_layer = 0;  ///< index of the stage's first layer
    u128 native_bytes = 0;   ///< weights on this GPU in the checkpoint's native format (model.checkpoint)
    u128 native_scales = 0;  ///< scales and zero points among them
    u128 native_fp32 = 0;    ///< parameters stored in fp32 among them, in bytes
    u128 packed = 0;         ///< parameters the checkpoint packs, on this GPU
};

/// Layers of stage i: L/pp each, the first L mod pp stages one more (an upper bound when uneven).
u128 layers_of_stage(const model_config& m, std::uint64_t pp, std::uint64_t i);

/// Parameters of pipeline stage `i` on one GPU (after tp and ep), split by how they are sharded.
/// `uniform_layers`: every entry of counted.layers is the same (model_counts), so a stage's sums are
/// its layer count times one layer's, taken without the loop (the same exact integers).
stage_params params_of_stage(const estimate_config& c, const param_breakdown& counted, std::uint64_t i,
                             bool uniform_layers = false);

/// Optimizer-state bytes for `shard_params` parameters.
u128 optimizer_bytes(u128 shard_params, const train_config& t, const model_config& m);

/// Weights by storage type: at most three (the packed type, bf16 beside it, and fp32 parameters such
/// as DeepSeek's router bias), names static; held in place so that a stage allocates nothing.
class weight_types {
public:
    using item = std::pair<const char*, u128>;
    weight_types() = default;
    weight_types(std::initializer_list<item> items) {
        for (const item& i : items) push_back(i);
    }
    void push_back(const item& i) { items_[size_++] = i; }  // at most three, as every caller adds
    const item* begin() const { return items_; }
    const item* end() const { return items_ + size_; }

private:
    item items_[3]{};
    std::size_t size_ = 0;
};

/// Parts of one stage, in 128 bits before the range check.
struct parts128 {
    u128 weights = 0, gradients = 0, optimizer = 0, activations = 0, logits = 0, communication = 0, kv = 0;
    u128 host = 0, nvme = 0, quant_overhead = 0, kv_per_token = 0, layer_activation = 0, in_flight = 0;
    u128 dequant = 0;          ///< dequantization workspace of a quantized frozen base (its own per-GPU item)
    u128 base_weights = 0;     ///< frozen base weight bytes on this GPU (adapters)
    u128 trainable_weights = 0;///< adapter and modules_to_save weight bytes on this GPU
    u128 paged_states = 0;     ///< bitsandbytes paged optimizer states: unified memory, in no part of total()
    u128 offloaded_activations = 0;  ///< checkpointed layer inputs kept in host memory
    u128 state_per_sequence = 0;  ///< linear-attention / Mamba state bytes of one sequence (inside kv)
    u128 prefill_pass_tokens = 0; ///< inference: tokens of one prefill pass on this GPU
    // Phases of the step (step_phases); none of these is in total().
    u128 working_set = 0;      ///< full recompute: the re-run layer's working set (inside activations)
    u128 logits_grad = 0;      ///< the logits' gradient at the start of backward (last stage)
    u128 layer_grads = 0;      ///< gradients in flight inside one layer's backward
    u128 optimizer_temp = 0;   ///< temporaries of one optimizer step
    weight_types weight_by_dtype;  ///< weights by storage type
    u128 total() const { return weights + gradients + optimizer + activations + logits + communication + kv + dequant; }
};

/// What one layer keeps for one micro-batch in training: the same on every stage, computed once.
struct train_layer {
    u128 kept = 0;         ///< bytes kept under train.recompute (stored_activation_bytes)
    u128 working_set = 0;  ///< full recompute: the whole working set of the layer re-run in backward; else 0
    /// What the re-run layer adds beyond what is kept: full recompute its working set less the checkpointed
    /// input it reads in place (the whole set with partitioned activations, whose re-run gathers its own
    /// input); selective_op its working set less what the policy keeps; else 0.
    u128 rerun = 0;
    std::vector<activation_tensor> tensors;  ///< the kept tensors, only when asked for (want_tensors)
    finetune_params finetune;      ///< adapters: count_finetune_params (the same on every stage)
    frozen_base_bytes frozen_base; ///< adapters: count_frozen_base
    bool uniform_layers = false;   ///< model_counts::uniform_layers (params_of_stage)
};
train_layer train_layer_activations(const estimate_config& c, bool want_tensors);

/// One training stage: model states, activations, logits and buffers of pipeline stage `i`.
parts128 train_stage(const estimate_config& c, const param_breakdown& counted, std::uint64_t i, const train_layer& layer);

/// Bytes per token of the forward workspace on one tensor-parallel rank: the widest set of bf16
/// tensors live at once inside one layer (residual, normed input, q, k, v and the attention output;
/// or residual, normed input and the MLP's gate, up and their product, an MoE layer's routed copies
/// of each token being top-k experts plus the shared expert). Serving's prefill workspace and the
/// engines' profiling forward are this times their tokens.
u128 forward_live_bytes_per_token(const model_config& m, std::uint64_t tp);

/// One serving stage: weights, KV cache, prefill workspace and logits of pipeline stage `i`.
parts128 infer_stage(const estimate_config& c, const param_breakdown& counted, std::uint64_t i);

/// Fills the fine-tuning details (trainable parameters, base and adapter bytes, host spill) and
/// warnings of `result` from the reported stage (adapters.cpp).
void finetune_details(const estimate_config& c, const parts128& stage, estimate_result& result);

/// Places the paged optimizer states (details.paged_optimizer_bytes) once the verdict is known: resident
/// beside PyTorch's reserved peak, the rest in host memory (added to host_bytes_per_node for the node's
/// `gpus_in_node` GPUs), with a warning naming train.paged_optimizer when some are paged out.
void paged_optimizer_details(std::uint64_t gpus_in_node, estimate_result& result);

}  // namespace memplan::detail
