// A Hugging Face config.json as Python's json module writes it: bare Infinity, -Infinity and NaN values
// (json.dumps allow_nan=True) are read in config.json only; memplan's own configuration stays standard JSON.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"

using namespace memplan;
using nlohmann::json;

namespace {
/// A small Llama config.json with `extra` spliced in before its last key.
std::string llama_with(const std::string& extra) {
    return R"({"model_type": "llama", )" + extra +
           R"( "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128,
              "vocab_size": 100})";
}

std::string errors_text(const std::string& config, const std::string& hf) {
    const auto parsed = parse_config(config, hf);
    std::string out;
    for (const auto& e : parsed.errors) out += e.field + ": " + e.message + "\n";
    return out;
}

const char* const infer = R"({"mode": "infer"})";
}  // namespace

TEST_CASE("config.json: Python's bare Infinity, -Infinity and NaN are read where memplan ignores the key",
          "[json][python]") {
    const auto plain = parse_config(infer, llama_with(""));
    REQUIRE(plain.ok());
    for (const char* value : {"[0.0, Infinity]", "-Infinity", "NaN", "[NaN,-Infinity,Infinity]", "{\"a\": Infinity}"}) {
        CAPTURE(value);
        const auto parsed = parse_config(infer, llama_with(std::string("\"time_step_limit\": ") + value + ","));
        CHECK(errors_text(infer, llama_with(std::string("\"time_step_limit\": ") + value + ",")).empty());
        REQUIRE(parsed.ok());
        CHECK(count_params(parsed.value.model).value.total == count_params(plain.value.model).value.total);
    }
    // The report's JSON (an estimate) is standard JSON: no such value comes back out.
    const json out = json::parse(estimate_json(infer, llama_with(R"("time_step_limit": [0.0, Infinity],)")));
    CHECK(out["errors"].empty());
}

TEST_CASE("config.json: a non-finite value of a key memplan reads is refused naming the key and its range",
          "[json][python][errors]") {
    CHECK(errors_text(infer, R"({"model_type": "llama", "num_hidden_layers": Infinity, "hidden_size": 64,
                                 "num_attention_heads": 4, "vocab_size": 100})") ==
          "hf_config.num_hidden_layers: is Infinity; must be an integer from 1 to 65536\n");
    CHECK(errors_text(infer, llama_with(R"("num_key_value_heads": -Infinity,)")) ==
          "hf_config.num_key_value_heads: is -Infinity; must be an integer from 1 to 65536\n");
    CHECK(errors_text(infer, llama_with(R"("num_experts_per_tok": NaN,)")) ==
          "hf_config.num_experts_per_tok: is NaN; must be an integer from 0 to 65536\n");
    CHECK(errors_text(infer, llama_with(R"("attention_dropout": NaN,)")) ==
          "hf_config.attention_dropout: is NaN; must be a number from 0 to 1\n");
    // A family key (Nemotron-H's Mamba heads) the same way.
    const std::string nemotron = R"({"model_type": "nemotron_h", "hybrid_override_pattern": "M*", "mamba_num_heads": Infinity,
                                     "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100})";
    CHECK(errors_text(infer, nemotron).rfind("hf_config.mamba_num_heads: is Infinity; must be an integer from 0 to 65536\n", 0) == 0);
    // A per-layer list cannot hold one either.
    CHECK(errors_text(infer, llama_with(R"("mlp_only_layers": [Infinity],)")).find("hf_config.mlp_only_layers: ") == 0);
}

TEST_CASE("config.json: only whole bare tokens outside strings are Python's, the rest stays invalid or untouched",
          "[json][python][errors]") {
    // Inside strings the words are text, kept as written (the family's pattern check reads them as such).
    const auto inside = parse_config(infer, llama_with(R"("note": "Infinity, -Infinity and NaN [Infinity]",)"));
    CHECK(inside.ok());
    CHECK(errors_text(infer, R"({"model_type": "nemotron_h", "hybrid_override_pattern": "NaN", "num_hidden_layers": 3,
                                 "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100})")
              .rfind("hf_config.hybrid_override_pattern: has a layer kind 'N'", 0) == 0);
    // A string value with an escaped quote before the word stays a string.
    CHECK(parse_config(infer, llama_with(R"("note": "say \"NaN\" Infinity",)")).ok());
    // Not Python's tokens: refused as invalid JSON.
    for (const char* value : {"Infinityx", "xInfinity", "-NaN", "NaNa", "infinity", "nan", "+Infinity", "Inf", "1Infinity",
                              "Infinity.5", "--Infinity"}) {
        CAPTURE(value);
        CHECK(errors_text(infer, llama_with(std::string("\"time_step_limit\": ") + value + ",")) ==
              "hf_config: is not valid JSON\n");
    }
    // As a key it is no value: still invalid.
    CHECK(errors_text(infer, R"({Infinity: 1})") == "hf_config: is not valid JSON\n");
    // A config.json that already spells the reader's stand-in for Infinity is read without stand-ins: its
    // number stays that number, and a bare Infinity beside it is refused rather than confused with it.
    CHECK(parse_config(infer, llama_with(R"("time_step_floor": -3.14159265358979e-301,)")).ok());
    CHECK(errors_text(infer, llama_with(R"("time_step_floor": -3.14159265358979e-301, "time_step_limit": Infinity,)")) ==
          "hf_config: is not valid JSON\n");
    CHECK(errors_text(infer, llama_with(R"("num_experts_per_tok": -3.14159265358979e-303,)")) ==
          "hf_config.num_experts_per_tok: must be an integer from 0 to 65536\n");
}

TEST_CASE("memplan's own configuration keeps refusing Infinity and NaN", "[json][python][errors]") {
    CHECK(errors_text(R"({"mode": "infer", "infer": {"context_len": Infinity}})", "") == "config: is not valid JSON\n");
    CHECK(errors_text(R"({"mode": "infer", "model": {"preset": "llama-3-8b"}, "overhead": {"fragmentation": NaN}})", "") ==
          "config: is not valid JSON\n");
    CHECK(errors_text(R"({"mode": "infer", "model": {"model_type": "llama", "num_hidden_layers": -Infinity}})", "") ==
          "config: is not valid JSON\n");
}
