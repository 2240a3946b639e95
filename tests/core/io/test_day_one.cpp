// The day-one path (memplan/report/json.hpp day_one_json): a config.json that no family of memplan counts,
// estimated from the tensors its checkpoint stores and the sizes it declares, every assumption named.
// Checked on a model memplan does count (Qwen/Qwen3-0.6B, its real safetensors header in tests/data/hf_cache,
// its config renamed to a family memplan does not know): the day-one answer must be the family's exact one
// wherever the day-one path claims exactness (weights, KV cache per token). Then on three real configs of
// families memplan does not know (tests/data/hf_day_one, sources in their "_source").
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "memplan/api/front_end.hpp"
#include "memplan/io/safetensors.hpp"
#include "memplan/report/json.hpp"

using namespace memplan;
using nlohmann::json;

namespace {
const std::string qwen_dir =
    std::string(MEMPLAN_DATA_DIR) + "/hf_cache/models--Qwen--Qwen3-0.6B/snapshots/c1899de289a04d12100db370d81485cdf75e47ca";

std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

/// Qwen3-0.6B's stored tensors, from its real header.
std::vector<stored_tensor> qwen_tensors() {
    const std::string file = read(qwen_dir + "/model.safetensors");
    const auto parsed = parse_safetensors_header(file.substr(8), "model.safetensors");
    REQUIRE(parsed.ok());
    return parsed.value;
}

/// Qwen3-0.6B's config as a family memplan does not know: another model_type and a key no reader reads.
std::string renamed_qwen() {
    json c = json::parse(read(qwen_dir + "/config.json"));
    c["model_type"] = "qwen9";
    c["architectures"] = {"Qwen9ForCausalLM"};
    c["fancy_gate"] = true;
    return c.dump();
}

json reply(const std::string& config, const std::string& hf, std::vector<stored_tensor> tensors) {
    json_request request;
    request.config_text = config;
    request.hf_config_text = hf;
    request.stored_tensors = std::move(tensors);
    request.day_one = &day_one_json;
    return json::parse(estimate_reply(request).text);
}

std::string day_one_fixture(const std::string& name) {
    json c = json::parse(read(std::string(MEMPLAN_DATA_DIR) + "/hf_day_one/" + name));
    c.erase("_source");
    return c.dump();
}

/// One bf16 tensor of `values` values: the stored bytes a test gives a config with no real header.
std::vector<stored_tensor> one_tensor(std::uint64_t values) {
    return {{"model.layers.0.mlp.weight", "BF16", {values}, values, 2 * values}};
}
}  // namespace

TEST_CASE("day-one path: a known model under an unknown name gets the family's exact weights and KV cache", "[day_one]") {
    const std::string config = R"({"mode": "infer", "infer": {"context_len": 32768}, "gpu": {"memory_bytes": 24e9}})";
    // Without the tensors the families' refusal stands, naming the key.
    const json refused = reply(config, renamed_qwen(), {});
    REQUIRE(!refused["errors"].empty());
    CHECK(refused["errors"][0]["field"] == "hf_config.model_type");

    const json day = reply(config, renamed_qwen(), qwen_tensors());
    REQUIRE(day["errors"].empty());
    const json family = reply(config, read(qwen_dir + "/config.json"), {});
    REQUIRE(family["errors"].empty());
    // The stored bf16 tensors less the tied lm_head.weight (151,936 × 1,024 × 2 B, skipped by engines):
    // 2 × 596,049,920, the family's exact count of Qwen3-0.6B (tests/core/io/test_hf_fixtures.cpp).
    CHECK(day["per_gpu"]["weights"] == 1192099840);
    CHECK(day["per_gpu"]["weights"] == family["per_gpu"]["weights"]);
    CHECK(day["params"] == 596049920);
    // 28 layers × 8 KV heads × 128 × (K and V) × 2 B.
    CHECK(day["details"]["kv_cache_bytes_per_token"] == 28 * 8 * 128 * 2 * 2);
    CHECK(day["per_gpu"]["kv_cache"] == family["per_gpu"]["kv_cache"]);
    // The verdict is marked, the family's is not; the first warning says which path gave it and why.
    CHECK(day["gpu"]["approximate"] == true);
    CHECK(!family["gpu"].contains("approximate"));
    CHECK(day["warnings"][0]["field"] == "hf_model");
    const std::string first = day["warnings"][0]["message"];
    CHECK(first.rfind("day-one estimate: model_type qwen9 is not counted by memplan's families (hf_config.model_type", 0) == 0);
    CHECK(first.find("fancy_gate") != std::string::npos);
    CHECK(first.find("known model_type") == std::string::npos);  // the list of every family is left out
    bool tied_named = false, kv_named = false;
    for (const auto& w : day["warnings"]) {
        const std::string m = w["message"];
        tied_named = tied_named || m.find("lm_head.weight (311164928 B) is left out") != std::string::npos;
        kv_named = kv_named || (w["field"] == "model.layer_types" && m.find("upper bound") != std::string::npos);
    }
    CHECK(tied_named);
    CHECK(kv_named);
    // The whole answer is within 1 % of the family's (only the activations' shape differs).
    const double d = day["per_gpu"]["total"].get<double>(), f = family["per_gpu"]["total"].get<double>();
    CHECK(std::abs(d - f) / f < 0.01);
}

TEST_CASE("day-one path: tensor parallelism splits the stored bytes, training counts the stored values", "[day_one]") {
    const json tp2 = reply(R"({"mode": "infer", "parallel": {"gpus": 2, "tp": 2}})", renamed_qwen(), qwen_tensors());
    REQUIRE(tp2["errors"].empty());
    CHECK(tp2["per_gpu"]["weights"] == 1192099840 / 2);
    CHECK(tp2["details"]["kv_cache_bytes_per_token"] == 28 * 4 * 128 * 2 * 2);
    const json train = reply(R"({"mode": "train"})", renamed_qwen(), qwen_tensors());
    REQUIRE(train["errors"].empty());
    CHECK(train["per_gpu"]["weights"] == 2 * 596049920);     // bf16 weights of the stored values
    CHECK(train["per_gpu"]["optimizer_states"] == std::uint64_t{12} * 596049920);  // fp32 master, m and v
    bool said = false;
    for (const auto& w : train["warnings"])
        said = said || (w["field"] == "model.stored_weight_bytes" &&
                        w["message"].get<std::string>().rfind("is not used in training", 0) == 0);
    CHECK(said);
}

TEST_CASE("day_one_json: refused where the families count the config, without tensors, or without the sizes", "[day_one]") {
    const json counted = json::parse(day_one_json(read(qwen_dir + "/config.json"), qwen_tensors()));
    REQUIRE(counted["errors"].size() == 1);
    CHECK(counted["errors"][0]["field"] == "hf_config");
    CHECK(counted["model"].is_null());
    const json no_tensors = json::parse(day_one_json(renamed_qwen(), {}));
    CHECK(no_tensors["errors"][0]["field"] == "hf_model");
    json c = json::parse(renamed_qwen());
    c.erase("num_hidden_layers");
    c.erase("num_attention_heads");
    const json no_sizes = json::parse(day_one_json(c.dump(), qwen_tensors()));
    REQUIRE(no_sizes["errors"].size() == 2);
    CHECK(no_sizes["errors"][0]["field"] == "hf_config.num_hidden_layers");
    CHECK(no_sizes["errors"][1]["field"] == "hf_config.num_attention_heads");
    // Through the front end: the families' refusal, then why the day-one path could not answer either.
    const json both = reply(R"({"mode": "infer"})", c.dump(), qwen_tensors());
    REQUIRE(both["errors"].size() >= 3);
    CHECK(both["errors"][both["errors"].size() - 1]["message"].get<std::string>().rfind(
              "(the day-one estimate from the stored tensors) is required", 0) == 0);
    // A width inside what is read but beyond the schema's range is refused by the day-one path itself, naming the key
    // (so that neither the page's form nor the front end receives a model it cannot take).
    c = json::parse(renamed_qwen());
    c["hidden_size"] = 2000000;
    const json wide = json::parse(day_one_json(c.dump(), qwen_tensors()));
    REQUIRE(!wide["errors"].empty());
    CHECK(wide["errors"][0]["field"] == "hf_config.hidden_size");
    CHECK(wide["model"].is_null());
    // Hostile sizes: a width of 1e30 reads as absent, never as a wrapped number.
    c = json::parse(renamed_qwen());
    c["hidden_size"] = 1e30;
    const json huge = json::parse(day_one_json(c.dump(), qwen_tensors()));
    CHECK(huge["errors"][0]["field"] == "hf_config.hidden_size");
}

TEST_CASE("day-one path: Step-3.7-Flash's full and sliding layers as declared", "[day_one]") {
    // 45 layers of layer_types: 12 full_attention, 33 sliding_attention (window 512); 8 KV heads of 128.
    const std::string config = R"({"mode": "infer", "infer": {"context_len": 32768}})";
    const json r = reply(config, day_one_fixture("step_3_7_flash.json"), one_tensor(1000000000));
    REQUIRE(r["errors"].empty());
    CHECK(r["per_gpu"]["weights"] == 2000000000);
    CHECK(r["details"]["kv_cache_bytes_per_token"] == 12 * 8 * 128 * 2 * 2);
    // Full layers keep 32,768 tokens, sliding ones 512.
    CHECK(r["per_gpu"]["kv_cache"] == std::uint64_t{12} * 8 * 128 * 2 * 2 * 32768 + 33 * 8 * 128 * 2 * 2 * 512);
    CHECK(r["config"]["model"]["num_local_experts"] == 288);
    CHECK(r["config"]["model"]["num_experts_per_tok"] == 8);
}

TEST_CASE("day-one path: MiniMax-M3 and Nemotron-NAS name what they assume", "[day_one]") {
    const auto notes_of = [](const json& day) {
        std::string all;
        for (const auto& a : day["assumptions"]) all += a.get<std::string>() + "\n";
        return all;
    };
    const json m3 = json::parse(day_one_json(day_one_fixture("minimax_m3.json"), one_tensor(1000)));
    REQUIRE(m3["errors"].empty());
    CHECK(m3["model"]["num_hidden_layers"] == 60);
    CHECK(m3["model"]["num_key_value_heads"] == 4);
    CHECK(m3["model"]["head_dim"] == 128);
    CHECK(notes_of(m3).find("model_type minimax_m3 is not counted") != std::string::npos);
    // Nemotron-NAS gives num_key_value_heads null (its block_configs hold the groups): counted as
    // multi-head attention, an upper bound, and said.
    const json nas = json::parse(day_one_json(day_one_fixture("llama_3_3_nemotron_super_49b.json"), one_tensor(1000)));
    INFO(nas["errors"].dump());
    REQUIRE(nas["errors"].empty());
    CHECK(nas["model"]["num_key_value_heads"] == 64);
    CHECK(notes_of(nas).find("no num_key_value_heads: every query head caches its own K and V") != std::string::npos);
    CHECK(notes_of(nas).find("no intermediate_size") != std::string::npos);
}

TEST_CASE("memplan estimate --hf-model: a folder of an unknown family is estimated from its headers", "[day_one][cli]") {
    const std::string dir = "/tmp/memplan-test-day-one";
    REQUIRE(std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "' && cp '" + qwen_dir + "/model.safetensors' '" +
                         dir + "/'").c_str()) == 0);
    std::ofstream(dir + "/config.json") << renamed_qwen();
    const cli_output out = run_cli({"estimate", "--config", "-", "--hf-model", dir}, false, R"({"mode": "infer"})");
    REQUIRE(out.status == 0);
    const json r = json::parse(out.out);
    CHECK(r["per_gpu"]["weights"] == 1192099840);
    CHECK(r["warnings"][0]["field"] == "hf_model");
    // The same folder's checkpoint command still refuses (it reconciles a family's count, which there is not).
    CHECK(run_cli({"checkpoint", "--hf-model", dir}).status != 0);
}
