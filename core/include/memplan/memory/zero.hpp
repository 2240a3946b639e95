// memplan — ZeRO model-state arithmetic (Rajbhandari et al. 2020, "ZeRO: Memory Optimizations
// Toward Training Trillion Parameter Models", §5 and Figure 1), exact in integers.
#pragma once

#include <cstdint>

#include "memplan/base/types.hpp"

namespace memplan {

/// Model-state bytes per parameter as the exact fraction `numerator / denominator`.
struct bytes_per_param_fraction {
    std::uint64_t numerator = 0;
    std::uint64_t denominator = 1;
};

/// Bytes per parameter of mixed-precision Adam for a ZeRO stage over `n_gpus` data-parallel GPUs:
/// 16, 4 + 12/N, 2 + 14/N, 16/N for stages 0..3. Errors for a stage outside 0..3 or N outside [1, 2^20].
outcome<bytes_per_param_fraction> zero_bytes_per_param(std::uint64_t n_gpus, std::int64_t stage);

/// Model-state bytes per GPU for `n_params` parameters, rounded up to a whole byte.
outcome<std::uint64_t> model_state_bytes(std::uint64_t n_params, std::uint64_t n_gpus, std::int64_t stage);

/// Largest parameter count whose model states fit in `gpu_bytes` per GPU (exact, rounded down).
outcome<std::uint64_t> max_params(std::uint64_t gpu_bytes, std::uint64_t n_gpus, std::int64_t stage);

/// Same as model_state_bytes for inputs that arrive as JS numbers or parsed text: checks that each
/// is finite, integral and in range before computing.
outcome<std::uint64_t> model_state_bytes_checked(double n_params, double n_gpus, double stage);

/// Same as max_params for inputs that arrive as JS numbers or parsed text.
outcome<std::uint64_t> max_params_checked(double gpu_bytes, double n_gpus, double stage);

}  // namespace memplan
