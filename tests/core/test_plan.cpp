// The layout planner (core/src/search/plan.cpp): every ranked layout fits by estimate(), the ranking
// is by the step-time model, the top-N is bounded, rejected families say why, and bad requests are
// refused naming the field.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "memplan/api/estimate.hpp"
#include "memplan/base/limits.hpp"
#include "memplan/io/gpus.hpp"
#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"
#include "memplan/search/plan.hpp"

using namespace memplan;

namespace {
plan_request seventy_b(std::uint64_t gpus) {
    const auto c = parse_config(R"({"model": {"preset": "llama-3-70b"}, "train": {"seq_len": 4096},
        "gpu": {"memory_bytes": 85520809984}})");
    REQUIRE(c.ok());
    plan_request r;
    r.base = c.value;
    r.gpu = find_gpu("h100-sxm-80gb")->perf;
    r.min_gpus = r.max_gpus = gpus;
    r.global_batch_sequences = 256;
    r.top_n = 5;
    return r;
}
}  // namespace

TEST_CASE("plan: Llama 3 70B on 64 H100s, ranked by step time, each layout fitting", "[plan]") {
    const plan_result p = plan(seventy_b(64));
    REQUIRE(p.errors.empty());
    REQUIRE(p.top.size() == 5);
    CHECK(p.considered > p.fitting);
    CHECK(p.fitting >= p.top.size());
    for (std::size_t i = 0; i < p.top.size(); ++i) {
        const plan_layout& l = p.top[i];
        CAPTURE(layout_text(l, run_mode::train));
        if (i > 0) CHECK(p.top[i - 1].time.step_s <= l.time.step_s);
        CHECK(l.gpus == 64);
        CHECK(l.tp * l.pp * l.cp * l.dp == 64);
        CHECK(l.tp <= 8);  // within a node
        CHECK(256 % (l.dp * l.micro_batch) == 0);
        // The memory is estimate()'s for that layout.
        estimate_config k = seventy_b(64).base;
        k.parallel.gpus = l.gpus;
        k.parallel.tp = l.tp;
        k.parallel.pp = l.pp;
        k.parallel.cp = l.cp;
        k.parallel.virtual_stages = l.virtual_stages;
        k.parallel.zero_stage = l.zero_stage;
        k.parallel.sequence_parallel = l.tp > 1;
        k.train.recompute = l.recompute;
        k.train.micro_batch = l.micro_batch;
        const estimate_result e = estimate(k);
        REQUIRE(e.errors.empty());
        CHECK(e.fits);
        CHECK(e.per_gpu.total == l.total_bytes);
    }
    // Families were excluded, each with a reason and an example.
    REQUIRE_FALSE(p.rejected.empty());
    bool node = false;
    for (const plan_rejection& r : p.rejected) {
        CHECK(r.count > 0);
        CHECK_FALSE(r.example.empty());
        node = node || r.reason.find("wider than a node") != std::string::npos;
    }
    CHECK(node);
}

TEST_CASE("plan: a GPU range searches each power of two, top-N stays bounded", "[plan]") {
    plan_request r = seventy_b(64);
    r.max_gpus = 256;
    r.top_n = 3;
    const plan_result p = plan(r);
    REQUIRE(p.errors.empty());
    REQUIRE(p.top.size() == 3);
    // Ranked by GPU-seconds per step: tokens/s per GPU non-increasing down the list.
    for (std::size_t i = 1; i < p.top.size(); ++i)
        CHECK(p.top[i - 1].time.tokens_per_s_per_gpu >= p.top[i].time.tokens_per_s_per_gpu * (1 - 1e-12));
}

TEST_CASE("plan: bad requests name the field and the range, an empty result says why", "[plan][errors]") {
    plan_request r = seventy_b(64);
    r.max_gpus = 1048576;  // beyond max_plan_gpus
    CHECK(plan(r).errors.at(0).field == "plan.max_gpus");
    CHECK(plan(r).errors.at(0).message.find("65536") != std::string::npos);
    r = seventy_b(64);
    r.top_n = 0;
    CHECK(plan(r).errors.at(0).field == "plan.top_n");
    r = seventy_b(64);
    r.global_batch_sequences = 0;
    CHECK(plan(r).errors.at(0).field == "plan.global_batch");
    r = seventy_b(2);  // 70B on two GPUs: nothing fits
    const plan_result none = plan(r);
    REQUIRE(none.errors.empty());
    CHECK(none.top.empty());
    CHECK(none.empty_reason.find("does not fit") != std::string::npos);
}

TEST_CASE("plan: serving layouts ranked by decode throughput per GPU", "[plan][serving]") {
    const auto c = parse_config(R"({"mode": "infer", "model": {"preset": "llama-3.1-70b"},
        "infer": {"context_len": 32768, "batch": 8}, "gpu": {"memory_bytes": 85520809984}})");
    REQUIRE(c.ok());
    plan_request r;
    r.base = c.value;
    r.gpu = find_gpu("h100-sxm-80gb")->perf;
    r.min_gpus = 2;
    r.max_gpus = 8;
    const plan_result p = plan(r);
    REQUIRE(p.errors.empty());
    REQUIRE_FALSE(p.top.empty());
    for (std::size_t i = 1; i < p.top.size(); ++i)
        CHECK(p.top[i - 1].decode_tokens_per_s_per_gpu >= p.top[i].decode_tokens_per_s_per_gpu);
    // Decode reads the weights and the KV cache once per step: bytes / HBM bandwidth at least.
    const plan_layout& best = p.top.front();
    CHECK(best.decode_step_s >= 1e-9);
    CHECK(best.total_bytes + best.headroom_bytes == 85520809984ULL);
}

TEST_CASE("plan_json and step_time_json: the JSON interface of mp.plan()", "[plan][json]") {
    const auto doc = nlohmann::json::parse(plan_json(R"({"config": {"model": {"preset": "llama-3-8b"}, "train": {"seq_len": 4096}},
        "gpu": "h100-sxm-80gb", "gpus": 8, "global_batch": 64, "top_n": 2})"));
    REQUIRE(doc["errors"].empty());
    REQUIRE(doc["top"].size() == 2);
    CHECK(doc["top"][0]["step_s"].get<double>() <= doc["top"][1]["step_s"].get<double>());
    CHECK(doc["top"][0]["terms"].size() == 8);
    const auto bad = nlohmann::json::parse(plan_json(R"({"config": {}, "gpu": "rtx-4090-24gb", "gpus": 8, "global_batch": 8})"));
    CHECK(bad["errors"][0]["field"] == "plan.gpu");
    const auto big = nlohmann::json::parse(plan_json(R"({"config": {"model": {"preset": "llama-3-8b"}}, "gpu": "h100-sxm-80gb", "min_gpus": 1, "max_gpus": 1000000, "global_batch": 8})"));
    CHECK(big["errors"][0]["field"] == "plan.max_gpus");
    const auto one = nlohmann::json::parse(step_time_json(R"({"config": {"model": {"preset": "llama-3-8b"}, "parallel": {"gpus": 8, "zero_stage": 3}},
        "gpu": "h100-sxm-80gb", "global_batch": 64})"));
    REQUIRE(one["errors"].empty());
    CHECK(one["step_s"].get<double>() > 0);
    CHECK(one["fits"] == true);
}

TEST_CASE("plan: the published Megatron-LM layouts against the best the planner finds", "[plan][validation]") {
    // Narayanan et al. 2021 Table 1 (tests/data/throughput/): the search restricted to what that run's
    // software offered — full recompute, no ZeRO, micro-batch 1, plain 1F1B, gradients reduced after the
    // backward pass, no FlashAttention — over every tp × pp on the published GPU count.
    std::ifstream in(std::string(MEMPLAN_DATA_DIR) + "/throughput/narayanan2021_table1.json");
    REQUIRE(in.good());
    const nlohmann::json doc = nlohmann::json::parse(in);
    int within_5 = 0, runs = 0;
    for (const auto& k : doc["cases"]) {
        if (k["gpus"].get<std::uint64_t>() > 1536) continue;  // the largest runs cost most to search in a debug build
        const std::string name = k["name"];
        CAPTURE(name);
        const auto c = parse_config(k["config"].dump());
        REQUIRE(c.ok());
        plan_request r;
        r.base = c.value;
        r.base.gpu_memory_bytes = 85899345920ULL;  // A100 80GB as the catalogue states it (80 GiB)
        r.gpu = find_gpu(k["gpu"].get<std::string>())->perf;
        r.min_gpus = r.max_gpus = k["gpus"];
        r.global_batch_sequences = k["global_batch"];
        r.top_n = 1;
        r.vary_recompute = false;
        r.max_zero_stage = 0;
        r.max_micro_batch = 1;
        r.interleave = false;
        r.step.overlap_grad_reduce = false;
        r.sequence_parallel = false;
        const plan_result p = plan(r);
        REQUIRE(p.errors.empty());
        REQUIRE(p.top.size() == 1);
        step_options o;
        o.global_batch_sequences = r.global_batch_sequences;
        o.overlap_grad_reduce = false;
        estimate_config published = r.base;
        published.parallel.sequence_parallel = false;
        const double published_s = step_time(published, r.gpu, o).step_s;
        CAPTURE(layout_text(p.top.front(), run_mode::train), p.top.front().time.step_s, published_s);
        CHECK(p.top.front().time.step_s <= published_s * (1 + 1e-12));  // the published layout is in the search
        // The goal is 5 %; measured: 5 of the 7 runs meet it, GPT 18.4B (12.8 %) and 39.1B (7.4 %) do not —
        // the model prefers tp 4 × pp 2 where the paper ran tp 8 (docs/planner.md).
        CHECK(published_s <= 1.15 * p.top.front().time.step_s);
        within_5 += published_s <= 1.05 * p.top.front().time.step_s ? 1 : 0;
        ++runs;
    }
    CHECK(runs == 7);
    CHECK(within_5 >= 5);
}
