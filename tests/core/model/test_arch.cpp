// Real architectures: exact parameter counts of published models, Hugging Face config import,
// KV cache sizes with GQA and sliding windows, quantized weights.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "memplan/model/arch.hpp"
#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"
#include "memplan/io/presets.hpp"

using namespace memplan;
using nlohmann::json;

namespace {
json run(const std::string& config) {
    const json out = json::parse(estimate_json(config), nullptr, false);
    REQUIRE(out.is_object());
    return out;
}

json preset_result(const std::string& id, const std::string& rest = "") {
    return run(R"({"mode": "infer", "model": {"preset": ")" + id + R"("})" + rest + "}");
}

param_breakdown counts_of(const std::string& id) {
    const model_preset* p = find_preset(id);
    REQUIRE(p != nullptr);
    const auto config = parse_config(R"({"model": {"preset": ")" + id + R"("}})");
    REQUIRE(config.ok());
    const auto counted = count_params(config.value.model);
    REQUIRE(counted.ok());
    return counted.value;
}
}  // namespace

TEST_CASE("every preset with a published parameter count reproduces it exactly", "[arch][presets]") {
    std::size_t count = 0;
    const model_preset* presets = model_presets(count);
    REQUIRE(count >= 30);
    int pinned = 0;
    for (std::size_t i = 0; i < count; ++i) {
        CAPTURE(presets[i].id, presets[i].params_source);
        const auto counted = counts_of(presets[i].id);
        CHECK(counted.total > 0);
        if (presets[i].published_params != 0) {
            CHECK(counted.total == presets[i].published_params);
            ++pinned;
        }
    }
    CHECK(pinned >= 15);
}

TEST_CASE("published totals of well-known models", "[arch][presets]") {
    // Exact counts, from the sum of each model's released tensor shapes .
    CHECK(counts_of("llama-2-7b").total == 6738415616ULL);
    CHECK(counts_of("llama-3-8b").total == 8030261248ULL);
    CHECK(counts_of("llama-2-70b").total == 68976648192ULL);       // "70B"
    CHECK(counts_of("llama-3.1-70b").total == 70553706496ULL);     // "70B"
    CHECK(counts_of("llama-3.1-405b").total == 405853388800ULL);   // "405B"
    CHECK(counts_of("llama-3.2-1b").total == 1235814400ULL);       // tied embeddings, "1.23B"
    CHECK(counts_of("qwen2.5-0.5b").total == 494032768ULL);        // Qwen2.5 card: 0.49B
    CHECK(counts_of("gemma-2-9b").total == 9241705984ULL);         // 4 norms per layer, tied
    CHECK(counts_of("pythia-12b").total == 11846072320ULL);        // Pythia card
}

TEST_CASE("Mixtral 8x7B: 46.7B total, 12.9B active per token", "[arch][moe]") {
    // Jiang et al. 2024, "Mixtral of Experts", §2: 47B total, 13B active (exact: sum of tensor shapes).
    const auto m = counts_of("mixtral-8x7b");
    CHECK(m.total == 46702792704ULL);
    CHECK(m.active == 12879925248ULL);
    const auto big = counts_of("mixtral-8x22b");
    CHECK(big.total == 140630071296ULL);  // "141B"
    CHECK(big.active == 39161468928ULL);  // "39B active"
}

TEST_CASE("a pasted GPT-2 config.json with its own key names gives GPT-2's count", "[arch][hf]") {
    // openai-community/gpt2 config.json (abridged; unrelated keys are ignored).
    const json out = run(R"({"model": {"activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"],
        "attn_pdrop": 0.1, "bos_token_id": 50256, "embd_pdrop": 0.1, "eos_token_id": 50256,
        "initializer_range": 0.02, "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": 1024,
        "n_embd": 768, "n_head": 12, "n_inner": null, "n_layer": 12, "n_positions": 1024,
        "resid_pdrop": 0.1, "task_specific_params": {"text-generation": {"do_sample": true}},
        "vocab_size": 50257}})");
    REQUIRE(out["errors"].empty());
    CHECK(out["params"] == 124439808);
}

TEST_CASE("Hugging Face keys set the structure: qwen2 biases, gemma2 windows, switched-off windows", "[arch][hf]") {
    const auto qwen = parse_config(R"({"model": {"preset": "qwen2.5-7b"}})");
    REQUIRE(qwen.ok());
    CHECK(qwen.value.model.qkv_bias);
    CHECK_FALSE(qwen.value.model.attention_out_bias);
    CHECK(qwen.value.model.sliding_window == 0);  // use_sliding_window: false
    const auto gemma2 = parse_config(R"({"model": {"preset": "gemma-2-9b"}})");
    REQUIRE(gemma2.ok());
    CHECK(gemma2.value.model.sliding_window == 4096);
    CHECK(gemma2.value.model.sliding_window_layers == 21);  // every other of 42 layers
    CHECK(gemma2.value.model.norms_per_layer == 4);
    const auto listed = parse_config(R"({"model": {"model_type": "gemma3_text", "num_hidden_layers": 4,
        "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100, "intermediate_size": 128, "rms_norm_eps": 1e-6,
        "sliding_window": 512, "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"]}})");
    REQUIRE(listed.ok());
    CHECK(listed.value.model.sliding_window_layers == 3);
    CHECK(listed.value.model.norm == norm_kind::rmsnorm);
}

TEST_CASE("an unknown family with the standard keys still works", "[arch][hf]") {
    // A Llama-shaped config under another name: RMSNorm epsilon and SiLU make it Llama-like.
    const json out = run(R"({"model": {"model_type": "my_llama", "hidden_act": "silu", "rms_norm_eps": 1e-5,
        "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 32,
        "intermediate_size": 11008, "vocab_size": 32000, "tie_word_embeddings": false}})");
    REQUIRE(out["errors"].empty());
    CHECK(out["params"] == 6738415616ULL);
}

TEST_CASE("inconsistent architectures are errors naming the key", "[arch][hf][errors]") {
    auto field = [](const std::string& model) {
        const json out = run(R"({"model": )" + model + "}");
        REQUIRE(out["errors"].size() >= 1);
        return out["errors"][0]["field"].get<std::string>();
    };
    CHECK(field(R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 100, "num_attention_heads": 3, "vocab_size": 10, "intermediate_size": 256})") ==
          "model.hidden_size");
    CHECK(field(R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 96, "num_attention_heads": 6, "num_key_value_heads": 4, "vocab_size": 10, "intermediate_size": 256})") ==
          "model.num_key_value_heads");
    CHECK(field(R"({"model_type": "mixtral", "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "num_local_experts": 4, "num_experts_per_tok": 5, "vocab_size": 10, "intermediate_size": 256})") ==
          "model.num_experts_per_tok");
    CHECK(field(R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4})") == "model.num_hidden_layers");
    CHECK(field(R"({"preset": "llama-9-1t"})") == "model.preset");
    CHECK(field(R"({"model_type": "llama", "num_hidden_layers": "32"})") == "model.num_hidden_layers");
}

TEST_CASE("KV cache of published models", "[arch][kv]") {
    // Llama-2-7B, 4096 tokens, bf16: 2 · 32 layers · 32 heads · 128 · 4096 · 2 B = exactly 2 GiB per sequence.
    CHECK(preset_result("llama-2-7b", R"(, "infer": {"context_len": 4096})")["per_gpu"]["kv_cache"] == 2147483648ULL);
    // Llama-2-70B with GQA (8 KV heads): 2 · 80 · 8 · 128 · 4096 · 2 B = 1.25 GiB.
    CHECK(preset_result("llama-2-70b", R"(, "infer": {"context_len": 4096})")["per_gpu"]["kv_cache"] == 1342177280ULL);
    // Llama-3-8B, 8192 tokens, batch 16, fp8 KV: 2 · 32 · 8 · 128 · 8192 · 16 · 1 B = 8 GiB.
    CHECK(preset_result("llama-3-8b", R"(, "infer": {"context_len": 8192, "batch": 16, "kv_dtype": "fp8"})")["per_gpu"]["kv_cache"] ==
          8589934592ULL);
}

TEST_CASE("a sliding window caps the cached tokens", "[arch][kv]") {
    // Mistral 7B v0.1 (Jiang et al. 2023, §2): window 4096, so 32768 tokens cache like 4096:
    // 2 · 32 · 8 · 128 · 4096 · 2 B = 512 MiB per sequence.
    const json capped = preset_result("mistral-7b-v0.1", R"(, "infer": {"context_len": 32768})");
    CHECK(capped["per_gpu"]["kv_cache"] == 536870912ULL);
    const json short_ctx = preset_result("mistral-7b-v0.1", R"(, "infer": {"context_len": 1000})");
    CHECK(short_ctx["per_gpu"]["kv_cache"] == 2ULL * 32 * 8 * 128 * 1000 * 2);
    // Gemma 2 9B: 21 window layers at 4096 tokens and 21 global layers at 32768, 8 KV heads of 256.
    const json gemma = preset_result("gemma-2-9b", R"(, "infer": {"context_len": 32768})");
    CHECK(gemma["per_gpu"]["kv_cache"] == 2ULL * 8 * 256 * 2 * (21 * 4096 + 21 * 32768));
}

TEST_CASE("tensor and pipeline parallelism split the KV cache — KV heads replicate beyond tp", "[arch][kv]") {
    const std::string ctx = R"(, "infer": {"context_len": 4096})";
    CHECK(preset_result("llama-2-70b", ctx + R"(, "parallel": {"gpus": 8, "tp": 8})")["per_gpu"]["kv_cache"] ==
          1342177280ULL / 8);
    CHECK(preset_result("llama-2-70b", ctx + R"(, "parallel": {"gpus": 16, "tp": 16})")["per_gpu"]["kv_cache"] ==
          1342177280ULL / 8);  // 8 KV heads over 16 GPUs: one head each, replicated
    CHECK(preset_result("llama-2-70b", ctx + R"(, "parallel": {"gpus": 4, "pp": 4})")["per_gpu"]["kv_cache"] ==
          1342177280ULL / 4);
}

TEST_CASE("quantized weights: linear layers packed, group scales and zeros stated", "[arch][quant]") {
    // Llama-2-7B: linear weights 32 · (4 · 4096² + 3 · 4096 · 11008) = 6,476,005,376; the rest
    // (embeddings 2 · 32000 · 4096, norms 65 · 4096) stays bf16.
    const json out = preset_result("llama-2-7b", R"(, "infer": {"weight_dtype": "int4", "quant_group_size": 128})");
    REQUIRE(out["errors"].empty());
    const std::uint64_t linear = 6476005376ULL, rest = 6738415616ULL - 6476005376ULL;
    const std::uint64_t overhead = linear / 128 * (2 + 0) + linear / 128 / 2;  // fp16 scale + 4-bit zero per group
    CHECK(out["details"]["quantization_overhead_bytes"] == overhead);
    CHECK(out["per_gpu"]["weights"] == linear / 2 + rest * 2 + overhead);
    const json fp8 = preset_result("llama-2-7b", R"(, "infer": {"weight_dtype": "fp8", "quant_group_size": 128})");
    CHECK(fp8["errors"][0]["field"] == "infer.quant_group_size");
}

TEST_CASE("inference reports its forward workspace and last-step logits as their own rows", "[arch][infer]") {
    const json out = preset_result("llama-3-8b", R"(, "infer": {"context_len": 1024, "batch": 2})");
    REQUIRE(out["errors"].empty());
    // Gated MLP peak: tokens · (2h + 3f) · 2 B = 2048 · (8192 + 43008) · 2.
    CHECK(out["per_gpu"]["activations"] == 2048ULL * (2 * 4096 + 3 * 14336) * 2);
    CHECK(out["per_gpu"]["logits"] == 2ULL * 128256 * 6);
    CHECK(out["details"]["kv_cache_bytes_per_token"] == 2ULL * 32 * 8 * 128 * 2);
}

TEST_CASE("pipeline stages hold their own embeddings: the most loaded stage is reported", "[arch][pipeline]") {
    // Llama-3-8B on 4 stages, inference: the first stage has 8 layers + the 128256-row embedding,
    // the last 8 layers + lm_head + final norm; the last one is larger by the norm.
    const json out = preset_result("llama-3-8b", R"(, "parallel": {"gpus": 4, "pp": 4})");
    REQUIRE(out["errors"].empty());
    CHECK(out["details"]["stage"] == 3);
    CHECK(out["details"]["params_on_gpu"] == 8ULL * 218112000 + 128256ULL * 4096 + 4096);
}

TEST_CASE("quantized MoE weights: experts packed and split by expert parallelism", "[arch][quant][moe]") {
    // Mixtral 8x7B: per layer attention 41,943,040 and expert matrices 8 · 3 · 4096 · 14336 =
    // 1,409,286,144 linear weights; the other 263,458,816 (embeddings, router, norms) stay bf16.
    const std::uint64_t attention = 32ULL * 41943040, experts = 32ULL * 1409286144, rest = 263458816;
    const json one = preset_result("mixtral-8x7b", R"(, "infer": {"weight_dtype": "int4", "quant_group_size": 128})");
    REQUIRE(one["errors"].empty());
    const std::uint64_t linear = attention + experts;
    CHECK(one["details"]["quantization_overhead_bytes"] == linear / 128 * 20 / 8);
    CHECK(one["per_gpu"]["weights"] == linear / 2 + rest * 2 + linear / 128 * 20 / 8);
    const json split = preset_result("mixtral-8x7b", R"(, "infer": {"weight_dtype": "int4"}, "parallel": {"gpus": 8, "ep": 8})");
    REQUIRE(split["errors"].empty());
    CHECK(split["per_gpu"]["weights"] == (attention + experts / 8) / 2 + rest * 2);
}
