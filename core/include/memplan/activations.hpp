// memplan — activation memory of one transformer layer, counted tensor by tensor from the block's
// structure (norm type, attention with GQA, plain or gated MLP with its own FFN width, dropout on or
// off), for recompute none / selective / full, FlashAttention, tensor and sequence parallelism.
// For a GPT-style block it reduces exactly to Korthikanti et al. 2022, Table 2.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/estimate.hpp"

namespace memplan {

/// One tensor that the forward pass of a layer keeps for backward, on one GPU, for one micro-batch.
struct activation_tensor {
    std::string name;        ///< stable identifier, e.g. "attn.qkv_input", "mlp.act_output"
    std::uint64_t bytes = 0; ///< bytes on one GPU (rounded up)
    std::string note;        ///< what it is and why it is kept, one line
};

/// The shape of one layer's forward pass on one GPU.
struct layer_activation_input {
    model_config model;                 ///< architecture, family defaults already applied
    std::uint64_t seq_len = 0;          ///< tokens per sequence on this GPU (after context parallelism)
    std::uint64_t micro_batch = 0;      ///< sequences per micro-batch
    std::uint64_t tp = 1;               ///< tensor-parallel degree
    bool sequence_parallel = false;     ///< norm/dropout regions sharded over tp (Korthikanti §4.2.2)
    bool flash_attention = false;       ///< scores, softmax and its dropout never stored
    dtype activation_dtype = dtype::bf16;
};

/// Tensors one layer keeps for backward without any recompute (the full working set of the layer).
std::vector<activation_tensor> layer_activation_tensors(const layer_activation_input& input);

/// Tensors one layer keeps under `mode`: none → all of the above; selective → without the attention
/// core (Korthikanti §5: QKᵀ, softmax, its dropout); full → the layer input only.
std::vector<activation_tensor> stored_activation_tensors(const layer_activation_input& input, recompute_mode mode);

/// Sum of the bytes of `tensors`.
std::uint64_t total_bytes(const std::vector<activation_tensor>& tensors);

}  // namespace memplan
