// The layout planner (core/src/search/plan.cpp): every ranked layout fits by estimate(), the ranking
// is by the step-time model, the top-N is bounded, rejected families say why, and bad requests are
// refused naming the field.
#include <catch2/catch.hpp>

#include <algorithm>
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
        // The layout's figure is the one its verdict decides on (the step's peak where above the sum).
        CHECK(e.needed_bytes == l.total_bytes);
        CHECK(l.total_bytes <= k.gpu_memory_bytes);
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

namespace {
/// Two layouts the same: the layout, its memory and its score.
void same_layout(const plan_layout& a, const plan_layout& b) {
    CAPTURE(layout_text(a, run_mode::train), layout_text(b, run_mode::train));
    CHECK(layout_text(a, run_mode::train) == layout_text(b, run_mode::train));
    CHECK(a.gpus == b.gpus);
    CHECK(a.total_bytes == b.total_bytes);
    CHECK(a.score_s == b.score_s);
}
}  // namespace

TEST_CASE("plan: by_gpus, one row per GPU count tried, counts ascending, each best the top layout of that count", "[plan]") {
    plan_request r = seventy_b(2);  // 2, 4, …, 64: nothing fits on 2 GPUs, something on 64
    r.max_gpus = 64;
    const plan_result p = plan(r);
    REQUIRE(p.errors.empty());
    REQUIRE(p.by_gpus.size() == 6);
    const std::uint64_t expected[] = {2, 4, 8, 16, 32, 64};
    std::uint64_t considered = 0, fitting = 0;
    for (std::size_t i = 0; i < p.by_gpus.size(); ++i) {
        const plan_count_row& row = p.by_gpus[i];
        CAPTURE(row.gpus);
        CHECK(row.gpus == expected[i]);
        considered += row.considered;
        fitting += row.fitting;
        plan_request alone = seventy_b(row.gpus);
        alone.top_n = 1;
        const plan_result one = plan(alone);
        CHECK(row.considered == one.considered);
        CHECK(row.fitting == one.fitting);
        CHECK(row.has_best == !one.top.empty());
        if (row.has_best && !one.top.empty()) {
            same_layout(row.best, one.top.front());
            CHECK(row.best.gpus == row.gpus);
        }
    }
    CHECK(considered == p.considered);
    CHECK(fitting == p.fitting);
    CHECK_FALSE(p.by_gpus.front().has_best);
    CHECK(p.by_gpus.back().has_best);
    // The best of the range is the best of one of its counts.
    bool found = false;
    for (const plan_count_row& row : p.by_gpus) found = found || (row.has_best && row.best.score_s == p.top.front().score_s);
    CHECK(found);
}

TEST_CASE("plan_stream: one GPU count per step, the ranking of the counts so far, then exactly plan()", "[plan]") {
    plan_request r = seventy_b(64);
    r.max_gpus = 256;
    r.top_n = 4;
    plan_stream stream(r);
    REQUIRE(stream.gpu_counts() == std::vector<std::uint64_t>{64, 128, 256});
    CHECK_FALSE(stream.done());
    REQUIRE(stream.step());
    const plan_result first = stream.result();
    REQUIRE(first.by_gpus.size() == 1);
    CHECK(first.empty_reason.empty());
    // After the first count the ranking is a plan of that count alone (top-N by the same score).
    const plan_result sixty_four = plan([] { plan_request q = seventy_b(64); q.top_n = 4; return q; }());
    REQUIRE(first.top.size() == sixty_four.top.size());
    for (std::size_t i = 0; i < first.top.size(); ++i) same_layout(first.top[i], sixty_four.top[i]);
    while (stream.step()) {
    }
    CHECK(stream.done());
    CHECK_FALSE(stream.step());
    const plan_result streamed = stream.result();
    const plan_result whole = plan(r);
    REQUIRE(streamed.top.size() == whole.top.size());
    for (std::size_t i = 0; i < whole.top.size(); ++i) same_layout(streamed.top[i], whole.top[i]);
    CHECK(streamed.by_gpus.size() == 3);
    CHECK(streamed.considered == whole.considered);
    CHECK(streamed.fitting == whole.fitting);
    // A bad request is done at once, with its errors.
    plan_request bad = r;
    bad.top_n = 0;
    plan_stream refused(bad);
    CHECK(refused.done());
    CHECK(refused.gpu_counts().empty());
    CHECK(refused.result().errors.at(0).field == "plan.top_n");
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
    // One row per count tried (2, 4, 8), each best its count's highest decode throughput per GPU.
    REQUIRE(p.by_gpus.size() == 3);
    CHECK(p.by_gpus[0].gpus == 2);
    CHECK(p.by_gpus[1].gpus == 4);
    CHECK(p.by_gpus[2].gpus == 8);
    for (const plan_count_row& row : p.by_gpus) {
        plan_request alone = r;
        alone.min_gpus = alone.max_gpus = row.gpus;
        const plan_result one = plan(alone);
        REQUIRE(row.has_best == !one.top.empty());
        if (row.has_best) CHECK(row.best.decode_tokens_per_s_per_gpu == one.top.front().decode_tokens_per_s_per_gpu);
    }
    // The decode figure is a bound no engine measurement has checked: the answer says so once.
    REQUIRE(p.warnings.size() == 1);
    CHECK(p.warnings[0].field == "plan");
    CHECK(p.warnings[0].message.find("memory-bound decode time") != std::string::npos);
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
    // by_gpus and gpu_counts: every count searched, each row with its best layout (null where none fits).
    const auto range = nlohmann::json::parse(plan_json(R"({"config": {"model": {"preset": "llama-3-8b"}, "train": {"seq_len": 4096}},
        "gpu": "h100-sxm-80gb", "min_gpus": 1, "max_gpus": 8, "global_batch": 64, "top_n": 2})"));
    REQUIRE(range["errors"].empty());
    CHECK(range["gpu_counts"] == nlohmann::json::array({1, 2, 4, 8}));
    CHECK(range["done"] == true);
    REQUIRE(range["by_gpus"].size() == 4);
    for (std::size_t i = 0; i < 4; ++i) CHECK(range["by_gpus"][i]["gpus"] == range["gpu_counts"][i]);
    CHECK(range["by_gpus"][0]["best"].is_null());  // 8B training with Adam does not fit one 80 GB GPU
    CHECK(range["by_gpus"][3]["best"]["text"].is_string());
    // The stream: done false until its last step, whose text is plan_json's.
    plan_json_stream stream(R"({"config": {"model": {"preset": "llama-3-8b"}, "train": {"seq_len": 4096}},
        "gpu": "h100-sxm-80gb", "min_gpus": 1, "max_gpus": 8, "global_batch": 64, "top_n": 2})");
    const auto first = nlohmann::json::parse(stream.step());
    CHECK(first["done"] == false);
    CHECK(first["by_gpus"].size() == 1);
    std::string last;
    while (!stream.done()) last = stream.step();
    CHECK(nlohmann::json::parse(last) == range);
    plan_json_stream refused(R"({"config": {}, "gpu": "nope", "gpus": 8})");
    CHECK(nlohmann::json::parse(refused.step())["errors"][0]["field"] == "plan.gpu");
    CHECK(refused.done());
    const auto one = nlohmann::json::parse(step_time_json(R"({"config": {"model": {"preset": "llama-3-8b"}, "parallel": {"gpus": 8, "zero_stage": 3}},
        "gpu": "h100-sxm-80gb", "global_batch": 64})"));
    REQUIRE(one["errors"].empty());
    CHECK(one["step_s"].get<double>() > 0);
    CHECK(one["fits"] == true);
    // On H100 the times are outside the model's calibration: both answers carry the warning, naming the
    // field that calibrates them; a request's own gemm_efficiency removes it; on A100 80GB there is none.
    REQUIRE(one["warnings"].size() == 1);
    CHECK(one["warnings"][0]["field"] == "gpu.gemm_efficiency");
    REQUIRE(doc["warnings"].size() == 1);
    CHECK(doc["warnings"][0]["field"] == "gpu.gemm_efficiency");
    const auto own = nlohmann::json::parse(step_time_json(R"({"config": {"model": {"preset": "llama-3-8b"}, "parallel": {"gpus": 8, "zero_stage": 3}},
        "gpu": "h100-sxm-80gb", "global_batch": 64, "gemm_efficiency": 0.45})"));
    REQUIRE(own["errors"].empty());
    CHECK(own["warnings"].empty());
    const auto a100 = nlohmann::json::parse(plan_json(R"({"config": {"model": {"preset": "llama-3-8b"}, "train": {"seq_len": 4096}},
        "gpu": "a100-sxm-80gb", "gpus": 8, "global_batch": 64, "top_n": 2})"));
    REQUIRE(a100["errors"].empty());
    CHECK(a100["warnings"].empty());
    // step-time refuses what the estimate refuses and carries the estimate's warnings: Llama 3 8B's 32
    // layers over 3 pipeline stages split unevenly (the estimate's parallel.pp warning), and a layout the
    // estimate refuses (tp 3 does not divide 32 heads) is refused with the estimate's own error.
    const auto uneven = nlohmann::json::parse(step_time_json(R"({"config": {"model": {"preset": "llama-3-8b"}, "parallel": {"gpus": 6, "pp": 3}},
        "gpu": "a100-sxm-80gb"})"));
    REQUIRE(uneven["errors"].empty());
    REQUIRE(uneven["warnings"].size() == 1);
    CHECK(uneven["warnings"][0]["field"] == "parallel.pp");
    const estimate_result memory = estimate(parse_config(R"({"model": {"preset": "llama-3-8b"}, "parallel": {"gpus": 6, "pp": 3},
        "gpu": {"memory_bytes": 85899345920}})").value);
    CHECK(uneven["total_bytes"] == memory.needed_bytes);
    const auto refused_tp = nlohmann::json::parse(step_time_json(R"({"config": {"model": {"preset": "llama-3-8b"}, "parallel": {"gpus": 3, "tp": 3}},
        "gpu": "a100-sxm-80gb"})"));
    REQUIRE_FALSE(refused_tp["errors"].empty());
    CHECK(refused_tp["errors"][0]["field"] == estimate(parse_config(R"({"model": {"preset": "llama-3-8b"}, "parallel": {"gpus": 3, "tp": 3}})").value).errors.at(0).field);
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

TEST_CASE("plan: pipeline sizes that divide the layers, not only powers of two", "[plan][layouts]") {
    // GPT-3 175B has 96 layers: on 96 A100s the planner tries pp 3, 6, 12 and 24 (divisors of 96) beside the
    // powers of two, and tp 4 × pp 12 × dp 2 fits and ranks among the ten best (it did not exist as a
    // candidate when pp was searched in powers of two only).
    plan_request r;
    r.base = parse_config(R"({"mode": "train", "model": {"preset": "gpt3-175b"}, "train": {"seq_len": 2048}})").value;
    r.base.gpu_memory_bytes = 85899345920ULL;
    const gpu_entry* gpu = find_gpu("a100-sxm-80gb");
    REQUIRE(gpu != nullptr);
    r.gpu = gpu->perf;
    r.min_gpus = r.max_gpus = 96;
    r.global_batch_sequences = 96;
    r.top_n = 10;
    const plan_result p = plan(r);
    REQUIRE(p.errors.empty());
    REQUIRE_FALSE(p.top.empty());
    const bool twelve = std::any_of(p.top.begin(), p.top.end(), [](const plan_layout& l) { return l.pp == 12 && 96 % l.pp == 0; });
    CHECK(twelve);
    for (const plan_layout& l : p.top) CHECK(l.gpus % (l.tp * l.pp * l.cp) == 0);
}

TEST_CASE("plan: the held-out published layouts (set 2026-12) counted among the planner's three best", "[plan][validation][held_out]") {
    // tests/data/throughput/published-layouts-2026-12.json: the Megatron-Bridge performance-recipe runs,
    // each its configuration without the layout. The planner searches as a user's `memplan plan --top 3`
    // would (every tp, pp, vp, cp, ep, ZeRO stage, recompute and micro-batch on the published GPU count); a
    // run counts when its published tp, pp, vp, cp, ep, micro-batch and dp are one of the three best.
    // Measured when the file was written: 5 of 37 (Llama 3 8B on 8 H100 and on 8 B200, and DeepSeek-V3
    // on 256 B200 three times). The floor below is that count; a better model raises it.
    std::ifstream in(std::string(MEMPLAN_DATA_DIR) + "/throughput/published-layouts-2026-12.json");
    REQUIRE(in.good());
    const nlohmann::json doc = nlohmann::json::parse(in);
    int in_top3 = 0, runs = 0;
    for (const auto& k : doc["runs"]) {
        const std::string name = k["name"];
        CAPTURE(name);
        const auto c = parse_config(k["config"].dump());
        REQUIRE(c.ok());
        const gpu_entry* g = find_gpu(k["gpu"].get<std::string>());
        REQUIRE(g != nullptr);
        plan_request r;
        r.base = c.value;
        r.base.gpu_memory_bytes = gpu_capacity_bytes(*g);
        r.gpu = g->perf;
        r.min_gpus = r.max_gpus = k["gpus"];
        r.global_batch_sequences = k["global_batch"];
        r.top_n = 3;
        const plan_result p = plan(r);
        REQUIRE(p.errors.empty());
        const nlohmann::json& l = k["published_layout"];
        const auto published = [&](const char* key) { return l[key].get<std::uint64_t>(); };
        const bool found = std::any_of(p.top.begin(), p.top.end(), [&](const plan_layout& t) {
            return t.tp == published("tp") && t.pp == published("pp") && t.virtual_stages == published("vp") && t.cp == published("cp") &&
                   t.ep == published("ep") && t.micro_batch == published("micro_batch") && t.dp == published("dp");
        });
        in_top3 += found ? 1 : 0;
        ++runs;
    }
    CHECK(runs == 37);
    CHECK(in_top3 >= 5);
}
