// Models people run in 2026, imported from their real Hugging Face config.json files
// (tests/data/hf/*.json; each names its source in "_source", stripped before parsing): exact
// parameter counts against the published totals, KV bytes and recurrent state per layer kind with
// hand derivations, native checkpoint formats, and the errors for keys memplan does not understand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "memplan/api/estimate.hpp"
#include "memplan/model/arch.hpp"
#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"
#include "memplan/io/presets.hpp"
#include "report/json.hpp"

using namespace memplan;
using nlohmann::json;

namespace {
/// The fixture's config.json text, without its "_source" note.
std::string fixture(const std::string& name) {
    std::ifstream in(std::string(MEMPLAN_DATA_DIR) + "/hf/" + name + ".json");
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    json doc = json::parse(text.str());
    REQUIRE(doc.contains("_source"));
    doc.erase("_source");
    return doc.dump();
}

estimate_config config_of(const std::string& name, const std::string& rest = R"({"mode": "infer"})") {
    const auto parsed = parse_config(rest, fixture(name));
    if (!parsed.ok()) FAIL(parsed.errors[0].field + ": " + parsed.errors[0].message);
    return parsed.value;
}

param_breakdown counts(const model_config& m) {
    const auto counted = count_params(m);
    if (!counted.ok()) FAIL(counted.errors[0].field + ": " + counted.errors[0].message);
    return counted.value;
}

json run(const std::string& config, const std::string& hf = "") {
    const json out = json::parse(estimate_json(config, hf), nullptr, false);
    REQUIRE(out.is_object());
    return out;
}

/// The parts of a breakdown sum to its totals.
void check_parts(const param_breakdown& p) {
    const model_param_parts& q = p.parts;
    const param_part all[] = {q.embedding, q.attention, q.mlp, q.experts, q.shared_experts,
                              q.router,    q.norms,     q.output, q.mtp, q.vision};
    std::uint64_t total = 0, active = 0;
    for (const auto& part : all) {
        total += part.total;
        active += part.active;
        CHECK(part.active <= part.total);
    }
    CHECK(total == p.total);
    CHECK(active == p.active);
}

/// Sum of d_in · d_out · count over the model's linear modules.
std::uint64_t linear_weights(const model_config& m) {
    std::uint64_t n = 0;
    for (const auto& l : linear_modules(m)) n += l.d_in * l.d_out * l.count;
    return n;
}
}  // namespace

TEST_CASE("DeepSeek-V3 architecture (DeepSeek-R1 config.json): 671,026,419,200 parameters, MLA cache of 70,272 B per token",
          "[arch2026][mla][moe]") {
    const estimate_config c = config_of("deepseek_r1");
    const param_breakdown p = counts(c.model);
    // DeepSeek-V3 technical report §1 / model card: 671B total (main model, MTP module excluded),
    // exactly 671,026,419,200 as the sum of the released main-model tensor shapes.
    CHECK(p.total == 671026419200ULL);
    // 37B activated: total less 58 MoE layers × 248 unrouted experts × 3 · 7168 · 2048.
    CHECK(p.active == 671026419200ULL - 58ULL * 248 * 3 * 7168 * 2048);
    CHECK(p.active == 37552297472ULL);
    check_parts(p);
    const layer_kind_counts k = count_layer_kinds(c.model);
    CHECK(k.mla == 61);
    CHECK(k.dense == 3);  // first_k_dense_replace
    CHECK(k.moe == 58);
    // One shared expert of 2048: 3 · 7168 · 2048 per MoE layer; routers 256 · 7168 + 256 bias.
    CHECK(p.parts.shared_experts.total == 58ULL * 3 * 7168 * 2048);
    CHECK(p.parts.router.total == 58ULL * (256 * 7168 + 256));

    // MLA caches one latent of kv_lora_rank + qk_rope_head_dim per token and layer (DeepSeek-V2 §2.1.2):
    // 61 · (512 + 64) · 2 B = 70,272 B, not 25× more as MHA with 128 heads of 192 + 128 would be.
    estimate_config served = c;
    served.infer.context_len = 4096;
    const estimate_result r = estimate(served);
    REQUIRE(r.errors.empty());
    CHECK(r.details.kv_cache_bytes_per_token == 70272);
    CHECK(r.per_gpu.kv_cache == 70272ULL * 4096);
    const auto groups = kv_layer_groups(c.model);
    REQUIRE(groups.size() == 1);
    CHECK(groups[0].kind == attention_kind::mla);
    CHECK(groups[0].latent_dim == 576);
    CHECK(cache_elements_per_token(groups[0]) == 576);

    // Native FP8 checkpoint: every linear matrix of the layers at 1 B plus an fp32 scale per 128×128
    // block; embeddings, norms, routers in bf16 (inference/convert.py, weight_block_size [128, 128]),
    // but the routers' correction biases in fp32 (inference/model.py Gate): 58 MoE layers · 256 · 4 B.
    std::uint64_t scales = 0;
    for (const auto& l : linear_modules(c.model)) scales += ((l.d_out + 127) / 128) * ((l.d_in + 127) / 128) * 4 * l.count;
    const std::uint64_t packed = linear_weights(c.model);
    const std::uint64_t bias = 58ULL * 256;
    CHECK(r.details.quantization_overhead_bytes == scales);
    CHECK(r.per_gpu.weights == packed + scales + 2 * (p.total - packed - bias) + 4 * bias);
    REQUIRE(r.details.weight_bytes_by_dtype.size() == 3);
    CHECK(r.details.weight_bytes_by_dtype[0].first == "fp8_block");
    CHECK(r.details.weight_bytes_by_dtype[0].second == packed + scales);
    CHECK(r.details.weight_bytes_by_dtype[1].second == 2 * (p.total - packed - bias));
    CHECK(r.details.weight_bytes_by_dtype[2].first == "fp32");
    CHECK(r.details.weight_bytes_by_dtype[2].second == 4 * bias);
    // The latent is not split by tensor parallelism: every rank caches all of it.
    estimate_config split = served;
    split.parallel.gpus = split.parallel.tp = 8;
    CHECK(estimate(split).details.kv_cache_bytes_per_token == 70272);
    // Pipeline stages hold their own layers: of 61, stage 0 has 31 (3 dense + 28 MoE) and the
    // embedding, stage 1 has 30 MoE layers, the output head and the final norm, and is the busiest.
    estimate_config staged = served;
    staged.parallel.gpus = staged.parallel.pp = 2;
    const estimate_result two = estimate(staged);
    REQUIRE(two.errors.empty());
    CHECK(two.details.stage == 1);
    CHECK(two.details.params_on_gpu == 30 * p.layers[3].total + p.lm_head + p.final_norm);
    CHECK(two.details.kv_cache_bytes_per_token == 30ULL * 576 * 2);
    // With infer.weight_dtype given, that dtype is used instead.
    served.infer.weight_dtype_given = true;
    CHECK(estimate(served).per_gpu.weights == 2 * p.total);

    // MTP (model.mtp): one more MoE decoder layer, enorm and hnorm, eh_proj 2h×h, shared_head.norm;
    // its copies of the embedding and output head are not counted.
    model_config with_mtp = c.model;
    with_mtp.mtp = true;
    const param_breakdown q = counts(with_mtp);
    CHECK(q.parts.mtp.total == p.layers[3].total + 2ULL * 7168 * 7168 + 3 * 7168);
    CHECK(q.total == p.total + q.parts.mtp.total);
    check_parts(q);
}

TEST_CASE("DeepSeek-V2.5: MLA with q_lora_rank, two shared experts, no router bias", "[arch2026][mla]") {
    const estimate_config c = config_of("deepseek_v2_5");
    const param_breakdown p = counts(c.model);
    check_parts(p);
    CHECK(p.parts.router.total == 59ULL * 160 * 5120);                 // no e_score_correction_bias on V2
    CHECK(p.parts.shared_experts.total == 59ULL * 3 * 5120 * 2 * 1536);  // n_shared_experts · moe_intermediate_size
    CHECK(count_layer_kinds(c.model).dense == 1);
    // Latent cache: 60 · (512 + 64) · 2 B.
    CHECK(estimate(c).details.kv_cache_bytes_per_token == 60ULL * 576 * 2);
}

TEST_CASE("Qwen3-30B-A3B: 30,532,122,624 parameters, 3.3B active (transformers 5 names and a GPTQ checkpoint)",
          "[arch2026][moe][quant]") {
    // Qwen3 technical report Table / model card: 30.5B total, 3.3B activated; exact from the tensor shapes.
    const estimate_config c = config_of("qwen3_30b_a3b_thinking_2507");
    const param_breakdown p = counts(c.model);
    CHECK(p.total == 30532122624ULL);
    CHECK(p.active == 30532122624ULL - 48ULL * 120 * 3 * 2048 * 768);
    CHECK(p.parts.attention.total == 48ULL * (2048 * 4096 + 2 * 2048 * 512 + 4096 * 2048 + 2 * 128));  // QK-norm
    check_parts(p);
    // KV: 48 · 2 · 4 heads · 128 · 2 B = 98,304 B per token.
    CHECK(estimate(c).details.kv_cache_bytes_per_token == 98304);

    // The GPTQ int4 release: same architecture; 4-bit weights, per group of 128 inputs an fp16 scale
    // and a 4-bit zero, and an int32 g_idx per input row (auto_gptq QuantLinear).
    const estimate_config g = config_of("qwen3_30b_a3b_gptq_int4");
    CHECK(counts(g.model).total == 30532122624ULL);
    CHECK(g.model.checkpoint == checkpoint_format::int4_group);
    std::uint64_t overhead = 0;
    for (const auto& l : linear_modules(g.model)) {
        const std::uint64_t groups = l.d_out * ((l.d_in + 127) / 128);
        overhead += (groups * 2 + (groups + 1) / 2 + 4 * l.d_in) * l.count;
    }
    const std::uint64_t packed = linear_weights(g.model);
    const estimate_result r = estimate(g);
    REQUIRE(r.errors.empty());
    CHECK(r.details.quantization_overhead_bytes == overhead);
    CHECK(r.per_gpu.weights == packed / 2 + overhead + 2 * (p.total - packed));
}

TEST_CASE("gpt-oss-20b: 20,914,757,184 parameters — MXFP4 experts give 12.8 GiB of weights", "[arch2026][moe][quant]") {
    const estimate_config c = config_of("gpt_oss_20b");
    const param_breakdown p = counts(c.model);
    // gpt-oss model card (OpenAI 2025), Table 1: 20.91B total, 3.61B active; exact from the tensor shapes.
    CHECK(p.total == 20914757184ULL);
    CHECK(p.active - p.embedding == 3608307264ULL);  // the card counts active parameters without the embedding
    // Per layer: q/k/v/o with biases, 64 sinks, router 32 · 2880 + 32, experts with biases.
    CHECK(p.parts.attention.total == 24ULL * (2880 * 4096 + 4096 + 2 * (2880 * 512 + 512) + 4096 * 2880 + 2880 + 64));
    CHECK(p.parts.router.total == 24ULL * (32 * 2880 + 32));
    CHECK(p.parts.experts.total == 24ULL * 32 * (3 * 2880 * 2880 + 2 * 2880 + 2880));
    check_parts(p);

    estimate_config served = c;
    served.infer.context_len = 32768;
    const estimate_result r = estimate(served);
    REQUIRE(r.errors.empty());
    // Experts in MXFP4: 4 bits per weight + one scale byte per 32 inputs; all else bf16.
    const std::uint64_t expert_weights = 24ULL * 32 * 3 * 2880 * 2880;
    const std::uint64_t expert_scales = 24ULL * 32 * 3 * 2880 * 90;
    CHECK(r.per_gpu.weights == expert_weights / 2 + expert_scales + 2 * (p.total - expert_weights));
    CHECK(r.per_gpu.weights == 13761264768ULL);  // 12.82 GiB, not the 38.96 GiB of bf16
    CHECK(r.details.quantization_overhead_bytes == expert_scales);
    // KV: 12 full layers cache 32,768 tokens, 12 sliding layers 128; 2 · 8 · 64 · 2 B per token-layer.
    // Per token (the growth of one sequence): the 12 full layers only, the sliding ones are capped.
    CHECK(r.details.kv_cache_bytes_per_token == 12ULL * 2 * 8 * 64 * 2);
    CHECK(r.per_gpu.kv_cache == 2048ULL * (12 * 32768 + 12 * 128));
    const auto groups = kv_layer_groups(c.model);
    REQUIRE(groups.size() == 2);
    CHECK(groups[1].kind == attention_kind::sliding);
    CHECK(groups[1].window_tokens == 128);

    // gpt-oss-120b: the card's 116.83B total and 5.13B active (without the embedding).
    const param_breakdown big = counts(config_of("gpt_oss_120b").model);
    CHECK(big.total == 116829156672ULL);
    CHECK(big.active - big.embedding == 5132849472ULL);
}

TEST_CASE("Qwen3-8B: 8,190,735,360 parameters with QK-norm", "[arch2026][qwen3]") {
    const estimate_config c = config_of("qwen3_8b");
    const param_breakdown p = counts(c.model);
    CHECK(p.total == 8190735360ULL);  // Qwen3-8B model card 8.2B; exact from the tensor shapes
    check_parts(p);
    CHECK(c.model.qk_norm);
    CHECK(p.parts.attention.total == 36ULL * (4096 * 4096 + 2 * 4096 * 1024 + 4096 * 4096 + 2 * 128));
}

TEST_CASE("Gemma 3 4B: language model, SigLIP vision tower and projector, 5 of 6 layers sliding", "[arch2026][vision]") {
    const estimate_config c = config_of("gemma3_4b_it", R"({"mode": "infer", "infer": {"context_len": 32768}})");
    const param_breakdown p = counts(c.model);
    CHECK(p.total == 4300079472ULL);  // google/gemma-3-4b-it: 4.3B, exact from the tensor shapes
    // SigLIP-So400m/14 at 896 px: patch conv 3·14²·1152 + 1152, 4096 positions · 1152, 27 layers of
    // 4·1152 + 4(1152² + 1152) + 2·1152·4304 + 4304 + 1152, post-LayerNorm 2·1152; projector
    // 1152 · 2560 + RMSNorm 1152.
    const std::uint64_t layer = 4 * 1152 + 4 * (1152ULL * 1152 + 1152) + 2ULL * 1152 * 4304 + 4304 + 1152;
    const std::uint64_t tower = 3ULL * 196 * 1152 + 1152 + 4096ULL * 1152 + 27 * layer + 2 * 1152;
    CHECK(p.parts.vision.total == tower + 1152ULL * 2560 + 1152);
    check_parts(p);
    const layer_kind_counts k = count_layer_kinds(c.model);
    CHECK(k.full == 5);  // layers 5, 11, 17, 23, 29: (i + 1) % 6 == 0
    CHECK(k.sliding == 29);
    // KV at 32,768 tokens: 2 · 4 heads · 256 · 2 B = 4096 B per token-layer; sliding layers keep 1024.
    CHECK(estimate(c).per_gpu.kv_cache == 4096ULL * (5 * 32768 + 29 * 1024));
}

TEST_CASE("Llama 4 Scout: chunked attention on RoPE layers, every 4th layer global, 17B active", "[arch2026][chunked][moe]") {
    const estimate_config c = config_of("llama4_scout_text", R"({"mode": "infer", "infer": {"context_len": 32768}})");
    const param_breakdown p = counts(c.model);
    check_parts(p);
    // Experts and the shared expert are intermediate_size (8192) wide: per layer 16 + 1 of 3 · 5120 · 8192.
    CHECK(p.parts.experts.total == 48ULL * 16 * 3 * 5120 * 8192);
    CHECK(p.parts.shared_experts.total == 48ULL * 3 * 5120 * 8192);
    CHECK(p.active == p.total - 48ULL * 15 * 3 * 5120 * 8192);  // "17B active": one routed expert + shared
    const layer_kind_counts k = count_layer_kinds(c.model);
    CHECK(k.chunked == 36);
    CHECK(k.full == 12);
    // KV at 32,768 tokens: 2 · 8 · 128 · 2 = 4096 B per token-layer; chunked layers keep 8192 tokens.
    CHECK(estimate(c).per_gpu.kv_cache == 4096ULL * (12 * 32768 + 36 * 8192));
}

TEST_CASE("Qwen3-Next-80B-A3B: Gated DeltaNet state per sequence, KV only on the full-attention layers",
          "[arch2026][linear]") {
    const estimate_config c = config_of("qwen3_next_80b_a3b");
    const param_breakdown p = counts(c.model);
    check_parts(p);
    const layer_kind_counts k = count_layer_kinds(c.model);
    CHECK(k.linear == 36);
    CHECK(k.full == 12);
    // Gated DeltaNet layer (modeling_qwen3_next.py): h·(2·16·128 + 2·32·128) + h·64 + (2·16·128 + 32·128)·4
    // + 2·32 + 128 + 32·128·h.
    const std::uint64_t h = 2048;
    const std::uint64_t gdn = h * (4096 + 8192) + h * 64 + (4096 + 4096) * 4 + 64 + 128 + 4096 * h;
    // Gated attention: q_proj 2 · 16 · 256 wide, k/v 2 · 256, o 16 · 256, QK-norm 2 · 256.
    const std::uint64_t attention = h * 8192 + 2 * h * 512 + 4096 * h + 512;
    CHECK(p.parts.attention.total == 36 * gdn + 12 * attention);
    // Shared expert 512 wide with its gate h × 1.
    CHECK(p.parts.shared_experts.total == 48ULL * (3 * h * 512 + h));
    estimate_config served = c;
    served.infer.context_len = 8192;
    served.infer.batch = 2;
    const estimate_result r = estimate(served);
    REQUIRE(r.errors.empty());
    // KV per token: 12 layers · 2 · 2 heads · 256 · 2 B.
    CHECK(r.details.kv_cache_bytes_per_token == 12ULL * 2 * 2 * 256 * 2);
    // State per layer (vLLM): conv (4 − 1) · (2·16·128 + 32·128) + recurrent 32 · 128 · 128, bf16.
    const std::uint64_t state = 36ULL * (3 * 8192 + 32 * 128 * 128) * 2;
    CHECK(r.details.state_bytes_per_sequence == state);
    CHECK(r.per_gpu.kv_cache == 2 * (24576ULL * 8192 + state));
    // fp32 state doubles it.
    served.infer.state_dtype = dtype::fp32;
    CHECK(estimate(served).details.state_bytes_per_sequence == 2 * state);
}

TEST_CASE("Jamba 1.5 Mini: Mamba-1 layers with attention every 8th, MoE every 2nd", "[arch2026][mamba]") {
    const estimate_config c = config_of("jamba_1_5_mini");
    const param_breakdown p = counts(c.model);
    check_parts(p);
    const layer_kind_counts k = count_layer_kinds(c.model);
    CHECK(k.full == 4);  // i % 8 == 4
    CHECK(k.mamba == 28);
    CHECK(k.moe == 16);  // i % 2 == 1
    CHECK(k.dense == 16);
    // Mamba-1 mixer (modeling_jamba.py), I = 8192, N = 16, K = 4, R = 256: in_proj h·2I, conv I·K + I,
    // x_proj I·(R + 2N), dt_proj R·I + I, A_log I·N, D I, out_proj I·h, dt/b/c norms R + 2N.
    const std::uint64_t I = 8192, h = 4096;
    const std::uint64_t mamba = h * 2 * I + I * 4 + I + I * (256 + 32) + 256 * I + I + I * 16 + I + I * h + 256 + 32;
    const std::uint64_t attention = h * h + 2 * h * 1024 + h * h;
    CHECK(p.parts.attention.total == 28 * mamba + 4 * attention);
    CHECK(p.total == 51570323328ULL);  // "52B total, 12B active" (AI21 Jamba 1.5 paper, Table 1), exact here
    CHECK(p.active == 12110311296ULL);
    const estimate_result r = estimate(c);
    // State per Mamba layer (vLLM mamba_utils): conv (4 − 1) · I + SSM I · N, bf16.
    CHECK(r.details.state_bytes_per_sequence == 28ULL * (3 * 8192 + 8192 * 16) * 2);
    CHECK(r.details.kv_cache_bytes_per_token == 4ULL * 2 * 8 * 128 * 2);
}

TEST_CASE("Nemotron-H 8B: Mamba-2, attention and MLP layers from hybrid_override_pattern", "[arch2026][mamba]") {
    const estimate_config c = config_of("nemotron_h_8b");
    const param_breakdown p = counts(c.model);
    check_parts(p);
    const layer_kind_counts k = count_layer_kinds(c.model);
    CHECK(k.mamba == 24);
    CHECK(k.full == 4);
    CHECK(k.no_attention == 24);
    CHECK(k.dense == 24);
    CHECK(k.no_mlp == 28);
    // Mamba-2 mixer (modeling_nemotron_h.py): I = 128 · 64, G = 8, N = 128, K = 4:
    // h·(2I + 2GN + nh) + (I + 2GN)·(K + 1) + 3·nh + I + I·h.
    const std::uint64_t h = 4096, I = 8192, GN = 8 * 128, nh = 128;
    const std::uint64_t mamba = h * (2 * I + 2 * GN + nh) + (I + 2 * GN) * 5 + 3 * nh + I + I * h;
    const std::uint64_t attention = h * h + 2 * h * 1024 + h * h;
    CHECK(p.parts.attention.total == 24 * mamba + 4 * attention);
    CHECK(p.parts.mlp.total == 24ULL * 2 * h * 21504);  // squared-ReLU MLP: up and down, no gate
    CHECK(p.parts.norms.total == 52 * h + h);           // one norm per layer and the final one
    const estimate_result r = estimate(c);
    CHECK(r.details.state_bytes_per_sequence == 24ULL * (3 * (I + 2 * GN) + I * 128) * 2);
    CHECK(r.details.kv_cache_bytes_per_token == 4ULL * 2 * 8 * 128 * 2);
}

TEST_CASE("regression: all-full layer_types or max_window_layers ≥ layers leave no layer sliding", "[arch2026][kv]") {
    // A Qwen2-7B-shaped config: 28 layers, 4 KV heads of 128, window 4096 switched on but never used.
    // KV at 32,768 tokens: 2 · 28 · 4 · 128 · 32768 · 2 B = 1,879,048,192.
    const std::string base = R"("model_type": "qwen2", "num_hidden_layers": 28, "hidden_size": 3584,
        "num_attention_heads": 28, "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064,
        "sliding_window": 4096)";
    const std::string infer = R"(, "mode": "infer", "infer": {"context_len": 32768})";
    const json windows = run(R"({"model": {)" + base + R"(, "use_sliding_window": true, "max_window_layers": 28})" + infer + "}");
    REQUIRE(windows["errors"].empty());
    CHECK(windows["per_gpu"]["kv_cache"] == 1879048192ULL);
    std::string full = "[";
    for (int i = 0; i < 28; ++i) full += std::string(i ? ", " : "") + "\"full_attention\"";
    const json listed = run(R"({"model": {)" + base + R"(, "layer_types": )" + full + "]}" + infer + "}");
    REQUIRE(listed["errors"].empty());
    CHECK(listed["per_gpu"]["kv_cache"] == 1879048192ULL);
    // Half the layers above max_window_layers 14 slide: 14 full + 14 window layers.
    const json half = run(R"({"model": {)" + base + R"(, "use_sliding_window": true, "max_window_layers": 14})" + infer + "}");
    CHECK(half["per_gpu"]["kv_cache"] == 2ULL * 4 * 128 * 2 * (14 * 32768 + 14 * 4096));
}

TEST_CASE("memory keys a family does not define are errors naming the key", "[arch2026][errors]") {
    const auto first = [](const std::string& model) {
        const json out = run(R"({"model": )" + model + "}");
        REQUIRE(out["errors"].size() >= 1);
        return out["errors"][0]["field"].get<std::string>() + ": " + out["errors"][0]["message"].get<std::string>();
    };
    const std::string llama = R"("num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 128)";
    CHECK(first(R"({"model_type": "my_mla", "rms_norm_eps": 1e-6, "kv_lora_rank": 512, )" + llama + "}") ==
          "model.kv_lora_rank: is not supported yet for model_type my_mla");
    CHECK(first(R"({"model_type": "llama", "n_routed_experts": 8, )" + llama + "}") ==
          "model.n_routed_experts: is not supported yet for model_type llama");
    CHECK(first(R"({"model_type": "qwen2", "hybrid_override_pattern": "M*", )" + llama + "}") ==
          "model.hybrid_override_pattern: is not supported yet for model_type qwen2");
    CHECK(first(R"({"model_type": "mistral", "layer_types": ["full_attention", "ring_attention"], )" + llama + "}").rfind(
              "model.layer_types: has an unknown layer type \"ring_attention\"", 0) == 0);
    CHECK(first(R"({"model_type": "nemotron_h", "hybrid_override_pattern": "MX", )" + llama + "}").rfind(
              "model.hybrid_override_pattern: has a layer kind 'X'", 0) == 0);
    CHECK(first(R"({"model_type": "nemotron_h", "hybrid_override_pattern": "ME", )" + llama + "}") ==
          "model.n_routed_experts: is required for the MoE layers (E) of a Nemotron-H config (a positive integer)");
    CHECK(first(R"({"model_type": "llama", "quantization_config": {"quant_method": "hqq"}, )" + llama + "}") ==
          "model.quantization_config.quant_method: 'hqq' is not supported yet (fp8, mxfp4, bitsandbytes, awq, gptq, compressed-tensors, modelopt are)");
    // A multimodal config's other towers are refused too.
    CHECK(first(R"({"model_type": "qwen2_5_omni", "text_config": {"model_type": "qwen2", )" + llama +
                R"(}, "audio_config": {"d_model": 1280}})") == "model.audio_config: is not supported yet for model_type qwen2_5_omni");
    // Null and zero values say nothing and are accepted (DeepSeek-V2-Lite's q_lora_rank: null).
    CHECK(run(R"({"model": {"model_type": "llama", "n_routed_experts": null, "kv_lora_rank": 0, )" + llama + "}}")["errors"].empty());
}

TEST_CASE("an object built on a preset stays strict: a misspelled key is an error", "[arch2026][errors]") {
    const json out = run(R"({"model": {"preset": "llama-2-7b", "num_hiden_layers": 16}})");
    REQUIRE(out["errors"].size() == 1);
    CHECK(out["errors"][0]["field"] == "model.num_hiden_layers");
    CHECK(out["errors"][0]["message"] == "is not a known key");
    // Known keys still override the preset.
    CHECK(run(R"({"model": {"preset": "llama-2-7b", "num_hidden_layers": 16}})")["errors"].empty());
}

TEST_CASE("an unknown model_type is read with a warning that names the assumptions", "[arch2026][warnings]") {
    const json out = run(R"({"model": {"model_type": "my_llama", "hidden_act": "silu", "rms_norm_eps": 1e-5,
        "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "intermediate_size": 11008,
        "vocab_size": 32000, "tie_word_embeddings": false}})");
    REQUIRE(out["errors"].empty());
    CHECK(out["params"] == 6738415616ULL);
    REQUIRE(out["warnings"].size() == 1);
    CHECK(out["warnings"][0]["field"] == "model.model_type");
    CHECK(out["warnings"][0]["message"].get<std::string>().find("'my_llama' is not a family memplan knows") != std::string::npos);
    CHECK(out["warnings"][0]["message"].get<std::string>().find("RMSNorm") != std::string::npos);
    // A known family gives no such warning.
    CHECK(run(R"({"model": {"preset": "llama-2-7b"}})")["warnings"].empty());
}

TEST_CASE("linear_modules lists every adapted matrix with its count", "[arch2026][lora]") {
    const auto parsed = parse_config(R"({"model": {"preset": "mixtral-8x7b"}})");
    REQUIRE(parsed.ok());
    const auto mods = linear_modules(parsed.value.model);
    const auto find = [&mods](const std::string& name) {
        for (const auto& l : mods)
            if (l.name == name) return l;
        FAIL("no module " + name);
        return linear_module{};
    };
    CHECK(find("q_proj").d_in == 4096);
    CHECK(find("q_proj").d_out == 4096);
    CHECK(find("q_proj").count == 32);
    CHECK(find("k_proj").d_out == 1024);
    CHECK(find("experts.gate_proj").count == 32 * 8);
    CHECK(find("experts.gate_proj").expert);
    CHECK(find("experts.down_proj").d_in == 14336);
    CHECK_FALSE(find("o_proj").expert);
}

TEST_CASE("resolved 2026 models reproduce their counts and caches", "[arch2026][resolve]") {
    for (const char* name : {"deepseek_r1", "gpt_oss_20b", "qwen3_next_80b_a3b", "jamba_1_5_mini", "nemotron_h_8b",
                             "gemma3_4b_it", "llama4_scout_text"}) {
        CAPTURE(name);
        const json resolved = json::parse(resolve_model_json(R"({"mode": "infer"})", fixture(name)));
        REQUIRE(resolved["errors"].empty());
        const std::string rest = R"(, "mode": "infer", "infer": {"context_len": 16384})";
        const json direct = run(R"({"mode": "infer", "infer": {"context_len": 16384}})", fixture(name));
        const json again = run(R"({"model": )" + resolved["model"].dump() + rest + "}");
        INFO(again["errors"].dump());
        REQUIRE(again["errors"].empty());
        CHECK(again["params"] == direct["params"]);
        CHECK(again["per_gpu"] == direct["per_gpu"]);
    }
}

TEST_CASE("every preset's resolved model reproduces its count and serving memory", "[arch2026][resolve][presets]") {
    std::size_t count = 0;
    const model_preset* presets = model_presets(count);
    for (std::size_t i = 0; i < count; ++i) {
        CAPTURE(presets[i].id);
        const std::string rest = R"(, "mode": "infer", "infer": {"context_len": 8192})";
        const json resolved = json::parse(resolve_model_json(R"({"model": {"preset": ")" + std::string(presets[i].id) + R"("}})"));
        REQUIRE(resolved["errors"].empty());
        const json direct = run(R"({"model": {"preset": ")" + std::string(presets[i].id) + R"("})" + rest + "}");
        const json again = run(R"({"model": )" + resolved["model"].dump() + rest + "}");
        REQUIRE(direct["errors"].empty());
        INFO(again["errors"].dump());
        REQUIRE(again["errors"].empty());
        CHECK(again["params"] == direct["params"]);
        CHECK(again["per_gpu"] == direct["per_gpu"]);
        CHECK(again["warnings"] == direct["warnings"]);
        for (const auto& w : direct["warnings"]) CHECK(w["field"] != "model.model_type");  // every preset's family is known
    }
}

TEST_CASE("preset search ranks what people type", "[arch2026][presets][search]") {
    const auto ids = [](const std::string& query) {
        std::vector<std::string> out;
        for (const auto* p : search_presets(query)) out.push_back(p->id);
        return out;
    };
    using v = std::vector<std::string>;
    CHECK(ids("meta-llama/Llama-3.1-8B") == v{"llama-3.1-8b"});
    CHECK(ids("Meta-Llama-3-70B").front() == "llama-3-70b");                // exact version first, then 3.x
    CHECK(ids("Meta-Llama-3-70B") == v{"llama-3-70b", "llama-3.1-70b", "llama-3.3-70b"});
    const auto llama3 = ids("llama3");
    REQUIRE(llama3.size() == 8);                                           // Llama 3, 3.1, 3.2, 3.3, not Llama 2
    CHECK(llama3[0] == "llama-3-8b");
    CHECK(ids("deepseek") == v{"deepseek-v3", "deepseek-r1", "deepseek-v2.5"});
    CHECK(ids("mistral 7b instruct") == v{"mistral-7b-v0.1"});            // "instruct" is ignored
    CHECK(ids("qwen3 30b") == v{"qwen3-30b-a3b"});                         // not Qwen3 32B
    CHECK(ids("gpt-oss") == v{"gpt-oss-20b", "gpt-oss-120b"});
    CHECK(ids("Qwen/Qwen3-Next-80B-A3B-Instruct") == v{"qwen3-next-80b-a3b"});
    // A size typed without its unit (as the page searches while it is typed): "8x7" of "8x7b", "7" of "7b".
    CHECK(ids("mixtral 8x7") == v{"mixtral-8x7b"});
    CHECK(ids("mixtral 8x22") == v{"mixtral-8x22b"});
    CHECK(ids("mistral 7") == v{"mistral-7b-v0.1"});
    CHECK(ids("llama 3 70") == v{"llama-3-70b", "llama-3.1-70b", "llama-3.3-70b"});
    CHECK(ids("qwen3 30") == v{"qwen3-30b-a3b"});                          // not Qwen3 32B
    CHECK(ids("gemma 3 1") == v{"gemma-3-1b"});                            // not Gemma 3 12B
    const auto qwen3 = ids("qwen3");                                         // a version, never a size "3b"
    CHECK(std::find(qwen3.begin(), qwen3.end(), "qwen3-8b") != qwen3.end());
    for (const auto& id : qwen3) CHECK(id.rfind("qwen3", 0) == 0);
    CHECK(ids("zzz").empty());
    CHECK(ids("").empty());
    CHECK(search_presets_json("qwen3 30b") == R"(["qwen3-30b-a3b"])");
}

TEST_CASE("the presets list carries each model's breakdown", "[arch2026][presets]") {
    const json doc = json::parse(model_presets_json());
    bool seen = false;
    for (const auto& m : doc["models"]) {
        CAPTURE(m["id"]);
        REQUIRE(m.contains("params"));
        std::uint64_t total = 0;
        for (const auto& part : m["param_breakdown"]) total += part["total"].get<std::uint64_t>();
        CHECK(total == m["params"].get<std::uint64_t>());
        if (m["id"] == "deepseek-v3") {
            seen = true;
            CHECK(m["params"] == 671026419200ULL);
            CHECK(m["kv_cache_bytes_per_token"] == 70272);
            CHECK(m["layer_kinds"]["attention"]["mla"] == 61);
            CHECK(m["layer_kinds"]["mlp"]["moe"] == 58);
        }
    }
    CHECK(seen);
}

TEST_CASE("approximated parts are stated as warnings", "[arch2026][warnings]") {
    estimate_config c = config_of("qwen3_next_80b_a3b");
    const estimate_result infer = estimate(c);
    REQUIRE(infer.warnings.size() == 1);
    CHECK(infer.warnings[0].field == "model.layer_types");
    CHECK(infer.warnings[0].message.find("prefill workspace") != std::string::npos);
    c.mode = run_mode::train;
    c.parallel.gpus = c.parallel.ep = 8;
    CHECK(estimate(c).warnings[0].message.find("training activations") != std::string::npos);
    CHECK(estimate(config_of("qwen3_8b")).warnings.empty());
}

TEST_CASE("write_model_details adds the model structure to a result's details", "[arch2026][json]") {
    const estimate_result r = estimate(config_of("gpt_oss_20b"));
    REQUIRE(r.errors.empty());
    nlohmann::ordered_json details;
    write_model_details(details, r.details);
    CHECK(details["param_breakdown"]["experts"]["total"] == 24ULL * 32 * (3 * 2880 * 2880 + 3 * 2880));
    CHECK(details["param_breakdown"]["experts"]["active"] == 24ULL * 4 * (3 * 2880 * 2880 + 3 * 2880));
    CHECK(details["layer_kinds"]["attention"]["sliding"] == 12);
    CHECK(details["layer_kinds"]["attention"]["full"] == 12);
    CHECK(details["layer_kinds"]["mlp"]["moe"] == 24);
    CHECK(details["state_bytes_per_sequence"] == 0);
    CHECK(details["weight_bytes_by_dtype"]["mxfp4"].get<std::uint64_t>() + details["weight_bytes_by_dtype"]["bf16"].get<std::uint64_t>() ==
          r.per_gpu.weights);
}

TEST_CASE("Mistral Small 3.1: Pixtral vision tower and projector beside the 23.6B language model", "[arch2026][vision]") {
    const param_breakdown p = counts(config_of("mistral_small_3_1_24b").model);
    // Mistral-Small-3.1-24B-Instruct-2503: 24,011,361,280 in its safetensors; the language model alone
    // is Mistral Small 3's 23,572,403,200.
    CHECK(p.total == 24011361280ULL);
    CHECK(p.total - p.parts.vision.total == 23572403200ULL);
    // Pixtral: patch conv 3·14²·1024, ln_pre 1024, 24 layers of 2·1024 + 4·1024² + 3·1024·4096; projector
    // norm 1024, patch merger 4·1024 × 1024, linear_1 1024 × 5120, linear_2 5120 × 5120 (no biases).
    const std::uint64_t tower = 3ULL * 196 * 1024 + 1024 + 24 * (2 * 1024 + 4ULL * 1024 * 1024 + 3ULL * 1024 * 4096);
    CHECK(p.parts.vision.total == tower + 1024 + 4ULL * 1024 * 1024 + 1024ULL * 5120 + 5120ULL * 5120);
    check_parts(p);
}

TEST_CASE("bitsandbytes and AWQ checkpoints are served in their own formats", "[arch2026][quant]") {
    // Llama-2-7B's architecture: linear weights 6,476,005,376; the rest (embeddings, norms) stays bf16.
    const std::string llama = R"({"model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096,
        "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000, "rms_norm_eps": 1e-5, "quantization_config": )";
    const std::uint64_t linear = 6476005376ULL, rest = 6738415616ULL - linear;
    const auto weights = [&](const std::string& quant, std::uint64_t* overhead = nullptr) {
        const auto parsed = parse_config(R"({"mode": "infer"})", llama + quant + "}");
        if (!parsed.ok()) FAIL(parsed.errors[0].field + ": " + parsed.errors[0].message);
        const estimate_result r = estimate(parsed.value);
        REQUIRE(r.errors.empty());
        if (overhead != nullptr) *overhead = r.details.quantization_overhead_bytes;
        return r.per_gpu.weights;
    };
    // NF4 (QLoRA §3): 4 bits + an fp32 absmax per 64 weights (every matrix here is a multiple of 64).
    CHECK(weights(R"({"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "nf4"})") ==
          linear / 2 + linear / 64 * 4 + 2 * rest);
    // Double quantization: int8 absmax per 64 and an fp32 constant per 256 blocks of each matrix.
    std::uint64_t constants = 0;
    const auto parsed = parse_config(R"({"mode": "infer"})", llama + R"({"quant_method": "bitsandbytes", "load_in_4bit": true})" + "}");
    REQUIRE(parsed.ok());
    for (const auto& l : linear_modules(parsed.value.model)) constants += ((l.d_in * l.d_out / 64 + 255) / 256) * 4 * l.count;
    CHECK(weights(R"({"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_use_double_quant": true})") ==
          linear / 2 + linear / 64 + constants + 2 * rest);
    // LLM.int8(): int8 weights and an fp32 scale per output row: 32 · (4 · 4096 + 2 · 11008 + 4096) rows.
    std::uint64_t overhead = 0;
    CHECK(weights(R"({"quant_method": "bitsandbytes", "load_in_8bit": true})", &overhead) ==
          linear + 32ULL * (4 * 4096 + 2 * 11008 + 4096) * 4 + 2 * rest);
    CHECK(overhead == 32ULL * (4 * 4096 + 2 * 11008 + 4096) * 4);
    // AWQ int4, group 128: per group of 128 inputs an fp16 scale and a 4-bit zero (no g_idx): the same
    // figure as infer.weight_dtype int4 with quant_group_size 128.
    CHECK(weights(R"({"quant_method": "awq", "bits": 4, "group_size": 128, "version": "gemm", "zero_point": true})") ==
          linear / 2 + linear / 128 * 2 + linear / 128 / 2 + 2 * rest);
    // Unsupported widths are refused, naming the key.
    const auto bad = parse_config(R"({"mode": "infer"})", llama + R"({"quant_method": "gptq", "bits": 3, "group_size": 128})" + "}");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.errors[0].field == "hf_config.quantization_config.bits");
}

// ---------------------------------------------------------------------------------------------
// Every 2026 model counted exactly: real config.json files against published totals.

namespace {
/// KV-cache bytes per token of one sequence in bf16, at a context of one token.
std::uint64_t kv_bytes_per_token(const std::string& config, const std::string& hf = "") {
    const json out = run(config, hf);
    REQUIRE(out["errors"].empty());
    return out["details"]["kv_cache_bytes_per_token"].get<std::uint64_t>();
}
const char* one_token = R"({"mode": "infer", "infer": {"context_len": 1}})";

/// Llama 4 vision tower and projector of the released Scout and Maverick vision_config (hidden 1408, 34
/// layers, 16 heads, MLP 5632, 336 px in 14 px patches, projector 4096, text hidden 5120), term by term
/// as transformers' modeling_llama4.py builds them.
constexpr std::uint64_t llama4_vision_params() {
    constexpr std::uint64_t d = 1408, f = 5632;
    constexpr std::uint64_t patch = 3 * 14 * 14 * d;                   // Llama4UnfoldConvolution, no bias: 827,904
    constexpr std::uint64_t embeddings = d + (24 * 24 + 1) * d;        // class_embedding + positional_embedding_vlm
    constexpr std::uint64_t norms = 2 * 2 * d;                         // layernorm_pre, layernorm_post (weight + bias)
    constexpr std::uint64_t layer = 4 * (d * d + d)                    // q/k/v/o with bias (16 heads × 88)
                                    + (d * f + f) + (f * d + d)        // Llama4VisionMLP fc1, fc2 with bias
                                    + 2 * 2 * d;                       // input_layernorm, post_attention_layernorm
    constexpr std::uint64_t adapter = f * 4096 + 4096 * 4096;          // Llama4VisionMLP2 fc1, fc2 (no bias)
    constexpr std::uint64_t projector = 4096 * 5120;                   // Llama4MultiModalProjector.linear_1 (no bias)
    return patch + embeddings + norms + 34 * layer + adapter + projector;
}
static_assert(llama4_vision_params() == 871932416ULL, "Llama 4 vision tower and projector");
}  // namespace

TEST_CASE("Kimi K2 Instruct config.json: 1,026,408,232,448 parameters, 32.9B active, MLA cache of 70,272 B per token",
          "[arch2026][kimi][mla][moe]") {
    const estimate_config c = config_of("kimi_k2_instruct");
    const param_breakdown p = counts(c.model);
    // A public model catalog in Fireworks AI's ids lists kimi-k2-instruct with paramCount 1,026,408,232,448
    // (Moonshot's card: "1T total, 32B activated"). The released safetensors hold 1,026,470,731,056 values
    // (the tensor list beside the fixture's config.json): these plus the FP8
    // checkpoint's fp32 weight_scale_inv blocks (per layer 5·56 + 128·4 + 56·64 + 12·56 + 96·12 for the MLA
    // matrices, 3·56·144 for the dense MLP, 3·56·16 per expert and shared expert) and 61 rotary inv_freq
    // buffers of 56.
    CHECK(p.total == 1026408232448ULL);
    const std::uint64_t scales = 61ULL * (5 * 56 + 128 * 4 + 56 * 64 + 12 * 56 + 96 * 12) + 3ULL * 56 * 144 +
                                 60ULL * 385 * 3 * 56 * 16;
    CHECK(p.total + scales + 61 * 56 == 1026470731056ULL);
    // By hand: embedding and head 2 · 163,840 · 7168; per layer MLA 7168·1536 + 1536 + 1536·64·192 +
    // 7168·576 + 512 + 512·64·256 + 64·128·7168 and two norms; layer 0 dense 3·7168·18432; 60 MoE layers of
    // 385 experts (384 + 1 shared) · 3·7168·2048, router 384·7168 and its fp32 bias 384; final norm.
    const std::uint64_t mla = 7168ULL * 1536 + 1536 + 1536ULL * 64 * 192 + 7168ULL * 576 + 512 + 512ULL * 64 * 256 + 64ULL * 128 * 7168;
    CHECK(p.total == 2ULL * 163840 * 7168 + 61 * (mla + 2 * 7168) + 3ULL * 7168 * 18432 +
                         60 * (385ULL * 3 * 7168 * 2048 + 384 * 7168 + 384) + 7168);
    // Active: eight routed experts of 384 (and the shared one): 32,861,500,928 ("32B activated").
    CHECK(p.active == p.total - 60ULL * 376 * 3 * 7168 * 2048);
    CHECK(p.active == 32861500928ULL);
    check_parts(p);
    const layer_kind_counts k = count_layer_kinds(c.model);
    CHECK(k.mla == 61);
    CHECK(k.dense == 1);
    CHECK(k.moe == 60);
    // MLA latent (kv_lora_rank 512 + qk_rope_head_dim 64) per layer in bf16: 61 · 576 · 2 = 70,272 B.
    CHECK(kv_bytes_per_token(one_token, fixture("kimi_k2_instruct")) == 70272);
    // The preset is the same model.
    CHECK(counts(config_of("kimi_k2_instruct").model).total == counts(parse_config(R"({"model": {"preset": "kimi-k2"}})").value.model).total);
}

TEST_CASE("GLM-4.5-Air config.json: 106,852,251,264 parameters — with its MTP layer the hub's 110,468,824,832",
          "[arch2026][glm][moe]") {
    const estimate_config c = config_of("glm_4_5_air");
    const param_breakdown p = counts(c.model);
    // By hand (modeling_glm4_moe.py): embedding and head 2 · 151,552 · 4096; per layer q 4096 × 96·128 and
    // k, v 4096 × 8·128 with biases (attention_bias), o 12,288 × 4096 without, no QK-norm (use_qk_norm false),
    // two RMSNorms; layer 0 dense 3·4096·10944; 45 MoE layers of 129 experts (128 + 1 shared) · 3·4096·1408,
    // router 128·4096 and its fp32 e_score_correction_bias 128; final norm.
    const std::uint64_t attention = 4096ULL * 12288 + 12288 + 2 * (4096ULL * 1024 + 1024) + 12288ULL * 4096;
    const std::uint64_t moe_layer = attention + 2 * 4096 + 129ULL * 3 * 4096 * 1408 + 128 * 4096 + 128;
    CHECK(p.total == 2ULL * 151552 * 4096 + (attention + 2 * 4096 + 3ULL * 4096 * 10944) + 45 * moe_layer + 4096);
    CHECK(p.total == 106852251264ULL);
    // Active: 8 routed experts of 128 and the shared one, 13,424,129,664; the model card's "12B active"
    // leaves out the embedding and output head (13,424,129,664 − 2 · 151,552 · 4096 = 12,182,615,680).
    CHECK(p.active == p.total - 45ULL * 120 * 3 * 4096 * 1408);
    CHECK(p.active - 2ULL * 151552 * 4096 == 12182615680ULL);
    check_parts(p);
    // The Hugging Face hub shows zai-org/GLM-4.5-Air at 110,468,824,832 parameters (safetensors metadata):
    // the main model, the MTP layer (num_nextn_predict_layers 1: one MoE decoder layer, enorm, hnorm,
    // eh_proj 2·4096 × 4096, shared_head.norm) and that layer's own copies of embed_tokens and
    // shared_head.head, which memplan does not count as parameters.
    model_config with_mtp = c.model;
    with_mtp.mtp = true;
    const param_breakdown q = counts(with_mtp);
    CHECK(q.parts.mtp.total == moe_layer + 2ULL * 4096 * 4096 + 3 * 4096);
    CHECK(q.total + 2ULL * 151552 * 4096 == 110468824832ULL);
    check_parts(q);
    // GQA: 46 layers · 2 (K, V) · 8 heads · 128 · 2 B = 188,416 B per token.
    CHECK(kv_bytes_per_token(one_token, fixture("glm_4_5_air")) == 46ULL * 2 * 8 * 128 * 2);
    // The preset is the same model.
    CHECK(counts(parse_config(R"({"model": {"preset": "glm-4.5-air"}})").value.model).total == p.total);
}

TEST_CASE("GLM-4.5 preset: 352,797,829,024 parameters — with its MTP layer the hub's 358,337,791,296", "[arch2026][glm][moe]") {
    // No verbatim GLM-4.5 config.json was found in public code; the preset holds the keys of zai-org/GLM-4.5.
    const model_config m = parse_config(R"({"model": {"preset": "glm-4.5"}})").value.model;
    const param_breakdown p = counts(m);
    // By hand: as GLM-4.5-Air with h 5120, 92 layers (3 dense of 12,288, 89 MoE of 160 + 1 experts of 1536),
    // and QK-norm (use_qk_norm: q_norm and k_norm of head_dim 128 each per layer).
    const std::uint64_t attention = 5120ULL * 12288 + 12288 + 2 * (5120ULL * 1024 + 1024) + 12288ULL * 5120 + 2 * 128;
    const std::uint64_t moe_layer = attention + 2 * 5120 + 161ULL * 3 * 5120 * 1536 + 160 * 5120 + 160;
    CHECK(p.total == 2ULL * 151552 * 5120 + 3 * (attention + 2 * 5120 + 3ULL * 5120 * 12288) + 89 * moe_layer + 5120);
    CHECK(p.total == 352797829024ULL);
    CHECK(p.active == p.total - 89ULL * 152 * 3 * 5120 * 1536);  // "32B active": 8 of 160 routed + shared
    // Hugging Face hub, zai-org/GLM-4.5 safetensors: 358,337,791,296 = main model + MTP layer + its copies of
    // the embedding and the output head.
    model_config with_mtp = m;
    with_mtp.mtp = true;
    const param_breakdown q = counts(with_mtp);
    CHECK(q.parts.mtp.total == moe_layer + 2ULL * 5120 * 5120 + 3 * 5120);
    CHECK(q.total + 2ULL * 151552 * 5120 == 358337791296ULL);
    // GQA: 92 · 2 · 8 · 128 · 2 B = 376,832 B per token.
    CHECK(kv_bytes_per_token(R"({"mode": "infer", "infer": {"context_len": 1}, "model": {"preset": "glm-4.5"}})") == 376832);
}

TEST_CASE("Phi-4 config.json: 14,659,507,200 parameters, 204,800 B of KV per token", "[arch2026][phi]") {
    const estimate_config c = config_of("phi_4");
    const param_breakdown p = counts(c.model);
    // microsoft/phi-4: general.parameter_count 14,659,507,200 in its GGUF conversions (and NVIDIA NeMo's
    // customizer table, num_parameters of microsoft/phi-4). By hand (modeling_phi3.py): embedding and head
    // 2 · 100,352 · 5120; per layer qkv_proj 5120 × (5120 + 2 · 10 · 128), o_proj 5120², gate_up_proj
    // 5120 × 2 · 17,920, down_proj 17,920 × 5120, two RMSNorms; final norm.
    CHECK(p.total == 14659507200ULL);
    CHECK(p.total == 2ULL * 100352 * 5120 + 40 * (5120ULL * 7680 + 5120ULL * 5120 + 3ULL * 5120 * 17920 + 2 * 5120) + 5120);
    CHECK(p.active == p.total);
    check_parts(p);
    // head_dim = 5120 / 40 = 128; 40 layers · 2 · 10 KV heads · 128 · 2 B = 204,800 B per token.
    CHECK(kv_bytes_per_token(one_token, fixture("phi_4")) == 204800);
    CHECK(counts(parse_config(R"({"model": {"preset": "phi-4"}})").value.model).total == p.total);
}

TEST_CASE("Llama 4 Scout config.json with its vision tower: 108,641,793,536 parameters", "[arch2026][llama4][vision]") {
    const estimate_config c = config_of("llama4_scout_17b_16e");
    const json out = run(one_token, fixture("llama4_scout_17b_16e"));
    REQUIRE(out["errors"].empty());
    CHECK(out["warnings"].empty());  // the vision tower is counted, not left out with a warning
    const param_breakdown p = counts(c.model);
    // Hugging Face, meta-llama/Llama-4-Scout-17B-16E-Instruct: safetensors BF16 total 108,641,793,536
    // ("109B total"): the language model 107,769,861,120 (as the text-only fixture) and the vision tower
    // with its projector, 871,932,416.
    CHECK(p.total == 108641793536ULL);
    CHECK(p.parts.vision.total == llama4_vision_params());
    CHECK(p.total - p.parts.vision.total == counts(config_of("llama4_scout_text").model).total);
    CHECK(p.total - p.parts.vision.total == 107769861120ULL);
    // "17B active": one routed expert of 16 and the shared one, 17,172,894,720 in the language model;
    // memplan counts the vision tower as active too (image tokens pass through all of it).
    CHECK(p.active == 17172894720ULL + llama4_vision_params());
    check_parts(p);
    // The growth per token is the 12 NoPE (global) layers' 12 · 2 · 8 KV heads · 128 · 2 B = 49,152 B (the
    // vision tower caches nothing); the 36 chunked layers are capped at the 8192-token chunk.
    CHECK(kv_bytes_per_token(one_token, fixture("llama4_scout_17b_16e")) == 49152);
    // The preset is the same model.
    CHECK(counts(parse_config(R"({"model": {"preset": "llama-4-scout"}})").value.model).total == p.total);
}

TEST_CASE("Llama 4 Maverick preset with its vision tower: 401,583,781,376 parameters", "[arch2026][llama4][vision]") {
    const model_config m = parse_config(R"({"model": {"preset": "llama-4-maverick"}})").value.model;
    const param_breakdown p = counts(m);
    // Fireworks AI's billing export lists Llama 4 Maverick with parameter_count 401,583,781,376 ("400B total",
    // transformers' docs: 402B): the same vision tower as Scout and a language model of 400,711,848,960:
    // 24 MoE layers (interleave_moe_layer_step 2) of 128 + 1 experts · 3·5120·8192 and router 128·5120,
    // 24 dense layers of 3·5120·16384, per layer attention 2·5120² + 2·5120·1024 and two norms.
    CHECK(p.total == 401583781376ULL);
    CHECK(p.parts.vision.total == llama4_vision_params());
    const std::uint64_t attention = 2 * 5120ULL * 5120 + 2 * 5120ULL * 1024 + 2 * 5120;
    CHECK(p.total - p.parts.vision.total == 2ULL * 202048 * 5120 + 48 * attention + 24 * (129ULL * 3 * 5120 * 8192 + 128 * 5120) +
                                                24 * 3ULL * 5120 * 16384 + 5120);
    CHECK(p.active == p.total - 24ULL * 127 * 3 * 5120 * 8192);  // "17B active" (+ the vision tower)
    check_parts(p);
    CHECK(kv_bytes_per_token(R"({"mode": "infer", "infer": {"context_len": 1}, "model": {"preset": "llama-4-maverick"}})") == 49152);
}

TEST_CASE("Llama 4 vision_config: sizes follow the config, inconsistent projector sizes are refused", "[arch2026][llama4][vision]") {
    json doc = json::parse(fixture("llama4_scout_17b_16e"));
    const std::uint64_t base = counts(parse_config(one_token, doc.dump()).value.model).parts.vision.total;
    // One more encoder layer: 4(d² + d) + 2·d·f + f + d + 4d = 23,807,872 parameters.
    doc["vision_config"]["num_hidden_layers"] = 35;
    CHECK(counts(parse_config(one_token, doc.dump()).value.model).parts.vision.total == base + 23807872ULL);
    // 15 heads of 1408 // 15 = 93: q/k/v/o are 1408 × 1395 (modeling_llama4.py keeps num_heads · head_dim).
    doc["vision_config"]["num_hidden_layers"] = 34;
    doc["vision_config"]["num_attention_heads"] = 15;
    const std::uint64_t narrow_attention = 4 * (1408ULL * 1395) + 3 * 1395 + 1408;
    CHECK(counts(parse_config(one_token, doc.dump()).value.model).parts.vision.total ==
          base - 34 * (4 * (1408ULL * 1408 + 1408) - narrow_attention));
    doc["vision_config"]["num_attention_heads"] = 16;
    doc["vision_config"]["projector_output_dim"] = 2048;
    const auto refused = parse_config(one_token, doc.dump());
    REQUIRE(!refused.ok());
    CHECK(refused.errors[0].field == "hf_config.vision_config.projector_output_dim");
    doc["vision_config"]["projector_output_dim"] = 4096;
    doc["vision_config"]["hidden_size"] = 0;
    const auto zero = parse_config(one_token, doc.dump());
    REQUIRE(!zero.ok());
    CHECK(zero.errors[0].field == "hf_config.vision_config.hidden_size");
}

TEST_CASE("regression: a vision_config memplan cannot count is refused, so resolved models round-trip",
          "[arch2026][vision][resolve]") {
    // tests/fuzz/regressions/resolve-vision-config-roundtrip: a Gemma 3 text_config under an unknown outer
    // model_type beside a vision_config. The tower was left out with a warning that the resolved keys could
    // not carry, so resolving them again lost it; now the key is refused, naming it.
    const std::string hf = R"({"model_type": "gemma1", "text_config": {"model_type": "gemma3_text", "hidden_size": 5376,
        "intermediate_size": 21504, "num_hidden_layers": 62, "num_attention_heads": 32, "num_key_value_heads": 16,
        "head_dim": 128, "sliding_window": 1024}, "vision_config": {"hidden_size": 1151, "image_size": 896,
        "intermediate_size": 4304, "moead": false}})";
    const json resolved = json::parse(resolve_model_json(R"({"mode": "train"})", hf));
    REQUIRE(resolved["errors"].size() == 1);
    CHECK(resolved["errors"][0]["field"] == "hf_config.vision_config");
    CHECK(resolved["errors"][0]["message"].get<std::string>().find("model_type gemma1") != std::string::npos);
    // Without the vision tower the language model resolves, and its resolved keys resolve to themselves.
    json text_only = json::parse(hf);
    text_only.erase("vision_config");
    const std::string once = resolve_model_json(R"({"mode": "train"})", text_only.dump());
    REQUIRE(json::parse(once)["errors"].empty());
    CHECK(resolve_model_json(json{{"model", json::parse(once)["model"]}}.dump()) == once);
    // A counted tower (Gemma 3, Llama 4) round-trips through vision_params.
    for (const char* name : {"gemma3_4b_it", "llama4_scout_17b_16e"}) {
        CAPTURE(name);
        const std::string first = resolve_model_json(one_token, fixture(name));
        REQUIRE(json::parse(first)["errors"].empty());
        CHECK(resolve_model_json(json{{"model", json::parse(first)["model"]}}.dump()) == first);
    }
}

TEST_CASE("Gemma 3 27B preset with its SigLIP tower: 27,432,406,640 parameters", "[arch2026][vision]") {
    const param_breakdown p = counts(parse_config(R"({"model": {"preset": "gemma-3-27b"}})").value.model);
    // Keras Hub (keras_hub/src/models/gemma3/gemma3_presets.py, commit 46f3b4a000be58c092fe2f1acf87d2fb620aefd0)
    // lists the vision+text gemma3_instruct_27b at 27,432,062,576 and the text-only one at 27,009,002,240 with
    // a 262,144-token vocabulary; google/gemma-3-27b-it has 262,208 tokens: 64 more rows of the tied
    // 5376-wide embedding.
    CHECK(p.total == 27432062576ULL + 64 * 5376);
    CHECK(p.total - p.parts.vision.total == 27009002240ULL + 64 * 5376);
    // Keras Hub's Gemma 3 4B pair checks the same correction against the real gemma-3-4b-it config.json
    // (4,299,915,632 + 64 · 2560 = 4,300,079,472).
    CHECK(counts(config_of("gemma3_4b_it").model).total == 4299915632ULL + 64 * 2560);
    check_parts(p);
    // KV: 2 · 16 · 128 · 2 B = 8192 B per token-layer; the growth per token is the 10 global layers' (every
    // 6th of 62), the 52 sliding ones are capped at 1024 tokens.
    CHECK(kv_bytes_per_token(R"({"mode": "infer", "infer": {"context_len": 1}, "model": {"preset": "gemma-3-27b"}})") == 10ULL * 8192);
}

TEST_CASE("a flattened Llama 4 config counts its vision_config as the nested one — other towers are refused by name",
          "[arch2026][llama4][vision]") {
    const json nested = json::parse(fixture("llama4_scout_17b_16e"));
    json flat = nested["text_config"];
    flat["model_type"] = "llama4";
    flat["vision_config"] = nested["vision_config"];
    const auto parsed = parse_config(one_token, flat.dump());
    REQUIRE(parsed.ok());
    CHECK(counts(parsed.value.model).total == 108641793536ULL);
    CHECK(counts(parsed.value.model).parts.vision.total == llama4_vision_params());
    // A Gemma 3 text config with a vision_config beside it names no projector memplan knows: refused.
    json gemma = json::parse(fixture("gemma3_4b_it"))["text_config"];
    gemma["vision_config"] = json::parse(fixture("gemma3_4b_it"))["vision_config"];
    const auto refused = parse_config(one_token, gemma.dump());
    REQUIRE(!refused.ok());
    CHECK(refused.errors[0].field == "hf_config.vision_config");
    CHECK(refused.errors[0].message.find("is not supported yet for model_type gemma3_text") == 0);
}

TEST_CASE("Mistral-Nemo-Base-2407 config.json: 12,247,782,400 parameters with head_dim 128 ≠ 5120 / 32", "[arch2026][mistral]") {
    const estimate_config c = config_of("mistral_nemo_base_2407");
    const param_breakdown p = counts(c.model);
    // Mistral NeMo 12B: 12,247,782,400 in the safetensors of mistralai/Mistral-Nemo-Base-2407 and -Instruct-2407
    // (the preset's published count). By hand (modeling_mistral.py): embedding and head 2 · 131,072 · 5120;
    // per layer q 5120 × 32·128 and o back, k and v 5120 × 8·128, MLP 3 · 5120 · 14,336, two RMSNorms; final norm.
    // head_dim is explicit: 5120 / 32 = 160 would give 12,772,070,400, not the released model.
    CHECK(p.total == 12247782400ULL);
    CHECK(p.total == 2ULL * 131072 * 5120 + 40 * (2 * 5120ULL * 4096 + 2 * 5120ULL * 1024 + 3ULL * 5120 * 14336 + 2 * 5120) + 5120);
    check_parts(p);
    // 40 layers · 2 · 8 KV heads · 128 · 2 B = 163,840 B per token (sliding_window null: every layer full).
    CHECK(kv_bytes_per_token(one_token, fixture("mistral_nemo_base_2407")) == 163840);
    CHECK(counts(parse_config(R"({"model": {"preset": "mistral-nemo-12b"}})").value.model).total == p.total);
    json without_head_dim = json::parse(fixture("mistral_nemo_base_2407"));
    without_head_dim.erase("head_dim");
    CHECK(counts(parse_config(one_token, without_head_dim.dump()).value.model).total == 12772070400ULL);
}

TEST_CASE("regression: a Llama 4 config without its expert or dense width is refused, naming the key",
          "[arch2026][resolve]") {
    // tests/fuzz/regressions/resolve-llama4-missing-intermediate-size: Maverick's text_config without
    // intermediate_size. The experts were then counted at the dense width but resolved as "not set", so the
    // resolved keys described another model. transformers would fall back to Llama4TextConfig's defaults
    // (8192, 16384): a silent guess, so memplan asks for the key instead.
    json doc = json::parse(fixture("llama4_scout_17b_16e"));
    doc["text_config"].erase("intermediate_size");
    const json missing = json::parse(resolve_model_json(R"({"mode": "train"})", doc.dump()));
    REQUIRE(missing["errors"].size() == 1);
    CHECK(missing["errors"][0]["field"] == "hf_config.text_config.intermediate_size");
    doc = json::parse(fixture("llama4_scout_17b_16e"));
    doc["text_config"]["interleave_moe_layer_step"] = 2;  // Maverick's interleaving: dense layers appear
    doc["text_config"].erase("intermediate_size_mlp");
    const json dense = json::parse(resolve_model_json(R"({"mode": "train"})", doc.dump()));
    REQUIRE(dense["errors"].size() == 1);
    CHECK(dense["errors"][0]["field"] == "hf_config.text_config.intermediate_size_mlp");
    // Scout (every layer MoE) needs no dense width, and still resolves to itself.
    doc = json::parse(fixture("llama4_scout_17b_16e"));
    doc["text_config"].erase("intermediate_size_mlp");
    const std::string first = resolve_model_json(R"({"mode": "train"})", doc.dump());
    REQUIRE(json::parse(first)["errors"].empty());
    CHECK(resolve_model_json(json{{"model", json::parse(first)["model"]}}.dump()) == first);
}
