// ZeRO model-state arithmetic, exact in integers.
// Source: Rajbhandari et al. 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter
// Models", §5.1–5.3 and Figure 1: mixed-precision Adam keeps 2 (fp16 weight) + 2 (fp16 gradient)
// + 12 (fp32 master weight, momentum, variance) = 16 bytes per parameter (K = 12).
#include "memplan/memory/zero.hpp"

#include "base/checks.hpp"

namespace memplan {

using detail::u128;

namespace {
constexpr std::uint64_t weight_bytes = 2;     // fp16 weight (ZeRO §3.1)
constexpr std::uint64_t gradient_bytes = 2;   // fp16 gradient (ZeRO §3.1)
constexpr std::uint64_t optimizer_bytes = 12; // K = 12: fp32 master, momentum, variance (ZeRO §3.1)

void check_stage(std::int64_t stage, diagnostics& errors) {
    if (stage < 0 || stage > 3) errors.push_back({"stage", "must be 0, 1, 2 or 3"});
}

void check_gpus(std::uint64_t n_gpus, diagnostics& errors) {
    if (n_gpus < 1 || n_gpus > max_gpu_count)
        errors.push_back({"n_gpus", detail::integer_range_message(1, max_gpu_count)});
}
}  // namespace

outcome<bytes_per_param_fraction> zero_bytes_per_param(std::uint64_t n_gpus, std::int64_t stage) {
    outcome<bytes_per_param_fraction> out;
    check_gpus(n_gpus, out.errors);
    check_stage(stage, out.errors);
    if (!out.ok()) return out;
    const std::uint64_t n = n_gpus;
    // Each stage keeps some states whole and divides the rest by N; as one fraction over N:
    switch (stage) {
        case 0:  // P_os+g+p unsharded: 16Ψ (ZeRO Figure 1, "Baseline")
            out.value = {(weight_bytes + gradient_bytes + optimizer_bytes) * n, n};
            break;
        case 1:  // P_os: 4Ψ + 12Ψ/N (ZeRO Figure 1)
            out.value = {(weight_bytes + gradient_bytes) * n + optimizer_bytes, n};
            break;
        case 2:  // P_os+g: 2Ψ + 14Ψ/N (ZeRO Figure 1)
            out.value = {weight_bytes * n + gradient_bytes + optimizer_bytes, n};
            break;
        default:  // P_os+g+p: 16Ψ/N (ZeRO Figure 1)
            out.value = {weight_bytes + gradient_bytes + optimizer_bytes, n};
            break;
    }
    return out;
}

outcome<std::uint64_t> model_state_bytes(std::uint64_t n_params, std::uint64_t n_gpus, std::int64_t stage) {
    outcome<std::uint64_t> out;
    if (n_params > max_param_count)
        out.errors.push_back({"n_params", detail::integer_range_message(0, max_param_count)});
    auto per_param = zero_bytes_per_param(n_gpus, stage);
    out.errors.insert(out.errors.end(), per_param.errors.begin(), per_param.errors.end());
    if (!out.ok()) return out;
    // bytes = ceil(Ψ · numerator / denominator); Ψ ≤ 2^49 and numerator ≤ 16·2^20 fit in 128 bits.
    out.value = static_cast<std::uint64_t>(
        detail::ceil_div(u128{n_params} * per_param.value.numerator, per_param.value.denominator));
    return out;
}

outcome<std::uint64_t> max_params(std::uint64_t gpu_bytes, std::uint64_t n_gpus, std::int64_t stage) {
    outcome<std::uint64_t> out;
    if (gpu_bytes > max_exact_integer)
        out.errors.push_back({"gpu_bytes", detail::integer_range_message(0, max_exact_integer)});
    auto per_param = zero_bytes_per_param(n_gpus, stage);
    out.errors.insert(out.errors.end(), per_param.errors.begin(), per_param.errors.end());
    if (!out.ok()) return out;
    // ceil(Ψ·num/den) ≤ B  ⇔  Ψ·num/den ≤ B (B is an integer)  ⇔  Ψ ≤ B·den/num, so Ψ = floor(B·den/num).
    const u128 largest = u128{gpu_bytes} * per_param.value.denominator / per_param.value.numerator;
    if (largest > max_param_count) {
        out.errors.push_back({"gpu_bytes", "result exceeds " + detail::to_decimal(max_param_count) +
                                               " parameters, the largest count memplan supports"});
        return out;
    }
    out.value = static_cast<std::uint64_t>(largest);
    return out;
}

namespace {
// Stages arrive as doubles from JS and text; accept only 0, 1, 2, 3 with one wording ("stage must be 0, 1, 2 or 3").
std::int64_t checked_stage(double stage, diagnostics& errors) {
    if (stage == 0.0 || stage == 1.0 || stage == 2.0 || stage == 3.0) return static_cast<std::int64_t>(stage);
    errors.push_back({"stage", "must be 0, 1, 2 or 3"});
    return -1;
}
}  // namespace

outcome<std::uint64_t> model_state_bytes_checked(double n_params, double n_gpus, double stage) {
    outcome<std::uint64_t> out;
    const auto params = detail::checked_integer(n_params, "n_params", 0, max_param_count, out.errors);
    const auto gpus = detail::checked_integer(n_gpus, "n_gpus", 1, max_gpu_count, out.errors);
    const auto s = checked_stage(stage, out.errors);
    if (!out.ok()) return out;
    return model_state_bytes(params, gpus, s);
}

outcome<std::uint64_t> max_params_checked(double gpu_bytes, double n_gpus, double stage) {
    outcome<std::uint64_t> out;
    const auto bytes = detail::checked_integer(gpu_bytes, "gpu_bytes", 0, max_exact_integer, out.errors);
    const auto gpus = detail::checked_integer(n_gpus, "n_gpus", 1, max_gpu_count, out.errors);
    const auto s = checked_stage(stage, out.errors);
    if (!out.ok()) return out;
    return max_params(bytes, gpus, s);
}

}  // namespace memplan
