// memplan — the time of one training step: FLOPs per layer kind, the achieved rate of each GEMM on
// the GPU (a roofline with a sustained-efficiency ceiling), and α-β communication costs of every
// parallelism, each term its own row with its source. Pure arithmetic on plain structs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "memplan/base/types.hpp"
#include "memplan/memory/estimate.hpp"
#include "memplan/model/arch.hpp"

namespace memplan {

/// What the time model needs to know of a GPU kind (core/data/gpus.json "perf", vendor datasheets).
struct gpu_perf {
    double dense_bf16_flops_per_s = 0;   ///< dense (no sparsity) bf16 tensor-core peak
    double dense_fp8_flops_per_s = 0;    ///< dense fp8 peak; 0 = no fp8 tensor cores
    double hbm_bytes_per_s = 0;          ///< memory bandwidth
    double intra_node_bytes_per_s = 0;   ///< NVLink/NVSwitch (Infinity Fabric) per GPU, one direction
    double inter_node_bytes_per_s = 0;   ///< scale-out network per GPU, one direction (the vendor's reference system)
    /// Sustained fraction of peak of a large bf16 GEMM; the roofline lowers it for small shapes.
    double gemm_efficiency = 0;
    /// Sustained fraction of peak of FlashAttention forward + backward.
    double attention_efficiency = 0;
    double intra_node_latency_s = 0;     ///< α of one collective step inside a node
    double inter_node_latency_s = 0;     ///< α of one collective step across nodes
    /// The catalogue names a published corpus this GPU kind's step times were checked against
    /// (core/data/gpus.json perf.step_time_validated); elsewhere step_time() warns.
    bool step_time_validated = false;
    /// GPUs one NVLink domain joins (core/data/gpus.json perf.nvlink_domain_gpus: 72 for GB200 NVL72);
    /// 0 where the catalogue gives none (an 8-GPU node).
    double nvlink_domain_gpus = 0;
    bool ok() const { return dense_bf16_flops_per_s > 0 && hbm_bytes_per_s > 0 && intra_node_bytes_per_s > 0 && inter_node_bytes_per_s > 0; }
};

/// Default sustained fractions of the dense peak, overridable per request. The GEMM ceiling is
/// calibrated on Narayanan et al. 2021 Table 1 (A100, GPT 1.7B–1T, full recompute; tests/data/throughput),
/// so those rows are in-sample; FlashAttention-2 reaches 50–73 % of A100 peak forward + backward
/// (Dao 2023, §4.1, Figure 4).
constexpr double default_gemm_efficiency = 0.72;
constexpr double default_attention_efficiency = 0.5;
/// α of one collective step, order-of-magnitude figures for NCCL inside a node and over InfiniBand
/// (an assumption, overridable): 5 µs and 10 µs.
constexpr double default_intra_node_latency_s = 5e-6;
constexpr double default_inter_node_latency_s = 10e-6;

/// A training step beyond estimate_config: the global batch, and what overlaps.
struct step_options {
    std::uint64_t global_batch_sequences = 0;  ///< sequences per optimizer step; 0 = micro_batch · dp (one micro-batch)
    bool overlap_grad_reduce = true;  ///< data-parallel reduce-scatter / all-reduce overlapped with the backward pass
    bool overlap_param_gather = true; ///< ZeRO-3 parameter all-gathers overlapped with compute
};

/// One term of the step time.
struct step_term {
    std::string_view name;  ///< "compute", "tp_comm", "pp_bubble", … (static text)
    double seconds = 0;     ///< the exposed time this term adds to the step
    double busy_seconds = 0;  ///< the term's own time before overlap
    std::string_view how;   ///< the formula in words with its source (static text)
};

/// The step-time model's answer.
struct step_time_result {
    std::vector<step_term> terms;          ///< each term its own row; seconds add up to step_s
    double step_s = 0;
    double tokens_per_s_per_gpu = 0;
    double model_flops_per_step = 0;       ///< Megatron-LM num_floating_point_operations convention (no causal halving, no recompute)
    double hardware_flops_per_step = 0;    ///< executed: causal attention halved, recompute counted
    double mfu = 0;                        ///< model FLOPs / (step_s · gpus · dense bf16 peak)
    std::uint64_t microbatches = 0;        ///< m = global batch / (micro_batch · dp)
    std::string_view bottleneck;           ///< the name of the largest term
    diagnostics warnings;                  ///< the assumptions the figures rest on (step_time_caveats); set by the unprofiled overload
    diagnostics errors;
};

/// What a step time on `gpu` rests on, as warnings: with the default GEMM ceiling on a GPU kind whose
/// step times no published corpus has checked, that the ceiling is calibrated on A100 runs and how far
/// off it is on the one published H100 run memplan holds (tests/data/throughput/); none once the
/// request sets gemm_efficiency (the user's own calibration).
diagnostics step_time_caveats(const gpu_perf& gpu);
/// The same, and what the configuration's precision changes in them: fp8 training (train.weight_dtype
/// fp8) is timed at the fp8 peak with tensorwise casts where the GPU has fp8 tensor cores, at the bf16
/// rate where it has none; the answer says which.
diagnostics step_time_caveats(const gpu_perf& gpu, const estimate_config& c);

/// Forward FLOPs per token of the whole model, both conventions (the two add nothing else).
struct forward_flops {
    double model = 0;     ///< attention over the whole sequence (Megatron-LM convention)
    double executed = 0;  ///< causal attention halved (FlashAttention skips masked blocks), windows and chunks bounded
    double attention_core = 0;  ///< of `executed`, the QKᵀ and AV products (what selective recompute repeats)
    double linear = 0;    ///< of both, the weight GEMMs (projections, MLPs, active experts, logits)
};

/// Forward FLOPs per token at sequence length `seq_tokens`.
forward_flops forward_flops_per_token(const model_config& model, std::uint64_t seq_tokens);

/// What the time model reads of a model at one sequence length, computed once per search.
struct model_profile {
    bool ok = false;              ///< the architecture is complete (count_params succeeded)
    forward_flops flops;          ///< per token at the sequence length
    std::vector<linear_module> linears;  ///< linear_modules(model)
    double total_params = 0, expert_params = 0;
    double moe_layers = 0;        ///< layers whose MLP is a mixture of experts
};

/// The profile of `model` at `seq_tokens`.
model_profile profile_model(const model_config& model, std::uint64_t seq_tokens);

/// The time of one training step of `config` (training mode) on GPUs described by `gpu`;
/// `profile` is profile_model(config.model, config.train.seq_len). No warnings (the planner states them once).
step_time_result step_time(const estimate_config& config, const model_profile& profile, const gpu_perf& gpu,
                           const step_options& options);

/// The same, profiling the model itself; its answer carries step_time_caveats(gpu) as warnings.
step_time_result step_time(const estimate_config& config, const gpu_perf& gpu, const step_options& options);

}  // namespace memplan
