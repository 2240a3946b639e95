// vLLM's start-up figures over the corpus of public start-up logs in tests/data/engine-logs/ (each file:
// its source, the release, the exact settings as a memplan configuration, and the figures the log
// prints): *predict* runs only the user's settings, *reproduce* passes the log's measured figures as
// overrides. Beside them, the release-keyed behaviour (infer.engine_version), the profiling run's and
// the non-torch memory's rows, the vocabulary padding and Llama 4's chunked-local grouping, by hand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "memplan/api/estimate.hpp"
#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"
#include "memplan/serving/serving.hpp"
#include "log_corpus.hpp"

using namespace memplan;

namespace {
using u64 = std::uint64_t;
constexpr u64 GiB = 1073741824ULL;
constexpr u64 MiB = 1048576ULL;
u64 gib(double value) { return static_cast<u64>(std::llround(value * static_cast<double>(GiB))); }

using engine_log = test::logged_run;
std::vector<engine_log> corpus() { return test::read_log_folder("engine-logs"); }
using test::config_of;
using test::serve;

/// memplan's figure beside the log's, as the log prints it: KV tokens, else GPU blocks, else the
/// available KV memory (GiB); the signed error is (memplan − log) / log.
struct comparison {
    std::string figure;
    double log = 0, memplan = 0;
    double error() const { return (memplan - log) / log; }
};

comparison compare(const nlohmann::json& log, const serving_result& s) {
    if (log.contains("kv_tokens"))
        return {"tokens", log.at("kv_tokens").get<double>(), static_cast<double>(s.kv_capacity_tokens)};
    if (log.contains("num_gpu_blocks"))
        return {"blocks", log.at("num_gpu_blocks").get<double>(), static_cast<double>(s.num_blocks)};
    return {"available", log.at("available_gib").get<double>(), static_cast<double>(s.kv_cache_bytes) / GiB};
}

/// One log predicted from its settings alone: memplan's answer, its figure beside the log's, and the
/// start verdict the log records; the release memplan assumed is the log's.
struct prediction {
    serving_result s;
    comparison c;
    bool starts = false;
};
/// The held-out set fixed on 2026-12-06 (held_out_set "2026-12"): new public logs, none used to fit or
/// change any constant; reported apart from the earlier held-out logs.
bool in_2026_12_set(const engine_log& l) { return l.doc.value("held_out_set", std::string()) == "2026-12"; }

prediction predict(const engine_log& l) {
    prediction p{serve(config_of(l.doc)), {}, l.doc.at("log").at("starts").get<bool>()};
    p.c = compare(l.doc.at("log"), p.s);
    CHECK(p.s.release == l.doc.at("version").get<std::string>());
    return p;
}
}  // namespace

TEST_CASE("engine logs: every file names its source, release and settings", "[serving][engine-logs]") {
    const auto logs = corpus();
    REQUIRE(logs.size() >= 68);
    std::size_t held_out = 0;
    const std::vector<std::string> kinds = {"dense", "moe", "mla", "sliding", "hybrid", "quantized", "multimodal"};
    for (const engine_log& l : logs) {
        INFO(l.name);
        REQUIRE_FALSE(l.doc.at("kind").empty());  // the model kinds the summary of docs/serving.md counts
        for (const auto& k : l.doc.at("kind"))
            CHECK(std::find(kinds.begin(), kinds.end(), k.get<std::string>()) != kinds.end());
        CHECK(l.doc.at("source").get<std::string>().rfind("https://", 0) == 0);
        CHECK(l.doc.at("engine") == "vllm");
        CHECK(l.doc.at("config").at("infer").at("engine_version") == l.doc.at("version"));
        CHECK(l.doc.at("config").at("infer").contains("max_model_len"));
        CHECK(l.doc.at("config").at("infer").contains("gpu_memory_utilization_permille"));
        CHECK(l.doc.at("config").at("gpu").contains("memory_bytes"));
        CHECK(l.doc.at("log").contains("available_gib"));
        CHECK(l.doc.at("log").contains("starts"));
        CHECK_FALSE(l.doc.at("lines").empty());
        if (l.doc.contains("held_out")) {  // not used to fit any constant: its error is reported apart
            CHECK(l.doc.at("held_out").is_boolean());
            if (l.doc.at("held_out").get<bool>()) ++held_out;
        }
    }
    CHECK(held_out >= 13);
}

TEST_CASE("engine logs: predicted from the settings alone", "[serving][engine-logs][predict]") {
    // In-sample goal set (no predict_gap, not held out: the logs 0.19's fitted constants were read from and
    // those of the other releases): never more than 5 % too high, at most 5 % too low, "will it start"
    // right, and at least four in five within ±2 % of the log's own figure. A log with a predict_gap states
    // the term memplan misses; its error must still show that gap (beyond ±5 %, or the wrong start verdict),
    // so that closing the gap moves it into the goal set. The held-out logs (held_out: true) are counted
    // apart, in the next test case.
    std::size_t in_goal = 0, within_2_percent = 0;
    for (const engine_log& l : corpus()) {
        if (l.doc.value("held_out", false)) continue;
        const auto [s, c, starts] = predict(l);
        INFO(l.name << ": " << c.figure << " memplan " << c.memplan << ", log " << c.log << ", error "
                    << 100 * c.error() << " %");
        if (l.doc.contains("predict_gap")) {
            CHECK((std::abs(c.error()) > 0.05 || s.starts != starts));
            continue;
        }
        ++in_goal;
        if (std::abs(c.error()) <= 0.02) ++within_2_percent;
        CHECK(c.error() <= 0.05);   // never more than 5 % too high
        CHECK(c.error() >= -0.05);
        CHECK(s.starts == starts);
    }
    CHECK(in_goal >= 49);
    CHECK(5 * within_2_percent >= 4 * in_goal);
}

TEST_CASE("engine logs: held-out vLLM 0.19 logs predicted from the settings alone", "[serving][engine-logs][predict][held-out]") {
    // The llm-d-planner 0.19 logs not used to fit 0.19's constants (15 B per sampler logit entry, 0.25 GiB
    // runtime and the tensor-parallel non-torch memory): their errors are reported, not fitted. What holds
    // on them (13 logs: Llama-3.1-8B and Qwen2.5-7B at other lengths and dtypes, fp32 among them, Granite
    // 3.3 8B and DeepSeek-V2-Lite-Chat from their config.json, Kimi-Dev-72B at tp 2 and 4): none more than
    // 5 % too high nor too low (the worst +3.4 %, Kimi-Dev-72B at tp 2, whose pool is 3 GiB), the start
    // verdict right, and at least four in five within ±2 % (12 of 13). The fused-MoE workspace term
    // (vllm_profile.cpp) was derived from vLLM's source and then compared with DeepSeek-V2-Lite-Chat's log
    // among others, so that log is held out from the fitted constants, not from that term.
    std::size_t held = 0, within_2_percent = 0;
    double worst_high = -1, worst_low = 1;
    std::string worst_high_name, worst_low_name;
    for (const engine_log& l : corpus()) {
        if (!l.doc.value("held_out", false) || l.doc.contains("held_out_set")) continue;  // the 2026-12 set apart
        const auto [s, c, starts] = predict(l);
        INFO(l.name << ": " << c.figure << " memplan " << c.memplan << ", log " << c.log << ", error "
                    << 100 * c.error() << " %");
        CHECK(s.starts == starts);
        if (l.doc.contains("predict_gap")) {
            CHECK((std::abs(c.error()) > 0.05 || s.starts != starts));
            continue;
        }
        ++held;
        if (std::abs(c.error()) <= 0.02) ++within_2_percent;
        if (c.error() > worst_high) worst_high = c.error(), worst_high_name = l.name;
        if (c.error() < worst_low) worst_low = c.error(), worst_low_name = l.name;
        CHECK(c.error() <= 0.05);   // never more than 5 % too high
        CHECK(c.error() >= -0.05);
    }
    INFO("held out: " << held << " logs, " << within_2_percent << " within ±2 %; worst too high " << 100 * worst_high
                      << " % (" << worst_high_name << "), worst too low " << 100 * worst_low << " % (" << worst_low_name << ")");
    CHECK(held >= 13);
    CHECK(5 * within_2_percent >= 4 * held);
}

TEST_CASE("engine logs: nine in ten of all logs without a stated gap within 2 %", "[serving][engine-logs][predict]") {
    // The goal over the corpus as it stood before the 2026-12 held-out set, in-sample and held out together
    // (62 logs: 57 within ±2 %); the 2026-12 set is the next test case's.
    std::size_t logs = 0, within_2_percent = 0;
    for (const engine_log& l : corpus()) {
        if (l.doc.contains("predict_gap") || in_2026_12_set(l)) continue;  // the 2026-12 set is measured apart
        const auto [s, c, starts] = predict(l);
        ++logs;
        if (std::abs(c.error()) <= 0.02) ++within_2_percent;
    }
    INFO(within_2_percent << " of " << logs << " within 2 %");
    CHECK(logs >= 62);
    CHECK(10 * within_2_percent >= 9 * logs);
}

TEST_CASE("engine logs: the 2026-12 held-out set predicted from the settings alone", "[serving][engine-logs][predict][held-out]") {
    // The held-out set fixed on 2026-12-06 (held_out_set "2026-12"), before any constant was changed for it:
    // public start-up logs from sources not in the corpus before (other GPUs, releases and people), none of
    // them read while fitting. Every log must parse and estimate; its error is reported, not asserted: the
    // floors below are the counts measured when the set was fixed, with main's release lines of 2026-12-06
    // (29 logs: 7 within ±2 %, 16 within ±5 %; median −3.3 %, the worst +15.3 %, DeepSeek-R1-Distill-Qwen-32B
    // in fp8 on an L40S, and −22.4 %, Qwen2-7B on an A100 80GB at utilization 0.25 under vLLM 0.10), so
    // that a change that loses one of them fails here. Main's MXFP4 padding of the experts (merged after the
    // set was fixed) brought gpt-oss-120b at tp 4 on A100s from +1.9 % to −2.4 % (its weights 17.16 GiB per
    // rank against the log's 17.22, before 15.20), so the floor within ±2 % is now 6: 29 logs, 6 within ±2 %,
    // 16 within ±5 %, median −3.3 %. The start verdict must be the log's wherever the log
    // shows vLLM starting or refusing (every log of the set shows it starting, and memplan agrees on all),
    // except the known misses listed with their reason (none).
    const std::vector<std::string> known_start_misses = {};
    std::size_t logs = 0, within_2_percent = 0, within_5_percent = 0;
    double worst_high = -1, worst_low = 1;
    std::string worst_high_name, worst_low_name, errors;
    for (const engine_log& l : corpus()) {
        if (!in_2026_12_set(l)) continue;
        INFO(l.name);
        CHECK(l.doc.value("held_out", false));
        const serving_result s = serve(config_of(l.doc));
        const comparison c = compare(l.doc.at("log"), s);
        const bool starts = l.doc.at("log").at("starts").get<bool>();
        INFO(c.figure << " memplan " << c.memplan << ", log " << c.log << ", error " << 100 * c.error() << " %");
        ++logs;
        if (std::abs(c.error()) <= 0.02) ++within_2_percent;
        if (std::abs(c.error()) <= 0.05) ++within_5_percent;
        if (c.error() > worst_high) worst_high = c.error(), worst_high_name = l.name;
        if (c.error() < worst_low) worst_low = c.error(), worst_low_name = l.name;
        errors += l.name + " " + std::to_string(100 * c.error()) + " %; ";
        if (std::find(known_start_misses.begin(), known_start_misses.end(), l.name) == known_start_misses.end())
            CHECK(s.starts == starts);
        else
            CHECK(s.starts != starts);  // a known miss: fixing it should move it off the list
        // The figure the answer says a plan can count on is never above the engine's own on this set.
        const double counted = test::counted_on_tokens(config_of(l.doc));
        CHECK(counted > 0);
        const double log_tokens = c.figure == "tokens"   ? c.log
                                  : c.figure == "blocks" ? c.log * static_cast<double>(s.block_size)
                                                         : c.log * static_cast<double>(GiB) / static_cast<double>(s.page_bytes) *
                                                               static_cast<double>(s.block_size);
        CHECK(counted <= log_tokens);
    }
    INFO("2026-12 set: " << logs << " logs, " << within_2_percent << " within ±2 %, " << within_5_percent
                         << " within ±5 %; worst too high " << 100 * worst_high << " % (" << worst_high_name
                         << "), worst too low " << 100 * worst_low << " % (" << worst_low_name << ")");
    INFO("errors: " << errors);
    CHECK(logs >= 29);
    CHECK(within_2_percent >= 6);
    CHECK(within_5_percent >= 16);
}

TEST_CASE("vLLM: the fused-MoE workspace stays allocated through the sampler's run", "[serving][vllm][moe]") {
    // Qwen3-30B-A3B, vLLM 0.19, 8,192 batched tokens, 1,024 sequences (H100 defaults): M = 8,192, top-k 8,
    // K = h = 2,048, N = 2 · 768. workspace13 = max(8192 · 8 · max(768, 2048), 8192 · 2048) · 2 B =
    // 268,435,456; workspace2 = 8192 · 8 · max(1536, 2048) · 2 B = 268,435,456 (both multiples of 256).
    // Sampler = 8192 · 2048 · 2 + 1024 · 151,936 · 15 = 2,367,291,392; peak = sampler + workspace =
    // 2,904,162,304 B = 2.70 GiB (the log: 2.68 GiB, tests/data/engine-logs/llmd-planner-h100-qwen3-30b-a3b.json).
    auto c = parse_config(R"({"mode": "infer", "model": {"preset": "qwen3-30b-a3b"}, "infer": {"engine": "vllm",
        "engine_version": "0.19", "max_model_len": 8192}, "gpu": {"memory_bytes": 85029615043}})").value;
    const auto row = [](const serving_result& s, const std::string& prefix) {
        for (const serving_row& r : s.breakdown)
            if (r.label.rfind(prefix, 0) == 0) return r.bytes;
        return u64{0};
    };
    const serving_result s = serve(c);
    CHECK(row(s, "fused-MoE workspace at 8,192 tokens") == 536870912);
    CHECK(s.activation_peak_bytes == 2367291392ULL + 536870912);
    // At tp 2 the experts' width halves (N = 768): max(384, 2048) and max(768, 2048) keep K: the same.
    c.parallel.tp = c.parallel.gpus = 2;
    CHECK(row(serve(c), "fused-MoE workspace") == 536870912);
    // vLLM 0.11 allocated the experts' scratch per call: no workspace beside the sampler.
    c.parallel.tp = c.parallel.gpus = 1;
    c.infer.engine_version = engine_release::v0_11;
    CHECK(row(serve(c), "fused-MoE workspace") == 0);
    // A dense model has none; neither have gpt-oss's MXFP4 experts (another kernel; its logs peak at the
    // sampler alone).
    c.infer.engine_version = engine_release::v0_19;
    c.model = parse_config(R"({"model": {"preset": "llama-3.1-8b"}})").value.model;
    CHECK(row(serve(c), "fused-MoE workspace") == 0);
    c.model = parse_config(R"({"model": {"preset": "gpt-oss-20b"}})").value.model;
    CHECK(row(serve(c), "fused-MoE workspace") == 0);
}

TEST_CASE("vLLM: a multimodal model's dummy encoder outputs are kept through the profiling run", "[serving][vllm][multimodal]") {
    // Gemma 3 27B (a vision tower), 0.19, 8,192 batched tokens: 8,192 embeddings × h 5,376 × 2 B = 88,080,384
    // B beside both phases; the sampler (1,024 × 262,208 × 15 + 8192 · 5376 · 2) is the larger phase.
    auto c = parse_config(R"({"mode": "infer", "model": {"preset": "gemma-3-27b"}, "infer": {"engine": "vllm",
        "engine_version": "0.19", "max_model_len": 8192}, "gpu": {"memory_bytes": 85029615043}})").value;
    const serving_result s = serve(c);
    u64 encoder = 0;
    for (const serving_row& r : s.breakdown)
        if (r.label == "multimodal encoder outputs (8,192 embeddings, kept)") encoder = r.bytes;
    CHECK(encoder == 88080384);
    CHECK(s.activation_peak_bytes == 88080384ULL + 1024ULL * 262208 * 15 + 8192ULL * 5376 * 2);
    // The text-only Gemma 3 1B has no tower: no row.
    c.model = parse_config(R"({"model": {"preset": "gemma-3-1b"}})").value.model;
    for (const serving_row& r : serve(c).breakdown) CHECK(r.label.find("encoder") == std::string::npos);
}

TEST_CASE("engine logs: reproduced from the log's measured figures", "[serving][engine-logs][reproduce]") {
    // With weights, activation peak and non-torch memory as logged (inside their printed rounding), the
    // block count is the log's, and the pool is the logged available memory floored to whole blocks (the
    // total, weights, activation and non-torch figures are each printed to 0.01 GiB: 0.02 GiB in all);
    // with only "Available KV cache memory", that figure as --kv-cache-memory gives the logged tokens
    // within the 0.005 GiB the print rounds away.
    std::size_t reproduced = 0;
    for (const engine_log& l : corpus()) {
        const nlohmann::json& log = l.doc.at("log");
        estimate_config c = config_of(l.doc);
        INFO(l.name);
        if (log.contains("weights_gib") && log.contains("activation_gib") && log.contains("non_torch_gib")) {
            c.infer.weights_bytes = gib(log.at("weights_gib").get<double>());
            c.infer.activation_peak_bytes = gib(log.at("activation_gib").get<double>());
            c.infer.non_torch_bytes = gib(log.at("non_torch_gib").get<double>());
            const serving_result s = serve(c);
            if (log.contains("num_gpu_blocks")) CHECK(s.num_blocks == log.at("num_gpu_blocks").get<u64>());
            const double pool_gib = static_cast<double>(s.kv_cache_bytes) / GiB;
            const double page_gib = static_cast<double>(s.page_bytes) / GiB;
            const double available_gib = log.at("available_gib").get<double>();
            CHECK(pool_gib <= available_gib + 0.02);
            CHECK(pool_gib > available_gib - 0.02 - page_gib);
            CHECK(s.starts == log.at("starts").get<bool>());
            ++reproduced;
        } else if (log.contains("kv_tokens")) {
            c.infer.kv_cache_memory_bytes = gib(log.at("available_gib").get<double>());
            const serving_result s = serve(c);
            const double slack_blocks = std::ceil(0.005 * GiB / static_cast<double>(s.page_bytes));
            const double off = static_cast<double>(s.kv_capacity_tokens) - log.at("kv_tokens").get<double>();
            if (l.doc.contains("reproduce_gap")) {
                CHECK(off > slack_blocks * static_cast<double>(s.block_size));  // rank 0 had more than the minimum
                continue;
            }
            CHECK(std::abs(off) <= slack_blocks * static_cast<double>(s.block_size));
            ++reproduced;
        }
    }
    CHECK(reproduced >= 62);  // the held-out logs among them
}

TEST_CASE("vLLM release: known versions only, the default stated", "[serving][vllm][version][errors]") {
    const auto bad = parse_config(R"({"mode": "infer", "infer": {"engine": "vllm", "engine_version": "0.99"}})");
    REQUIRE_FALSE(bad.errors.empty());
    CHECK(bad.errors[0].field == "infer.engine_version");
    CHECK(bad.errors[0].message.find("0.27") != std::string::npos);
    CHECK(bad.errors[0].message.find("0.6") != std::string::npos);
    const auto c = parse_config(R"({"mode": "infer", "model": {"preset": "qwen3-8b"}, "infer": {"engine": "vllm",
        "max_model_len": 8192}, "gpu": {"memory_bytes": 85899345920}})");
    REQUIRE(c.errors.empty());
    CHECK(serve(c.value).release == "0.27");  // a current release, in the output
}

TEST_CASE("vLLM release: the CUDA-graph estimate is subtracted from 0.21", "[serving][vllm][version]") {
    // vllm/envs.py VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS: on by default from v0.21.0; earlier releases
    // capture after sizing the pool. 0.18 against 0.21: the releases differ in no other term (0.19's sampler
    // and non-torch terms are its own).
    auto c = parse_config(R"({"mode": "infer", "model": {"preset": "qwen3-8b"}, "infer": {"engine": "vllm",
        "engine_version": "0.18", "max_model_len": 8192}, "gpu": {"memory_bytes": 85899345920}})").value;
    const serving_result before = serve(c);
    CHECK(before.cuda_graph_bytes == 0);
    c.infer.engine_version = engine_release::v0_21;
    const serving_result after = serve(c);
    CHECK(after.cuda_graph_bytes == assumed_cuda_graph_bytes);
    // The pool shrinks by the estimate: ⌊x / page⌋ or ⌈x / page⌉ blocks, by where the remainder falls.
    const u64 fewer = before.num_blocks - after.num_blocks;
    CHECK(fewer >= assumed_cuda_graph_bytes / before.page_bytes);
    CHECK(fewer <= assumed_cuda_graph_bytes / before.page_bytes + 1);
    c.infer.cuda_graph_bytes = gib(0.52);  // "Estimated CUDA graph memory: 0.52 GiB total"
    CHECK(serve(c).cuda_graph_bytes == gib(0.52));
    c.infer.enforce_eager = true;  // no graphs captured
    CHECK(serve(c).cuda_graph_bytes == 0);
}

TEST_CASE("vLLM non-torch memory grows with tp and pp, each part a row", "[serving][vllm]") {
    auto c = parse_config(R"({"mode": "infer", "model": {"preset": "qwen3-32b"}, "infer": {"engine": "vllm",
        "max_model_len": 8192}, "gpu": {"memory_bytes": 85899345920}})").value;
    CHECK(serve(c).non_torch_bytes == assumed_runtime_non_torch_bytes);
    c.parallel.tp = 2;
    c.parallel.gpus = 2;
    // + two NCCL communicators (16 channels × 2 peers × 4 MiB each) + custom all-reduce (2 × 8 MiB).
    const serving_result s = serve(c);
    CHECK(s.non_torch_bytes == assumed_runtime_non_torch_bytes + 2 * 128 * MiB + 16 * MiB);
    u64 rows = 0;
    for (const serving_row& r : s.breakdown)
        if (r.term == "non_torch_bytes") rows += r.bytes;
    CHECK(rows == s.non_torch_bytes);
    c.parallel.pp = 2;
    c.parallel.gpus = 4;
    CHECK(serve(c).non_torch_bytes == assumed_runtime_non_torch_bytes + 3 * 128 * MiB + 16 * MiB);
    c.infer.non_torch_bytes = gib(1.5);  // a measured figure replaces the model
    CHECK(serve(c).non_torch_bytes == gib(1.5));
}

TEST_CASE("vLLM weights: the vocabulary padded to a multiple of 64, and the rotary table", "[serving][vllm]") {
    // GPT-2: 50,257 tokens → 50,304 rows (pad_vocab_size, DEFAULT_VOCAB_PADDING_SIZE 64); 47 rows × 768 ×
    // 2 B, once (the head is tied to the embedding). Its positions are learned: no rotary table.
    auto c = parse_config(R"({"mode": "infer", "model": {"preset": "gpt2"}, "infer": {"engine": "vllm",
        "max_model_len": 1024}, "gpu": {"memory_bytes": 25769803776}})").value;
    const auto r = estimate(c);
    REQUIRE(r.errors.empty());
    CHECK(r.serving.weights_bytes == r.per_gpu.weights + 47 * 768 * 2);
    // Llama 3's 128,256 is a multiple of 64: no padding; its cos/sin table is 8,192 positions × 128 × 2 B
    // (rotary_embedding/base.py cos_sin_cache), on every rank.
    auto l = parse_config(R"({"mode": "infer", "model": {"preset": "llama-3-8b"}, "infer": {"engine": "vllm",
        "max_model_len": 8192}, "gpu": {"memory_bytes": 85899345920}})").value;
    const auto q = estimate(l);
    CHECK(q.serving.weights_bytes == q.per_gpu.weights + 8192 * 128 * 2);
    l.parallel.tp = l.parallel.gpus = 2;
    const auto q2 = estimate(l);
    CHECK(q2.serving.weights_bytes == q2.per_gpu.weights + 8192 * 128 * 2);
    // Llama 3.1 8B: 131,072 positions, 32 MiB; the measured load of the llm-d-planner 0.19.0 H100 logs is
    // 14.99 GiB against 14.96 for the parameters (tests/data/engine-logs/llmd-planner-h100-llama-3.1-8b.json).
    l.model = parse_config(R"({"model": {"preset": "llama-3.1-8b"}})").value.model;
    l.parallel.tp = l.parallel.gpus = 1;
    const auto q3 = estimate(l);
    CHECK(q3.serving.weights_bytes == q3.per_gpu.weights + 32 * MiB);
    CHECK(std::round(static_cast<double>(q3.serving.weights_bytes) / GiB * 100) / 100 == 14.99);
    // fp32 (--dtype float32): the table in fp32 too (29.98 GiB logged, tests/data/engine-logs
    // llmd-planner-h100-llama-3.1-8b-fp32.json).
    l.infer.weight_dtype = dtype::fp32;
    const auto q4 = estimate(l);
    CHECK(q4.serving.weights_bytes == q4.per_gpu.weights + 64 * MiB);
    // Gemma 3: two tables (the sliding layers' rope_local_base_freq), 131,072 × 128 × 2 B each for 27B.
    l.model = parse_config(R"({"model": {"preset": "gemma-3-27b"}})").value.model;
    l.infer.weight_dtype = dtype::bf16;
    const auto g = estimate(l);
    CHECK(g.serving.weights_bytes - g.per_gpu.weights == 2 * 131072 * 128 * 2);
}

TEST_CASE("vLLM groups Llama 4's chunked-local layers apart from its full layers", "[serving][vllm][hybrid]") {
    // Llama 4 Scout: 48 layers, 36 chunked-local (chunk 8192) and 12 full, 8 KV heads of 128; tp 8: one
    // head per rank, 512 B per token and layer, page 16 × 512 = 8,192 B. _get_kv_cache_groups_uniform_page_size:
    // group size 12 (36 ≥ 1.5 × 12), 1 full + 3 chunked groups; a block id holds 12 pages = 98,304 B.
    // 10 GiB → 109,226 blocks; "GPU KV cache size" = 109,226 // 4 × 16 = 436,896 tokens. One 131,072-token
    // request: ⌈131072/16⌉ = 8,192 full blocks + 3 × ⌈min(8192 + 8192, 131072)/16⌉ = 3 × 1,024
    // (ChunkedLocalAttentionSpec.max_memory_usage_bytes) = 11,264.
    auto c = parse_config(R"({"mode": "infer", "model": {"preset": "llama-4-scout"}, "parallel": {"tp": 8, "gpus": 8},
        "infer": {"engine": "vllm", "max_model_len": 131072, "max_num_batched_tokens": 8192,
                  "kv_cache_memory_bytes": 10737418240}, "gpu": {"memory_bytes": 85899345920}})").value;
    const serving_result s = serve(c);
    CHECK(s.page_bytes == 98304);
    CHECK(s.num_blocks == 109226);
    CHECK(s.kv_capacity_tokens == 436896);
    CHECK(s.blocks_per_request == 11264);
    CHECK(s.starts);
}

TEST_CASE("vLLM's JSON result states the release and its breakdown rows", "[serving][vllm][json]") {
    const auto out = nlohmann::json::parse(estimate_json(R"({"mode": "infer", "model": {"preset": "qwen3-8b"},
        "infer": {"engine": "vllm", "max_model_len": 8192}, "gpu": {"memory_bytes": 85899345920}})"));
    const auto& s = out.at("serving");
    CHECK(s.at("release") == "0.27");
    const auto& rows = s.at("breakdown");
    REQUIRE(rows.size() >= 5);
    // Qwen3-8B: its 40,960-position cos/sin table first (a weights row), then the profiling run.
    CHECK(rows[0].at("term") == "weights_bytes");
    CHECK(rows[0].at("label") == "rotary cos/sin table (40,960 positions)");
    CHECK(rows[0].at("bytes") == 40960 * 128 * 2);
    CHECK(rows[1].at("term") == "activation_peak_bytes");
    CHECK(rows[1].at("label") == "profiling peak: forward at 8,192 tokens");
    CHECK(rows[1].at("source").get<std::string>().find("gpu_model_runner.py") != std::string::npos);
    CHECK(rows[1].at("measured") == false);
    // The warnings name the assumptions and their keys.
    bool graphs = false, non_torch = false;
    for (const auto& w : out.at("warnings")) {
        graphs = graphs || w.at("field") == "infer.cuda_graph_bytes";
        non_torch = non_torch || w.at("field") == "infer.non_torch_bytes";
    }
    CHECK(graphs);
    CHECK(non_torch);
}

TEST_CASE("vLLM with pipeline stages: the smallest stage's pool, each stage a row", "[serving][vllm]") {
    // Qwen3-32B over two stages of 32 layers: the last stage also holds the output head and runs the
    // sampler's dummy run, so it has fewer blocks; vLLM gives both workers that count
    // (kv_cache_utils.py get_kv_cache_configs).
    auto c = parse_config(R"({"mode": "infer", "model": {"preset": "qwen3-32b"}, "parallel": {"pp": 2, "gpus": 2},
        "infer": {"engine": "vllm", "max_model_len": 8192}, "gpu": {"memory_bytes": 85899345920}})").value;
    const auto r = estimate(c);
    REQUIRE(r.errors.empty());
    std::vector<u64> stage_bytes;
    for (const serving_row& row : r.serving.breakdown)
        if (row.label.rfind("pipeline stage ", 0) == 0) stage_bytes.push_back(row.bytes);
    REQUIRE(stage_bytes.size() == 2);
    CHECK(stage_bytes[1] < stage_bytes[0]);
    CHECK(r.serving.kv_cache_bytes == stage_bytes[1]);
    CHECK(r.serving.breakdown.back().label == "pipeline stage 1 (32 layers): " + std::to_string(r.serving.num_blocks) +
                                                 " blocks");
    bool named = false;
    for (const auto& w : r.warnings) named = named || (w.field == "parallel.pp" && w.message.find("stage 1's") != std::string::npos);
    CHECK(named);
}

TEST_CASE("vLLM 0.6 (V0) profiles max(max_model_len, 2048) tokens, 2048 above 32K", "[serving][vllm][version]") {
    // vllm/config.py SchedulerConfig.__post_init__ (v0.6.6.post1), 256 sequences (EngineArgs).
    auto c = parse_config(R"({"mode": "infer", "model": {"preset": "llama-3.1-8b"}, "infer": {"engine": "vllm",
        "engine_version": "0.6", "max_model_len": 20000}, "gpu": {"memory_bytes": 85899345920}})").value;
    // The i-th activation row of the breakdown (the weights' rows come first).
    const auto activation = [](const serving_result& s, std::size_t i) {
        for (const serving_row& r : s.breakdown)
            if (r.term == "activation_peak_bytes" && i-- == 0) return r.label;
        return std::string();
    };
    CHECK(activation(serve(c), 0) == "profiling peak: forward at 20,000 tokens");
    CHECK(activation(serve(c), 1) == "sampler at 256 sequences");
    c.infer.max_model_len = 1000;
    CHECK(activation(serve(c), 0) == "profiling peak: forward at 2,048 tokens");
    c.infer.max_model_len = 65536;  // chunked prefill on by default
    CHECK(activation(serve(c), 0) == "profiling peak: forward at 2,048 tokens");
    c.infer.engine_version = engine_release::v0_27;  // V1 on an 80 GiB GPU: 8192 tokens, 1024 sequences
    CHECK(activation(serve(c), 0) == "profiling peak: forward at 8,192 tokens");
}

TEST_CASE("vLLM release: the sampler's bytes per logit entry and the non-torch memory by release", "[serving][vllm][version]") {
    // Llama-3.1-8B on an 80 GiB GPU: 8,192 batched tokens and 1,024 sequences (get_batch_defaults); the
    // sampler row is 8192 · 4096 · 2 + 1024 · 128,256 · b with b = 38 B (0.11: the sort's buffers), 15 B
    // (0.19, fitted) or 18 B (the others); one-GPU non-torch memory 0.13, 0.25 or 0.5 GiB; 0.19 at tp 2 adds
    // two NCCL communicators, the custom all-reduce buffers and its fitted 1.55 GiB.
    auto c = parse_config(R"({"mode": "infer", "model": {"preset": "llama-3.1-8b"}, "infer": {"engine": "vllm",
        "engine_version": "0.11", "max_model_len": 8192}, "gpu": {"memory_bytes": 85899345920}})").value;
    const auto sampler_row = [](const serving_result& s) {
        for (const serving_row& r : s.breakdown)
            if (r.label == "sampler at 1,024 sequences") return r.bytes;
        return u64{0};
    };
    const u64 hidden = 8192ULL * 4096 * 2, entries = 1024ULL * 128256;
    CHECK(sampler_row(serve(c)) == hidden + entries * 38);
    CHECK(serve(c).non_torch_bytes == 139586437);
    c.infer.engine_version = engine_release::v0_19;
    CHECK(sampler_row(serve(c)) == hidden + entries * 15);
    CHECK(serve(c).non_torch_bytes == 268435456);
    c.infer.engine_version = engine_release::v0_27;
    CHECK(sampler_row(serve(c)) == hidden + entries * 18);
    CHECK(serve(c).non_torch_bytes == assumed_runtime_non_torch_bytes);
    c.infer.engine_version = engine_release::v0_19;
    c.parallel.tp = 2;
    c.parallel.gpus = 2;
    CHECK(serve(c).non_torch_bytes == 268435456ULL + 2 * 128 * MiB + 16 * MiB + 1664299827ULL);
}

TEST_CASE("vLLM release: 0.9 and 0.10 profile the sampler's sort as 0.11 does", "[serving][vllm][version]") {
    // The same dummy sampler (top_k vocabulary − 1, top_p 0.9: vllm-project/vllm pull request 13594) through
    // the same PyTorch sort: 38 B per logit entry, 8192 · 4096 · 2 + 1024 · 128,256 · 38 for Llama-3.1-8B.
    auto c = parse_config(R"({"mode": "infer", "model": {"preset": "llama-3.1-8b"}, "infer": {"engine": "vllm",
        "engine_version": "0.10", "max_model_len": 8192}, "gpu": {"memory_bytes": 85899345920, "name": "h100-sxm"}})").value;
    const u64 expected = 8192ULL * 4096 * 2 + 1024ULL * 128256 * 38;
    for (engine_release r : {engine_release::v0_9, engine_release::v0_10}) {
        c.infer.engine_version = r;
        const serving_result s = serve(c);
        bool found = false;
        for (const serving_row& row : s.breakdown)
            if (row.label == "sampler at 1,024 sequences") found = row.bytes == expected;
        CHECK(found);
        CHECK(s.release_modelled == s.release);
    }
}

TEST_CASE("vLLM release: a line not modelled on its own takes the nearest modelled line, said in a warning", "[serving][vllm][version]") {
    // 0.13 → 0.11, 0.16 → 0.18, 0.20 → 0.19 (no CUDA-graph estimate before 0.21), 0.7 → 0.6 (V0), 0.8 → 0.9,
    // 0.23 → 0.21: the same pool as the modelled line, the requested line in serving.release, the line used in
    // serving.release_modelled and a warning naming both.
    const std::vector<std::pair<std::string, std::string>> pairs = {
        {"0.7", "0.6"}, {"0.8", "0.9"}, {"0.12", "0.11"}, {"0.13", "0.11"}, {"0.14", "0.11"}, {"0.15", "0.18"},
        {"0.16", "0.18"}, {"0.17", "0.18"}, {"0.20", "0.19"}, {"0.22", "0.21"}, {"0.23", "0.21"}};
    for (const auto& [line, modelled] : pairs) {
        INFO(line);
        const std::string head = R"({"mode": "infer", "model": {"preset": "qwen2.5-7b"}, "infer": {"engine": "vllm", "max_model_len": 16384, "engine_version": ")";
        const std::string tail = R"("}, "gpu": {"memory_bytes": 85899345920, "name": "h100-sxm"}})";
        const auto asked = estimate(parse_config(head + line + tail).value);
        const auto nearest = estimate(parse_config(head + modelled + tail).value);
        REQUIRE(asked.errors.empty());
        CHECK(asked.serving.release == line);
        CHECK(asked.serving.release_modelled == modelled);
        CHECK(asked.serving.kv_capacity_tokens == nearest.serving.kv_capacity_tokens);
        CHECK(asked.serving.kv_cache_bytes == nearest.serving.kv_cache_bytes);
        bool warned = false;
        for (const auto& w : asked.warnings)
            warned = warned || (w.field == "infer.engine_version" && w.message.find("vLLM " + line + " is not modelled") == 0 &&
                                w.message.find("vLLM " + modelled + ";") != std::string::npos);
        CHECK(warned);
        bool quiet = true;
        for (const auto& w : nearest.warnings) quiet = quiet && w.field != "infer.engine_version";
        CHECK(quiet);
    }
    // Beyond the known lines: refused naming the field.
    const auto r = parse_config(R"({"mode": "infer", "infer": {"engine": "vllm", "engine_version": "0.28"}})");
    REQUIRE_FALSE(r.errors.empty());
    CHECK(r.errors[0].field == "infer.engine_version");
}

TEST_CASE("vLLM weights: MXFP4 experts padded as the GPU's MoE kernel stores them", "[serving][vllm][mxfp4]") {
    // gpt-oss-120b (128 experts of 2880 × 2880, 36 layers) at tp 4: expert width 720 on the rank.
    // vllm/model_executor/layers/quantization/mxfp4.py Mxfp4MoEMethod.create_weights (vllm-project/vllm 007d5005):
    // Marlin (A100, capability 8.0) pads 720 → 768 and 2880 → 3072: per expert and layer 3,769,344 B against
    // 3,313,440 unpadded, 455,904 × 128 × 36 = 2,100,805,632 B per rank; FlashInfer (B200, 10.0) pads 720 → 768
    // and 2880 → 3072 as well; Triton (H100, 9.0) pads only the expert width, 720 → 768: 1,016,119,296 B.
    const auto padded = [](const std::string& gpu) {
        auto c = parse_config(R"({"mode": "infer", "model": {"preset": "gpt-oss-120b"}, "parallel": {"tp": 4, "gpus": 4},
            "infer": {"engine": "vllm", "engine_version": "0.19", "max_model_len": 8192},
            "gpu": {"memory_bytes": 85899345920, "name": ")" + gpu + R"("}})");
        REQUIRE(c.errors.empty());
        const auto r = estimate(c.value);
        REQUIRE(r.errors.empty());
        u64 bytes = 0;
        for (const serving_row& row : r.serving.breakdown)
            if (row.label.rfind("MXFP4 experts padded", 0) == 0) bytes = row.bytes;
        return bytes;
    };
    CHECK(padded("NVIDIA A100-SXM4-80GB") == 2100805632ULL);
    CHECK(padded("l40s-48gb") == 2100805632ULL);
    CHECK(padded("b200-180gb") == 2100805632ULL);
    CHECK(padded("h100-sxm-80gb") == 1016119296ULL);
    // No name: the kernel is not known, the experts are counted unpadded and a warning names gpu.name.
    auto c = parse_config(R"({"mode": "infer", "model": {"preset": "gpt-oss-120b"}, "parallel": {"tp": 4, "gpus": 4},
        "infer": {"engine": "vllm", "engine_version": "0.19", "max_model_len": 8192}, "gpu": {"memory_bytes": 85899345920}})");
    const auto r = estimate(c.value);
    bool warned = false;
    for (const auto& w : r.warnings) warned = warned || (w.field == "gpu.name" && w.message.find("MXFP4") != std::string::npos);
    CHECK(warned);
    CHECK(nvidia_compute_capability("NVIDIA GeForce RTX 4090") == 89);
    CHECK(nvidia_compute_capability("rtx-5090-32gb") == 120);
    CHECK(nvidia_compute_capability("NVIDIA H200") == 90);
    CHECK(nvidia_compute_capability("gb200-186gb") == 100);
    CHECK(nvidia_compute_capability("NVIDIA A10G") == 86);
    CHECK(nvidia_compute_capability("mi300x-192gb") == 0);
    CHECK(nvidia_compute_capability("") == 0);
}

TEST_CASE("vLLM 0.8 to 0.10 fall back to the V0 engine below compute capability 8.0", "[serving][vllm][version]") {
    // vllm/engine/arg_utils.py EngineArgs._is_v1_supported_oracle: "Compute Capability < 8.0" falls back to V0
    // (tests/data/engine-logs/hfcookbook-t4-llama-3.2-3b.json: vLLM 0.8.2 on a T4 logs V0's "# GPU blocks").
    // On a T4 the line used is 0.6's (V0), on an A10G (8.6) the asked line's; 0.11 has no V0 to fall back to.
    const auto line = [](const std::string& version, const std::string& gpu) {
        const auto c = parse_config(R"({"mode": "infer", "model": {"preset": "llama-3.2-3b"}, "infer": {"engine": "vllm",
            "engine_version": ")" + version + R"(", "max_model_len": 2048}, "gpu": {"memory_bytes": 15826954486, "name": ")" + gpu + R"("}})");
        REQUIRE(c.errors.empty());
        const auto r = estimate(c.value);
        REQUIRE(r.errors.empty());
        return r.serving.release_modelled;
    };
    CHECK(line("0.8", "Tesla T4") == "0.6");
    CHECK(line("0.10", "NVIDIA Tesla V100-SXM2-16GB") == "0.6");
    CHECK(line("0.10", "NVIDIA A10G") == "0.10");
    CHECK(line("0.11", "Tesla T4") == "0.11");
    CHECK(line("0.9", "") == "0.9");
}
