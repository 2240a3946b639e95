// memplan — fine-tuning as people run it: LoRA/DoRA adapters (PEFT) on a frozen base that may be
// quantized (bitsandbytes LLM.int8, NF4/FP4 with or without double quantization, QLoRA).
//
// Trainable parameters per adapted linear of shape d_in → d_out (PEFT tuners/lora/layer.py,
// LoraLayer.update_layer: lora_A = nn.Linear(d_in, r), lora_B = nn.Linear(r, d_out), no biases):
//     LoRA  r·(d_in + d_out)
//     DoRA  r·(d_in + d_out) + d_out   (tuners/lora/dora.py: lora_magnitude_vector, one per output row)
// An embedding adapted with LoRA (lora_embedding_A r×V, lora_embedding_B h×r): r·(V + h).
// "all-linear" (PEFT utils/constants + tuners_utils._maybe_include_all_linear_layers) targets every
// linear layer of the blocks and excludes the output layer lm_head.
// modules_to_save (PEFT ModulesToSaveWrapper): a trainable copy of the module; the original stays.
//
// Frozen base storage per linear weight of n = d_in·d_out elements:
//     bf16/fp16 2n; fp32 4n;
//     fp8   n + 4                  (one fp32 scale per tensor, per-tensor float8 weights)
//     int8  n + 4·d_out            (bitsandbytes Int8Params: int8 CB and an fp32 row-wise absmax SCB per
//                                   output row, LLM.int8(), Dettmers et al. 2022, §3.2 vector-wise)
//     nf4/fp4  ⌈n/2⌉ packed + 4·⌈n/64⌉ fp32 absmax per 64-block (4.5 bits/parameter); with double
//              quantization ⌈n/2⌉ + ⌈n/64⌉ int8 absmax + 4·⌈⌈n/64⌉/256⌉ fp32 second-level absmax +
//              4 (fp32 offset) (4 + 8/64 + 32/(64·256) = 4.127 bits; Dettmers et al. 2023, QLoRA §3,
//              "Double Quantization"; bitsandbytes functional.quantize_4bit, blocksize 64, nested 256).
//              Codebook tables shared by all layers (16 and 256 fp32 values) are not counted.
// Biases, norms, embeddings, the router-free remainder and lm_head stay unquantized: bf16 under a
// quantized base (transformers keeps lm_head out of bitsandbytes, llm_int8_skip_modules), the base's
// own float type otherwise.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/model/arch.hpp"
#include "memplan/config/config.hpp"
#include "memplan/base/types.hpp"

namespace memplan {


/// Names accepted in train.modules_to_save.
const char* modules_to_save_names();

/// Trainable parameters of a fine-tuning configuration, split by where they live.
struct finetune_params {
    std::uint64_t trainable = 0;           ///< adapters + modules_to_save, whole model
    std::uint64_t adapter = 0;             ///< adapter parameters (LoRA A, B; DoRA magnitudes), whole model
    std::uint64_t saved_modules = 0;       ///< modules_to_save copies, whole model
    std::uint64_t per_layer = 0;           ///< adapter parameters of one block outside the routed experts
    std::uint64_t per_layer_experts = 0;   ///< adapter parameters of one block's routed experts
    std::uint64_t first_stage = 0;         ///< embedding-side trainables (embed_tokens adapter or copy)
    std::uint64_t last_stage = 0;          ///< output-side trainables (lm_head adapter or copy)
    std::uint64_t per_layer_factored = 0;  ///< Adafactor state elements of one block's adapters (row + column per matrix)
    std::uint64_t adapted_linears = 0;     ///< adapted linear layers in the whole model
    std::uint64_t largest_adapted_elements = 0;  ///< d_in · d_out of the largest adapted linear (DoRA's dense workspace)
};

/// Counts the trainable parameters of `train`'s adapter on `model` (all zero without an adapter);
/// errors name train.adapter_targets or train.modules_to_save.
outcome<finetune_params> count_finetune_params(const model_config& model, const train_config& train);

/// Bytes of one frozen linear weight d_in × d_out stored as `precision`.
std::uint64_t frozen_linear_bytes(std::uint64_t d_in, std::uint64_t d_out, base_precision precision, bool double_quant);

/// Bytes per element of the unquantized parts of a base stored as `precision` (bf16 for quantized bases).
std::uint64_t unquantized_bytes(base_precision precision);
/// Bytes the whole frozen base would gain if train.kbit_prepare were set (its unquantized parameters from 2 to
/// 4 bytes each): 0 when it is set, or when the base is not int8/4-bit under an adapter.
std::uint64_t kbit_prepare_extra_bytes(const model_config& m, const train_config& t);

/// Frozen base weights of one model, per part, as stored.
struct frozen_base_bytes {
    std::uint64_t per_layer = 0;          ///< one block outside the routed experts (linears, biases, norms)
    std::uint64_t per_layer_experts = 0;  ///< one block's routed experts
    std::uint64_t embedding = 0;          ///< token (and position) embeddings
    std::uint64_t output = 0;             ///< untied lm_head and the final norm
    std::uint64_t tied_output_copy = 0;   ///< lm_head copy the last pipeline stage keeps for tied embeddings
    std::uint64_t largest_linear_elements = 0;  ///< elements of the largest block linear weight (dequantization)
};

/// Storage of the frozen base of `model` under `train` (base_dtype, double_quant); errors name the model.
outcome<frozen_base_bytes> count_frozen_base(const model_config& model, const train_config& train);

/// Configuration checks of the fine-tuning keys (adapter names, quantized base needs an adapter, …).
diagnostics validate_finetune(const estimate_config& config);

/// The block linear names an adapter trains (targets resolved, "all-linear" expanded); empty without an adapter.
std::vector<std::string> adapted_linear_names(const model_config& model, const train_config& train);

/// Bytes per element of a float_precision.
std::uint64_t precision_bytes(float_precision precision);

}  // namespace memplan
