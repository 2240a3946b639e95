// memplan — internal: what a serving engine is to memplan (not public API). The budget step all
// engines share (serving.cpp) hands each engine the GPU's layers and the memory it does not give the
// KV cache; the engine (vllm.cpp, sglang.cpp, trtllm.cpp, registered in engines.cpp) sizes its pool
// as its source does.
#pragma once

#include <cstdint>
#include <vector>

#include "base/bisect.hpp"  // largest_true, for the engines' own searches
#include "base/checks.hpp"
#include "memplan/config/config.hpp"
#include "memplan/memory/result.hpp"

namespace memplan::detail {

__extension__ typedef __int128 i128;

/// One layer of the GPU as the engines see it: its kind, KV bytes per token and window.
struct layer_spec {
    attention_kind kind;
    u128 token_bytes;   ///< K and V (MLA: the latent) of one token in this layer on this GPU
    u128 window;        ///< sliding window in tokens (sliding layers)
    u128 count;         ///< layers of this spec on the GPU
    u128 state_bytes = 0;  ///< linear attention / Mamba: the engine's unpadded state page of one sequence
    bool draft = false;    ///< a layer of the speculative-decoding draft (a draft model or the MTP modules)
    /// Bytes per token SGLang's profiler counts for this layer where they differ from what its pool stores
    /// (the sparse-attention MLA layers of DeepSeek-V3.2 under an fp8 cache); 0 = token_bytes.
    u128 profiled_token_bytes = 0;
};

/// What the budget step gives an engine: the GPU's layers and the memory counted outside the KV cache.
struct engine_inputs {
    const estimate_config& config;
    const std::vector<layer_spec>& layers;
    u128 total_bytes;          ///< the GPU's memory (gpu.memory_bytes)
    u128 weights_bytes;        ///< target and draft weights on the GPU
    u128 activation_bytes;     ///< activation peak: measured, or the modelled profiling run
    u128 non_torch_bytes;      ///< memory outside PyTorch's allocator: measured or assumed
    u128 cuda_graph_bytes;     ///< CUDA-graph memory counted before the pool: measured or the release's estimate
    u128 token_bytes;          ///< KV bytes of one token over every layer of the GPU
    u128 profiled_token_bytes; ///< of one token over every layer as SGLang's profiler counts them (layer_spec)
    u128 draft_token_bytes;    ///< of which the draft's layers
    u128 max_model_len;        ///< the longest request the engine must hold
    std::uint64_t batched_tokens;  ///< tokens of one scheduler step (the profiling run)
};

/// vLLM's non-KV memory predicted from the settings (vllm_profile.cpp), each term's model replaced by
/// its measured override where given (serving.cpp applies the overrides).
struct vllm_overheads {
    u128 activation = 0;     ///< the profiling run's torch peak: max(forward + MoE routing, sampler)
    u128 non_torch = 0;      ///< CUDA runtime, NCCL and custom all-reduce buffers
    u128 cuda_graphs = 0;    ///< the CUDA-graph estimate of releases that subtract it, or the measured figure
    u128 weights_extra = 0;  ///< vocabulary padding rows and the rotary table beyond memplan's weight count
};

/// The terms above for `c` with a profiling run of `tokens` tokens and `seqs` sequences on a stage that
/// holds the embedding (`first_stage`) and the output head and sampler (`last_stage`); appends each
/// term's rows to s.breakdown, sets s.release, and the assumptions to `warnings`.
vllm_overheads vllm_predicted_overheads(const estimate_config& c, std::uint64_t tokens, std::uint64_t seqs,
                                        bool first_stage, bool last_stage, serving_result& s, diagnostics& warnings);

/// One serving engine: its names, the upstream source it reproduces, and its functions.
struct engine {
    serving_engine id;
    const char* label;    ///< its name in messages ("vLLM")
    const char* version;  ///< the upstream source whose arithmetic is reproduced (serving_result::engine_version)
    /// The share of the GPU it is given, in thousandths (its infer field and that field's name);
    /// memplan analyze suggests raising it to 950.
    std::uint64_t infer_config::*share_permille;
    const char* share_field;
    const char* share_flag;  ///< the engine's own name of that share ("--gpu-memory-utilization")
    const char* share_of;    ///< what the share is a fraction of, in words
    const char* budget;      ///< how the engine forms its KV budget, with the upstream function
    /// Its state page of one linear-attention or Mamba layer on one tp rank; null: its pools for such
    /// layers are not modelled, and models with them are refused.
    bool (*state_page)(const model_config& model, attention_kind kind, std::uint64_t tp, dtype state, u128& out,
                       diagnostics& errors);
    /// True when it pages the MTP modules' attention layers with the target's as memplan counts them
    /// (vLLM); otherwise a warning says that its own draft pool sizing is not reproduced.
    bool pages_mtp_layers;
    /// True when its non-KV memory is predicted by vllm_predicted_overheads (vLLM); otherwise by the
    /// generic model of serving.cpp.
    bool predicts_overheads;
    /// True when its KV budget has the activation peak taken out (vLLM, TensorRT-LLM); SGLang's lives in
    /// the reserved share, so its non-torch figure alone makes its pool measured.
    bool subtracts_activation;
    /// The worst over-prediction of KV-cache tokens on its held-out public start-up logs, in thousandths
    /// rounded up
    /// (docs/serving.md: vLLM's 2026-12 set, SGLang's tests/data/engine-logs-sglang; the corpus tests
    /// check that no held-out log exceeds it), and how many logs; 0 logs: its figures were never checked
    /// against a public log. serving.cpp's serving_for turns it into the figure a plan can count on.
    std::uint64_t held_out_high_permille;
    std::uint64_t held_out_logs;
    /// Sizes the KV pool from `in` into `s` (the budget step's fields filled in); errors replace the result.
    serving_result (*size_pool)(const engine_inputs& in, serving_result s, diagnostics& warnings, diagnostics& errors);
};

/// The result of a pool of `blocks` pages of `page` tokens (in.token_bytes per token, in.draft_token_bytes
/// of them the draft's): its bytes and capacity; one max_model_len request needs ⌈len / page⌉ pages
/// (maximum concurrency: blocks over that); the engine starts when it has a page, and a warning names
/// infer.max_model_len when one request cannot reach it (serving.cpp).
void token_pool_result(const engine_inputs& in, u128 blocks, u128 page, serving_result& s, diagnostics& warnings);

/// ⌈a · permille / 1000⌉ of a byte count (vLLM: math.ceil(total × gpu_memory_utilization),
/// vllm/v1/worker/utils.py request_memory).
inline u128 permille_up(u128 bytes, std::uint64_t permille) { return ceil_div(bytes * permille, 1000); }

/// A byte or token count for the result, at most 2^53.
inline std::uint64_t to_u64(u128 v) { return v > max_exact_integer ? max_exact_integer : static_cast<std::uint64_t>(v); }

}  // namespace memplan::detail
