// memplan — activation memory of one transformer layer, counted tensor by tensor from the block's
// structure (norm type, attention with GQA, plain or gated MLP with its own FFN width, dropout on or
// off), for recompute none / selective / full / selective_op, FlashAttention, tensor and sequence parallelism.
// For a GPT-style block it reduces exactly to Korthikanti et al. 2022, Table 2.
//
// What is counted (one micro-batch, one GPU; T = seq_len · micro_batch tokens; e = bytes of the
// activation dtype; t = tp; "/t" = split over tensor parallelism, "/sp" = split over t only with
// sequence parallelism):
//   attn.norm.input        T·h·e /sp     the norm's input              (Korthikanti §4.1: 2sbh)
//   attn.norm.stats        T·8 or T·4 /sp  fp32 mean+rstd (LayerNorm) or rstd (RMSNorm), as the CUDA kernels save them
//   attn.qkv_input         T·h·e /sp     norm output                   (2sbh)
//   attn.q                 T·a·d·e /t                                   (QKᵀ: 4sbh with attn.k)
//   attn.k, attn.v         T·g·d·e /t with FlashAttention or selective recompute (GQA: g KV heads);
//                          T·a·d·e /t with eager attention, which keeps K and V repeated to all heads
//   attn.core.*            eager: softmax output a·s²·b·e, dropout mask a·s²·b·1 and dropout output
//                          a·s²·b·e (5as²b), /t; FlashAttention: fp32 log-sum-exp a·s·b·4 /t instead
//   attn.proj_input        T·a·d·e /t                                   (2sbh)
//   attn.dropout_mask      T·h·1 /sp     (1-byte masks: CUDA native_dropout; sbh)
//   mlp.norm.input, mlp.norm.stats, mlp.fc_input   as for attention    (2sbh + 2sbh)
//   plain MLP: mlp.act_input, mlp.act_output       T·f·e /t each        (8sbh + 8sbh with f = 4h)
//   gated MLP: mlp.act_input (gate output), mlp.up_output, mlp.act_output (SiLU/GELU output),
//              mlp.down_input (the product)        T·f·e /t each
//   MoE (balanced routing, k = experts_per_token): moe.router_probs T·E·4 /sp, moe.routing_indices
//              T·k·8 /sp, moe.routing_weights T·k·e /sp, moe.expert_input and moe.expert_output
//              T·k·h·e (all tokens on every TP rank, Megatron's all-gather dispatcher), the expert
//              FFN tensors as above on T·k tokens with moe_intermediate_size, and a shared expert's
//              FFN tensors on T tokens; they replace the dense MLP tensors.
//   mlp.dropout_mask       T·h·1 /sp
//   norms_per_layer ≥ 4 (Gemma 2) adds attn.post_norm.* and mlp.post_norm.* (input + stats).
// Norm statistics are counted as their own tensors (names ending in ".stats"); Korthikanti ignores
// them, so Table 2 is the sum of every tensor except the ".stats" ones (tests check exactly that).
// Eager kernels (train.kernels eager) replace an RMSNorm's bf16 input by what HF LlamaRMSNorm's
// autograd keeps: X.norm.input_fp32 T·h·4 (the upcast, kept by pow), X.norm.squared_fp32 T·h·4 (kept
// by mean) and, when the norm weight is trained, X.norm.normalized T·h·e (kept by the weight product).
// Adapters (layer_activation_input::adapter): frozen linears that are not adapted drop their inputs
// (attn.qkv_input, attn.proj_input unless FlashAttention keeps its output, mlp.fc_input,
// mlp.down_input / mlp.act_output of a plain MLP, moe.expert_input, moe.down_input); each adapted
// linear adds lora.<name>.a_output T·r·e, with dropout lora.<name>.dropout_input T·d_in·e and
// lora.<name>.dropout_mask T·d_in·1, with DoRA dora.<name>.base_output and dora.<name>.lora_output
// T·d_out·e each. Adapter tensors are not split over tp except along split widths.
// FlashAttention's dropout keeps only an RNG seed and offset, not counted. Rotary cos/sin tables are
// shared by all layers and not counted per layer. seq_len is per GPU (after context parallelism).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/config/config.hpp"

namespace memplan {

/// One tensor that the forward pass of a layer keeps for backward, on one GPU, for one micro-batch.
struct activation_tensor {
    std::string name;        ///< stable identifier, e.g. "attn.norm.input", "mlp.act.output"
    std::uint64_t bytes = 0; ///< bytes on one GPU (rounded up)
    std::string note;        ///< what it is and why it is kept, one line
};



/// LoRA/DoRA on a frozen base. PyTorch's linear saves its input only for the weight gradient, so a
/// frozen, non-adapted linear keeps nothing; an adapted one keeps its input through lora_A (the
/// same tensor, or with lora_dropout its own dropped-out copy and mask) and the r-wide output of
/// lora_A through lora_B; DoRA also keeps the base and the adapter outputs (d_out wide) for the
/// magnitude's gradient (PEFT tuners/lora/dora.py DoraLinearLayer.forward).
struct adapter_activation_input {
    bool enabled = false;              ///< base frozen: only adapted linears keep their inputs
    std::uint64_t rank = 0;            ///< r
    bool dropout = false;              ///< lora_dropout > 0
    bool dora = false;                 ///< DoRA magnitude vectors
    bool base_keeps_inputs = false;    ///< every frozen linear keeps its input (bitsandbytes < 0.44 MatMul4Bit)
    std::vector<std::string> targets;  ///< adapted linear names (memplan/adapters.hpp linear_module names)
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
    adapter_activation_input adapter;   ///< fine-tuning with adapters (default: every weight trainable)
    kernel_kind kernels = kernel_kind::fused;  ///< eager: Hugging Face's LlamaRMSNorm keeps fp32 copies
};

/// Tensors one layer keeps for backward without any recompute (the full working set of the layer).
std::vector<activation_tensor> layer_activation_tensors(const layer_activation_input& input);

/// Tensors one layer keeps under `mode`: none → all of the above; selective → without the attention
/// core (Korthikanti §5: the attn.core.* tensors; K and V kept as the core's g-wide inputs);
/// full → "layer.input" only (2sbh, /t with sequence parallelism); selective_op → torchtitan's op-level
/// selective checkpointing: layer.input, the outputs of the odd-numbered bias-free matmuls (Llama: q_proj,
/// v_proj, gate_proj, down_proj), attn.core.output and attn.core.logsumexp, and with sequence parallelism the two
/// reduce-scatter outputs (activations.cpp selective_op_tensors).
std::vector<activation_tensor> stored_activation_tensors(const layer_activation_input& input, recompute_mode mode);

/// The bytes `stored_activation_tensors` would sum to (total_bytes of that list), for a layer of
/// `model` (shape.model is not read, so no model is copied); the list itself is produced only when
/// `tensors` is non-null. Without it nothing is allocated: the totals-only path of estimate().
std::uint64_t stored_activation_bytes(const model_config& model, const layer_activation_input& shape, recompute_mode mode,
                                      std::vector<activation_tensor>* tensors = nullptr);

/// Under recompute selective_op: whether the output of the block linear `name` (q_proj, k_proj, v_proj,
/// o_proj, gate_proj, up_proj, down_proj) is kept; the others are recomputed in backward.
bool selective_op_keeps_output(const model_config& model, const std::string& name);

/// Under recompute selective_op: the bytes one layer adds while its backward recomputes it, beyond the
/// tensors it keeps (its working set under recompute none, less the kept tensors the recomputed graph
/// reuses or has freed by the end of the recompute; derivation in activations.cpp).
std::uint64_t selective_op_recompute_bytes(const model_config& model, const layer_activation_input& shape);

/// Sum of the bytes of `tensors`.
std::uint64_t total_bytes(const std::vector<activation_tensor>& tensors);

}  // namespace memplan
