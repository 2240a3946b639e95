// The element widths of dtypes and the ZeRO stages of FSDP strategies (the enumerations' names:
// config/names.cpp).
#include "memplan/config/config.hpp"

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

}  // namespace memplan
