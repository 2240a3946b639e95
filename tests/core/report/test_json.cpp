// The JSON interface (schema v1): parsing, errors naming fields, and the result object.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"

using namespace memplan;
using nlohmann::json;

namespace {
const char* const pythia_config = R"({
  "version": 1,
  "mode": "train",
  "model": {"params": 6.9e9, "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32},
  "parallel": {"gpus": 128, "tp": 2, "pp": 1, "zero_stage": 1, "partition_activations": true},
  "train": {"micro_batch": 8, "seq_len": 2048, "recompute": "full"},
  "gpu": {"memory_bytes": 80e9}
})";

json run(const std::string& text) {
    const json out = json::parse(estimate_json(text), nullptr, false);
    REQUIRE(out.is_object());
    return out;
}

std::string first_field(const std::string& text) {
    const json out = run(text);
    REQUIRE(out["errors"].size() >= 1);
    return out["errors"][0]["field"].get<std::string>();
}
}  // namespace

TEST_CASE("a full configuration gives integer byte fields that add up", "[json]") {
    const json out = run(pythia_config);
    REQUIRE(out["errors"].empty());
    CHECK(out["params"] == 6900000000ULL);
    CHECK(out["data_parallel"] == 64);
    const json& b = out["per_gpu"];
    CHECK(b["weights"] == 6900000000ULL);
    CHECK(b["gradients"] == 6900000000ULL);
    CHECK(b["optimizer_states"] == 646875000ULL);  // 12 B × 3.45e9 / 64
    std::uint64_t sum = 0;
    for (const char* k : {"weights", "gradients", "optimizer_states", "activations", "logits", "communication",
                          "kv_cache", "misc"}) {
        REQUIRE(b[k].is_number_unsigned());
        sum += b[k].get<std::uint64_t>();
    }
    CHECK(b["total"] == sum);
    CHECK(out["gpu"]["fits"] == true);
    // The verdict's figure: the larger of the parts' sum and the step's peak (training).
    const std::uint64_t needed = std::max<std::uint64_t>(sum, out["details"]["phases"]["peak_bytes"].get<std::uint64_t>());
    CHECK(out["gpu"]["needed_bytes"] == needed);
    CHECK(out["gpu"]["headroom_bytes"] == 80000000000ULL - needed);
}

TEST_CASE("the result's keys come in a fixed order", "[json]") {
    const std::string text = estimate_json(pythia_config);
    CHECK(text.rfind(R"({"params":6900000000,"data_parallel":64,"per_gpu":{"weights":)", 0) == 0);
    CHECK(text.find(R"("warnings":[],"errors":[]})") != std::string::npos);
}

TEST_CASE("malformed documents are errors on the field \"config\"", "[json][errors]") {
    auto text = GENERATE(as<std::string>{}, "", "{", "[1,2]", "42", "null", "{\"mode\": \"train\",}",
                         "{\"model\": {\"params\": 1e400}}");  // out of double range: rejected by the parser
    CAPTURE(text);
    const json out = run(text);
    REQUIRE(out["errors"].size() == 1);
    CHECK(out["errors"][0]["field"] == "config");
    CHECK_FALSE(out.contains("per_gpu"));
}

TEST_CASE("unknown keys, wrong types and out-of-range values name their field", "[json][errors]") {
    using row = std::tuple<std::string, std::string, std::string>;
    auto r = GENERATE(table<std::string, std::string, std::string>({
        row{R"({"modle": {}})", "modle", "is not a known key"},
        row{R"({"model": {"parms": 7}})", "model.parms", "is not a known key"},
        row{R"({"model": {"params": "7B"}})", "model.params", "must be an integer from 0 to 562949953421312"},
        row{R"({"model": {"params": -1}})", "model.params", "must be an integer from 0 to 562949953421312"},
        row{R"({"model": {"params": 1.5}})", "model.params", "must be an integer from 0 to 562949953421312"},
        row{R"({"model": 7})", "model", "must be an object"},
        row{R"({"mode": "training"})", "mode", "must be one of: train, infer"},
        row{R"({"version": 2})", "version", "must be 1"},
        row{R"({"parallel": {"tp": 0}})", "parallel.tp", "must be an integer from 1 to 1024"},
        row{R"({"parallel": {"gpus": 2e6}})", "parallel.gpus", "must be an integer from 1 to 1048576"},
        row{R"({"parallel": {"zero_stage": 4}})", "parallel.zero_stage", "must be 0, 1, 2 or 3"},
        row{R"({"parallel": {"zero_stage": 1.5}})", "parallel.zero_stage", "must be 0, 1, 2 or 3"},
        row{R"({"parallel": {"sequence_parallel": 1}})", "parallel.sequence_parallel", "must be true or false"},
        row{R"({"train": {"recompute": "some"}})", "train.recompute", "must be one of: none, selective, full, selective_op"},
        row{R"({"train": {"weight_dtype": "fp64"}})", "train.weight_dtype", "must be one of: fp32, bf16, fp16, fp8, int8, int4"},
        row{R"({"train": {"optimizer": "adagrad"}})", "train.optimizer", "must be one of: adam, adam_8bit, sgd, sgd_momentum, lion, adafactor, none"},
        row{R"({"infer": {"batch": 0}})", "infer.batch", "must be an integer from 1 to 1048576"},
        row{R"({"overhead": {"misc_bytes": 9007199254740993}})", "overhead.misc_bytes", "must be an integer from 0 to 9007199254740992"},
        row{R"({"gpu": {"memory_bytes": 0}})", "gpu.memory_bytes", "must be an integer from 1 to 9007199254740992"},
    }));
    CAPTURE(std::get<0>(r));
    const json out = run(std::get<0>(r));
    REQUIRE(out["errors"].size() >= 1);
    CHECK(out["errors"][0]["field"] == std::get<1>(r));
    CHECK(out["errors"][0]["message"] == std::get<2>(r));
}

TEST_CASE("semantic errors come back through JSON with their field", "[json][errors]") {
    CHECK(first_field(R"({"model": {"params": 7e9}})") == "model.num_hidden_layers");
    CHECK(first_field(R"({"model": {"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 3}})") ==
          "model.hidden_size");
    CHECK(first_field(R"({"model": {"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4},
                         "parallel": {"gpus": 3, "tp": 2}})") == "parallel.gpus");
}

TEST_CASE("several errors are all reported at once", "[json][errors]") {
    const json out = run(R"({"mode": "x", "parallel": {"tp": -2, "pp": "2"}, "extra": true})");
    REQUIRE(out["errors"].size() == 4);
    CHECK(out["errors"][0]["field"] == "mode");
    CHECK(out["errors"][1]["field"] == "parallel.tp");
    CHECK(out["errors"][2]["field"] == "parallel.pp");
    CHECK(out["errors"][3]["field"] == "extra");
}

TEST_CASE("invalid UTF-8 in a key does not break the output", "[json][errors]") {
    const std::string text = estimate_json("{\"k\xff\": 1}");
    CHECK(json::parse(text, nullptr, false).is_object());
}

TEST_CASE("inference configurations report weights and KV cache", "[json]") {
    const json out = run(R"({"mode": "infer",
        "model": {"params": 6738415616, "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32},
        "infer": {"batch": 1, "context_len": 4096, "weight_dtype": "bf16", "kv_dtype": "bf16"}})");
    REQUIRE(out["errors"].empty());
    CHECK(out["per_gpu"]["weights"] == 13476831232ULL);
    CHECK(out["per_gpu"]["kv_cache"] == 2147483648ULL);  // Llama-2-7B, 4096 tokens, bf16: 2 GiB
    CHECK(out["per_gpu"]["gradients"] == 0);
}

TEST_CASE("null is a wrong type in memplan's objects but 'not set' in a Hugging Face config", "[json][errors]") {
    const json strict = run(R"({"parallel": {"gpus": null}})");
    REQUIRE(strict["errors"].size() == 1);
    CHECK(strict["errors"][0]["field"] == "parallel.gpus");
    const json hf = run(R"({"model": {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
        "num_attention_heads": 4, "head_dim": null, "sliding_window": null, "vocab_size": 100, "intermediate_size": 128}})");
    CHECK(hf["errors"].empty());
}

TEST_CASE("a resolved model reproduces the estimate of the preset it came from", "[json][presets]") {
    const json resolved = json::parse(resolve_model_json(R"({"model": {"preset": "mixtral-8x7b"}})"), nullptr, false);
    REQUIRE(resolved["errors"].empty());
    CHECK(resolved["params"] == 46702792704ULL);
    CHECK(resolved["params_active"] == 12879925248ULL);
    CHECK(resolved["model"]["num_local_experts"] == 8);
    const std::string rest = R"(, "mode": "infer", "infer": {"context_len": 4096}})";
    const json direct = run(R"({"model": {"preset": "mixtral-8x7b"})" + rest);
    const json again = run(R"({"model": )" + resolved["model"].dump() + rest);
    CHECK(again == direct);
    const json broken = json::parse(resolve_model_json(R"({"model": {"preset": "nope"}})"), nullptr, false);
    CHECK(broken["errors"][0]["field"] == "model.preset");
}

TEST_CASE("dropout probabilities must be numbers from 0 to 1", "[json][errors]") {
    const json text = run(R"({"model": {"model_type": "gpt2", "n_layer": 2, "n_embd": 64, "n_head": 4, "vocab_size": 10, "resid_pdrop": "0.1"}})");
    REQUIRE(text["errors"].size() == 1);
    CHECK(text["errors"][0]["field"] == "model.resid_pdrop");
    CHECK(text["errors"][0]["message"] == "must be a number from 0 to 1");
    CHECK(run(R"({"model": {"attention_dropout": 1.5, "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4}})")
              ["errors"][0]["field"] == "model.attention_dropout");
}
