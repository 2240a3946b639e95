// memplan — the command-line flags of EleutherAI's transformer_mem.py (cookbook repository,
// calc/transformer_mem.py) mapped to the script's own arguments (for the faithful reproduction in
// eleuther.hpp) and to an estimate_config (for memplan's corrected model). Pure: flag text in,
// values or errors naming the flag out.
#pragma once

#include <optional>
#include <string>

#include "memplan/reproduce/eleuther.hpp"
#include "memplan/memory/estimate.hpp"
#include "memplan/base/types.hpp"

namespace memplan {

/// The flags of `memplan transformer-mem` as typed; std::nullopt / false = not given. Numbers take
/// the units of units.hpp ("6.9B", "7e9"). Errors name the flag without its dashes ("num-gpus").
struct transformer_mem_flags {
    // transformer_mem.py's flags (its defaults are eleuther_args's).
    std::optional<std::string> params, num_gpus, tensor_parallel_size, pipeline_parallel_size, zero_stage,
        batch_size_per_gpu, hidden_size, num_attention_heads, sequence_length, num_layers,
        zero_allgather_bucket_size, zero3_max_live_params, misc_mem_gb;
    bool partition_activations = false, checkpoint_activations = false, fp32_model = false, fp32_grads = false,
         infer = false;
    // memplan's additions, used by the corrected model only.
    std::optional<std::string> num_key_value_heads, vocab_size, recompute, gpu_memory;
    bool sequence_parallel = false, flash_attention = false;
};

/// The script's arguments: its defaults where a flag is not given.
outcome<eleuther_args> eleuther_args_from_flags(const transformer_mem_flags& flags);

/// The same inputs as a memplan configuration: training (or inference with --infer) of a model with
/// the explicit parameter count and the script's layout; --checkpoint-activations is full
/// recomputation, --fp32-model keeps fp32 weights, --misc-mem-gb counts GiB as the script does.
/// Errors name the flag: the script's flags first, then memplan's.
outcome<estimate_config> transformer_mem_config(const transformer_mem_flags& flags);


}  // namespace memplan
