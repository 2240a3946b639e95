// The element widths of dtypes, the ZeRO stages of FSDP strategies (the enumerations' names:
// config/names.cpp) and the prefill chunk of an inference estimate.
#include "memplan/config/config.hpp"

#include "memplan/base/limits.hpp"

namespace memplan {

std::int64_t zero_stage_of(fsdp_strategy strategy) {
    switch (strategy) {  // Zhao et al. 2023, §3.2: FULL_SHARD ~ ZeRO-3, SHARD_GRAD_OP ~ ZeRO-2
        case fsdp_strategy::full_shard:
        case fsdp_strategy::hybrid_shard: return 3;
        case fsdp_strategy::shard_grad_op:
        case fsdp_strategy::hybrid_shard_zero2: return 2;
        case fsdp_strategy::no_shard: return 0;
        case fsdp_strategy::unset: break;
    }
    return -1;
}

std::uint64_t dtype_bits(dtype type) {
    switch (type) {
        case dtype::fp32: return 32;
        case dtype::bf16:
        case dtype::fp16: return 16;
        case dtype::fp8:
        case dtype::int8: return 8;
        case dtype::int4: return 4;
    }
    return 32;
}

std::uint64_t default_max_num_batched_tokens(std::uint64_t gpu_memory_bytes) {
    // vllm/engine/arg_utils.py EngineArgs._set_default_args (vllm-project/vllm 99d7eb5d): OPENAI_API_SERVER
    // 8192 when device_memory >= 70 * GiB_bytes (not an A100), else 2048.
    return gpu_memory_bytes >= 70 * bytes_per_gib ? 8192 : 2048;
}

std::uint64_t prefill_chunk_tokens(const estimate_config& c) {
    if (!c.infer.chunked_prefill) return 0;
    return c.infer.max_num_batched_tokens != 0 ? c.infer.max_num_batched_tokens
                                               : default_max_num_batched_tokens(c.gpu_memory_bytes);
}

}  // namespace memplan
