// analyze(): the page's derived views agree with estimate() and zero.hpp, and keep their invariants.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "memplan/api/estimate.hpp"
#include "memplan/search/analyze.hpp"
#include "memplan/report/json.hpp"
#include "memplan/io/json.hpp"

using namespace memplan;

namespace {
constexpr std::uint64_t h100 = 80000000000ULL;

/// A 7e9-parameter Llama-7B-shaped model training on 8 GPUs of 80 GB (no vocabulary: no logits row).
estimate_config seven_b(std::uint64_t gpus = 8, std::int64_t stage = 1) {
    estimate_config c;
    c.model.params = 7000000000ULL;
    c.model.num_hidden_layers = 32;
    c.model.hidden_size = 4096;
    c.model.num_attention_heads = 32;
    c.parallel.gpus = gpus;
    c.parallel.zero_stage = stage;
    c.train.seq_len = 2048;
    c.train.micro_batch = 1;
    c.gpu_memory_bytes = h100;
    return c;
}

std::uint64_t total_of(const estimate_config& c) {
    const estimate_result r = estimate(c);
    REQUIRE(r.errors.empty());
    return r.per_gpu.total;
}

/// The bytes that decide the fit (gpu.needed_bytes): what every analysis view shows beside a verdict.
std::uint64_t needed_of(const estimate_config& c) {
    const estimate_result r = estimate(c);
    REQUIRE(r.errors.empty());
    CHECK(r.needed_bytes >= r.per_gpu.total);
    return r.needed_bytes;
}

bool fits_gpu(const estimate_config& c) {
    const estimate_result r = estimate(c);
    return r.errors.empty() && r.fits;
}

std::uint64_t model_states_of(const estimate_config& c) {
    const estimate_result r = estimate(c);
    REQUIRE(r.errors.empty());
    return r.per_gpu.weights + r.per_gpu.gradients + r.per_gpu.optimizer_states;
}
}  // namespace

TEST_CASE("each stage's figure is the estimate's deciding bytes with only the ZeRO stage changed", "[analyze][stages]") {
    const estimate_config c = seven_b();
    const analysis a = analyze(c);
    REQUIRE(a.errors.empty());
    REQUIRE(a.has_capacity);
    CHECK(a.result.per_gpu.total == total_of(c));
    for (std::int64_t s = 0; s < 4; ++s) {
        CAPTURE(s);
        estimate_config staged = c;
        staged.parallel.zero_stage = s;
        const stage_analysis& st = a.stages[static_cast<std::size_t>(s)];
        CHECK(st.stage == s);
        CHECK(st.ok);
        // The figure shown is the one the verdict decides on, so the two never disagree.
        CHECK(st.total == needed_of(staged));
        CHECK(st.fits == fits_gpu(staged));
        CHECK(st.fits == (st.total <= c.gpu_memory_bytes));
    }
}

TEST_CASE("model states of the four stages are the ZeRO formulas' 112 / 38.5 / 26.25 / 14 GB", "[analyze][stages][zero]") {
    // Mixed-precision Adam with bf16 weights and gradients is the ZeRO paper's 16 B/param.
    const std::uint64_t expected[] = {112000000000ULL, 38500000000ULL, 26250000000ULL, 14000000000ULL};
    for (std::int64_t s = 0; s < 4; ++s) {
        CAPTURE(s);
        CHECK(model_states_of(seven_b(8, s)) == expected[s]);
    }
}

TEST_CASE("a higher ZeRO stage never holds more model states, and at 8+ GPUs never more in total",
          "[analyze][stages][invariant]") {
    for (std::uint64_t gpus = 1; gpus <= 1024; gpus *= 2) {
        CAPTURE(gpus);
        const analysis a = analyze(seven_b(gpus));
        REQUIRE(a.errors.empty());
        for (std::int64_t s = 0; s < 3; ++s) {
            CAPTURE(s);
            CHECK(model_states_of(seven_b(gpus, s + 1)) <= model_states_of(seven_b(gpus, s)));
            // Stages ≥ 1 add DeepSpeed's communication buffers (1e9 B bucket, 2e9 B live at stage 3), which
            // outweigh the sharding only at small data-parallel degrees.
            if (gpus >= 8) CHECK(a.stages[s + 1].total <= a.stages[s].total);
        }
    }
}

TEST_CASE("the largest model per stage from model states is the ZeRO inverse max_params times tp · pp",
          "[analyze][max_params][zero]") {
    const analysis a = analyze(seven_b());
    REQUIRE(a.errors.empty());
    CHECK(a.stages[0].model_states_max_params == 5000000000ULL);
    CHECK(a.stages[1].model_states_max_params == 14545454545ULL);
    CHECK(a.stages[2].model_states_max_params == 21333333333ULL);
    CHECK(a.stages[3].model_states_max_params == 40000000000ULL);

    estimate_config c = seven_b(16);
    c.parallel.tp = 2;  // dp = 8, each rank holds half the model
    const analysis b = analyze(c);
    REQUIRE(b.errors.empty());
    CHECK(b.stages[3].model_states_max_params == 80000000000ULL);
}

TEST_CASE("the largest fitting model.params fits and one parameter more does not", "[analyze][max_params]") {
    const auto stage = GENERATE(0, 1, 2, 3);
    const auto gpus = GENERATE(as<std::uint64_t>{}, 1, 8, 64);
    CAPTURE(stage, gpus);
    const estimate_config c = seven_b(gpus, stage);
    const analysis a = analyze(c);
    REQUIRE(a.errors.empty());
    const std::uint64_t largest = a.stages[static_cast<std::size_t>(stage)].max_params;
    CHECK(largest == largest_fitting_params(c));
    REQUIRE(largest > 0);
    estimate_config at = c, above = c;
    at.model.params = largest;
    above.model.params = largest + 1;
    CHECK(fits_gpu(at));
    CHECK_FALSE(fits_gpu(above));
    // Model states alone bound the whole configuration's largest model from above.
    CHECK(largest <= a.stages[static_cast<std::size_t>(stage)].model_states_max_params);
}

TEST_CASE("the largest fitting model is 0 when the activations alone exceed the GPU", "[analyze][max_params]") {
    estimate_config c = seven_b();
    c.train.seq_len = 1048576;  // attention scores alone: 5·a·s² bytes per layer, far above 80 GB
    CHECK(largest_fitting_params(c) == 0);
    c.gpu_memory_bytes = 0;
    CHECK(largest_fitting_params(seven_b()) > 0);
    CHECK(largest_fitting_params(c) == 0);  // no capacity, no answer
}

TEST_CASE("the fewest GPUs fit and one data-parallel replica fewer does not", "[analyze][fewest_gpus]") {
    auto row = GENERATE(table<std::uint64_t, std::uint64_t, std::int64_t>({
        {1, 1, 3}, {2, 1, 3}, {2, 2, 3}, {8, 1, 2}, {8, 4, 1}, {4, 2, 3},
    }));
    estimate_config c = seven_b();
    c.model.params = 70000000000ULL;
    c.model.num_hidden_layers = 80;
    c.model.hidden_size = 8192;
    c.model.num_attention_heads = 64;
    c.train.flash_attention = true;
    c.train.recompute = recompute_mode::full;
    c.parallel.tp = std::get<0>(row);
    c.parallel.pp = std::get<1>(row);
    c.parallel.gpus = c.parallel.tp * c.parallel.pp;
    c.parallel.zero_stage = std::get<2>(row);
    CAPTURE(c.parallel.tp, c.parallel.pp, c.parallel.zero_stage);
    const std::uint64_t gpus = fewest_fitting_gpus(c);
    REQUIRE(gpus != 0);
    const std::uint64_t model_parallel = c.parallel.tp * c.parallel.pp;
    CHECK(gpus % model_parallel == 0);
    estimate_config at = c;
    at.parallel.gpus = gpus;
    CHECK(fits_gpu(at));
    if (gpus > model_parallel) {
        estimate_config fewer = c;
        fewer.parallel.gpus = gpus - model_parallel;
        CHECK_FALSE(fits_gpu(fewer));
    }
}

TEST_CASE("70e9 parameters at stage 3 on 80 GB GPUs need 19 GPUs, the optimizer step's peak deciding", "[analyze][fewest_gpus]") {
    // Model states 16Ψ/N = 1.12e12/N B. Fixed part: buffers 1e9 + 2e9 B; full recompute keeps 2sbh per
    // layer (32 · 2 · 2048 · 4096 = 536870912 B) plus one recomputed layer with flash attention beyond the
    // checkpointed input it reads in place, 34sbh − 2sbh = 268435456 B, FlashAttention's fp32 log-sum-exp
    // 4as = 262144 B, two LayerNorms' fp32 statistics 16s = 32768 B, plus the 1-byte embedding dropout mask
    // sbh = 8388608 B and the int64 token ids 8s = 16384 B: 3814006272 B; with the default CUDA context
    // (287047680 B) 4101053952 B.
    // The steady-state sum 1.12e12/N ≤ 80e9 − 4101053952 would first hold at N = 15, but the step peaks
    // at the optimizer step: foreach AdamW's fp32 square roots add 4Ψ/N while the activations are freed,
    // 20Ψ/N = 1.4e12/N ≤ 80e9 − 3e9 − 287047680 first holds at N = 19 (18: 77.8e9 + 3.3e9 > 80e9).
    estimate_config c = seven_b(8, 3);
    c.model.params = 70000000000ULL;
    c.train.flash_attention = true;
    c.train.recompute = recompute_mode::full;
    estimate_config one = c;
    one.parallel.gpus = 1;
    const estimate_result r = estimate(one);
    REQUIRE(r.errors.empty());
    CHECK(r.per_gpu.total - r.per_gpu.weights - r.per_gpu.gradients - r.per_gpu.optimizer_states == 3814006272ULL + 287047680ULL);
    CHECK(fewest_fitting_gpus(c) == 19);
}

TEST_CASE("fewest GPUs is 'never' at tp 1 when the unsharded part exceeds the GPU, tp 2 fits", "[analyze][fewest_gpus]") {
    estimate_config c = seven_b(8, 0);  // stage 0 does not shard: 112 GB at any data-parallel degree
    CHECK(fewest_fitting_gpus(c) == 0);
    const analysis a = analyze(c);
    // The layout search splits the model: tensor parallelism 2 halves the 112 GB of model states.
    CHECK(a.stages[0].fewest_gpus == 2);
    CHECK(a.stages[0].fewest_tp == 2);
    CHECK(a.stages[0].fewest_pp == 1);
    estimate_config two = c;
    two.parallel.gpus = 2;
    two.parallel.tp = 2;
    CHECK(fits_gpu(two));
    CHECK(a.stages[3].fewest_gpus != 0);
    // The top-level answer is the fewest over the stages, at equal count the lower stage.
    std::uint64_t least = UINT64_MAX;
    for (const auto& s : a.stages)
        if (s.fewest_gpus != 0) least = std::min(least, s.fewest_gpus);
    CHECK(a.fewest.gpus == least);
    CHECK(a.fewest.gpus == a.fewest.tp * a.fewest.pp * a.fewest.dp);
}

TEST_CASE("suggestions each lower the verdict's figure by their stated saving, largest first", "[analyze][suggestions]") {
    estimate_config c = seven_b(8, 0);
    c.train.micro_batch = 4;
    c.model.vocab_size = 32000;
    c.train.flash_attention = false;  // eager attention: FlashAttention is one of the suggestions
    const analysis a = analyze(c);
    REQUIRE(a.errors.empty());
    // What the verdict compares: the larger of the total and the step's peak (gpu.needed_bytes).
    const std::uint64_t current = a.result.needed_bytes;
    CHECK(current == std::max(a.result.per_gpu.total, a.result.details.phases.peak_bytes));
    REQUIRE_FALSE(a.result.fits);
    REQUIRE(a.suggestions.size() >= 5);
    std::uint64_t previous = UINT64_MAX;
    bool has_stage = false, has_tp = false;
    for (const suggestion& s : a.suggestions) {
        CAPTURE(s.field, s.to);
        CHECK(s.saving_bytes > 0);
        CHECK(s.total + s.saving_bytes == current);
        CHECK(s.saving_bytes <= previous);
        previous = s.saving_bytes;
        has_stage = has_stage || (s.field == "parallel.zero_stage" && s.from == "0" && s.to == "1");
        has_tp = has_tp || (s.field == "parallel.tp" && s.to == "2");
    }
    CHECK(has_stage);
    CHECK(has_tp);
}

TEST_CASE("a suggestion's figure is the verdict's figure of the changed configuration", "[analyze][suggestions]") {
    estimate_config c = seven_b(8, 1);
    c.parallel.tp = 2;
    c.train.micro_batch = 2;
    const analysis a = analyze(c);
    REQUIRE(a.errors.empty());
    for (const suggestion& s : a.suggestions) {
        CAPTURE(s.field);
        estimate_config changed = c;
        if (s.field == "parallel.zero_stage") changed.parallel.zero_stage = 2;
        else if (s.field == "train.recompute") changed.train.recompute = recompute_mode::full;
        else if (s.field == "train.flash_attention") changed.train.flash_attention = true;
        else if (s.field == "parallel.sequence_parallel") changed.parallel.sequence_parallel = true;
        else if (s.field == "train.micro_batch") changed.train.micro_batch = 1;
        else if (s.field == "parallel.gpus") changed.parallel.gpus = 16;
        else if (s.field == "parallel.tp") changed.parallel.tp = 4;
        else if (s.field == "parallel.pp") changed.parallel.pp = 2;
        else FAIL("unexpected field");
        const estimate_result r = estimate(changed);
        CHECK(s.total == r.needed_bytes);  // the total, or the step's peak where it is above it
        CHECK(s.total == std::max(total_of(changed), r.details.phases.peak_bytes));
        CHECK(s.fits == fits_gpu(changed));
    }
}

TEST_CASE("no tensor-parallel suggestion when the heads do not allow twice the degree", "[analyze][suggestions]") {
    estimate_config c = seven_b(8, 0);
    c.model.num_attention_heads = 12;
    c.model.hidden_size = 768 * 4;
    c.parallel.tp = 4;  // 8 does not divide 12 heads
    const analysis a = analyze(c);
    REQUIRE(a.errors.empty());
    for (const suggestion& s : a.suggestions) CHECK(s.field != "parallel.tp");
}

TEST_CASE("the sweep covers dp = 1, 2, 4, ... up to 1024 GPUs with each stage's estimate", "[analyze][sweep]") {
    estimate_config c = seven_b(8, 1);
    c.parallel.tp = 2;
    c.parallel.gpus = 16;
    const analysis a = analyze(c);
    REQUIRE(a.errors.empty());
    REQUIRE(a.sweep.size() == 10);  // 2, 4, ..., 1024
    CHECK(a.sweep.front().gpus == 2);
    CHECK(a.sweep.back().gpus == 1024);
    for (std::size_t i = 0; i < a.sweep.size(); ++i) {
        const sweep_point& p = a.sweep[i];
        CAPTURE(p.gpus);
        for (std::int64_t s = 0; s < 4; ++s) {
            const auto k = static_cast<std::size_t>(s);
            estimate_config at = c;
            at.parallel.gpus = p.gpus;
            at.parallel.zero_stage = s;
            CHECK(p.ok[k]);
            CHECK(p.totals[k] == needed_of(at));
            if (i > 0) CHECK(p.totals[k] <= a.sweep[i - 1].totals[k]);  // non-increasing in dp
        }
    }
}

TEST_CASE("the sweep stops at 1024 GPUs, even for a model-parallel group wider than that", "[analyze][sweep]") {
    estimate_config c = seven_b(1024, 3);
    c.parallel.tp = 32;
    c.parallel.pp = 32;
    CHECK(analyze(c).sweep.size() == 1);
    c.model.num_hidden_layers = 64;
    c.parallel.pp = 64;
    c.parallel.gpus = 2048;
    const analysis a = analyze(c);
    REQUIRE(a.errors.empty());
    CHECK(a.sweep.empty());
}

TEST_CASE("without a GPU capacity, fit-dependent views are absent", "[analyze]") {
    estimate_config c = seven_b();
    c.gpu_memory_bytes = 0;
    const analysis a = analyze(c);
    REQUIRE(a.errors.empty());
    CHECK_FALSE(a.has_capacity);
    for (const auto& s : a.stages) {
        CHECK(s.ok);
        CHECK_FALSE(s.fits);
        CHECK(s.max_params == 0);
        CHECK(s.fewest_gpus == 0);
    }
}

TEST_CASE("an invalid configuration yields only its errors", "[analyze][errors]") {
    estimate_config c = seven_b();
    c.parallel.tp = 3;
    const analysis a = analyze(c);
    REQUIRE_FALSE(a.errors.empty());
    CHECK(a.suggestions.empty());
    CHECK(a.sweep.empty());
}

TEST_CASE("analyze_json embeds the CLI's estimate object and names the fields", "[analyze][json]") {
    const std::string config =
        R"({"model":{"params":7e9,"num_hidden_layers":32,"hidden_size":4096,"num_attention_heads":32},)"
        R"("parallel":{"gpus":8,"zero_stage":1},"gpu":{"memory_bytes":80000000000}})";
    const auto doc = nlohmann::ordered_json::parse(analyze_json(config));
    CHECK(doc["estimate"].dump() == estimate_json(config));
    REQUIRE(doc["stages"].size() == 4);
    CHECK(doc["stages"][1]["model_states_max_params"] == 14545454545ULL);
    CHECK(doc["stages"][0]["fewest_gpus"] == 2);  // tp 2 (the layout is searched)
    CHECK(doc["stages"][0]["fewest_tp"] == 2);
    CHECK(doc["stages"][3]["fewest_gpus"].is_number_unsigned());
    CHECK(doc["sweep"].size() == 11);
    CHECK(doc["sweep"][3]["gpus"] == 8);
    CHECK(doc["errors"].empty());
    std::string keys;
    for (auto it = doc.begin(); it != doc.end(); ++it) keys += it.key() + " ";
    CHECK(keys == "estimate stages suggestions fewest plan sweep limits errors ");
}

TEST_CASE("analyze_json reports malformed input as data", "[analyze][json][errors]") {
    auto row = GENERATE(table<std::string, std::string, std::string>({
        {"{", "config", "is not valid JSON"},
        {"[]", "config", "must be a JSON object"},
        {R"({"parallel":{"zero_stage":4}})", "parallel.zero_stage", "must be 0, 1, 2 or 3"},
        {R"({"model":{"params":7e9,"num_hidden_layers":32,"hidden_size":4096,"num_attention_heads":64},)"
         R"("parallel":{"gpus":8,"tp":3}})",
         "parallel.gpus", "must be a multiple of parallel.tp × parallel.pp (3)"},
    }));
    CAPTURE(std::get<0>(row));
    const auto doc = nlohmann::ordered_json::parse(analyze_json(std::get<0>(row)));
    REQUIRE_FALSE(doc["errors"].empty());
    CHECK(doc["errors"][0]["field"] == std::get<1>(row));
    CHECK(doc["errors"][0]["message"] == std::get<2>(row));
    CHECK(doc["estimate"]["errors"] == doc["errors"]);
    CHECK_FALSE(doc.contains("stages"));
}

TEST_CASE("the largest batch and context that fit are exact boundaries", "[analyze][limits]") {
    // Llama-2-7B serving on one 80 GB GPU: the answer fits and one more does not.
    const auto parsed = parse_config(R"({"mode": "infer", "model": {"preset": "llama-2-7b"},
        "infer": {"context_len": 4096, "batch": 1}, "gpu": {"memory_bytes": 80e9}})");
    REQUIRE(parsed.ok());
    const analysis a = analyze(parsed.value);
    REQUIRE(a.errors.empty());
    const std::uint64_t batch = a.limits.max_batch;
    const std::uint64_t context = a.limits.max_context_len;
    CAPTURE(batch, context);
    // Weights 13.48e9 B; each 4096-token sequence adds 2 GiB of KV cache plus its workspace.
    CHECK(batch >= 25);
    CHECK(batch <= 31);
    estimate_config c = parsed.value;
    c.infer.batch = batch;
    CHECK(estimate(c).fits);
    c.infer.batch = batch + 1;
    CHECK_FALSE(estimate(c).fits);
    c = parsed.value;
    c.infer.context_len = context;
    CHECK(estimate(c).fits);
    c.infer.context_len = context + 1;
    CHECK_FALSE(estimate(c).fits);
}

TEST_CASE("the largest micro-batch and sequence for training are exact boundaries", "[analyze][limits]") {
    const auto parsed = parse_config(R"({"model": {"preset": "llama-3-8b"}, "parallel": {"gpus": 8, "zero_stage": 3},
        "train": {"recompute": "full", "flash_attention": true, "seq_len": 4096}, "gpu": {"memory_bytes": 80e9}})");
    REQUIRE(parsed.ok());
    const analysis a = analyze(parsed.value);
    REQUIRE(a.errors.empty());
    REQUIRE(a.limits.max_micro_batch > 0);
    estimate_config c = parsed.value;
    c.train.micro_batch = a.limits.max_micro_batch;
    CHECK(estimate(c).fits);
    c.train.micro_batch += 1;
    CHECK_FALSE(estimate(c).fits);
    c = parsed.value;
    c.train.seq_len = a.limits.max_seq_len;
    CHECK(estimate(c).fits);
    c.train.seq_len += 1;
    CHECK_FALSE(estimate(c).fits);
    CHECK(a.limits.max_batch == 0);  // inference limits are not computed for training
}

TEST_CASE("fewest GPUs respects expert parallelism: only degrees ep divides are tried", "[analyze][fewest_gpus]") {
    // Mixtral 8x7B with ep 8 at ZeRO-3: data parallelism must be a multiple of 8.
    const auto parsed = parse_config(R"({"model": {"preset": "mixtral-8x7b"}, "parallel": {"gpus": 8, "ep": 8, "zero_stage": 3},
        "train": {"recompute": "full", "flash_attention": true}, "gpu": {"memory_bytes": 80e9}})");
    REQUIRE(parsed.ok());
    const std::uint64_t gpus = fewest_fitting_gpus(parsed.value);
    REQUIRE(gpus > 0);
    CHECK(gpus % 8 == 0);
    estimate_config c = parsed.value;
    c.parallel.gpus = gpus;
    CHECK(estimate(c).fits);
    if (gpus > 8) {
        c.parallel.gpus = gpus - 8;
        CHECK_FALSE(estimate(c).fits);
    }
}
