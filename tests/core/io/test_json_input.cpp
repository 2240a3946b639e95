// Untrusted JSON text: size, NUL bytes, nesting, duplicate keys, lone surrogates and echoed names
// are each refused or handled on purpose, with an error naming the input.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"

using namespace memplan;
using nlohmann::json;

namespace {
json errors_of(const std::string& text, const std::string& hf = "") {
    const json out = json::parse(estimate_json(text, hf));
    return out["errors"];
}
const char* const small_model = R"("model": {"params": 7e9, "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32})";
}  // namespace

TEST_CASE("a key given twice in one object is refused, not resolved silently", "[json][input]") {
    const json e = errors_of(R"({"parallel": {"gpus": 8, "gpus": 16}})");
    REQUIRE(e.size() == 1);
    CHECK(e[0]["field"] == "config");
    CHECK(e[0]["message"] == "has the key gpus twice in one object");
    // The same key in two different objects is fine.
    CHECK(errors_of(std::string("{") + small_model + R"(, "train": {"seq_len": 8}, "infer": {"context_len": 8}})").empty());
    // The empty key is a key: given twice, the repeat is named (it went unnoticed before, and the key
    // was refused only as unknown).
    const json empty = errors_of(R"({"model": {"preset": "llama-3-8b", "": 1, "": 2}})");
    REQUIRE(empty.size() == 1);
    CHECK(empty[0]["message"] == "has the key \"\" twice in one object");
}

TEST_CASE("a NUL byte ends nothing silently", "[json][input]") {
    const std::string text = std::string("{\"mode\": \"train\"}") + '\0' + "garbage";
    const json e = errors_of(text);
    REQUIRE(e.size() == 1);
    CHECK(e[0]["message"] == "contains a NUL byte at offset 17; JSON text cannot contain one");
}

TEST_CASE("nesting and size are bounded", "[json][input]") {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    const json e = errors_of(deep);
    REQUIRE(e.size() == 1);
    CHECK(e[0]["message"] == "nests objects and arrays deeper than 64 levels");
    const std::string huge = "{\"model\": {\"model_type\": \"llama\", \"x\": \"" + std::string(9u << 20, 'a') + "\"}}";
    const json big = errors_of(huge);
    REQUIRE(big.size() == 1);
    CHECK(big[0]["message"] == "is larger than 8388608 bytes (8 MiB), the most memplan reads");
    const json hf = errors_of("{}", huge);
    REQUIRE(hf.size() == 1);
    CHECK(hf[0]["field"] == "hf_config");
}

TEST_CASE("a lone UTF-16 surrogate in an ignored key reads as U+FFFD, as JSON.parse accepts it", "[json][input]") {
    const std::string hf = R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
        "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128, "note\ud800": 1, "pair\ud83d\ude00": 2})";
    CHECK(errors_of("{}", hf).empty());
    // An escaped backslash before "u" is not an escape.
    CHECK(errors_of(R"({"model": {"model_type": "llama\\ud800x", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128}})").empty());
}

TEST_CASE("unknown keys are named readably: empty keys quoted, long keys cut", "[json][input]") {
    const json empty = errors_of(R"({"": 1})");
    REQUIRE(empty.size() == 1);
    CHECK(empty[0]["field"] == "\"\"");
    const json inner = errors_of(R"({"parallel": {"": 1}})");
    CHECK(inner[0]["field"] == "parallel.\"\"");
    const std::string key(10000, 'k');
    const json long_key = errors_of("{\"" + key + "\": 1}");
    REQUIRE(long_key.size() == 1);
    CHECK(long_key[0]["field"] == std::string(64, 'k') + "…");
}
