// Hugging Face config.json import: the family named by model_type or, without it, by architectures;
// families memplan does not know; the fields errors name (hf_config.*); malformed nested objects.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "memplan/io/json.hpp"
#include "memplan/model/arch.hpp"
#include "memplan/model/families.hpp"
#include "memplan/report/json.hpp"

using namespace memplan;
using nlohmann::json;

namespace {
/// The fixture tests/data/hf/NAME.json without its "_source" note.
json fixture_doc(const std::string& name) {
    std::ifstream in(std::string(MEMPLAN_DATA_DIR) + "/hf/" + name + ".json");
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    json doc = json::parse(text.str());
    doc.erase("_source");
    return doc;
}

json estimate(const json& hf, const std::string& config = R"({"mode": "infer"})") {
    const json out = json::parse(estimate_json(config, hf.dump()), nullptr, false);
    REQUIRE(out.is_object());
    return out;
}

std::uint64_t total_params(const json& hf) {
    const auto parsed = parse_config(R"({"mode": "infer"})", hf.dump());
    if (!parsed.ok()) FAIL(parsed.errors[0].field + ": " + parsed.errors[0].message);
    const auto counted = count_params(parsed.value.model);
    if (!counted.ok()) FAIL(counted.errors[0].field + ": " + counted.errors[0].message);
    return counted.value.total;
}

const char* fixtures[] = {"deepseek_r1",       "deepseek_v2_5",   "gemma3_4b_it",         "glm_4_5_air",
                          "gpt_oss_120b",      "gpt_oss_20b",     "jamba_1_5_mini",       "kimi_k2_instruct",
                          "kimi_k2_5",
                          "llama4_scout_17b_16e", "mistral_nemo_base_2407", "mistral_small_3_1_24b", "nemotron_h_8b",
                          "phi_4",             "qwen3_30b_a3b_gptq_int4", "qwen3_30b_a3b_thinking_2507", "qwen3_8b",
                          "qwen3_next_80b_a3b", "qwen3_5_27b", "qwen3_5_35b_a3b"};
}  // namespace

TEST_CASE("a config.json without model_type is read as the family its architectures name", "[hf][architectures]") {
    // Qwen/Qwen3-8B without its model_type: Qwen3ForCausalLM is registered as qwen3 (transformers
    // models/auto/modeling_auto.py), so QK-norm, SwiGLU and untied embeddings give the 8,190,735,360 of
    // the full config (pinned in test_arch_2026.cpp), not the 6,379,675,648 of GPT-style defaults.
    json qwen = fixture_doc("qwen3_8b");
    qwen.erase("model_type");
    CHECK(total_params(qwen) == 8190735360ULL);
    const json out = estimate(qwen);
    CHECK(out["errors"].empty());
    CHECK(out["params"] == 8190735360ULL);
    CHECK(json::parse(resolve_model_json(R"({"mode": "infer"})", qwen.dump()))["model"]["model_type"] == "qwen3");
    // Every fixture with architectures counts the same without its model_type (Kimi K2's kimi_k2 is
    // DeepseekV3ForCausalLM, the same row).
    for (const char* name : fixtures) {
        CAPTURE(name);
        const json full = fixture_doc(name);
        if (!full.contains("architectures")) continue;
        json bare = full;
        bare.erase("model_type");
        CHECK(total_params(bare) == total_params(full));
    }
    CHECK(model_type_of_architecture("MistralForCausalLM") == "mistral");
    CHECK(model_type_of_architecture("Llama4ForCausalLM") == "llama4_text");
    CHECK(model_type_of_architecture("BertModel").empty());
}

TEST_CASE("a config.json naming no family is refused, naming hf_config.model_type", "[hf][architectures][errors]") {
    json qwen = fixture_doc("qwen3_8b");
    qwen.erase("model_type");
    json none = qwen;
    none.erase("architectures");
    const json refused = estimate(none);
    REQUIRE(refused["errors"].size() == 1);
    CHECK(refused["errors"][0]["field"] == "hf_config.model_type");
    CHECK(refused["errors"][0]["message"] ==
          "is required (a Hugging Face config.json names its family by model_type or architectures)");
    CHECK(!refused.contains("per_gpu"));
    json unknown = qwen;
    unknown["architectures"] = {"FooForCausalLM"};
    const json out = estimate(unknown);
    REQUIRE(out["errors"].size() == 1);
    CHECK(out["errors"][0]["field"] == "hf_config.model_type");
    CHECK(out["errors"][0]["message"].get<std::string>().rfind(
              "is required: architectures [\"FooForCausalLM\"] names no model class memplan knows (GPT2LMHeadModel, ", 0) == 0);
    json wrong = qwen;
    wrong["architectures"] = "Qwen3ForCausalLM";
    CHECK(estimate(wrong)["errors"][0]["field"] == "hf_config.architectures");
    // In the configuration's model object the same config names model.model_type.
    const json inline_out = json::parse(estimate_json(json{{"mode", "infer"}, {"model", unknown}}.dump()));
    CHECK(inline_out["errors"][0]["field"] == "model.model_type");
}

TEST_CASE("an unknown family is refused when its config has keys memplan does not read", "[hf][errors]") {
    // A Llama-shaped config under another name, with only standard keys: read with a warning that lists
    // the assumptions (6,738,415,616 = Llama 2 7B's count).
    json standard = {{"model_type", "my_llama"}, {"architectures", {"MyLlamaForCausalLM"}}, {"hidden_act", "silu"},
                     {"rms_norm_eps", 1e-5}, {"num_hidden_layers", 32}, {"hidden_size", 4096},
                     {"num_attention_heads", 32}, {"intermediate_size", 11008}, {"vocab_size", 32000},
                     {"tie_word_embeddings", false}, {"bos_token_id", 1}, {"torch_dtype", "bfloat16"},
                     {"rope_theta", 10000.0}, {"transformers_version", "4.57.0"}, {"use_cache", true}};
    const json ok = estimate(standard);
    REQUIRE(ok["errors"].empty());
    CHECK(ok["params"] == 6738415616ULL);
    REQUIRE(ok["warnings"].size() == 1);
    CHECK(ok["warnings"][0]["field"] == "model.model_type");  // warnings keep memplan's names
    const std::string warning = ok["warnings"][0]["message"];
    for (const char* assumed : {"'my_llama' is not a family memplan knows", "RMSNorm", "a gated MLP", "no attention biases",
                                "untied embeddings", "no QK-norm"})
        CHECK(warning.find(assumed) != std::string::npos);
    // One key memplan does not read (OLMo 2's norm placement, Granite's multipliers) may change the count: refused.
    json extra = standard;
    extra["embedding_multiplier"] = 12.0;
    extra["residual_multiplier"] = 0.22;
    const json refused = estimate(extra);
    REQUIRE(refused["errors"].size() == 1);
    CHECK(refused["errors"][0]["field"] == "hf_config.model_type");
    CHECK(refused["errors"][0]["message"].get<std::string>().rfind(
              "'my_llama' is not a family memplan knows, and its config has keys memplan does not read, which may "
              "change the count: embedding_multiplier, residual_multiplier (known model_type: gpt2, ",
              0) == 0);
}

TEST_CASE("errors about an imported model name its hf_config keys", "[hf][errors]") {
    json qwen = fixture_doc("qwen3_8b");
    qwen["num_attention_heads"] = 7;  // 8 KV heads cannot divide 7 query heads
    const std::string config = R"({"mode": "infer"})";
    const json est = estimate(qwen);
    REQUIRE(est["errors"].size() == 1);
    CHECK(est["errors"][0]["field"] == "hf_config.num_key_value_heads");
    CHECK(est["errors"][0]["message"] == "must divide hf_config.num_attention_heads (7)");
    const json analyzed = json::parse(analyze_json(config, qwen.dump()));
    CHECK(analyzed["errors"][0]["field"] == "hf_config.num_key_value_heads");
    CHECK(analyzed["estimate"]["errors"][0]["field"] == "hf_config.num_key_value_heads");
    CHECK(json::parse(resolve_model_json(config, qwen.dump()))["errors"][0]["field"] == "hf_config.num_key_value_heads");
    CHECK(json::parse(compare_json(R"({"mode": "train"})", qwen.dump()))["errors"][0]["field"] ==
          "hf_config.num_key_value_heads");
    // The same model given in the configuration's model object keeps the model.* names.
    const json inline_out = json::parse(estimate_json(json{{"mode", "infer"}, {"model", qwen}}.dump()));
    CHECK(inline_out["errors"][0]["field"] == "model.num_key_value_heads");
    // model.mtp is the configuration's own key beside hf_config, and keeps its name.
    const json mtp = estimate(fixture_doc("qwen3_next_80b_a3b"), R"({"mode": "infer", "model": {"mtp": true}})");
    for (const auto& e : mtp["errors"]) CHECK(e["field"].get<std::string>().rfind("hf_config.mtp", 0) != 0);
}

TEST_CASE("regression: malformed nested objects of a config.json are errors naming the key, not crashes",
          "[hf][errors][resolve]") {
    // tests/fuzz/regressions/resolve-gemma3-vision-config-null-width: Gemma 3 beside a vision_config whose
    // hidden_size is null aborted (a typed read of the null); null is SiglipVisionConfig's default 768,
    // so the tower is the 896-px SigLIP of width 768, and the resolved keys resolve to themselves.
    const json text = {{"model_type", "gemma3_text"}, {"hidden_size", 2560}, {"intermediate_size", 10240},
                       {"num_hidden_layers", 34}, {"num_attention_heads", 8}, {"num_key_value_heads", 4},
                       {"head_dim", 256}, {"sliding_window", 1024}};
    json gemma = {{"model_type", "gemma3"}, {"text_config", text}, {"vision_config", {{"hidden_size", nullptr}, {"image_size", 896}}}};
    const std::string once = resolve_model_json(R"({"mode": "train"})", gemma.dump());
    const json resolved = json::parse(once);
    REQUIRE(resolved["errors"].empty());
    // configuration_siglip.py defaults: 12 layers of width 768, MLP 3072, 16-px patches over 896 px;
    // Gemma3MultiModalProjector: 768 × 2560 and a norm of 768.
    constexpr std::uint64_t d = 768, f = 3072, grid = 896 / 16;
    const std::uint64_t tower = 3 * 16 * 16 * d + d + grid * grid * d + 12 * (4 * d + 4 * d * d + 4 * d + 2 * d * f + f + d) + 2 * d;
    CHECK(resolved["model"]["vision_params"] == tower + d * 2560 + d);
    CHECK(resolve_model_json(json{{"model", resolved["model"]}}.dump()) == once);
    // tests/fuzz/regressions/resolve-gemma3-vision-config-not-object: a vision_config that is no object was
    // dropped silently (the tower left out of the count); now refused.
    for (const json& bad : {json("siglip"), json::array(), json(5)}) {
        gemma["vision_config"] = bad;
        const json out = json::parse(resolve_model_json(R"({"mode": "infer"})", gemma.dump()));
        REQUIRE(out["errors"].size() == 1);
        CHECK(out["errors"][0]["field"] == "hf_config.vision_config");
        CHECK(out["errors"][0]["message"] == "must be an object (the vision tower's configuration)");
    }
    // An empty vision_config is SiglipVisionConfig's defaults (224 px), as transformers builds it.
    gemma["vision_config"] = json::object();
    const std::uint64_t base = 3 * 16 * 16 * d + d + 14 * 14 * d + 12 * (4 * d + 4 * d * d + 4 * d + 2 * d * f + f + d) + 2 * d;
    CHECK(json::parse(resolve_model_json(R"({"mode": "infer"})", gemma.dump()))["model"]["vision_params"] == base + d * 2560 + d);
    // tests/fuzz/regressions/hf-quantization-config-flag-not-boolean: typed reads of quantization_config.
    const json llama = {{"model_type", "llama"}, {"num_hidden_layers", 2}, {"hidden_size", 64}, {"num_attention_heads", 4}, {"vocab_size", 10},
                        {"intermediate_size", 128}};
    json q = llama;
    q["quantization_config"] = {{"quant_method", "bitsandbytes"}, {"load_in_4bit", "yes"}};
    const json flag = estimate(q);
    REQUIRE(!flag["errors"].empty());
    CHECK(flag["errors"][0]["field"] == "hf_config.quantization_config.load_in_4bit");
    CHECK(flag["errors"][0]["message"] == "must be true or false");
    q["quantization_config"] = {{"quant_method", 5}};
    CHECK(estimate(q)["errors"][0]["field"] == "hf_config.quantization_config.quant_method");
    json m3 = {{"model_type", "mistral3"}, {"text_config", {{"model_type", "mistral"}, {"num_hidden_layers", 2}, {"hidden_size", 64},
                                                          {"num_attention_heads", 4}, {"vocab_size", 10}, {"intermediate_size", 128}}},
               {"vision_config", {{"hidden_size", 64}}}, {"multimodal_projector_bias", "no"}};
    CHECK(estimate(m3)["errors"][0]["field"] == "hf_config.multimodal_projector_bias");
}

TEST_CASE("SmolLM3 and Granite 3: families with keys that add no weights, counted exactly", "[hf][families]") {
    // HuggingFaceTB/SmolLM3-3B: 36 layers of width 2048, 16 query and 4 key-value heads, SwiGLU 11,008,
    // vocabulary 128,256, tied; no_rope_layers drops RoPE from every 4th layer. The Hub's safetensors
    // index gives total_parameters 3,075,098,624 (no separate lm_head.weight).
    json rope = json::array();
    for (int i = 0; i < 36; ++i) rope.push_back((i + 1) % 4 == 0 ? 0 : 1);
    json smol = {{"architectures", {"SmolLM3ForCausalLM"}}, {"attention_bias", false}, {"attention_dropout", 0.0},
                 {"bos_token_id", nullptr}, {"eos_token_id", 128012}, {"hidden_act", "silu"}, {"hidden_size", 2048},
                 {"initializer_range", 0.02}, {"intermediate_size", 11008}, {"max_position_embeddings", 65536},
                 {"max_window_layers", 28}, {"mlp_bias", false}, {"model_type", "smollm3"}, {"no_rope_layer_interval", 4},
                 {"no_rope_layers", rope}, {"num_attention_heads", 16}, {"num_hidden_layers", 36},
                 {"num_key_value_heads", 4}, {"pad_token_id", 128004}, {"pretraining_tp", 2}, {"rms_norm_eps", 1e-6},
                 {"rope_scaling", nullptr}, {"rope_theta", 5000000.0}, {"sliding_window", nullptr},
                 {"torch_dtype", "bfloat16"}, {"use_cache", false}, {"use_sliding_window", false}, {"vocab_size", 128256}};
    // By hand: embedding 128,256 · 2048 (tied); per layer q, o 2048² each, k, v 2048 × 512, MLP 3 · 2048 · 11,008,
    // two RMSNorms; final norm.
    CHECK(total_params(smol) == 128256ULL * 2048 + 36 * (2 * 2048ULL * 2048 + 2 * 2048ULL * 512 + 3 * 2048ULL * 11008 + 2 * 2048) + 2048);
    CHECK(total_params(smol) == 3075098624ULL);
    smol.erase("tie_word_embeddings");  // SmolLM3Config ties by default
    CHECK(total_params(smol) == 3075098624ULL);
    CHECK(estimate(smol)["warnings"].empty());
    smol["no_rope_layers"] = {1, 0};
    CHECK(estimate(smol)["errors"][0]["field"] == "hf_config.no_rope_layers");
    // ibm-granite/granite-3.3-8b-instruct and granite-3.3-2b-instruct: Llama blocks with multipliers that add no
    // weights, vocabulary 49,159, tied. The Hub's safetensors totals: 8,170,864,640 and 2,533,539,840.
    const auto granite = [](std::uint64_t h, std::uint64_t f) {
        return json{{"architectures", {"GraniteForCausalLM"}}, {"model_type", "granite"}, {"hidden_size", h},
                    {"intermediate_size", f}, {"num_hidden_layers", 40}, {"num_attention_heads", 32},
                    {"num_key_value_heads", 8}, {"vocab_size", 49159}, {"tie_word_embeddings", true},
                    {"attention_bias", false}, {"mlp_bias", false}, {"hidden_act", "silu"}, {"rms_norm_eps", 1e-5},
                    {"embedding_multiplier", 12.0}, {"residual_multiplier", 0.22}, {"attention_multiplier", 0.0078125},
                    {"logits_scaling", 16.0}, {"max_position_embeddings", 131072}, {"rope_theta", 10000000.0}};
    };
    CHECK(total_params(granite(4096, 12800)) == 8170864640ULL);
    CHECK(total_params(granite(2048, 8192)) == 2533539840ULL);
}

TEST_CASE("DeepSeek-V3's MTP eh_proj is stored in bf16 beside the FP8 layers", "[hf][mtp][quant]") {
    // vLLM's deepseek_mtp.py builds eh_proj as a plain nn.Linear (no quant_config): the FP8 checkpoint
    // keeps it in bf16, without a weight_scale_inv. The MTP module adds one MoE layer like layer 61
    // (counted as a 62nd layer would be), enorm, hnorm and shared_head.norm in bf16, and eh_proj
    // 2 · 7168 × 7168 at 2 B.
    const json r1 = fixture_doc("deepseek_r1");
    const auto weights = [&](const json& hf, bool mtp) {
        const json out = estimate(hf, mtp ? R"({"mode": "infer", "infer": {"context_len": 1}, "model": {"mtp": true}})"
                                          : R"({"mode": "infer", "infer": {"context_len": 1}})");
        REQUIRE(out["errors"].empty());
        return std::make_pair(out["details"]["weight_bytes_by_dtype"]["fp8_block"].get<std::uint64_t>(),
                              out["details"]["weight_bytes_by_dtype"]["bf16"].get<std::uint64_t>());
    };
    json deeper = r1;
    deeper["num_hidden_layers"] = 62;
    deeper["num_nextn_predict_layers"] = 0;
    const auto base = weights(r1, false), with_mtp = weights(r1, true), one_more = weights(deeper, false);
    CHECK(with_mtp.first - base.first == one_more.first - base.first);  // no FP8 bytes for eh_proj
    CHECK(with_mtp.second - base.second == one_more.second - base.second + 2 * (2ULL * 7168 * 7168) + 2 * 3 * 7168);
}

TEST_CASE("Qwen3-Next's num_nextn_predict_layers: an MTP module like its last, full-attention layer", "[hf][mtp]") {
    // vLLM's qwen3_next_mtp.py: one decoder layer like the last one (layer 47, full attention and MoE),
    // fc 2h → h, pre_fc_norm_embedding, pre_fc_norm_hidden and norm (h each); loaded with model.mtp.
    json next = fixture_doc("qwen3_next_80b_a3b");
    next["num_nextn_predict_layers"] = 1;
    const auto parsed = parse_config(R"({"mode": "infer", "model": {"mtp": true}})", next.dump());
    REQUIRE(parsed.ok());
    const auto counted = count_params(parsed.value.model);
    REQUIRE(counted.ok());
    const std::uint64_t h = 2048;
    CHECK(counted.value.parts.mtp.total == counted.value.layers.back().total + 2 * h * h + 3 * h);
    // Without model.mtp the count is the fixture's own.
    CHECK(total_params(next) == total_params(fixture_doc("qwen3_next_80b_a3b")));
}

TEST_CASE("Granite 4 (granitemoehybrid): attention or Mamba-2 layers, experts and a shared MLP", "[hf][families][mamba]") {
    const auto granite4 = [](std::uint64_t h, std::uint64_t heads, std::uint64_t kv, std::uint64_t shared, const json& types) {
        return json{{"architectures", {"GraniteMoeHybridForCausalLM"}}, {"model_type", "granitemoehybrid"},
                    {"hidden_size", h}, {"num_hidden_layers", types.size()}, {"num_attention_heads", heads},
                    {"num_key_value_heads", kv}, {"intermediate_size", shared}, {"shared_intermediate_size", shared},
                    {"num_local_experts", 0}, {"num_experts_per_tok", 0}, {"vocab_size", 100352},
                    {"tie_word_embeddings", true}, {"attention_bias", false}, {"hidden_act", "silu"},
                    {"rms_norm_eps", 1e-5}, {"layer_types", types}, {"position_embedding_type", "rope"},
                    {"embedding_multiplier", 12.0}, {"residual_multiplier", 0.22}, {"attention_multiplier", 0.0078125},
                    {"logits_scaling", 10.0}, {"mamba_n_heads", 128}, {"mamba_d_head", "auto"}, {"mamba_d_state", 256},
                    {"mamba_n_groups", 1}, {"mamba_d_conv", 4}, {"mamba_expand", 2}, {"mamba_conv_bias", true},
                    {"mamba_proj_bias", false}};
    };
    // ibm-granite/granite-4.0-micro and granite-4.0-1b: 40 attention layers and the shared MLP, tied. The Hub's
    // safetensors totals: 3,402,836,480 and 1,631,750,144.
    const json attention40 = json(std::vector<std::string>(40, "attention"));
    CHECK(total_params(granite4(2560, 40, 8, 8192, attention40)) == 3402836480ULL);
    CHECK(total_params(granite4(2048, 16, 4, 4096, attention40)) == 1631750144ULL);
    // A hybrid of one attention and three Mamba-2 layers, by hand (BambaMixer): I = 2 · 1024, H = 128 heads of 16,
    // G = 1, N = 256, K = 4: in_proj 1024 × (2I + 2GN + H), conv1d (I + 2GN) · K + bias, dt_bias, A_log, D (3H),
    // the gated norm I and out_proj I × 1024.
    json hybrid = granite4(1024, 8, 2, 2048, {"mamba", "attention", "mamba", "mamba"});
    const std::uint64_t h = 1024, I = 2048, conv = I + 2 * 256;
    const std::uint64_t mamba = h * (2 * I + 2 * 256 + 128) + conv * 4 + conv + 3 * 128 + I + I * h;
    const std::uint64_t attention = 2 * h * h + 2 * h * 256;
    const std::uint64_t mlp = 3 * h * 2048, norms = 2 * h;
    CHECK(total_params(hybrid) == 100352ULL * h + 3 * mamba + attention + 4 * (mlp + norms) + h);
    // With experts: intermediate_size is the experts' width beside the shared MLP; the router has no bias.
    hybrid["num_local_experts"] = 4;
    hybrid["num_experts_per_tok"] = 2;
    hybrid["intermediate_size"] = 512;
    CHECK(total_params(hybrid) == 100352ULL * h + 3 * mamba + attention + 4 * (4 * 3 * h * 512 + 4 * h + mlp + norms) + h);
    // Without layer_types, or with a head width that does not divide I, refused naming the key.
    json bare = granite4(1024, 8, 2, 2048, {"mamba"});
    bare.erase("layer_types");
    CHECK(estimate(bare)["errors"][0]["field"] == "hf_config.layer_types");
    json odd = granite4(1024, 8, 2, 2048, {"mamba"});
    odd["mamba_d_head"] = 24;
    CHECK(estimate(odd)["errors"][0]["field"] == "hf_config.mamba_d_head");
}

TEST_CASE("sliding_window in each of its Hugging Face forms", "[hf][kv]") {
    const auto sliding = [](json hf) {
        const json sizes = {{"num_hidden_layers", 4}, {"hidden_size", 64}, {"num_attention_heads", 4},
                            {"vocab_size", 10}, {"intermediate_size", 128}};
        for (const auto& item : sizes.items()) hf[item.key()] = item.value();
        const json out = estimate(hf);
        REQUIRE(out["errors"].empty());
        return out["details"]["layer_kinds"]["attention"]["sliding"].get<std::uint64_t>();
    };
    // configuration_qwen2.py: layer i slides when sliding_window is set, use_sliding_window is true and
    // i >= max_window_layers; Qwen2.5's released configs switch it off (use_sliding_window false).
    CHECK(sliding({{"model_type", "qwen2"}, {"sliding_window", 131072}, {"use_sliding_window", false}, {"max_window_layers", 28}}) == 0);
    CHECK(sliding({{"model_type", "qwen2"}, {"sliding_window", nullptr}, {"use_sliding_window", true}, {"max_window_layers", 2}}) == 0);
    CHECK(sliding({{"model_type", "qwen2"}, {"sliding_window", 32}, {"use_sliding_window", true}, {"max_window_layers", 2}}) == 2);
    CHECK(sliding({{"model_type", "qwen2"}, {"sliding_window", 32}, {"use_sliding_window", true}, {"max_window_layers", 8}}) == 0);
    // Mistral 7B v0.1: an integer window on every layer.
    CHECK(sliding({{"model_type", "mistral"}, {"sliding_window", 4096}}) == 4);
    // layer_types decides where it is given, with the window or with null.
    CHECK(sliding({{"model_type", "qwen3"}, {"sliding_window", nullptr},
                   {"layer_types", {"full_attention", "full_attention", "full_attention", "full_attention"}}}) == 0);
    CHECK(sliding({{"model_type", "qwen3"}, {"sliding_window", 16},
                   {"layer_types", {"sliding_attention", "full_attention", "sliding_attention", "full_attention"}}}) == 2);
    // Another type is refused, naming the key.
    const json wrong = estimate({{"model_type", "llama"}, {"sliding_window", false}, {"num_hidden_layers", 4}, {"hidden_size", 64},
                                 {"num_attention_heads", 4}, {"vocab_size", 10}});
    CHECK(wrong["errors"][0]["field"] == "hf_config.sliding_window");
}

TEST_CASE("a config.json without a size its family needs is refused naming the key", "[hf][errors]") {
    // DeepSeek-V2-Lite-Chat's config.json (tests/data/hf/deepseek_v2_lite_chat.json, 15,706,484,224
    // parameters) with one key taken out: each would otherwise fall back silently (without
    // moe_intermediate_size the 64 experts took the dense layer's 10,944 width: 112.7B parameters;
    // without kv_lora_rank every layer became plain attention; without vocab_size no embedding).
    std::ifstream in(std::string(MEMPLAN_DATA_DIR) + "/hf/deepseek_v2_lite_chat.json");
    const json whole = json::parse(in);
    REQUIRE(estimate(whole)["errors"].empty());
    for (const char* key : {"intermediate_size", "moe_intermediate_size", "num_experts_per_tok", "n_routed_experts",
                            "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "vocab_size"}) {
        INFO(key);
        json cut = whole;
        cut.erase(key);
        const json out = estimate(cut);
        REQUIRE_FALSE(out["errors"].empty());
        CHECK(out["errors"][0]["field"] == std::string("hf_config.") + key);
    }
    // Mixtral's experts are intermediate_size wide (no moe_intermediate_size): it is required too.
    std::ifstream mixtral_in(std::string(MEMPLAN_DATA_DIR) + "/hf/mixtral_8x7b.json");
    json mixtral = json::parse(mixtral_in);
    REQUIRE(estimate(mixtral)["errors"].empty());
    mixtral.erase("intermediate_size");
    CHECK(estimate(mixtral)["errors"][0]["field"] == "hf_config.intermediate_size");
    // GPT-2's "n_inner": null is its documented 4 × n_embd (GPT2Config), a stated width.
    const json gpt2 = {{"model_type", "gpt2"}, {"n_layer", 2}, {"n_embd", 64}, {"n_head", 4}, {"n_inner", nullptr}, {"vocab_size", 10}};
    CHECK(estimate(gpt2)["errors"].empty());
}
