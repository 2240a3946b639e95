// The fast paths of estimate() give the same answers as the plain ones: the totals-only path
// (estimate_options::want_tensors = false), model counts reused (estimate_options::counts), the
// busiest pipeline stage found among three candidates (checked against every stage, computed one by
// one with the same stage functions), and the numeric fast path (memplan/fast_estimate.hpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "memory/stage.hpp"
#include "memplan/api/estimate.hpp"
#include "memplan/api/fast_estimate.hpp"
#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"
#include "memplan/config/schema.hpp"

using namespace memplan;

namespace {

estimate_config parsed(const std::string& text) {
    auto c = parse_config(text);
    INFO(text);
    REQUIRE(c.ok());
    return c.value;
}

void same_totals(const estimate_result& a, const estimate_result& b) {
    REQUIRE(a.errors.size() == b.errors.size());
    CHECK(a.per_gpu.total == b.per_gpu.total);
    CHECK(a.per_gpu.weights == b.per_gpu.weights);
    CHECK(a.per_gpu.gradients == b.per_gpu.gradients);
    CHECK(a.per_gpu.optimizer_states == b.per_gpu.optimizer_states);
    CHECK(a.per_gpu.activations == b.per_gpu.activations);
    CHECK(a.per_gpu.logits == b.per_gpu.logits);
    CHECK(a.per_gpu.communication == b.per_gpu.communication);
    CHECK(a.details.stage == b.details.stage);
    CHECK(a.details.layers_on_gpu == b.details.layers_on_gpu);
    CHECK(a.details.layer_activation_bytes == b.details.layer_activation_bytes);
    CHECK(a.details.host_bytes_per_node == b.details.host_bytes_per_node);
    CHECK(a.warnings.size() == b.warnings.size());
}

/// A random Llama-3-8B-shaped training layout (presets are uniform dense models).
std::string random_layout(std::mt19937_64& rng) {
    const std::uint64_t pps[] = {1, 2, 3, 4, 5, 6, 7, 8, 16, 32};
    const std::uint64_t pp = pps[rng() % 10];
    const std::uint64_t tp = std::uint64_t{1} << (rng() % 4);
    const char* recompute[] = {"none", "selective", "full"};
    std::string t = R"({"model":{"preset":"llama-3-8b"},"parallel":{"gpus":)" + std::to_string(tp * pp * (1 + rng() % 4)) +
                    R"(,"tp":)" + std::to_string(tp) + R"(,"pp":)" + std::to_string(pp) +
                    R"(,"zero_stage":)" + std::to_string(rng() % 4) +
                    R"(,"virtual_stages":)" + std::to_string(pp > 1 && 32 % (pp * 2) == 0 && rng() % 2 ? 2 : 1) +
                    R"(,"partition_activations":)" + (rng() % 2 ? "true" : "false") + R"(},"train":{"recompute":")" +
                    recompute[rng() % 3] + R"(","micro_batch":)" + std::to_string(1 + rng() % 4) +
                    R"(,"seq_len":)" + std::to_string(512 << (rng() % 4)) +
                    (rng() % 3 == 0 ? R"(,"microbatches_in_flight":)" + std::to_string(1 + rng() % 6) : std::string()) +
                    R"(,"activation_offload":)" + (rng() % 4 == 0 ? "true" : "false") +
                    R"(,"optimizer_in_backward":)" + (rng() % 4 == 0 ? "true" : "false") + "}}";
    return t;
}

}  // namespace

TEST_CASE("totals-only and counts-reused estimates equal the full estimate", "[speed]") {
    std::mt19937_64 rng(20261130);
    int compared = 0, warned = 0;
    for (int k = 0; k < 150; ++k) {
        const std::string text = random_layout(rng);
        const estimate_config c = parsed(text);
        const estimate_result full = estimate(c);
        if (!full.errors.empty()) continue;
        INFO(text);
        const model_counts counts = count_model(c.model);
        estimate_options totals;
        totals.want_tensors = false;
        const estimate_result a = estimate(c, totals);
        totals.counts = &counts;
        const estimate_result b = estimate(c, totals);
        totals.fields_in_range = true;
        const estimate_result checked = estimate(c, totals);
        totals.want_warnings = false;
        estimate_result quiet = estimate(c, totals);
        CHECK(quiet.warnings.empty());
        warned += full.warnings.empty() ? 0 : 1;
        quiet.warnings = full.warnings;  // the one difference
        same_totals(full, a);
        same_totals(full, b);
        same_totals(full, checked);
        same_totals(full, quiet);
        CHECK(a.details.layer_activations.empty());
        CHECK(a.details.weight_bytes_by_dtype.empty());
        CHECK_FALSE(full.details.layer_activations.empty());
        ++compared;
    }
    CHECK(compared > 100);
    CHECK(warned > 10);  // pp 3, 5, 6, 7 do not divide Llama-3-8B's 32 layers
}

TEST_CASE("fields_in_range skips the schema's range loop and no other rule", "[speed]") {
    estimate_options checked;
    checked.fields_in_range = true;
    // A layout rule (not a range) is still enforced: 12 GPUs are no multiple of tp 8.
    estimate_config c = parsed(R"({"model":{"preset":"llama-3-8b"},"parallel":{"gpus":8,"tp":8}})");
    c.parallel.gpus = 12;
    const estimate_result layout = estimate(c, checked);
    REQUIRE(layout.errors.size() == 1);
    CHECK(layout.errors[0].field == "parallel.gpus");
    // The range loop is what the flag skips: a micro-batch of 0 is refused without it.
    c.parallel.gpus = 8;
    c.train.micro_batch = 0;
    const estimate_result ranged = estimate(c);
    REQUIRE_FALSE(ranged.errors.empty());
    CHECK(ranged.errors[0].field == "train.micro_batch");
}

TEST_CASE("the busiest stage among the candidates is the busiest of every stage", "[speed]") {
    // Every stage computed one by one with estimate.cpp's own stage function: the first stage with the
    // largest total must be what estimate() reports.
    std::mt19937_64 rng(7);
    int compared = 0;
    for (int k = 0; k < 200; ++k) {
        const std::string text = random_layout(rng);
        const estimate_config c = parsed(text);
        const estimate_result r = estimate(c);
        if (!r.errors.empty()) continue;
        INFO(text);
        const model_counts counts = count_model(c.model);
        REQUIRE(counts.uniform_layers);
        const detail::train_layer layer = detail::train_layer_activations(c, false);
        detail::u128 best = 0;
        std::uint64_t best_stage = 0;
        for (std::uint64_t i = 0; i < c.parallel.pp; ++i) {
            const detail::u128 total = detail::train_stage(c, counts.params.value, i, layer).total();
            if (i == 0 || total > best) {
                best = total;
                best_stage = i;
            }
        }
        CHECK(r.details.stage == best_stage);
        CHECK(r.per_gpu.total == static_cast<std::uint64_t>(best) + c.misc_bytes);
        ++compared;
    }
    CHECK(compared > 100);
}

TEST_CASE("the numeric fast path answers what the JSON path answers", "[speed]") {
    numeric_estimator fast;
    const auto& fields = config_fields();
    const auto index_of = [&](const char* path) {
        for (std::size_t i = 0; i < fields.size(); ++i)
            if (std::string(fields[i].path) == path) return i;
        FAIL(path);
        return std::size_t{0};
    };
    const int model = fast.add_model(R"({"preset":"llama-3-70b"})");
    REQUIRE(model == 0);
    CHECK(fast.add_model(R"({"hidden_size":"wide"})") == -1);
    for (const std::uint64_t pp : {1, 2, 4, 8, 10, 16, 20, 40, 80}) {
        std::vector<double> values(fast.field_count(), std::nan(""));
        values[index_of("parallel.gpus")] = static_cast<double>(8 * pp * 2);
        values[index_of("parallel.tp")] = 8;
        values[index_of("parallel.pp")] = static_cast<double>(pp);
        values[index_of("parallel.zero_stage")] = 1;
        REQUIRE(std::string(fields[index_of("train.recompute")].choices()) == "none,selective,full,selective_op");
        values[index_of("train.recompute")] = 1;  // "selective"
        values[index_of("gpu.memory_bytes")] = 80e9;
        double out[static_cast<std::size_t>(numeric_slot::count)];
        REQUIRE(fast.run(model, values.data(), out));
        const std::string text = R"({"model":{"preset":"llama-3-70b"},"parallel":{"gpus":)" + std::to_string(16 * pp) +
                                 R"(,"tp":8,"pp":)" + std::to_string(pp) +
                                 R"(,"zero_stage":1},"train":{"recompute":"selective"},"gpu":{"memory_bytes":80000000000}})";
        const estimate_result r = estimate(parsed(text));
        INFO(text);
        REQUIRE(r.errors.empty());
        CHECK(out[static_cast<std::size_t>(numeric_slot::total)] == static_cast<double>(r.per_gpu.total));
        CHECK(out[static_cast<std::size_t>(numeric_slot::activations)] == static_cast<double>(r.per_gpu.activations));
        CHECK(out[static_cast<std::size_t>(numeric_slot::fits)] == (r.fits ? 1 : 0));
        CHECK(out[static_cast<std::size_t>(numeric_slot::params)] == static_cast<double>(r.params));
    }
    // Out of range and non-integral numbers are left to the JSON path.
    std::vector<double> values(fast.field_count(), std::nan(""));
    double out[static_cast<std::size_t>(numeric_slot::count)];
    values[index_of("parallel.tp")] = 0.5;
    CHECK_FALSE(fast.run(model, values.data(), out));
    CHECK(out[0] == 0);
    values[index_of("parallel.tp")] = 3;  // 64 heads: validate() refuses, the JSON path names it
    CHECK_FALSE(fast.run(model, values.data(), out));
}
