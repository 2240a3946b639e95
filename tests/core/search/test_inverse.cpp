// The one inverse search (core/src/search/inverse.cpp): the fewest GPUs search the layout, the single
// changes each carry the estimate of the changed configuration, and the combined plan fits.
#include <catch2/catch.hpp>

#include <string>

#include "memplan/api/estimate.hpp"
#include "memplan/io/json.hpp"
#include "memplan/search/analyze.hpp"

using namespace memplan;

namespace {
/// Llama 3.1 70B serving in bf16 on 2 × H100 SXM (81,559 MiB = 85,520,809,984 B as nvidia-smi reports,
/// core/data/gpus.json) at tp 2, context 32,768, batch 8.
estimate_config seventy_b_on_two() {
    const auto parsed = parse_config(R"({"mode": "infer", "model": {"preset": "llama-3.1-70b"},
        "parallel": {"gpus": 2, "tp": 2}, "infer": {"context_len": 32768, "batch": 8},
        "gpu": {"memory_bytes": 85520809984}})");
    REQUIRE(parsed.ok());
    return parsed.value;
}

const suggestion* find(const std::vector<suggestion>& list, const std::string& field, const std::string& to) {
    for (const suggestion& s : list)
        if (s.field == field && s.to == to) return &s;
    return nullptr;
}
}  // namespace

TEST_CASE("Llama 3.1 70B on 2 × H100 at tp 2: fewest GPUs 4 (tp 4), every serving change listed", "[inverse]") {
    const estimate_config c = seventy_b_on_two();
    const analysis a = analyze(c);
    REQUIRE(a.errors.empty());
    REQUIRE_FALSE(a.result.fits);
    // KV cache per GPU: 2 (K, V) · 80 layers · 8/2 KV heads · 128 · 2 B · 32,768 tokens · 8 sequences.
    CHECK(a.result.per_gpu.kv_cache == 2ULL * 80 * 4 * 128 * 2 * 32768 * 8);
    CHECK(a.fewest.gpus == 4);
    CHECK(a.fewest.tp == 4);
    CHECK(a.fewest.pp == 1);
    for (const auto& s : a.stages) CHECK(s.fewest_gpus == 4);
    const std::uint64_t current = a.result.per_gpu.total;
    for (const char* field : {"infer.weight_dtype=fp8", "infer.weight_dtype=int4", "infer.kv_dtype=fp8", "parallel.tp=4",
                              "infer.batch=4", "infer.context_len=16384"}) {
        const std::string key = field;
        const auto eq = key.find('=');
        CAPTURE(key);
        const suggestion* s = find(a.suggestions, key.substr(0, eq), key.substr(eq + 1));
        REQUIRE(s != nullptr);
        CHECK(s->total + s->saving_bytes == current);
    }
    // fp8 KV halves the cache and changes nothing else.
    CHECK(find(a.suggestions, "infer.kv_dtype", "fp8")->saving_bytes == a.result.per_gpu.kv_cache / 2);
    // tp 4 doubles the GPUs with it; its total is the estimate of that layout, and it fits.
    const suggestion* tp = find(a.suggestions, "parallel.tp", "4");
    REQUIRE(tp->also.size() == 1);
    CHECK(tp->also[0] == std::make_pair(std::string("parallel.gpus"), std::string("4")));
    estimate_config four = c;
    four.parallel.tp = 4;
    four.parallel.gpus = 4;
    CHECK(tp->total == estimate(four).per_gpu.total);
    CHECK(tp->fits);
    // Ranked: the largest saving first, which puts those that fit first.
    for (std::size_t i = 1; i < a.suggestions.size(); ++i) CHECK(a.suggestions[i - 1].saving_bytes >= a.suggestions[i].saving_bytes);
    CHECK(a.suggestions.front().fits);
    CHECK(a.plan_fits);
    REQUIRE(a.plan.size() == 1);  // a single change fits: it is the whole plan
    CHECK(a.plan.front().field == a.suggestions.front().field);
}

TEST_CASE("the combined plan chains changes until it fits when no single one does", "[inverse]") {
    estimate_config c = seventy_b_on_two();
    c.parallel.gpus = 1;
    c.parallel.tp = 1;
    c.infer.context_len = 131072;
    c.gpu_memory_bytes = 48000000000ULL;  // a 48 GB GPU: nothing single is enough
    const analysis a = analyze(c);
    REQUIRE(a.errors.empty());
    for (const suggestion& s : a.suggestions) CHECK_FALSE(s.fits);
    REQUIRE(a.plan_fits);
    REQUIRE(a.plan.size() >= 2);
    CHECK(a.plan.size() <= fit_plan_max_changes);
    CHECK(a.plan.back().fits);
    // Each step lowers the total of the one before.
    std::uint64_t previous = a.result.per_gpu.total;
    for (const suggestion& s : a.plan) {
        CAPTURE(s.field, s.to);
        CHECK(s.total < previous);
        previous = s.total;
    }
}

TEST_CASE("training: the fewest GPUs search tp, pp, dp and the stage, each stage row reads the same search", "[inverse]") {
    const auto parsed = parse_config(R"({"model": {"preset": "llama-3-70b"}, "parallel": {"zero_stage": 3},
        "train": {"seq_len": 4096}, "gpu": {"memory_bytes": 85520809984}})");
    REQUIRE(parsed.ok());
    const analysis a = analyze(parsed.value);
    REQUIRE(a.errors.empty());
    REQUIRE(a.fewest.gpus != 0);
    CHECK(a.fewest.gpus == a.fewest.tp * a.fewest.pp * a.fewest.dp);
    CHECK(a.fewest.tp <= 8);  // tensor parallelism inside a node (parallel.gpus_per_node)
    for (const auto& s : a.stages) CHECK(s.fewest_tp <= 8);
    CHECK(a.stages[static_cast<std::size_t>(a.fewest.zero_stage)].fewest_gpus == a.fewest.gpus);
    estimate_config at = parsed.value;
    at.parallel.gpus = a.fewest.gpus;
    at.parallel.tp = a.fewest.tp;
    at.parallel.pp = a.fewest.pp;
    at.parallel.zero_stage = a.fewest.zero_stage;
    CHECK(estimate(at).fits);
    // One data-parallel replica fewer does not fit at that layout.
    if (a.fewest.dp > 1) {
        at.parallel.gpus -= a.fewest.tp * a.fewest.pp;
        CHECK_FALSE(estimate(at).fits);
    }
}
