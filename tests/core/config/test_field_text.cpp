// A number field's text read by the field's kind (memplan/config/field_text.hpp): token counts as
// vLLM's command line reads them, fractions as fractions, percents or thousandths, sizes with byte
// units only, counts as whole numbers (k, M: 10^3, 10^6); what was read, in words; errors that fit the field.
#include <catch2/catch.hpp>

#include "memplan/config/field_text.hpp"
#include "memplan/config/schema.hpp"

using namespace memplan;

namespace {
const field_spec& field(const char* path) {
    const field_spec* f = find_field(path);
    REQUIRE(f != nullptr);
    return *f;
}
std::uint64_t read(const char* path, const std::string& text) {
    const auto r = parse_field_text(field(path), text);
    CAPTURE(path, text);
    REQUIRE(r.ok());
    return r.value;
}
std::string refusal(const char* path, const std::string& text) {
    const auto r = parse_field_text(field(path), text);
    CAPTURE(path, text);
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].field == path);
    return r.errors[0].message;
}
}  // namespace

TEST_CASE("each number field declares how its text is read", "[field_text]") {
    CHECK(number_kind_of(field("infer.context_len")) == number_kind::tokens);
    CHECK(number_kind_of(field("infer.max_model_len")) == number_kind::tokens);
    CHECK(number_kind_of(field("train.seq_len")) == number_kind::tokens);
    CHECK(number_kind_of(field("infer.gpu_memory_utilization_permille")) == number_kind::fraction);
    CHECK(number_kind_of(field("infer.mem_fraction_static_permille")) == number_kind::fraction);
    CHECK(number_kind_of(field("gpu.memory_bytes")) == number_kind::bytes);
    CHECK(number_kind_of(field("model.params")) == number_kind::quantity);
    CHECK(number_kind_of(field("parallel.gpus")) == number_kind::count);
    CHECK(number_kind_of(field("infer.batch")) == number_kind::count);
    // Every integer and bytes field has words for what it accepts.
    for (const auto* table : {&config_fields(), &model_fields()})
        for (const auto& f : *table)
            if (f.type == field_type::integer || f.type == field_type::bytes) {
                CAPTURE(f.path);
                CHECK(field_forms_text(f).rfind("a ", 0) == 0);
            }
}

TEST_CASE("token counts are read as vLLM reads --max-model-len: k = 1,000, K = 1,024", "[field_text]") {
    // vllm/engine/arg_utils.py human_readable_int (vllm-project/vllm 99d7eb5d): "1k" -> 1,000, "1K" ->
    // 1,024, "25.6k" -> 25,600; decimals with a binary suffix are refused.
    CHECK(read("infer.context_len", "8K") == 8192);
    CHECK(read("infer.context_len", "128K") == 131072);
    CHECK(read("infer.context_len", "32 K") == 32768);
    CHECK(read("infer.context_len", "8k") == 8000);
    CHECK(read("infer.context_len", "25.6k") == 25600);
    CHECK(read("infer.context_len", "1M") == 1048576);
    CHECK(read("infer.max_model_len", "1.5m") == 1500000);
    CHECK(read("infer.context_len", "32,768") == 32768);
    CHECK(read("infer.context_len", "32768") == 32768);
    CHECK(refusal("infer.max_model_len", "1.5M") ==
          "cannot be 1.5M: M (2^20) takes a whole number, as in vLLM; did you mean 1.5m?");
    CHECK(refusal("infer.context_len", "7B").find("a whole number of tokens from 1 to") == 8);
    CHECK(refusal("infer.context_len", "8GB").find("32K (K = 1,024: 32,768)") != std::string::npos);
    refusal("infer.context_len", "0");
    refusal("infer.context_len", "-8");
    refusal("infer.context_len", "");
    refusal("infer.context_len", "8e");
    CHECK(field_text_note(field("infer.context_len"), "8k") == "k is 1,000, as vLLM reads it; 8K is 8,192");
    CHECK(field_text_note(field("infer.context_len"), "8K") == "");
    CHECK(field_value_text(field("infer.context_len"), 8192) == "8,192 tokens");
    CHECK(field_value_text(field("infer.context_len"), 1) == "1 token");
}

TEST_CASE("a fraction is read as 0.9, 90% or 900 thousandths, a bare 2 to 100 is refused, not guessed", "[field_text]") {
    const char* util = "infer.gpu_memory_utilization_permille";
    CHECK(read(util, "0.9") == 900);  // vLLM's --gpu-memory-utilization default 0.9
    CHECK(read(util, "0.95") == 950);
    CHECK(read(util, "90%") == 900);
    CHECK(read(util, "95.5 %") == 955);
    CHECK(read(util, "900") == 900);  // the stored form (links written before)
    CHECK(read(util, "1") == 1000);
    CHECK(refusal(util, "95") == "cannot be 95: write 0.95 or 95% (950 in thousandths)");
    CHECK(refusal(util, "5") == "cannot be 5: write 0.05 or 5% (50 in thousandths)");
    CHECK(refusal(util, "1.5") == "must be a fraction from 0.001 to 1, written as 0.9, 90% or 900 (thousandths)");
    refusal(util, "0");
    refusal(util, "1001");
    refusal(util, "0.9555");
    refusal(util, "ninety");
    CHECK(field_value_text(field(util), 900) == "90%");
    CHECK(field_value_text(field(util), 955) == "95.5%");
    CHECK(field_typed_text(field(util), 900) == "0.9");  // the form's box opens on what a person types
    CHECK(field_typed_text(field(util), 955) == "0.955");
    CHECK(field_typed_text(field(util), 1000) == "1");
    CHECK(field_typed_text(field(util), 5) == "0.005");
}

TEST_CASE("sizes take byte units only, counts are whole numbers of their unit", "[field_text]") {
    CHECK(read("gpu.memory_bytes", "80GB") == 80000000000ULL);
    CHECK(read("gpu.memory_bytes", "74.5GiB") == 79993765888ULL);  // 74.5 × 2^30
    CHECK(refusal("gpu.memory_bytes", "1.5M").find("K, M, B and T are counts, not sizes") != std::string::npos);
    CHECK(field_value_text(field("gpu.memory_bytes"), 80000000000ULL) == "80,000,000,000 bytes (74.51 GiB)");
    CHECK(read("model.params", "7B") == 7000000000ULL);
    CHECK(read("model.params", "70b") == 70000000000ULL);  // as model names write it; bits make no sense here
    CHECK(read("model.params", "8.03B") == 8030000000ULL);
    refusal("model.params", "7GB");
    CHECK(read("parallel.gpus", "1,024") == 1024);
    CHECK(refusal("parallel.gpus", "7B") ==
          "must be a whole number of GPUs from 1 to 1,048,576 (k = 1,000, M = 1,000,000)");
    CHECK(read("infer.batch", "8k") == 8000);  // k is 1,000 for a count (tokens keep vLLM's k and K)
    CHECK(read("infer.batch", "8K") == 8000);
    CHECK(read("infer.batch", "2.5k") == 2500);
    CHECK(read("parallel.gpus", "1M") == 1000000);
    refusal("parallel.gpus", "8B");
    refusal("parallel.gpus", "2.5");
    refusal("infer.batch", "1.0005k");
    CHECK(field_value_text(field("infer.batch"), 1) == "1 sequence");
    CHECK(field_value_text(field("infer.batch"), 8) == "8 sequences");
}
