// "Which stored models fit this setup": every preset estimated on the same setup (memplan/front_end.hpp
// preset_fits_json, `memplan fits`, mp.presetFits), each figure the estimate of that preset.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "memplan/api/front_end.hpp"
#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"
#include "memplan/io/presets.hpp"

using namespace memplan;
using nlohmann::json;

namespace {
const char* serving_8k = R"({"mode": "infer", "infer": {"context_len": 8192}, "gpu": {"memory_bytes": 80000000000}})";
}

TEST_CASE("every preset on one setup, each figure its own estimate's", "[fits]") {
    const json out = json::parse(preset_fits_json(serving_8k));
    REQUIRE(out["errors"].empty());
    std::size_t count = 0;
    const model_preset* all = model_presets(count);
    REQUIRE(out["models"].size() == count);  // one GPU, no parallelism: every preset can be held
    for (std::size_t i = 0; i < count; ++i) {
        const json& m = out["models"][i];
        CHECK(m["id"] == all[i].id);  // catalogue order
        const json alone = json::parse(estimate_json(R"({"mode": "infer", "model": {"preset": ")" + std::string(all[i].id) +
                                                     R"("}, "infer": {"context_len": 8192}, "gpu": {"memory_bytes": 80000000000}})"));
        REQUIRE(alone["errors"].empty());
        CHECK(m["params"] == alone["params"]);
        CHECK(m["total_bytes"] == alone["per_gpu"]["total"]);
        CHECK(m["fits"] == alone["gpu"]["fits"]);
        bool warned = false;  // the flag matches estimate's warning
        for (const auto& w : alone["warnings"]) warned = warned || w["field"] == "infer.context_len";
        CHECK(m["beyond_context_limit"] == warned);
    }
    const auto find = [&](const std::string& id) {
        for (const auto& m : out["models"]) if (m["id"] == id) return m;
        FAIL("no " << id);
        return json();
    };
    CHECK(find("llama-3.1-8b")["fits"] == true);
    CHECK(find("llama-3.1-405b")["fits"] == false);       // 810 GB of bf16 weights
    CHECK(find("gpt2")["beyond_context_limit"] == true);   // n_positions 1024
    CHECK(find("llama-3.1-8b")["beyond_context_limit"] == false);  // 131,072
}

TEST_CASE("presets a layout cannot hold are left out — no GPU size gives null verdicts — bad input gives errors", "[fits]") {
    // tp 3 divides the heads of none of the Llama presets (32, 40, 64, 128 heads).
    const json tp3 = json::parse(preset_fits_json(R"({"mode": "infer", "parallel": {"gpus": 3, "tp": 3}})"));
    REQUIRE(tp3["errors"].empty());
    std::size_t count = 0;
    model_presets(count);
    CHECK(tp3["models"].size() < count);
    for (const auto& m : tp3["models"]) {
        CHECK(m["id"].get<std::string>().rfind("llama-", 0) != 0);
        CHECK(m["fits"].is_null());
    }
    const json bad = json::parse(preset_fits_json(R"({"mode": "infer", "infer": {"context_len": 0}})"));
    CHECK(bad["models"].empty());
    REQUIRE(bad["errors"].size() == 1);
    CHECK(bad["errors"][0]["field"] == "infer.context_len");
}

TEST_CASE("memplan fits prints the core's list", "[fits][cli]") {
    const auto ok = run_cli({"fits", "--config", "-"}, false, serving_8k);
    CHECK(ok.status == 0);
    CHECK(ok.out == preset_fits_json(serving_8k) + "\n");
    CHECK(run_cli({"fits", "--config", "-"}, false, R"({"infer": {"context_len": -1}})").status == 2);
    CHECK(run_cli({"fits"}).status == 2);
}
