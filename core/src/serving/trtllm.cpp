// TensorRT-LLM's KV cache pool (docs/serving.md): calculateMaxNumBlocks's share of the memory
// left after loading, its blocks, and whether the engine starts. Registered in engines.cpp.
#include <algorithm>
#include <vector>

#include "memplan/serving/serving.hpp"
#include "serving/engine.hpp"

namespace memplan::detail {

namespace {
/// TensorRT-LLM's pool for the budget step's inputs.
serving_result trtllm_size_pool(const engine_inputs& in, serving_result s, diagnostics& warnings, diagnostics&) {
    const infer_config& inf = in.config.infer;
    const std::vector<layer_spec>& layers = in.layers;
    const u128 total = in.total_bytes, weights = in.weights_bytes, activation = in.activation_bytes;
    const u128 non_torch = in.non_torch_bytes, per_token = in.token_bytes;
    // TensorRT-LLM (kvCacheManager.cpp calculateMaxNumBlocks): allotted = free memory after loading ×
    // free_gpu_memory_fraction; maxTokens = allotted / bytes per token (capped by max_tokens);
    // blocks = ⌈maxTokens / tokens_per_block⌉. The weights, the engine's activation and runtime
    // buffers and non-torch memory are allocated before the KV cache is sized.
    const std::uint64_t block = inf.block_size != 0 ? inf.block_size : 32;  // tokens_per_block default
    s.block_size = block;
    s.activation_peak_bytes = to_u64(activation);
    const i128 free_after_load = static_cast<i128>(total) - static_cast<i128>(weights + activation + non_torch);
    const u128 allotted = free_after_load > 0 ? static_cast<u128>(free_after_load) * inf.free_gpu_memory_fraction_permille / 1000 : 0;
    s.budget_bytes = to_u64(allotted);
    bool sliding = false;
    for (const layer_spec& l : layers) sliding = sliding || l.kind == attention_kind::sliding;
    if (sliding)
        // kvCacheManager.cpp sizes the memory as if every layer were full attention (calculateMaxNumBlocks;
        // its calculateWindowSizeToShare notes it is not used there), then splits the blocks between the
        // window sizes in proportion to window × per-token bytes: that split is what is not modelled.
        warnings.push_back({"model.sliding_window", "TensorRT-LLM's per-window pools are not modelled: the memory is "
                                                    "sized as the engine sizes it (every layer as full attention), "
                                                    "but its split of blocks between window sizes "
                                                    "(calculateWindowSizeToShare) is not, so sliding-window layers "
                                                    "are counted as full attention (fewer tokens than the engine)"});
    u128 tokens = allotted / per_token;
    if (inf.max_tokens != 0) tokens = std::min<u128>(tokens, inf.max_tokens);
    const u128 blocks = ceil_div(tokens, block);
    // getMaxCapacityBatchSize: allotted blocks / ⌈sequence / tokens_per_block⌉.
    token_pool_result(in, blocks, block, s, warnings);
    if (!s.starts)
        s.refusal = "No memory is left for the KV cache after loading: weights, runtime buffers and non-torch memory (" +
                    gib_text(to_u64(weights + activation + non_torch)) + " GiB) fill the GPU.";
    return s;
}
}  // namespace

/// The entry engines.cpp registers.
extern const engine trtllm_engine{serving_engine::trtllm, "TensorRT-LLM",
                                  "TensorRT-LLM, cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp at commit b35ac1b6",
                                  &infer_config::free_gpu_memory_fraction_permille, "infer.free_gpu_memory_fraction_permille",
                                  "free_gpu_memory_fraction", "of the memory free after loading becomes KV cache",
                                  "(Free after loading) × free_gpu_memory_fraction; "
                                  "cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp calculateMaxNumBlocks.",
                                  /*state_page=*/nullptr, /*pages_mtp_layers=*/false, /*predicts_overheads=*/false, /*subtracts_activation=*/true, /*held_out_high_permille=*/0, /*held_out_logs=*/0, trtllm_size_pool};

}  // namespace memplan::detail
