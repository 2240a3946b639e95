// memplan — the answer of one estimate: the named parts of the most loaded GPU's memory, the figures
// behind them, the fit verdict and, under a serving engine, its start-up arithmetic. Plain structs;
// memory/estimate.hpp computes them, serving/serving.hpp adds the engine's part.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "memplan/base/types.hpp"
#include "memplan/config/config.hpp"
#include "memplan/memory/activations.hpp"
#include "memplan/model/parts.hpp"

namespace memplan {

/// The named parts of one GPU's memory; total is their sum.
struct memory_breakdown {
    std::uint64_t weights = 0;
    std::uint64_t gradients = 0;
    std::uint64_t optimizer_states = 0;
    std::uint64_t activations = 0;
    std::uint64_t logits = 0;
    std::uint64_t communication = 0;
    std::uint64_t kv_cache = 0;
    std::uint64_t dequant_workspace = 0;  ///< a quantized base's largest layer weight dequantized to bf16, plus DoRA's dense update
    std::uint64_t misc = 0;
    std::uint64_t total = 0;
};

/// The phases of one training step, in the order they happen.
enum class step_phase { forward_end, loss_backward, layer_backward, optimizer_step };
constexpr const char* step_phase_names[] = {"forward_end", "loss_backward", "layer_backward", "optimizer_step"};

/// Bytes live on the reported GPU at each phase of a training step (memory/train_memory.cpp).
/// per_gpu.total is the steady-state sum of every part at once; these are what is allocated at a
/// given moment, and peak_bytes is their largest. Present in training only.
struct step_phases {
    bool present = false;
    std::uint64_t forward_end_bytes = 0;     ///< end of forward: every kept activation and the logits with the loss's fp32 copy
    std::uint64_t loss_backward_bytes = 0;   ///< start of backward: the same plus the loss's fp32 gradients of the logits
    std::uint64_t layer_backward_bytes = 0;  ///< backward of the last-computed layer: kept activations, a recomputed layer's working set, its gradients in flight
    std::uint64_t optimizer_step_bytes = 0;  ///< optimizer step: model states plus the update's temporaries (activations freed)
    std::uint64_t optimizer_temp_bytes = 0;  ///< of which the update's temporaries (foreach Adam's sqrt of the second moment)
    std::uint64_t peak_bytes = 0;            ///< the largest of the four
    step_phase peak = step_phase::forward_end;  ///< the phase that reaches peak_bytes (the first of equals)
    /// The caching allocator's reserved peak for peak_bytes, as a range (memplan/memory/frameworks.hpp
    /// reserved_peak_range): what torch.cuda.max_memory_reserved() would print.
    std::uint64_t reserved_low_bytes = 0;
    std::uint64_t reserved_typical_bytes = 0;  ///< at the median ratio of the public measurements
    std::uint64_t reserved_high_bytes = 0;
    train_framework framework = train_framework::none;  ///< train.framework: whose conventions applied
};

/// Figures behind the breakdown, for display and checking.
struct estimate_details {
    std::uint64_t params_active = 0;       ///< parameters used per token (MoE: top-k experts)
    std::uint64_t params_on_gpu = 0;       ///< parameters of the reported stage's tp/ep slice (before ZeRO)
    std::uint64_t stage = 0;               ///< pipeline stage reported (0 = first), the most loaded one
    std::uint64_t layers_on_gpu = 0;       ///< transformer layers of that stage
    std::uint64_t microbatches_in_flight = 0;  ///< micro-batches whose activations that stage holds
    std::uint64_t layer_activation_bytes = 0;  ///< activations one layer keeps for one micro-batch
    std::uint64_t quantization_overhead_bytes = 0;  ///< group scales and zero points included in weights
    /// KV bytes one more token of one sequence adds on this GPU over the layers that cache every token
    /// (full, MLA, NoPE/global); sliding-window and chunked layers are capped at their window and appear
    /// in per_gpu.kv_cache at the chosen context.
    std::uint64_t kv_cache_bytes_per_token = 0;
    /// Inference: the prefill the activations assume. prefill_chunk_tokens: the chunk of a chunked
    /// prefill (infer.max_num_batched_tokens or vLLM's default), 0 when the whole batch is prefilled in
    /// one pass (infer.chunked_prefill off); prefill_pass_tokens: tokens of one pass on this GPU (at most
    /// batch × prefill tokens).
    std::uint64_t prefill_chunk_tokens = 0;
    std::uint64_t prefill_pass_tokens = 0;
    // Model structure (arch.cpp, params.cpp); written by write_model_details (report/json.cpp).
    model_param_parts param_parts;                  ///< the whole model's parameters by place
    layer_kind_counts layer_kinds;                  ///< layers of each attention and MLP kind
    std::uint64_t state_bytes_per_sequence = 0;     ///< linear-attention / Mamba state of one sequence on this GPU
    std::vector<std::pair<std::string, std::uint64_t>> weight_bytes_by_dtype;  ///< this GPU's weights by storage type
    std::uint64_t host_bytes_per_node = 0; ///< CPU RAM for offloaded states, per node
    std::uint64_t nvme_bytes_per_node = 0; ///< NVMe space for offloaded states, per node
    std::vector<activation_tensor> layer_activations;  ///< tensors one layer keeps for one micro-batch (training)
    std::uint64_t params_trainable = 0;    ///< parameters that receive gradients (whole model): all, or adapters + modules_to_save
    std::uint64_t adapter_params = 0;      ///< adapter parameters (whole model); 0 without an adapter
    std::uint64_t base_weight_bytes = 0;   ///< frozen base weights on this GPU (adapters; included in per_gpu.weights)
    std::uint64_t adapter_bytes = 0;       ///< trainable adapter and modules_to_save weights on this GPU (in per_gpu.weights)
    /// bitsandbytes paged optimizer states (train.paged_optimizer) on this GPU: CUDA unified memory
    /// (cudaMallocManaged), outside PyTorch's caching allocator, so in neither per_gpu nor phases (what
    /// torch.cuda.max_memory_allocated / max_memory_reserved print). Of them:
    std::uint64_t paged_optimizer_bytes = 0;
    /// resident on the GPU: what the card has free beside PyTorch's reserved peak (phases.reserved_typical_bytes,
    /// the CUDA context included), as nvidia-smi counts it; all of them when no GPU size is given;
    std::uint64_t paged_optimizer_resident_bytes = 0;
    /// the rest, evicted to host memory (in host_bytes_per_node) and moved over PCIe at every optimizer step.
    std::uint64_t paged_optimizer_host_bytes = 0;
    std::uint64_t offloaded_activation_bytes = 0;  ///< checkpointed activations kept in host memory, per GPU
    step_phases phases;                    ///< live bytes at each phase of a training step (training only)
};

/// A serving engine's start-up arithmetic on one GPU (memplan/serving.hpp); present only when
/// infer.engine is set. Every byte count is per GPU of the most loaded pipeline stage.
/// One named part of a serving budget term, as the engine would count it (the profiling run's forward and
/// sampler, the non-torch memory's CUDA context, NCCL and all-reduce buffers, the CUDA-graph estimate,
/// the vocabulary padding of the weights): what it is, its bytes and where the formula comes from.
struct serving_row {
    std::string term;    ///< the budget term it details ("activation_peak_bytes", "non_torch_bytes", …)
    std::string label;   ///< "profiling peak: forward at 8,192 tokens"
    std::uint64_t bytes = 0;
    std::string source;  ///< the upstream file (and version) or derivation of the formula
    bool measured = false;  ///< the term's measured override replaces this row's model
};

struct serving_result {
    bool present = false;
    std::string engine;                  ///< "vllm", "sglang", "trtllm"
    std::string engine_label;            ///< its name in messages ("vLLM")
    std::string engine_version;          ///< the upstream source whose arithmetic is reproduced
    std::string release;                 ///< vLLM: the release line assumed (infer.engine_version); other engines: empty
    std::string release_modelled;        ///< vLLM: the modelled line whose figures are used (modelled_vllm_line); equal to release where that line is modelled
    std::uint64_t budget_bytes = 0;      ///< what the engine may use (vLLM: total × utilization; SGLang: total × fraction; TRT-LLM: free × fraction)
    std::uint64_t weights_bytes = 0;     ///< weights counted against the budget (target + draft)
    std::uint64_t draft_weights_bytes = 0;   ///< of which the speculative-decoding draft model
    std::uint64_t activation_peak_bytes = 0; ///< activation peak counted (vLLM profiling run; TRT-LLM runtime buffers)
    std::uint64_t non_torch_bytes = 0;   ///< memory outside PyTorch's allocator counted
    std::uint64_t cuda_graph_bytes = 0;  ///< CUDA-graph memory counted
    std::uint64_t kv_cache_bytes = 0;    ///< the KV pool: num_blocks × bytes per block
    std::uint64_t draft_kv_cache_bytes = 0;  ///< of which the draft's layers (draft model or MTP modules)
    std::uint64_t page_bytes = 0;        ///< bytes of one block (page) over every layer of the GPU (SGLang: one token)
    std::uint64_t block_size = 0;        ///< tokens per block
    std::uint64_t num_blocks = 0;
    std::uint64_t kv_capacity_tokens = 0;    ///< tokens the pool holds (as the engine logs it)
    std::uint64_t cpu_blocks = 0;        ///< vLLM V0 swap blocks (infer.swap_space_bytes / block bytes)
    std::uint64_t max_model_len = 0;     ///< the longest request configured
    std::uint64_t blocks_per_request = 0;    ///< blocks one max_model_len request needs
    std::uint64_t max_concurrency_numerator = 0;    ///< max concurrency = numerator / denominator requests
    std::uint64_t max_concurrency_denominator = 1;  ///< of max_model_len tokens (vLLM's "Maximum concurrency")
    std::uint64_t replicas = 1;          ///< data-parallel replicas (each with its own pool)
    bool starts = false;                 ///< the engine starts with this max_model_len
    std::string refusal;                 ///< why it does not (empty when it starts)
    std::uint64_t max_model_len_that_starts = 0;  ///< longest max_model_len that starts (≤ 2^24); 0 = none
    std::uint64_t state_page_bytes = 0;  ///< vLLM: one linear-attention/Mamba layer's state of one sequence (0: none)
    std::uint64_t state_page_padded_bytes = 0;  ///< that page padded to the attention page (every layer's page)
    std::uint64_t swa_capacity_tokens = 0;      ///< SGLang: tokens of the separate sliding-window pool (0: none)
    std::vector<serving_row> breakdown;  ///< the modelled parts of the budget terms (vLLM), in budget order
};

/// The answer to one estimate_config.
struct estimate_result {
    std::uint64_t params = 0;          ///< parameters of the whole model
    std::uint64_t data_parallel = 0;   ///< gpus / (tp · pp · cp)
    memory_breakdown per_gpu;
    estimate_details details;
    bool has_capacity = false;         ///< a GPU size was given
    bool fits = false;                 ///< total ≤ capacity
    std::uint64_t capacity_bytes = 0;  ///< the GPU size given (gpu.memory_bytes)
    /// What the verdict compares with the GPU: per_gpu.total, or in training the larger of it and the
    /// step's peak (details.phases.peak_bytes), since a step runs out of memory at its peak. Set with or
    /// without a GPU size; the analyses' per-GPU figures (ZeRO stages, the GPU-count sweep, the plan's
    /// layouts, the models that fit) are this figure too, so that no view shows another number beside a verdict.
    std::uint64_t needed_bytes = 0;
    std::uint64_t headroom_bytes = 0;  ///< capacity − needed when it fits
    std::uint64_t shortfall_bytes = 0; ///< needed − capacity when it does not
    serving_result serving;            ///< serving-engine arithmetic (infer.engine set, with a capacity)
    diagnostics warnings;
    diagnostics errors;
};

/// The fit verdict every view gives: with a serving engine chosen, whether the engine starts (it sizes its KV
/// pool from the GPU's memory and refuses to start when one max_model_len request does not fit, whatever the
/// plain per-GPU sum says); otherwise whether the needed bytes fit the GPU.
inline bool verdict_fits(const estimate_result& r) { return r.serving.present ? r.serving.starts : r.fits; }

}  // namespace memplan
