// SGLang's KV pool over a held-out set of public SGLang start-up logs (tests/data/engine-logs-sglang/,
// set "2026-12", fixed before any change to the model): each file names its source, the SGLang
// release, the settings as a memplan configuration and the figures the log prints. memplan predicts
// from the settings alone; the test reports each log's signed error on the pool's tokens (#tokens, or
// max_total_num_tokens where the release's KV line prints none) and holds the measured accuracy as a floor.
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
#include "memplan/serving/serving.hpp"
#include "log_corpus.hpp"

using namespace memplan;

namespace {
std::vector<test::logged_run> sglang_corpus() { return test::read_log_folder("engine-logs-sglang"); }

/// memplan's pool in tokens for one log's settings, or a failed check naming the first error.
double predicted_tokens(const nlohmann::json& doc) {
    const serving_result s = test::serve(test::config_of(doc));
    CHECK(s.starts == doc.at("log").at("starts").get<bool>());
    return static_cast<double>(s.kv_capacity_tokens);
}
}  // namespace

TEST_CASE("every SGLang log names its source, release, settings and figures", "[sglang-logs]") {
    const auto logs = sglang_corpus();
    REQUIRE_FALSE(logs.empty());
    for (const auto& l : logs) {
        INFO(l.name);
        const auto& d = l.doc;
        REQUIRE(d.contains("source"));
        CHECK(d.at("source").get<std::string>().rfind("https://", 0) == 0);
        CHECK(d.at("engine") == "sglang");
        CHECK_FALSE(d.at("version").get<std::string>().empty());
        CHECK_FALSE(d.at("setup").get<std::string>().empty());
        CHECK(d.at("held_out_set") == "2026-12");
        REQUIRE(d.contains("config"));
        CHECK(d.at("config").at("infer").at("engine") == "sglang");
        CHECK(d.at("config").at("infer").contains("mem_fraction_static_permille"));
        REQUIRE(d.contains("log"));
        CHECK(d.at("log").at("kv_tokens").get<double>() > 0);
        CHECK(d.at("log").contains("starts"));
        CHECK_FALSE(d.at("lines").empty());
    }
}

TEST_CASE("memplan's SGLang pool against the held-out start-up logs", "[sglang-logs]") {
    const auto logs = sglang_corpus();
    int within5 = 0, within15 = 0;
    for (const auto& l : logs) {
        INFO(l.name);
        const double log_tokens = l.doc.at("log").at("kv_tokens").get<double>();
        const double memplan_tokens = predicted_tokens(l.doc);
        const double error = (memplan_tokens - log_tokens) / log_tokens;
        INFO(l.name << ": log " << log_tokens << " tokens, memplan " << memplan_tokens << ", signed error "
                    << std::round(error * 1000.0) / 10.0 << " %");
        CHECK(std::isfinite(error));
        // The figure the answer says a plan can count on is never above SGLang's own on this set.
        const double counted = test::counted_on_tokens(test::config_of(l.doc));
        CHECK(counted > 0);
        CHECK(counted <= log_tokens);
        if (std::abs(error) <= 0.05) ++within5;
        if (std::abs(error) <= 0.15) ++within15;
    }
    // Measured when the set was fixed (2026-12): 5 logs, 3 within ±5 %, 4 within ±15 %
    // (+0.7 %, +1.1 %, +4.6 %, +14.2 %, +18.2 %): memplan's pool is never smaller than SGLang's.
    // With the reserve taken of the memory free at start (the device less the CUDA context, as
    // model_runner.py measures total_gpu_memory; a rule read from the source after these logs were
    // seen, no constant fitted): +0.3 %, +0.6 %, +4.5 %, +10.0 %, +10.2 %.
    CHECK(logs.size() == 5u);
    CHECK(within5 >= 3);
    CHECK(within15 >= 5);
}
