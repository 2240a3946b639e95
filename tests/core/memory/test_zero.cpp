// ZeRO model-state arithmetic: worked examples of the ZeRO formulas (Rajbhandari et al. 2020, §5), ZeRO Table 1, exact inverse, errors.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>

#include "memplan/memory/zero.hpp"

using namespace memplan;

namespace {
std::uint64_t bytes(std::uint64_t params, std::uint64_t gpus, std::int64_t stage) {
    const auto r = model_state_bytes(params, gpus, stage);
    REQUIRE(r.ok());
    return r.value;
}
std::uint64_t largest(std::uint64_t gpu_bytes, std::uint64_t gpus, std::int64_t stage) {
    const auto r = max_params(gpu_bytes, gpus, stage);
    REQUIRE(r.ok());
    return r.value;
}
}  // namespace

TEST_CASE("worked example: 7e9 parameters on 8 GPUs", "[zero]") {
    // 16Ψ, 4Ψ + 12Ψ/N, 2Ψ + 14Ψ/N, 16Ψ/N (ZeRO §5.1-5.3) at Ψ = 7e9, N = 8: 112 / 38.5 / 26.25 / 14 GB (1e9 bytes).
    CHECK(bytes(7000000000, 8, 0) == 112000000000ULL);
    CHECK(bytes(7000000000, 8, 1) == 38500000000ULL);
    CHECK(bytes(7000000000, 8, 2) == 26250000000ULL);
    CHECK(bytes(7000000000, 8, 3) == 14000000000ULL);
}

TEST_CASE("inverse example: 80 GB per GPU on 8 GPUs", "[zero]") {
    // 80e9 / 16 = 5e9 (stage 0); 80e9 / (4 + 12/8) = 14,545,454,545.45… → 14,545,454,545 (stage 1); 80e9 · 8 / 16 = 40e9 (stage 3).
    CHECK(largest(80000000000ULL, 8, 0) == 5000000000ULL);
    CHECK(largest(80000000000ULL, 8, 1) == 14545454545ULL);
    CHECK(largest(80000000000ULL, 8, 2) == 21333333333ULL);  // 80e9 / (2 + 14/8) = 21.33e9
    CHECK(largest(80000000000ULL, 8, 3) == 40000000000ULL);
}

TEST_CASE("ZeRO paper Table 1: 7.5B model for DP degrees 1 to 1024", "[zero][paper]") {
    // Rajbhandari et al. 2020, Table 1, "7.5B Model (GB)" columns P_os, P_os+g, P_os+g+p, values as printed.
    struct row { std::uint64_t dp; double os, os_g, os_g_p; };
    auto r = GENERATE(table<std::uint64_t, double, double, double>({
        {1, 120, 120, 120},
        {4, 52.5, 41.3, 30},
        {16, 35.6, 21.6, 7.5},
        {64, 31.4, 16.6, 1.88},
        {256, 30.4, 15.4, 0.47},
        {1024, 30.1, 15.1, 0.12},
    }));
    const std::uint64_t dp = std::get<0>(r);
    CAPTURE(dp);
    const std::uint64_t psi = 7500000000ULL;
    // The table rounds to one decimal (two below 2 GB); compare at that precision.
    CHECK(static_cast<double>(bytes(psi, dp, 1)) / 1e9 == Approx(std::get<1>(r)).margin(0.05));
    CHECK(static_cast<double>(bytes(psi, dp, 2)) / 1e9 == Approx(std::get<2>(r)).margin(0.05));
    CHECK(static_cast<double>(bytes(psi, dp, 3)) / 1e9 == Approx(std::get<3>(r)).margin(0.005));
    CHECK(bytes(psi, dp, 0) == 120000000000ULL);  // baseline column, 16Ψ
}

TEST_CASE("max_params is exact: the answer fits and one more parameter does not", "[zero][inverse]") {
    std::mt19937_64 rng(20261130);
    std::uniform_int_distribution<std::uint64_t> gpu_bytes(0, max_exact_integer);
    std::uniform_int_distribution<std::uint64_t> gpus_small(1, 4096);
    std::uniform_int_distribution<std::uint64_t> gpus_any(1, max_gpu_count);
    int checked = 0;
    for (int i = 0; i < 20000; ++i) {
        const std::uint64_t b = (i % 3 == 0) ? gpu_bytes(rng) % 200000000000ULL : gpu_bytes(rng);
        const std::uint64_t n = (i % 2 == 0) ? gpus_small(rng) : gpus_any(rng);
        const auto stage = static_cast<std::int64_t>(i % 4);
        const auto answer = max_params(b, n, stage);
        if (!answer.ok()) {  // only a result beyond 2^49 parameters is refused
            REQUIRE(answer.errors.front().field == "gpu_bytes");
            continue;
        }
        CAPTURE(b, n, stage, answer.value);
        REQUIRE(bytes(answer.value, n, stage) <= b);
        if (answer.value < max_param_count) REQUIRE(bytes(answer.value + 1, n, stage) > b);
        ++checked;
    }
    CHECK(checked > 8000);  // the rest ask for more than 2^49 parameters
}

TEST_CASE("max_params holds at the edges of its range", "[zero][inverse]") {
    CHECK(largest(0, 1, 0) == 0);
    CHECK(largest(15, 1, 0) == 0);
    CHECK(largest(16, 1, 0) == 1);
    CHECK(largest(max_exact_integer, 1, 0) == max_exact_integer / 16);
    // 2^53 bytes over 2^20 GPUs at stage 3 would be 2^69 parameters: refused, not wrapped.
    const auto huge = max_params(max_exact_integer, max_gpu_count, 3);
    REQUIRE_FALSE(huge.ok());
    CHECK(huge.errors.front().field == "gpu_bytes");
    // Stage 1 at 2^20 GPUs with 2^50 bytes: B·N/(4N + 12) is just below 2^48 and exact.
    const std::uint64_t b = max_exact_integer / 8;
    const auto stage1 = largest(b, max_gpu_count, 1);
    CHECK(stage1 == 281474171406591ULL);  // floor(2^50 · 2^20 / (4 · 2^20 + 12))
    CHECK(bytes(stage1, max_gpu_count, 1) <= b);
    CHECK(bytes(stage1 + 1, max_gpu_count, 1) > b);
}

TEST_CASE("per-GPU model states never rise with more GPUs, and stage k+1 is never above stage k", "[zero][invariant]") {
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<std::uint64_t> params(0, max_param_count);
    for (int i = 0; i < 2000; ++i) {
        const std::uint64_t psi = params(rng);
        std::uint64_t previous[4] = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX};
        for (std::uint64_t n = 1; n <= max_gpu_count; n *= 2) {
            std::uint64_t above = UINT64_MAX;
            for (std::int64_t s = 0; s <= 3; ++s) {
                const std::uint64_t b = bytes(psi, n, s);
                CAPTURE(psi, n, s);
                REQUIRE(b <= previous[s]);
                REQUIRE(b <= above);
                previous[s] = b;
                above = b;
            }
        }
    }
}

TEST_CASE("with one GPU every stage costs 16 bytes per parameter", "[zero][invariant]") {
    for (std::int64_t s = 0; s <= 3; ++s) CHECK(bytes(1000, 1, s) == 16000);
}

TEST_CASE("bytes per parameter are the ZeRO fractions", "[zero]") {
    const auto f = zero_bytes_per_param(8, 1);
    REQUIRE(f.ok());
    CHECK(f.value.numerator == 4 * 8 + 12);
    CHECK(f.value.denominator == 8);
}

TEST_CASE("invalid stages, GPU counts and sizes are errors naming the field", "[zero][errors]") {
    auto stage = GENERATE(-1, 4, 100);
    CAPTURE(stage);
    const auto r = model_state_bytes(1000, 8, stage);
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].field == "stage");
    CHECK(r.errors[0].message == "must be 0, 1, 2 or 3");
    CHECK(max_params(1000, 8, stage).errors[0].message == "must be 0, 1, 2 or 3");

    const auto zero_gpus = model_state_bytes(1000, 0, 1);
    REQUIRE(zero_gpus.errors.size() == 1);
    CHECK(zero_gpus.errors[0].field == "n_gpus");
    CHECK(zero_gpus.errors[0].message == "must be an integer from 1 to 1048576");
    CHECK(max_params(1000, max_gpu_count + 1, 1).errors[0].field == "n_gpus");
    CHECK(model_state_bytes(max_param_count + 1, 1, 0).errors[0].field == "n_params");
    CHECK(max_params(max_exact_integer + 1, 1, 0).errors[0].field == "gpu_bytes");
}

TEST_CASE("checked entry points refuse NaN, infinities, negatives and fractions", "[zero][errors]") {
    const double bad = GENERATE(std::nan(""), INFINITY, -INFINITY, -1.0, 0.5, 1e300);
    CAPTURE(bad);
    CHECK(model_state_bytes_checked(bad, 8, 1).errors.at(0).field == "n_params");
    CHECK(model_state_bytes_checked(7e9, bad, 1).errors.at(0).field == "n_gpus");
    CHECK(model_state_bytes_checked(7e9, 8, bad).errors.at(0).field == "stage");
    CHECK(max_params_checked(bad, 8, 1).errors.at(0).field == "gpu_bytes");
    CHECK(max_params_checked(80e9, 8, bad).errors.at(0).message == "must be 0, 1, 2 or 3");
}

TEST_CASE("checked entry points agree with the exact ones on valid input", "[zero]") {
    CHECK(model_state_bytes_checked(7e9, 8, 2).value == 26250000000ULL);
    CHECK(max_params_checked(80e9, 8, 1).value == 14545454545ULL);
    CHECK(model_state_bytes_checked(0, 1, 3).value == 0);
}
