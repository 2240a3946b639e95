// What the CLI asks of the core beyond json.hpp: input limits, requests with a preset, replies with an
// ok flag, and the JSON of the reproduction commands (memplan/front_end.hpp, memplan/input_limits.hpp).
#include <catch2/catch.hpp>

#include "memplan/search/analyze.hpp"
#include "memplan/report/json.hpp"
#include "memplan/model/arch.hpp"
#include "memplan/api/front_end.hpp"
#include "memplan/base/input_limits.hpp"
#include "memplan/io/json.hpp"

using namespace memplan;

TEST_CASE("input text: at most 8 MiB, no NUL byte, and not empty where required", "[front_end][errors]") {
    CHECK(max_config_bytes == 8u * 1024u * 1024u);
    CHECK(check_input_text(std::string(max_config_bytes, ' '), "config", false).empty());
    const auto big = check_input_text(std::string(max_config_bytes + 1, ' '), "config", false);
    REQUIRE(big.size() == 1);
    CHECK(big[0].field == "config");
    CHECK(big[0].message == "is larger than 8388608 bytes (8 MiB), the most memplan reads");
    const auto nul = check_input_text(std::string("{}\0{", 4), "hf_config", false);
    REQUIRE(nul.size() == 1);
    CHECK(nul[0].field == "hf_config");
    CHECK(nul[0].message == "contains a NUL byte at offset 2; JSON text cannot contain one");
    CHECK(check_input_text("", "config", false).empty());  // the JSON reader says "is not valid JSON"
    const auto empty = check_input_text(" \n\t", "hf_config", true);
    REQUIRE(empty.size() == 1);
    CHECK(empty[0].message == "is empty; it must be a JSON object");
    CHECK(check_input_text("{}", "hf_config", true).empty());
}

TEST_CASE("a reply's ok flag says whether the configuration was estimated", "[front_end]") {
    json_request bad;  // "{}": no model
    const auto r = estimate_reply(bad);
    CHECK(!r.ok);
    CHECK(r.text == estimate_json("{}"));
    json_request good;
    good.config_text =
        R"({"model":{"params":7e9,"num_hidden_layers":32,"hidden_size":4096,"num_attention_heads":32},"parallel":{"gpus":8,"zero_stage":3}})";
    const auto g = estimate_reply(good);
    CHECK(g.ok);
    CHECK(g.text == estimate_json(good.config_text));
    const auto a = analyze_reply(good);
    CHECK(a.ok);
    CHECK(a.text == analyze_json(good.config_text));
    json_request invalid_layout;
    invalid_layout.config_text =
        R"({"model":{"params":7e9,"num_hidden_layers":32,"hidden_size":4096,"num_attention_heads":32},"parallel":{"gpus":6,"tp":4}})";
    CHECK(!estimate_reply(invalid_layout).ok);
    CHECK(!analyze_reply(invalid_layout).ok);
}

TEST_CASE("a preset replaces the configuration's model as model.preset does", "[front_end][presets]") {
    const std::string config = R"({"mode":"infer","infer":{"context_len":4096}})";
    json_request request;
    request.config_text = config;
    request.preset = "llama-2-7b";
    const auto e = estimate_reply(request);
    CHECK(e.ok);
    CHECK(e.text == estimate_json(R"({"mode":"infer","infer":{"context_len":4096},"model":{"preset":"llama-2-7b"}})"));
    CHECK(e.text.find("\"kv_cache\":2147483648") != std::string::npos);  // 2 · 32 layers · 4096 · 4096 · 2 bytes
    CHECK(analyze_reply(request).text == analyze_json(config, R"({"preset":"llama-2-7b"})"));
    // The configuration's own model is replaced, yet checked.
    request.config_text = R"({"model":{"params":5}})";
    CHECK(estimate_reply(request).ok);
    request.config_text = R"({"model":{"params":"5"}})";
    const auto checked = estimate_reply(request);
    CHECK(!checked.ok);
    CHECK(checked.text.find("\"field\":\"model.params\"") != std::string::npos);
    // Unknown ids and a preset with a Hugging Face config are errors naming the field.
    request.config_text = "{}";
    request.preset = "no-such-model";
    const auto unknown = estimate_reply(request);
    CHECK(!unknown.ok);
    CHECK(unknown.text.find("\"field\":\"model.preset\"") != std::string::npos);
    request.preset = "llama-2-7b";
    request.hf_config_text = R"({"model_type":"llama"})";
    const auto both = estimate_reply(request);
    CHECK(!both.ok);
    CHECK(both.text == "{\"warnings\":[],\"errors\":[{\"field\":\"preset\",\"message\":\"cannot be combined with "
                       "hf_config (each replaces the model)\"}]}");
    CHECK(analyze_reply(request).text.find("\"errors\":[{\"field\":\"preset\"") != std::string::npos);
}

TEST_CASE("preset_model reads a preset as the configuration would", "[front_end][presets]") {
    const auto m = preset_model("llama-2-7b");
    REQUIRE(m.ok());
    const auto counted = count_params(m.value);
    REQUIRE(counted.ok());
    CHECK(counted.value.total == 6738415616ULL);  // Llama 2 7B's exact parameter count
    const auto unknown = preset_model("no\"such");
    REQUIRE(unknown.errors.size() == 1);
    CHECK(unknown.errors[0].field == "model.preset");
}

TEST_CASE("the reproduction commands' JSON", "[front_end]") {
    CHECK(zero_stages_json({1}, {38500000000ULL}, "bytes", true) == "{\"bytes\":38500000000}");
    CHECK(zero_stages_json({0, 3}, {7, 9}, "params", false) ==
          "{\"stages\":[{\"stage\":0,\"params\":7},{\"stage\":3,\"params\":9}]}");
    CHECK(deepspeed_rows_json({{"offload_optimizer=cpu", 1, 2}}) ==
          "{\"rows\":[{\"options\":\"offload_optimizer=cpu\",\"cpu_bytes\":1,\"gpu_bytes\":2}]}");
    CHECK(deepspeed_rows_json({}) == "{\"rows\":[]}");
}
