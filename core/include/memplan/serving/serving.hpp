// memplan — serving as the engines count it: the KV cache pool vLLM, SGLang and TensorRT-LLM size at
// start-up, whether one max_model_len request fits (the engine starts), and how many fit at once.
// The arithmetic of each engine is reproduced from its source (docs/serving.md names file and commit;
// each engine's own file, core/src/serving/vllm.cpp, sglang.cpp, trtllm.cpp, holds it and its
// upstream version, the result's engine_version; serving.cpp the step they share).
#pragma once

#include <cstdint>
#include <string>

#include "memplan/config/config.hpp"
#include "memplan/memory/estimate.hpp"
#include "memplan/base/types.hpp"

namespace memplan {

/// Non-torch memory assumed when infer.non_torch_bytes is not given: 0.5 GiB (vLLM logs 0.10–0.35 GiB
/// on one GPU and more with NCCL buffers under tensor parallelism).
constexpr std::uint64_t assumed_non_torch_bytes = 536870912ULL;

/// vLLM V1: the CUDA runtime, kernel-module and cuBLAS part of the non-torch increase on one GPU, assumed
/// when infer.non_torch_bytes is not given: 0.5 GiB, fitted to the one-GPU V1 logs of
/// tests/data/engine-logs (V0 printed 0.10–0.35 GiB, measured from a later baseline; vLLM 0.11 and 0.19 use
/// the 0.13 and 0.25 GiB their H100 logs print instead); NCCL and custom all-reduce buffers are added from
/// tp and pp (core/src/serving/vllm_profile.cpp).
constexpr std::uint64_t assumed_runtime_non_torch_bytes = 536870912ULL;

/// vLLM from 0.21: the CUDA-graph estimate assumed when infer.cuda_graph_bytes is not given (0.5 GiB;
/// public logs print "Estimated CUDA graph memory" of 0.13–0.52 GiB on one GPU, more for large MoE).
constexpr std::uint64_t assumed_cuda_graph_bytes = 536870912ULL;

/// The engine's view of one GPU for `config` (infer mode, infer.engine set, gpu.memory_bytes given),
/// using `plain` (estimate() of the same configuration) for the per-GPU weights and the stage's layers.
/// Assumptions are appended to `warnings`, each naming its field; errors (a draft preset that cannot
/// be read, a layer kind the engine arithmetic does not cover) to `errors`.
serving_result serving_for(const estimate_config& config, const estimate_result& plain, diagnostics& warnings,
                           diagnostics& errors);

/// estimate_memory, then, in inference under infer.engine, the engine's view of the same GPU
/// (result.serving; its assumptions among the warnings, its errors replacing the result). A draft
/// model is read from infer.draft_model, which the reader resolves from infer.draft_preset.
estimate_result estimate_with_engine(const estimate_config& config, const estimate_options& options = {});

/// What memplan says about one serving engine it reproduces (its entry in core/src/serving/).
struct engine_description {
    const char* id;           ///< its infer.engine name ("vllm")
    const char* label;        ///< as its project writes it ("vLLM")
    const char* version;      ///< the upstream source whose arithmetic is reproduced
    const char* share_field;  ///< the configuration field of the GPU share it is given (thousandths)
    const char* share_flag;   ///< the engine's own name of that share ("--gpu-memory-utilization")
    const char* share_of;     ///< what the share is a fraction of, in words
    const char* budget;       ///< how it forms its KV budget, with the upstream function
};

/// Every engine memplan reproduces, in the order of serving_engine.
std::vector<engine_description> engine_descriptions();

/// One term of the budget an engine divides into KV pages: its serving_result field, its label and
/// how it is counted (docs/serving.md).
struct budget_term {
    const char* key;
    const char* label;
    const char* formula;
};

/// The terms of serving_result's budget, in the order the engines subtract them.
const std::vector<budget_term>& budget_terms();

/// Bytes shown as GiB with two decimals, rounded half up ("11.12"), as the engines log them.
std::string gib_text(std::uint64_t bytes);

}  // namespace memplan
