// A named framework's own defaults (memplan/memory/frameworks.hpp framework_defaults): applied to the
// train.* fields the configuration leaves unset, never to a field it gives, and listed in the result
// (framework_defaults, and a warning on each field).
#include <cmath>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "estimate_runner.hpp"
#include "memplan/config/schema.hpp"
#include "memplan/memory/frameworks.hpp"
#include "memplan/report/json.hpp"

using namespace memplan;
using memplan_test::run;
using nlohmann::json;

namespace {
/// Llama 3.2 1B, full fine-tuning on one GPU, 2 × 2,048 tokens; `train` adds fields to the train section.
std::string config(const std::string& framework, const std::string& train = "") {
    return R"({"mode": "train", "model": {"preset": "llama-3.2-1b"}, "train": {"micro_batch": 2, "seq_len": 2048, )" +
           std::string(train.empty() ? "" : train + ", ") + R"("framework": ")" + framework + "\"}}";
}

estimate_config parsed(const std::string& text) {
    const auto p = parse_config(text);
    INFO(text);
    REQUIRE(p.ok());
    return p.value;
}

/// The fields of the result's framework_defaults, in order.
std::vector<std::string> listed(const std::string& text) {
    const json out = json::parse(estimate_json(text));
    INFO(out.dump());
    REQUIRE(out["errors"].empty());
    std::vector<std::string> fields;
    if (!out.contains("framework_defaults")) return fields;
    for (const auto& d : out["framework_defaults"]) fields.push_back(d["field"].get<std::string>());
    return fields;
}

/// Whether a warning on `field` names the framework's default.
bool warned(const estimate_result& r, const std::string& field) {
    for (const auto& w : r.warnings)
        if (w.field == field && w.message.find("not given") != std::string::npos) return true;
    return false;
}
}  // namespace

TEST_CASE("every framework default names a schema field, a value it accepts and an upstream source", "[framework_defaults]") {
    std::size_t count = 0;
    for (const framework_default& d : framework_defaults()) {
        INFO(d.path);
        ++count;
        CHECK(d.framework != train_framework::none);
        REQUIRE(find_field(d.path) != nullptr);
        CHECK(std::string(d.path).rfind("train.", 0) == 0);
        CHECK(std::string(d.source).find(" at ") != std::string::npos);  // "owner/repo file at <commit>"
        CHECK_FALSE(std::string(d.upstream).empty());
        // The value is one the field accepts: setting it through the schema succeeds.
        estimate_config c;
        field_value v;
        v.name = d.value;
        v.flag = std::string(d.value) == "true";
        CHECK(find_field(d.path)->set(c, v));
    }
    CHECK(count >= 4);
    CHECK(count <= 32);
}

TEST_CASE("trl's gradient checkpointing is applied when train.recompute is not given, not when it is", "[framework_defaults]") {
    CHECK(parsed(config("trl")).train.recompute == recompute_mode::full);
    CHECK(parsed(config("trl", R"("recompute": "none")")).train.recompute == recompute_mode::none);
    CHECK(parsed(config("trl", R"("recompute": "selective")")).train.recompute == recompute_mode::selective);
    // The estimate is trl's: the same numbers as recompute full given outright, and a warning that says so.
    const auto trl = run(config("trl"));
    const auto full = run(config("trl", R"("recompute": "full")"));
    CHECK(trl.per_gpu.activations == full.per_gpu.activations);
    CHECK(trl.per_gpu.activations < run(config("none")).per_gpu.activations);
    CHECK(warned(trl, "train.recompute"));
    CHECK_FALSE(warned(full, "train.recompute"));
    CHECK(listed(config("trl")) == std::vector<std::string>{"train.recompute", "train.activation_offload"});
    CHECK(listed(config("trl", R"("recompute": "none")")) == std::vector<std::string>{"train.activation_offload"});
    CHECK(listed(config("trl", R"("recompute": "full", "activation_offload": false)")).empty());
}

TEST_CASE("Unsloth's offloaded checkpointing is applied when not given, and only with full recompute from 512 tokens", "[framework_defaults]") {
    const estimate_config u = parsed(config("unsloth"));
    CHECK(u.train.recompute == recompute_mode::full);
    CHECK(u.train.activation_offload);
    CHECK(listed(config("unsloth")) == std::vector<std::string>{"train.recompute", "train.activation_offload"});
    // Given fields win; offloading needs the layers recomputed from their inputs.
    const estimate_config none = parsed(config("unsloth", R"("recompute": "none")"));
    CHECK(none.train.recompute == recompute_mode::none);
    CHECK_FALSE(none.train.activation_offload);
    CHECK(listed(config("unsloth", R"("recompute": "none")")).empty());
    CHECK_FALSE(parsed(config("unsloth", R"("activation_offload": false)")).train.activation_offload);
    // Below 512 tokens Unsloth checkpoints without offloading.
    const std::string short_run =
        R"({"mode": "train", "model": {"preset": "llama-3.2-1b"}, "train": {"seq_len": 256, "framework": "unsloth"}})";
    CHECK(parsed(short_run).train.recompute == recompute_mode::full);
    CHECK_FALSE(parsed(short_run).train.activation_offload);
    CHECK(listed(short_run) == std::vector<std::string>{"train.recompute"});
    const auto r = run(config("unsloth"));
    CHECK(r.details.offloaded_activation_bytes > 0);
    CHECK(warned(r, "train.activation_offload"));
}

TEST_CASE("the Hugging Face Trainer's defaults are applied when not given and listed", "[framework_defaults]") {
    CHECK(parsed(config("hf_trainer")).train.recompute == recompute_mode::none);
    CHECK(parsed(config("hf_trainer", R"("recompute": "full")")).train.recompute == recompute_mode::full);
    CHECK(parsed(config("hf_trainer", R"("optimizer": "adam_8bit")")).train.optimizer == optimizer_kind::adam_8bit);
    CHECK(listed(config("hf_trainer")) == std::vector<std::string>{"train.recompute", "train.optimizer"});
    CHECK(listed(config("hf_trainer", R"("recompute": "full")")) == std::vector<std::string>{"train.optimizer"});
    CHECK(warned(run(config("hf_trainer")), "train.recompute"));
}

TEST_CASE("Axolotl's and torchtitan's defaults are applied when not given and listed", "[framework_defaults]") {
    CHECK(parsed(config("axolotl")).train.recompute == recompute_mode::none);
    CHECK(parsed(config("axolotl", R"("recompute": "full")")).train.recompute == recompute_mode::full);
    CHECK(listed(config("axolotl")) == std::vector<std::string>{"train.recompute", "train.activation_offload"});
    CHECK(listed(config("axolotl", R"("recompute": "full")")) == std::vector<std::string>{"train.activation_offload"});
    CHECK(parsed(config("torchtitan")).train.optimizer == optimizer_kind::adam);
    CHECK(parsed(config("torchtitan", R"("optimizer": "sgd")")).train.optimizer == optimizer_kind::sgd);
    CHECK(listed(config("torchtitan")) == std::vector<std::string>{"train.optimizer", "train.optimizer_in_backward"});
    CHECK(listed(config("torchtitan", R"("optimizer": "sgd", "optimizer_in_backward": true)")).empty());
    const json out = json::parse(estimate_json(config("torchtitan")));
    CHECK(out["framework_defaults"][0]["framework"] == "torchtitan");
    CHECK(out["framework_defaults"][0]["value"] == "adam");
    CHECK(out["framework_defaults"][0]["source"].get<std::string>().find("pytorch/torchtitan") != std::string::npos);
}

TEST_CASE("nothing is listed without a framework, nor for a framework without defaults", "[framework_defaults]") {
    CHECK(listed(config("none")).empty());
    CHECK(json::parse(estimate_json(config("none")))["framework_defaults"].empty());
    CHECK(parsed(config("none")).train.framework_defaults == 0);
    CHECK(parsed(config("none")).train.recompute == recompute_mode::none);
    for (const char* name : {"torchtune", "megatron", "deepspeed"}) {
        INFO(name);
        CHECK(listed(config(name)).empty());
        CHECK_FALSE(warned(run(config(name)), "train.recompute"));
    }
    // Inference results carry no list.
    CHECK_FALSE(json::parse(estimate_json(R"({"mode": "infer", "model": {"preset": "llama-3.2-1b"}})")).contains("framework_defaults"));
}

TEST_CASE("LitGPT's eager RMSNorm is its default, against its published Llama 2 7B QLoRA peak", "[framework_defaults]") {
    // LitGPT's resource table (Lightning-AI/litgpt tutorials/resource-tables.md at 4839345a, A100 40GB): Llama 2
    // 7B, LoRA r8 on q and v, NF4 base (bitsandbytes 0.42: each 4-bit linear keeps its input), micro-batch 1
    // of the 1,304-token longest Alpaca sample, 14.14 GB max_memory_allocated. Fused norms count 12.30 GB
    // (−13.0 %); LitGPT's RMSNorm in eager PyTorch keeps its fp32 intermediates: 14.35 GB (+1.5 %).
    const std::string row =
        R"({"mode": "train", "model": {"preset": "llama-2-7b"}, "overhead": {"misc_bytes": 0}, "train": {"framework": "litgpt",
            "micro_batch": 1, "seq_len": 1304, "adapter_type": "lora", "adapter_rank": 8, "adapter_targets": "q_proj,v_proj",
            "adapter_dropout": true, "adapter_dtype": "bf16", "optimizer_state_dtype": "bf16", "master_weights": false,
            "base_dtype": "nf4", "base_keeps_inputs": true, "paged_optimizer": true)";
    const auto by_default = run(row + "}}");
    CHECK(parsed(row + "}}").train.kernels == kernel_kind::eager);
    CHECK(warned(by_default, "train.kernels"));
    const double published = 14.14e9;
    CHECK(std::abs(static_cast<double>(by_default.details.phases.peak_bytes) - published) <= 0.05 * published);
    // The user's value wins and is not listed: fused norms, the figure 13 % low.
    const auto fused = run(row + R"(, "kernels": "fused"}})");
    CHECK_FALSE(warned(fused, "train.kernels"));
    CHECK(static_cast<double>(fused.details.phases.peak_bytes) < 0.9 * published);
}

TEST_CASE("LLaMA-Factory checkpoints by default, and double-quantizes only a 4-bit base", "[framework_defaults]") {
    // hiyouga/LlamaFactory src/llamafactory/hparams/model_args.py at 881a7749: disable_gradient_checkpointing
    // False, double_quantization True (bitsandbytes 4-bit).
    const auto full = parsed(config("llama_factory"));
    CHECK(full.train.recompute == recompute_mode::full);
    CHECK_FALSE(full.train.double_quant);  // a bf16 full fine-tune has nothing to double-quantize
    CHECK(listed(config("llama_factory")) == std::vector<std::string>{"train.recompute"});
    const std::string qlora = R"("adapter_type": "lora", "base_dtype": "nf4")";
    const auto q = parsed(config("llama_factory", qlora));
    CHECK(q.train.double_quant);
    CHECK(listed(config("llama_factory", qlora)) == std::vector<std::string>{"train.recompute", "train.double_quant"});
    // The default's bytes: NF4 constants as int8 with a second level (QLoRA §3), below the plain fp32 absmax.
    const auto single = run(config("llama_factory", qlora + R"(, "double_quant": false)"));
    CHECK(run(config("llama_factory", qlora)).details.base_weight_bytes < single.details.base_weight_bytes);
    // The user's value wins, and LLaMA-Factory has no pipeline parallelism.
    CHECK(parsed(config("llama_factory", R"("recompute": "none")")).train.recompute == recompute_mode::none);
    const auto pp = parse_config(R"({"mode": "train", "model": {"preset": "llama-3.2-1b"}, "parallel": {"gpus": 2, "pp": 2},
        "train": {"framework": "llama_factory"}})");
    REQUIRE(pp.ok());
    const auto refused = estimate(pp.value);
    REQUIRE_FALSE(refused.errors.empty());
    CHECK(refused.errors[0].field == "parallel.pp");
}
