// memplan — faithful reproductions of two widely used estimators, so their published figures can be
// checked and compared with memplan's own model: DeepSpeed's estimate_zero2/3_model_states_mem_needs
// (which prints GiB labelled "GB") and Megatron-LM's theoretical_memory_usage.py (which prints MiB
// labelled "MB"). Like eleuther.hpp, these keep each tool's conventions; memplan's estimate() does not.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/types.hpp"

namespace memplan {

/// One row of DeepSpeed's table: its options text, CPU and GPU bytes (as DeepSpeed's int()).
struct deepspeed_row {
    std::string options;  ///< "offload_param=cpu , offload_optimizer=cpu , zero_init=1"
    std::uint64_t cpu_bytes = 0;
    std::uint64_t gpu_bytes = 0;
};

/// DeepSpeed's estimate_zero2_model_states_mem_needs_all_cold: rows for offload_optimizer=cpu, none.
outcome<std::vector<deepspeed_row>> deepspeed_zero2_estimate(std::uint64_t total_params,
                                                             std::uint64_t gpus_per_node, std::uint64_t nodes);

/// DeepSpeed's estimate_zero3_model_states_mem_needs_all_cold: the six rows of its table.
outcome<std::vector<deepspeed_row>> deepspeed_zero3_estimate(std::uint64_t total_params,
                                                             std::uint64_t largest_layer_params,
                                                             std::uint64_t gpus_per_node, std::uint64_t nodes);

/// Inputs of Megatron-LM's theoretical memory formula (argument names as in its code).
struct megatron_args {
    std::uint64_t num_layers = 0, hidden_size = 0, num_attention_heads = 0, num_query_groups = 0;
    std::uint64_t kv_channels = 0;  ///< 0 = hidden_size / num_attention_heads
    std::uint64_t ffn_hidden_size = 0, padded_vocab_size = 0, seq_length = 0, micro_batch_size = 1;
    std::uint64_t num_experts = 0;  ///< 0 = dense
    bool swiglu = false, untie_embeddings_and_output_weights = false, use_distributed_optimizer = false;
    std::uint64_t tensor_model_parallel_size = 1, pipeline_model_parallel_size = 1, data_parallel_size = 1;
    std::uint64_t virtual_pipeline_model_parallel_size = 0;  ///< 0 = not interleaved
    std::uint64_t num_microbatches = 0;                      ///< 0 = not given
};

/// Megatron-LM's figures, in MiB as it prints them.
struct megatron_report {
    double params_in_layers = 0, params_in_embeddings = 0, params_on_most_loaded_shard = 0;
    double weight_and_optimizer_mib = 0, activation_mib = 0, total_mib = 0;
    diagnostics errors;
};

/// Reproduces compute_weight_and_optimizer_memory and compute_activation_memory (which assumes
/// sequence parallelism and selective recompute), operation by operation in double.
megatron_report megatron_theoretical_memory(const megatron_args& args);

}  // namespace memplan
