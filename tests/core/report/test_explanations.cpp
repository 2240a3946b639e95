// How each breakdown row is computed (core/data/explanations.json compiled in,
// memplan/io/explanations.hpp): one row per part of the estimate result's per_gpu, in its order, for
// each run mode, with the text the page shows.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "memplan/report/json.hpp"
#include "memplan/config/schema.hpp"
#include "memplan/io/explanations.hpp"
#include "memplan/io/json.hpp"

using namespace memplan;
using json = nlohmann::ordered_json;

TEST_CASE("every part of per_gpu is explained, in its order, in both run modes", "[explanations]") {
    const json result = json::parse(estimate_json(R"({"model":{"preset":"llama-3.2-1b"}})"));
    std::vector<std::string> parts;
    for (const auto& item : result["per_gpu"].items()) parts.push_back(item.key());
    REQUIRE(parts.back() == "total");
    for (const run_mode mode : {run_mode::train, run_mode::infer}) {
        CAPTURE(to_string(mode));
        std::vector<std::string> keys;
        for (const auto& row : explanations(mode)) {
            CAPTURE(row.key);
            keys.push_back(row.key);
            CHECK(!row.label.empty());
            CHECK(!row.formula.empty());
            CHECK(!row.source.empty());
        }
        CHECK(keys == parts);
    }
}

TEST_CASE("the explanations' text: per mode where the modes differ, once where they do not", "[explanations]") {
    const auto& train = explanations(run_mode::train);
    const auto& infer = explanations(run_mode::infer);
    REQUIRE(train.size() == 10);
    REQUIRE(infer.size() == 10);
    CHECK(train[0].label == "Weights");
    CHECK(train[6].key == "kv_cache");
    CHECK(train[6].formula == "Training keeps no KV cache.");
    CHECK(train[6].source == "—");
    CHECK(infer[6].formula.rfind("2 (K and V) × layers on this stage × ceil(KV heads / tp)", 0) == 0);
    CHECK(infer[6].source.rfind("Pope et al. 2022", 0) == 0);
    CHECK(train[3].source.rfind("Korthikanti et al. 2022", 0) == 0);
    CHECK(infer[1].formula == "Inference keeps no gradients.");
    // The rows shared by both modes read the same in each.
    for (std::size_t i = 7; i < 9; ++i) {
        CHECK(train[i].formula == infer[i].formula);
        CHECK(train[i].source == infer[i].source);
    }
    CHECK(train[9].label == "Total");
    // Training's total says it is the steady-state sum and where the step's phases are.
    CHECK(train[9].formula.find("steady-state sum") != std::string::npos);
    CHECK(train[9].formula.find("details.phases") != std::string::npos);
    CHECK(infer[9].formula.find("details.phases") == std::string::npos);
}

TEST_CASE("the CUDA context the misc row states is the core's default overhead", "[explanations][schema]") {
    const field_spec* misc = find_field("overhead.misc_bytes");
    REQUIRE(misc != nullptr);
    const std::uint64_t bytes = misc->get(estimate_config{}).number;
    CHECK(bytes == 287047680);
    const explanation& row = explanations(run_mode::train)[8];
    CHECK(row.key == "misc");
    CHECK(row.formula.find("287,047,680 B") != std::string::npos);
}

TEST_CASE("the explanations as JSON: the rows of each mode", "[explanations]") {
    const json doc = json::parse(explanations_json());
    CHECK(doc["version"] == 1);
    for (const char* mode : {"train", "infer"}) {
        CAPTURE(mode);
        const auto& rows = doc["modes"][mode];
        REQUIRE(rows.size() == 10);
        const auto& stored = explanations(std::string(mode) == "train" ? run_mode::train : run_mode::infer);
        for (std::size_t i = 0; i < rows.size(); ++i) {
            CHECK(rows[i]["key"] == stored[i].key);
            CHECK(rows[i]["label"] == stored[i].label);
            CHECK(rows[i]["formula"] == stored[i].formula);
            CHECK(rows[i]["source"] == stored[i].source);
        }
    }
}
