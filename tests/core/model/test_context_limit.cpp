// The model's context limit (config.json max_position_embeddings): read, echoed, and a context beyond it
// flagged (a warning in estimate, flags in analyze) — never refused, since memory does not depend on it.
// Also: which of the config's model keys may stand beside a Hugging Face config.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "memplan/search/analyze.hpp"
#include "memplan/report/json.hpp"
#include "memplan/io/json.hpp"

using namespace memplan;
using nlohmann::json;

namespace {
std::string fixture_text(const std::string& path) {
    std::ifstream in(std::string(MEMPLAN_DATA_DIR) + "/" + path);
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    json doc = json::parse(text.str());
    doc.erase("_source");
    return doc.dump();
}

/// Llama-3-8B's shape with its 8,192-token limit (meta-llama/Meta-Llama-3-8B config.json).
const char* llama3_8b_model = R"("model": {"num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32,
    "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256, "norm": "rmsnorm", "mlp": "gated",
    "norms_per_layer": 2, "max_position_embeddings": 8192})";

json estimate_of(const std::string& rest) {
    return json::parse(estimate_json("{" + std::string(llama3_8b_model) + ", " + rest + "}"));
}

bool warns(const json& r, const std::string& field) {
    for (const auto& w : r["warnings"])
        if (w["field"] == field && w["message"].get<std::string>().find("max_position_embeddings 8192") != std::string::npos)
            return true;
    return false;
}
}  // namespace

TEST_CASE("a Hugging Face config's max_position_embeddings is read and echoed", "[context_limit]") {
    // tests/data/hf/deepseek_r1.json: "max_position_embeddings": 163840.
    const json r = json::parse(estimate_json(R"({"mode": "infer"})", fixture_text("hf/deepseek_r1.json")));
    REQUIRE(r["errors"].empty());
    CHECK(r["config"]["model"]["max_position_embeddings"] == 163840);
    // tests/data/hf_llama2_7b_config.json: 4096.
    const json l = json::parse(estimate_json(R"({"mode": "infer"})", fixture_text("hf_llama2_7b_config.json")));
    CHECK(l["config"]["model"]["max_position_embeddings"] == 4096);
}

TEST_CASE("a context beyond the model's limit is a warning naming the field, and memory is counted as asked", "[context_limit]") {
    const json at = estimate_of(R"("mode": "infer", "infer": {"context_len": 8192})");
    const json beyond = estimate_of(R"("mode": "infer", "infer": {"context_len": 8193})");
    REQUIRE(at["errors"].empty());
    REQUIRE(beyond["errors"].empty());
    CHECK_FALSE(warns(at, "infer.context_len"));
    CHECK(warns(beyond, "infer.context_len"));
    // One token more: 32 layers · 2 · 8 KV heads · 128 · 2 B = 131,072 B more KV cache.
    CHECK(beyond["per_gpu"]["kv_cache"].get<std::uint64_t>() - at["per_gpu"]["kv_cache"].get<std::uint64_t>() == 131072);
    CHECK(warns(estimate_of(R"("mode": "train", "train": {"seq_len": 16384})"), "train.seq_len"));
    CHECK_FALSE(warns(estimate_of(R"("mode": "train", "train": {"seq_len": 8192})"), "train.seq_len"));
    // A serving engine's max_model_len is what is checked when it is longer than the context.
    CHECK(warns(estimate_of(R"("mode": "infer", "infer": {"engine": "vllm", "context_len": 4096, "max_model_len": 32768},
                              "gpu": {"memory_bytes": 80000000000})"),
                "infer.max_model_len"));
    // Without a stated limit nothing is flagged.
    const json none = json::parse(estimate_json(R"({"mode": "infer", "model": {"num_hidden_layers": 32, "hidden_size": 4096,
        "num_attention_heads": 32}, "infer": {"context_len": 1000000}})"));
    for (const auto& w : none["warnings"]) CHECK(w["field"] != "infer.context_len");
}

TEST_CASE("analyze flags a longest context beyond the model's limit", "[context_limit][analyze]") {
    const std::string base = "{" + std::string(llama3_8b_model) + R"(, "mode": "infer", "gpu": {"memory_bytes": 80000000000}})";
    const json a = json::parse(analyze_json(base));
    REQUIRE(a["errors"].empty());
    CHECK(a["limits"]["context_limit_tokens"] == 8192);
    REQUIRE(a["limits"]["max_context_len"].get<std::uint64_t>() > 8192);  // 80 GB holds far more than 8k tokens
    CHECK(a["limits"]["beyond_context_limit"] == true);
    CHECK(a["serving"]["longest_beyond_context_limit"] == true);
    for (const auto& p : a["context_sweep"]) CHECK(p["beyond_context_limit"] == (p["context_len"].get<std::uint64_t>() > 8192));
    // 20 GB at batch 8: after 16.06 GB of weights and the 0.29 GB context, under 3.7 GB is left, and each
    // context token costs 8 sequences · 131,072 B = 1 MiB of KV cache: fewer than 3,700 tokens, inside the limit.
    const std::string small = "{" + std::string(llama3_8b_model) +
                              R"(, "mode": "infer", "infer": {"batch": 8}, "gpu": {"memory_bytes": 20000000000}})";
    const json s = json::parse(analyze_json(small));
    REQUIRE(s["errors"].empty());
    CHECK(s["limits"]["max_context_len"].get<std::uint64_t>() < 8192);
    CHECK(s["limits"]["beyond_context_limit"] == false);
}

TEST_CASE("beside a Hugging Face config only memplan's load-time model keys are taken — others are refused", "[context_limit][hf]") {
    const std::string hf = fixture_text("hf/deepseek_r1.json");
    // model.mtp loads the MTP module: DeepSeek-V3's 671,026,419,200 main-model parameters plus one MTP
    // layer without its stored copies of the embedding and head (tied at load).
    const json plain = json::parse(estimate_json(R"({"mode": "infer"})", hf));
    const json mtp = json::parse(estimate_json(R"({"mode": "infer", "model": {"mtp": true}})", hf));
    REQUIRE(mtp["errors"].empty());
    CHECK(plain["params"] == 671026419200ULL);
    CHECK(mtp["params"].get<std::uint64_t>() - plain["params"].get<std::uint64_t>() ==
          mtp["details"]["param_breakdown"]["mtp"]["total"].get<std::uint64_t>());
    CHECK(mtp["config"]["model"]["mtp"] == true);
    const json limit = json::parse(estimate_json(R"({"mode": "infer", "model": {"max_position_embeddings": 4096}})", hf));
    CHECK(limit["config"]["model"]["max_position_embeddings"] == 4096);
    const json refused = json::parse(estimate_json(R"({"mode": "infer", "model": {"hidden_size": 1024}})", hf));
    REQUIRE(refused["errors"].size() == 1);
    CHECK(refused["errors"][0]["field"] == "model.hidden_size");
}
