// vLLM's scheduler defaults (max_num_batched_tokens, max_num_seqs) per release line, GPU and entry point
// (config.hpp vllm_default_scheduler_step, the one place of the rule), and what they change in an
// estimate: the profiling run's size, the warning when the GPU's name is not given, the schema fields.
#include <catch2/catch.hpp>

#include <string>

#include "memplan/api/estimate.hpp"
#include "memplan/config/config.hpp"
#include "memplan/io/json.hpp"

using namespace memplan;

namespace {
using u64 = std::uint64_t;
constexpr u64 GiB = 1073741824ULL;
// Device totals as the driver reports them (core/data/gpus.json usable_bytes; the A100 80GB as the
// engine log tests/data/engine-logs/myoceane-a100-80gb-gpt-oss-20b.json states it, 79.25 GiB).
constexpr u64 h100_bytes = 85520809984ULL;       // h100-sxm-80gb: 81559 MiB
constexpr u64 a100_80gb_bytes = 85094039552ULL;  // A100 80GB
constexpr u64 a100_40gb_bytes = 42298834944ULL;  // a100-sxm-40gb
constexpr u64 l40s_bytes = 48305799168ULL;       // l40s-48gb

constexpr engine_release v1_lines[] = {engine_release::v0_9,  engine_release::v0_10, engine_release::v0_11,
                                       engine_release::v0_18, engine_release::v0_19, engine_release::v0_21,
                                       engine_release::v0_24, engine_release::v0_25, engine_release::v0_26,
                                       engine_release::v0_27};

vllm_scheduler_step defaults(engine_release release, vllm_entrypoint entry, u64 bytes, const std::string& name,
                             u64 max_model_len = 8192) {
    return vllm_default_scheduler_step(release, entry, bytes, name, max_model_len);
}

/// An inference configuration read from JSON (the schema's reader), that must read.
estimate_config read_config(const std::string& text) {
    const auto parsed = parse_config(text);
    INFO((parsed.errors.empty() ? std::string() : parsed.errors[0].field + ": " + parsed.errors[0].message));
    REQUIRE(parsed.errors.empty());
    return parsed.value;
}

bool warns_about(const estimate_result& r, const std::string& field) {
    for (const auto& w : r.warnings)
        if (w.field == field) return true;
    return false;
}
}  // namespace

TEST_CASE("vllm serve on V1 lines: an A100 80GB keeps 2048 tokens and 256 sequences", "[scheduler][vllm]") {
    // vllm/engine/arg_utils.py EngineArgs._set_default_args (vllm-project/vllm 99d7eb5d): device_memory >=
    // 70 GiB and "a100" not in the lower-cased device name gives OPENAI_API_SERVER 8192 / 1024, else 2048 / 256.
    for (const engine_release release : v1_lines) {
        for (const char* name : {"NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe", "a100-sxm-80gb", "A100"}) {
            const auto step = defaults(release, vllm_entrypoint::serve, a100_80gb_bytes, name);
            CHECK(step.max_num_batched_tokens == 2048);
            CHECK(step.max_num_seqs == 256);
            CHECK_FALSE(step.assumed_not_a100);
        }
    }
}

TEST_CASE("vllm serve on V1 lines: an H100 gets 8192 tokens and 1024 sequences", "[scheduler][vllm]") {
    // vllm/engine/arg_utils.py EngineArgs._set_default_args (vllm-project/vllm 99d7eb5d): "For GPUs like
    // H100 and MI300x, use larger default values": OPENAI_API_SERVER 8192 tokens, 1024 sequences.
    for (const engine_release release : v1_lines) {
        const auto step = defaults(release, vllm_entrypoint::serve, h100_bytes, "NVIDIA H100 80GB HBM3");
        CHECK(step.max_num_batched_tokens == 8192);
        CHECK(step.max_num_seqs == 1024);
        CHECK_FALSE(step.assumed_not_a100);
    }
    // The same by bytes alone: taken not to be an A100, which the caller states in a warning.
    const auto unnamed = defaults(engine_release::v0_27, vllm_entrypoint::serve, h100_bytes, "");
    CHECK(unnamed.max_num_batched_tokens == 8192);
    CHECK(unnamed.max_num_seqs == 1024);
    CHECK(unnamed.assumed_not_a100);
}

TEST_CASE("vllm serve on V1 lines: GPUs under 70 GiB get 2048 tokens and 256 sequences", "[scheduler][vllm]") {
    // vllm/engine/arg_utils.py EngineArgs._set_default_args (vllm-project/vllm 99d7eb5d): the else branch
    // ("TODO(woosuk): Tune the default values for other hardware"), OPENAI_API_SERVER 2048 / 256.
    for (const u64 bytes : {a100_40gb_bytes, l40s_bytes, 70 * GiB - 1, u64{0}}) {
        const auto step = defaults(engine_release::v0_19, vllm_entrypoint::serve, bytes, "");
        CHECK(step.max_num_batched_tokens == 2048);
        CHECK(step.max_num_seqs == 256);
        CHECK_FALSE(step.assumed_not_a100);  // the name decides nothing under 70 GiB
    }
    // The threshold is inclusive: device_memory >= 70 * GiB_bytes.
    CHECK(defaults(engine_release::v0_19, vllm_entrypoint::serve, 70 * GiB, "NVIDIA H20").max_num_batched_tokens ==
          8192);
}

TEST_CASE("the LLM class on V1 lines: 16384 / 1024 on large GPUs and 8192 / 256 elsewhere", "[scheduler][vllm]") {
    // vllm/engine/arg_utils.py EngineArgs._set_default_args (vllm-project/vllm 99d7eb5d): LLM_CLASS 16384
    // tokens and 1024 sequences from 70 GiB (not an A100), else 8192 and 256.
    for (const engine_release release : v1_lines) {
        const auto h100 = defaults(release, vllm_entrypoint::llm, h100_bytes, "NVIDIA H100 80GB HBM3");
        CHECK(h100.max_num_batched_tokens == 16384);
        CHECK(h100.max_num_seqs == 1024);
        const auto a100 = defaults(release, vllm_entrypoint::llm, a100_80gb_bytes, "NVIDIA A100-SXM4-80GB");
        CHECK(a100.max_num_batched_tokens == 8192);
        CHECK(a100.max_num_seqs == 256);
        const auto small = defaults(release, vllm_entrypoint::llm, 24 * GiB, "NVIDIA RTX A5000");
        CHECK(small.max_num_batched_tokens == 8192);
        CHECK(small.max_num_seqs == 256);
    }
}

TEST_CASE("the 0.6 line (V0) sizes the step by max_model_len whatever the GPU", "[scheduler][vllm]") {
    // vllm/config.py SchedulerConfig.__post_init__ (v0.6.6.post1): max(max_model_len, 2048) without chunked
    // prefill; 2048 with it, which vllm/engine/arg_utils.py turns on above 32,768 tokens; EngineArgs
    // max_num_seqs 256. Neither the GPU nor the entry point enters.
    for (const vllm_entrypoint entry : {vllm_entrypoint::serve, vllm_entrypoint::llm}) {
        for (const u64 bytes : {h100_bytes, a100_40gb_bytes}) {
            CHECK(defaults(engine_release::v0_6, entry, bytes, "", 1000).max_num_batched_tokens == 2048);
            CHECK(defaults(engine_release::v0_6, entry, bytes, "", 8192).max_num_batched_tokens == 8192);
            CHECK(defaults(engine_release::v0_6, entry, bytes, "", 32768).max_num_batched_tokens == 32768);
            CHECK(defaults(engine_release::v0_6, entry, bytes, "", 32769).max_num_batched_tokens == 2048);
            CHECK(defaults(engine_release::v0_6, entry, bytes, "", 8192).max_num_seqs == 256);
            CHECK_FALSE(defaults(engine_release::v0_6, entry, bytes, "", 8192).assumed_not_a100);
        }
    }
}

TEST_CASE("given values replace the defaults and a defaulted max_num_seqs is at most the step's tokens",
          "[scheduler][vllm]") {
    estimate_config c;
    c.mode = run_mode::infer;
    c.gpu_memory_bytes = h100_bytes;
    c.infer.max_model_len = 16000;
    c.infer.max_num_batched_tokens = 512;
    // vllm/engine/arg_utils.py (vllm-project/vllm 99d7eb5d): max_num_seqs = min(default_max_num_seqs,
    // max_num_batched_tokens).
    auto step = vllm_scheduler_step_of(c);
    CHECK(step.max_num_batched_tokens == 512);
    CHECK(step.max_num_seqs == 512);
    CHECK(step.assumed_not_a100);  // max_num_seqs still defaulted by the name
    c.infer.max_num_seqs = 64;
    step = vllm_scheduler_step_of(c);
    CHECK(step.max_num_seqs == 64);
    CHECK_FALSE(step.assumed_not_a100);  // both given: the name decides nothing
    // The prefill chunk of the plain estimate is the same step; none with chunked prefill off.
    CHECK(prefill_chunk_tokens(c) == 512);
    c.infer.max_num_batched_tokens = 0;
    c.gpu_name = "NVIDIA A100-SXM4-80GB";
    c.gpu_memory_bytes = a100_80gb_bytes;
    CHECK(prefill_chunk_tokens(c) == 2048);
    c.infer.chunked_prefill = false;
    CHECK(prefill_chunk_tokens(c) == 0);
}

TEST_CASE("gpu.name and infer.vllm_entrypoint are schema fields", "[scheduler][schema]") {
    const estimate_config c = read_config(
        R"({"mode":"infer","infer":{"engine":"vllm","vllm_entrypoint":"llm"},
            "gpu":{"memory_bytes":85520809984,"name":"h100-sxm-80gb"}})");
    CHECK(c.infer.entrypoint == vllm_entrypoint::llm);
    CHECK(c.gpu_name == "h100-sxm-80gb");
    CHECK(vllm_scheduler_step_of(c).max_num_batched_tokens == 16384);
    const auto bad = parse_config(R"({"mode":"infer","infer":{"vllm_entrypoint":"openai"}})");
    REQUIRE_FALSE(bad.errors.empty());
    CHECK(bad.errors[0].field == "infer.vllm_entrypoint");
}

TEST_CASE("an A100 80GB by name sizes vLLM's profiling run as its log's flags do", "[scheduler][vllm]") {
    // tests/data/engine-logs/myoceane-a100-80gb-gpt-oss-20b.json (myoceane.fr, vLLM 0.19.0): `vllm serve
    // openai/gpt-oss-20b --max-model-len 131072 --gpu-memory-utilization 0.65`, no scheduler flags, on an
    // A100 80GB (79.25 GiB); the log prints "Available KV cache memory: 36.56 GiB". The corpus file states
    // vLLM's A100 defaults (2048 tokens, 256 sequences) as flags; named, the GPU gives them by itself.
    const std::string settings = R"("mode":"infer","model":{"preset":"gpt-oss-20b"},
        "infer":{"engine":"vllm","engine_version":"0.19","max_model_len":131072,"gpu_memory_utilization_permille":650)";
    const estimate_result named = estimate(read_config(
        "{" + settings + R"(},"gpu":{"memory_bytes":85094039552,"name":"NVIDIA A100-SXM4-80GB"}})"));
    const estimate_result flags = estimate(read_config(
        "{" + settings + R"(,"max_num_batched_tokens":2048,"max_num_seqs":256},"gpu":{"memory_bytes":85094039552,
        "name":"a100-sxm-80gb"}})"));
    const estimate_result unnamed = estimate(read_config("{" + settings + R"(},"gpu":{"memory_bytes":85094039552}})"));
    REQUIRE(named.errors.empty());
    REQUIRE(flags.errors.empty());
    REQUIRE(unnamed.errors.empty());
    // memplan's prediction with the A100's defaults and vLLM's Marlin layout of the MXFP4 experts (expert
    // width 2880 → 2944, hidden 2880 → 3072; vllm_profile.cpp mxfp4_padding): 804,896 tokens,
    // 39,562,641,408 B = 36.85 GiB (the log 36.56 GiB, +0.8 %; unpadded it was 37.70 GiB, +3.1 %).
    CHECK(named.serving.kv_capacity_tokens == 804896);
    CHECK(named.serving.kv_cache_bytes == 39562641408ULL);
    CHECK(flags.serving.kv_cache_bytes == named.serving.kv_cache_bytes);
    CHECK_FALSE(warns_about(named, "gpu.name"));
    CHECK_FALSE(warns_about(flags, "gpu.name"));
    // By bytes alone the GPU is taken not to be an A100 (8192 tokens, 1024 sequences) and its MXFP4 kernel is
    // not known (experts counted unpadded): 775,728 tokens, 35.51 GiB, and warnings naming gpu.name.
    CHECK(unnamed.serving.kv_capacity_tokens == 775728);
    CHECK(warns_about(unnamed, "gpu.name"));
}
