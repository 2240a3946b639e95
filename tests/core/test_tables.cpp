// The core's tables and their helpers: layer_params sums and comparison, the MTP modules held as one
// layer_params, the model families (memplan/model/families.hpp) and the serving engines
// (memplan/serving/engines.hpp), each checked against what the code that reads them does.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "memplan/io/json.hpp"
#include "memplan/model/arch.hpp"

using namespace memplan;

namespace {
/// A Hugging Face fixture of tests/data/hf, without its "_source" note.
std::string hf_fixture(const std::string& name) {
    std::ifstream in(std::string(MEMPLAN_DATA_DIR) + "/hf/" + name);
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json doc = nlohmann::json::parse(text.str());
    doc.erase("_source");
    return doc.dump();
}

model_config model_of(const std::string& fixture) {
    const auto parsed = parse_config(R"({"mode": "infer"})", hf_fixture(fixture));
    if (!parsed.ok()) FAIL(parsed.errors[0].field + ": " + parsed.errors[0].message);
    return parsed.value.model;
}
}  // namespace

TEST_CASE("layer_params: sums, multiples and the nine counts compared", "[tables][layer_params]") {
    model_config m = model_of("deepseek_r1.json");
    m.mtp = true;
    const auto counted = count_params(m);
    REQUIRE(counted.ok());
    const param_breakdown& p = counted.value;
    layer_params sum;
    for (const layer_params& l : p.layers) sum += l;
    std::uint64_t total = 0, experts = 0;
    for (const layer_params& l : p.layers) {
        total += l.total;
        experts += l.experts;
    }
    CHECK(sum.total == total);
    CHECK(sum.experts == experts);
    // DeepSeek-R1: 3 dense layers, then 58 MoE layers alike.
    layer_params moe = p.layers[3];
    moe *= 58;
    layer_params dense = p.layers[0];
    dense *= 3;
    dense += moe;
    CHECK(dense == sum);
    CHECK(dense.active == sum.active);
    CHECK(p.layers[0] != p.layers[3]);
    // `active` and the kinds are not compared: the memory of a layer is in the nine counts.
    layer_params other = p.layers[3];
    other.active += 1;
    other.attention = attention_kind::full;
    CHECK(other == p.layers[3]);
    // The MTP modules: one layer_params of all of them, as the parts count them.
    CHECK(p.mtp_layer.total == p.parts.mtp.total);
    CHECK(p.mtp_layer.active == p.parts.mtp.active);
    CHECK(p.mtp_layer.mlp == layer_mlp_kind::moe);
    CHECK(p.mtp_layer.total > p.layers[3].total);
    m.mtp = false;
    CHECK(count_params(m).value.mtp_layer == layer_params{});
}
