// memplan — faithful reproductions of widely used memory estimators, so their published figures can be
// checked and compared with memplan's own model:
//   DeepSpeed estimate_zero2/3_model_states_mem_needs (prints GiB labelled "GB"),
//   Megatron-LM megatron/training/theoretical_memory_usage.py (prints MiB labelled "MB"),
//   EleutherAI cookbook calc/calc_transformer_mem.py (prints GiB),
//   Hugging Face accelerate `estimate-memory` (prints powers of 1024 labelled KB/MB/GB),
// and DeepSpeed's communication buffers as DeepSpeed allocates them. Like eleuther.hpp, these keep
// each tool's conventions; memplan's estimate() does not. Every figure that could exceed 2^53 is
// refused with an error naming the input, never wrapped or converted out of range.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/config/config.hpp"
#include "memplan/memory/comm_buffers.hpp"

#include "memplan/base/types.hpp"

namespace memplan {

/// `value` in decimal with `digits` decimals (0..9), rounded to nearest with ties to even on the exact
/// binary value — what C's printf("%.Nf") and Python's f"{x:.Nf}" print — computed with integers only,
/// so every platform prints the same text. NaN, infinities and magnitudes of 2^64 or more give "?".
std::string fixed_text(double value, unsigned digits);

/// numerator / denominator in decimal with `digits` decimals (0..9), rounded half to even, exactly.
std::string ratio_text(std::uint64_t numerator, std::uint64_t denominator, unsigned digits);

/// One row of DeepSpeed's table: its options text, CPU and GPU bytes (as DeepSpeed's int()).
struct deepspeed_row {
    std::string options;  ///< "offload_param=cpu , offload_optimizer=cpu , zero_init=1"
    std::uint64_t cpu_bytes = 0;
    std::uint64_t gpu_bytes = 0;
};

/// Which estimate_zero2_model_states_mem_needs: the GPU figure without offload changed in DeepSpeed
/// commit f4cb866c2eba (microsoft/DeepSpeed pull request 5099, first released in v0.14.3, June 2024).
enum class deepspeed_zero2_formula {
    documented,  ///< up to v0.14.2 and still in docs/code-docs/source/memory.rst: 4P + int(16P/N)
    current,     ///< v0.14.3 on: 2P + int(18P/N) (2 B fp16 params; 2 + 4 B grads, 4 B fp32 params, 8 B Adam)
};

/// DeepSpeed's estimate_zero2_model_states_mem_needs_all_cold: rows for offload_optimizer=cpu, none.
/// `additional_buffer_factor` (DeepSpeed's default 1.5, a number from 0 to 1000) multiplies the CPU column.
outcome<std::vector<deepspeed_row>> deepspeed_zero2_estimate(
    std::uint64_t total_params, std::uint64_t gpus_per_node, std::uint64_t nodes,
    deepspeed_zero2_formula formula = deepspeed_zero2_formula::documented, double additional_buffer_factor = 1.5);

/// DeepSpeed's estimate_zero3_model_states_mem_needs_all_cold: the six rows of its table.
outcome<std::vector<deepspeed_row>> deepspeed_zero3_estimate(std::uint64_t total_params,
                                                             std::uint64_t largest_layer_params,
                                                             std::uint64_t gpus_per_node, std::uint64_t nodes,
                                                             double additional_buffer_factor = 1.5);

/// DeepSpeed's table as it prints it (header, column line, one line per row), with "GB" meaning GiB.
std::string deepspeed_table_text(const std::vector<deepspeed_row>& rows, std::uint64_t total_params,
                                 std::uint64_t largest_layer_params, std::uint64_t gpus_per_node,
                                 std::uint64_t nodes, bool stage3);

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
    /// --sequence-parallel and --recompute-granularity selective together select Megatron's
    /// compute_activation_memory; otherwise it uses compute_activation_memory_without_sp. Both default
    /// to true here (Megatron's own flags default to off) so that existing callers keep the SP path.
    bool sequence_parallel = true, selective_recompute = true;
    std::uint64_t moe_ffn_hidden_size = 0;  ///< 0 = ffn_hidden_size (as Megatron's arguments.py sets it)
    std::uint64_t moe_layer_freq = 1;       ///< every moe_layer_freq-th layer (from layer 0) is MoE
    std::uint64_t moe_shared_expert_intermediate_size = 0;
};

/// Megatron-LM's figures, in parameters and in MiB as it prints them.
struct megatron_report {
    double params_in_layers = 0;  ///< "transformer block": layers plus the final layernorm
    double params_in_embeddings = 0, params_on_most_loaded_shard = 0, params_on_other_shards = 0;
    double total_params = 0;
    double weight_and_optimizer_mib = 0, activation_mib = 0, total_mib = 0;
    bool sequence_parallel_path = true;  ///< which activation formula was used
    diagnostics errors;
};

/// Reproduces compute_weight_and_optimizer_memory and the activation formula that
/// report_theoretical_memory selects (megatron/training/theoretical_memory_usage.py at Megatron-LM
/// commit a6c6250f9cfd, 2025-08-26), operation by operation in double. Figures above 2^53 bytes are
/// refused with an error naming the input.
megatron_report megatron_theoretical_memory(const megatron_args& args);

/// The line Megatron prints: "Theoretical memory footprints: weight and optimizer=… MB, activation=… MB,
/// total=… MB" followed by a newline, built without a fixed-size buffer.
std::string megatron_report_line(const megatron_report& report);

/// Inputs of EleutherAI's cookbook calc/calc_transformer_mem.py, with its DEFAULTS.
struct eleuther_calc_args {
    std::uint64_t num_gpus = 1, tensor_parallel_size = 1, pipeline_parallel_size = 1;
    bool partition_activations = false;
    std::int64_t zero_stage = 1;
    double zero_allgather_bucket_size = 5e8, zero3_max_live_params = 1e9;
    bool checkpoint_activations = false;
    std::uint64_t batch_size_per_gpu = 1, sequence_length = 2048, vocab_size = 51200;
    std::uint64_t hidden_size = 6144, num_attention_heads = 64, num_layers = 44;
    double ffn_expansion_factor = 4.0;
    std::uint64_t num_mlp_linears = 2;
    bool infer = false;
    double kv_size_ratio = 1.0;
    std::uint64_t output_tokens = 1;
    bool is_mixed_precision = true;
    std::uint64_t high_prec_bytes_per_val = 4, low_prec_bytes_per_val = 2, bytes_per_grad_ele = 4;
    std::string optimizer = "adamw";  ///< adamw, muon, sgd_momentum
    std::uint64_t num_experts = 0, expert_parallelism = 1, misc_mem_gib = 0;
};

/// calc_transformer_mem.py's figures (GiB as doubles, as it computes them) and the lines it prints.
struct eleuther_calc_report {
    double total_params = 0, total_moe_params = 0;
    double per_gpu_activation_gib = 0, per_gpu_model_gib = 0, per_gpu_gradient_gib = 0;
    double per_gpu_optimizer_gib = 0, per_gpu_communication_gib = 0, per_gpu_kv_cache_gib = 0;
    double per_gpu_total_gib = 0;
    double activation_gib = 0, model_gib = 0, gradient_gib = 0, optimizer_gib = 0, kv_cache_gib = 0;
    double replica_total_gib = 0;
    std::vector<std::string> lines;  ///< "Per-GPU Model Memory: 1.60 GiB", … (without the args dump)
    diagnostics errors;
};

/// Reproduces calc_mem of calc_transformer_mem.py at EleutherAI/cookbook commit 827ee3b293a6 (2026-03-15).
eleuther_calc_report eleuther_calc_transformer_mem(const eleuther_calc_args& args);

/// One row of accelerate's `estimate-memory` table; texts as it prints them ("413.18 MB", "N/A").
struct accelerate_row {
    std::string dtype;
    std::uint64_t largest_layer_bytes = 0, total_bytes = 0, training_bytes = 0;  ///< training 0 = N/A
    std::string largest_layer_text, total_text, training_text;
};

/// Reproduces gather_data + estimate_command of src/accelerate/commands/estimate.py (huggingface/
/// accelerate commit 7ed69be06304): `total_size_bytes` and `largest_layer_bytes` are the fp32 sizes
/// its calculate_maximum_sizes finds on the meta model (parameters and buffers); rows for float32,
/// float16, int8, int4. "Training using Adam" is the largest of model, gradients, optimizer and step.
outcome<std::vector<accelerate_row>> accelerate_estimate_memory(std::uint64_t total_size_bytes,
                                                                std::uint64_t largest_layer_bytes);

/// accelerate's convert_bytes: powers of 1024 named bytes, KB, MB, GB, TB, PB; Python's round(x, 2).
std::string accelerate_convert_bytes(std::uint64_t bytes);

}  // namespace memplan
