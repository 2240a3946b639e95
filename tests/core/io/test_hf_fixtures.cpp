// Real Hugging Face config.json files (tests/data/hf/*.json, each naming its source in "_source"), counted
// by memplan and checked two ways: exactly against the sum of the tensor shapes the family's transformers
// modelling file builds (derived per row below), and against the published total to the published figure's
// own precision. Where the two published and counted figures differ, the row says by which module and why.
// tests/data/hf_refused/ holds real files of families or keys memplan does not count, refused by name.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "memplan/io/json.hpp"
#include "memplan/model/arch.hpp"
#include "memplan/report/json.hpp"

using namespace memplan;
using nlohmann::json;

namespace {
/// The file tests/data/<folder>/<name>.json without its "_source" note.
json load(const std::string& folder, const std::string& name) {
    std::ifstream in(std::string(MEMPLAN_DATA_DIR) + "/" + folder + "/" + name + ".json");
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    json doc = json::parse(text.str());
    REQUIRE(doc.contains("_source"));
    REQUIRE(doc["_source"].is_string());
    doc.erase("_source");
    return doc;
}

param_breakdown count_of(const json& config) {
    const auto parsed = parse_config(R"({"mode": "infer"})", config.dump());
    if (!parsed.ok()) FAIL(parsed.errors[0].field + ": " + parsed.errors[0].message);
    const auto counted = count_params(parsed.value.model);
    if (!counted.ok()) FAIL(counted.errors[0].field + ": " + counted.errors[0].message);
    return counted.value;
}

/// The field of the first error a config.json's infer-mode reading reports (it must report one).
std::string first_error(const json& config) {
    const auto parsed = parse_config(R"({"mode": "infer"})", config.dump());
    REQUIRE_FALSE(parsed.ok());
    return parsed.errors[0].field;
}

/// The weights of one GPU when the checkpoint is served as stored (infer mode, no weight_dtype given).
std::uint64_t stored_weight_bytes(const json& config) {
    const json out = json::parse(estimate_json(R"({"mode": "infer"})", config.dump()));
    if (!out["errors"].empty()) FAIL(out["errors"].dump());
    return out["per_gpu"]["weights"].get<std::uint64_t>();
}

/// NVFP4 bytes of one d_in × d_out matrix (ModelOpt): values two per byte, an e4m3 scale per 16 inputs, and the
/// fp32 weight_scale_2 and input_scale.
std::uint64_t nvfp4_matrix(std::uint64_t d_in, std::uint64_t d_out) {
    return d_in * d_out / 2 + d_out * ((d_in + 15) / 16) + 8;
}

/// A published figure such as "7.61" (billions) holds `count` when the count rounds or truncates to it:
/// |count − figure| < one unit of its last digit.
bool matches_published(std::uint64_t count, const char* billions) {
    const std::string text = billions;
    const auto dot = text.find('.');
    const int decimals = dot == std::string::npos ? 0 : static_cast<int>(text.size() - dot - 1);
    const double unit = std::pow(10.0, 9 - decimals);
    return std::fabs(static_cast<double>(count) - std::strtod(text.c_str(), nullptr) * 1e9) < unit;
}

struct fixture_row {
    const char* name;          ///< tests/data/hf/<name>.json
    std::uint64_t total;       ///< the tensor-shape sum (derivation in the table's comment)
    std::uint64_t active;      ///< with only the top-k experts (= total for a dense model)
    const char* published;     ///< the published total in billions, as printed
    const char* active_published;  ///< the published active count in billions; "" = not published apart
};

// V vocabulary, h hidden, L layers, a heads, kv KV heads, d head_dim, f FFN width, E experts, k top-k.
// Dense Llama-style layer (modeling_llama.py LlamaDecoderLayer): q h·a·d, k and v h·kv·d, o a·d·h, gated MLP
// 3·h·f, two RMSNorms 2h; model: embed V·h, lm_head V·h unless tied, final norm h.
const fixture_row rows[] = {
    // Llama 3.1 / 3.3 model cards (8B, 70B, 405B). 2·128256·4096 + 4096 + 32·(2·4096² + 2·4096·1024 + 3·4096·14336 + 2·4096).
    {"llama3_1_8b", 8030261248ULL, 8030261248ULL, "8", ""},
    // 2·128256·8192 + 8192 + 80·(2·8192² + 2·8192·1024 + 3·8192·28672 + 2·8192).
    {"llama3_1_70b", 70553706496ULL, 70553706496ULL, "70", ""},
    {"llama3_3_70b_instruct", 70553706496ULL, 70553706496ULL, "70", ""},
    // 2·128256·16384 + 16384 + 126·(2·16384² + 2·16384·1024 + 3·16384·53248 + 2·16384).
    {"llama3_1_405b", 405853388800ULL, 405853388800ULL, "405", ""},
    // Llama 3.2 model card (1.23B, 3.21B), tied: 128256·2048 + 2048 + 16·(2·2048² + 2·2048·512 + 3·2048·8192 + 2·2048).
    {"llama3_2_1b_instruct", 1235814400ULL, 1235814400ULL, "1.23", ""},
    // 128256·3072 + 3072 + 28·(2·3072² + 2·3072·1024 + 3·3072·8192 + 2·3072).
    {"llama3_2_3b", 3212749824ULL, 3212749824ULL, "3.21", ""},
    // Qwen3 model cards (modeling_qwen3.py: + q_norm, k_norm of d = 128 per layer). 0.6B, tied:
    // 151936·1024 + 1024 + 28·(1024·2048 + 2·1024·1024 + 2048·1024 + 256 + 3·1024·3072 + 2·1024).
    {"qwen3_0_6b", 596049920ULL, 596049920ULL, "0.6", ""},
    {"qwen3_1_7b", 1720574976ULL, 1720574976ULL, "1.7", ""},
    {"qwen3_4b", 4022468096ULL, 4022468096ULL, "4.0", ""},
    {"qwen3_14b", 14768307200ULL, 14768307200ULL, "14.8", ""},
    // 2·151936·5120 + 5120 + 64·(5120·8192 + 2·5120·1024 + 8192·5120 + 256 + 3·5120·25600 + 2·5120).
    {"qwen3_32b", 32762123264ULL, 32762123264ULL, "32.8", ""},
    // Qwen3-MoE (modeling_qwen3_moe.py): E experts of 3·h·moe_f and a router h·E per layer, no shared expert.
    // 235B in total and 22B activated: 94 layers, 128 experts of 1536, top-8.
    {"qwen3_235b_a22b", 235093634560ULL, 235093634560ULL - 94ULL * 120 * 3 * 4096 * 1536, "235", "22"},
    // 480B in total and 35B activated: 62 layers, 160 experts of 2560, top-8.
    {"qwen3_coder_480b_a35b", 480154875392ULL, 480154875392ULL - 62ULL * 152 * 3 * 6144 * 2560, "480", "35"},
    // Qwen2.5-0.5B (tied): 494,032,768 in its safetensors file, as the report the fixture was copied from sums it:
    // 151936·896 + 896 + 24·(2·896² + 2·896·128 + 896 + 2·128 + 3·896·4864 + 2·896).
    {"qwen2_5_0_5b", 494032768ULL, 494032768ULL, "0.494032768", ""},
    // Qwen2.5 model cards (modeling_qwen2.py: q, k, v with biases). 3.09B, tied:
    // 151936·2048 + 2048 + 36·(2·2048² + 2·2048·256 + 2048 + 2·256 + 3·2048·11008 + 2·2048).
    {"qwen2_5_3b", 3085938688ULL, 3085938688ULL, "3.09", ""},
    {"qwen2_5_7b_instruct", 7615616512ULL, 7615616512ULL, "7.61", ""},
    {"qwen2_5_14b", 14770033664ULL, 14770033664ULL, "14.7", ""},
    // Qwen2.5-72B-Instruct: 72,706,203,648 parameters in its 37 safetensors files, as the report the fixture was
    // copied from sums them: 2·152064·8192 + 8192 + 80·(2·8192² + 2·8192·1024 + 8192 + 2·1024 + 3·8192·29568 + 2·8192).
    {"qwen2_5_72b_instruct", 72706203648ULL, 72706203648ULL, "72.706203648", ""},
    // Mixtral (modeling_mixtral.py): 8 experts of 3·h·f and a router h·8. Jiang et al. 2024: 46.7B, 12.9B active.
    {"mixtral_8x7b", 46702792704ULL, 46702792704ULL - 32ULL * 6 * 3 * 4096 * 14336, "46.7", "12.9"},
    // Mistral AI's Mixtral 8x22B announcement: "39B active parameters out of 141B".
    {"mixtral_8x22b", 140620634112ULL, 140620634112ULL - 56ULL * 6 * 3 * 6144 * 16384, "141", "39"},
    // DeepSeek-V3 technical report / model card: 671B, 37B activated (main model; MTP checked below).
    {"deepseek_v3", 671026419200ULL, 37552297472ULL, "671", "37"},
    // OLMo 2 (the OLMo-2-1124-7B name, 7B), modeling_olmo2.py: q_norm a·d and k_norm kv·d, two post-norms:
    // 2·100352·4096 + 4096 + 32·(4·4096² + 4096 + 4096 + 3·4096·11008 + 2·4096), = the sum of the shapes the
    // fixture's source lists.
    {"olmo2_1124_7b_instruct", 7298617344ULL, 7298617344ULL, "7", ""},
    // Granite 3.3 8B (modeling_granite.py, tied): 49159·4096 + 4096 + 40·(2·4096² + 2·4096·1024 + 3·4096·12800
    // + 2·4096); the source's shape list prints lm_head, the tied embedding, once more.
    {"granite_3_3_8b_instruct", 8170864640ULL, 8170864640ULL, "8", ""},
    // SmolLM2-1.7B (tied): 49152·2048 + 2048 + 24·(4·2048² + 3·2048·8192 + 2·2048).
    {"smollm2_1_7b_instruct", 1711376384ULL, 1711376384ULL, "1.7", ""},
    // SmolLM3 blog post ("3B model"), modeling_smollm3.py (tied; NoPE layers add no weights):
    // 128256·2048 + 2048 + 36·(2·2048² + 2·2048·512 + 3·2048·11008 + 2·2048).
    {"smollm3_3b_base", 3075098624ULL, 3075098624ULL, "3", ""},
    // Phi-4-mini model card (3.8B), modeling_phi3.py (fused qkv_proj and gate_up_proj, the same weights; tied):
    // 200064·3072 + 3072 + 32·(2·3072² + 2·3072·1024 + 3·3072·8192 + 2·3072).
    {"phi_4_mini_instruct", 3836021760ULL, 3836021760ULL, "3.8", ""},
    // Falcon3-7B (Llama block, head_dim 256 > h / a = 256 · 12 / 12): 2·131072·3072 + 3072 +
    // 28·(3072·3072 + 2·3072·1024 + 3072·3072 + 3·3072·23040 + 2·3072).
    {"falcon3_7b_instruct", 7455550464ULL, 7455550464ULL, "7", ""},
    // Qwen3.5 model cards (27B; 35B-A3B, 122B-A10B, 397B-A17B): the language model of modular_qwen3_5.py and
    // Qwen3-VL's tower without deepstack mergers (its sum in the Qwen3.5 case below). Per layer two norms 2h and
    // a full-attention layer h·2ad + 2·h·kv·d + a·d·h + 2d, or a Gated DeltaNet layer h·(2·nk·dk + nv·dv) + h·nv·dv
    // + 2·h·nv + (2·nk·dk + nv·dv)·K + 2·nv + dv + nv·dv·h; then a dense MLP 3·h·f, or router E·h, E experts
    // 3·h·fm, shared expert 3·h·fs and its gate h; plus 2·V·h + h. Active: k of the E experts.
    {"qwen3_5_27b", 27356728560ULL, 27356728560ULL, "27", ""},
    {"qwen3_5_35b_a3b", 35107181936ULL, 3901560176ULL, "35", "3"},
    {"qwen3_5_122b_a10b", 122562817776ULL, 10222579440ULL, "122", "10"},
    {"qwen3_5_397b_a17b", 396802360816ULL, 17805051376ULL, "397", "17"},
};
}  // namespace

TEST_CASE("HF fixtures: every real config.json counts to its tensor-shape sum and its published total",
          "[hf][fixtures]") {
    for (const fixture_row& row : rows) {
        CAPTURE(row.name);
        const param_breakdown p = count_of(load("hf", row.name));
        CHECK(p.total == row.total);
        CHECK(p.active == row.active);
        CHECK(matches_published(p.total, row.published));
        if (*row.active_published != '\0') CHECK(matches_published(p.active, row.active_published));
    }
}

TEST_CASE("HF fixtures: DeepSeek-V2-Lite counts 15,706,484,224 — its 2.4B activated leave out the input embedding",
          "[hf][fixtures][mla]") {
    // MLA without q_lora_rank (modeling_deepseek_v2.py: q_proj h × a·(nope + rope)), one dense layer, then 26 MoE
    // layers of 64 experts of 1408 and 2 shared (one MLP of 2816), router h × 64:
    // 2·102400·2048 + 2048 + 27·(2048·16·192 + 2048·576 + 512 + 512·16·256 + 16·128·2048 + 2·2048)
    // + 3·2048·10944 + 26·(64·3·2048·1408 + 3·2048·2816 + 2048·64), the sum of the 4 safetensors files that the
    // fixture's source reports. DeepSeek-V2 report: 15.7B total, 2.4B activated per token.
    const param_breakdown p = count_of(load("hf", "deepseek_v2_lite_chat"));
    CHECK(p.total == 15706484224ULL);
    CHECK(matches_published(p.total, "15.7"));
    CHECK(p.active == 15706484224ULL - 26ULL * 58 * 3 * 2048 * 1408);
    // 2,661,150,208 with the embedding, 2,451,435,008 without it: the report's figure is the latter's.
    CHECK_FALSE(matches_published(p.active, "2.4"));
    CHECK(matches_published(p.active - p.embedding, "2.4"));
}

TEST_CASE("HF fixtures: Qwen2.5-32B counts 32,763,876,352 — 0.26B over its model card's 32.5B", "[hf][fixtures]") {
    // 2·152064·5120 + 5120 + 64·(2·5120² + 2·5120·1024 + 5120 + 2·1024 + 3·5120·27648 + 2·5120): the shapes
    // modeling_qwen2.py builds from this config. The card's 32.5B (non-embedding 31.0B) is no rounding of them:
    // both are about 0.26B under (non-embedding 32,763,876,352 − 2·152064·5120 = 31,206,740,992).
    const param_breakdown p = count_of(load("hf", "qwen2_5_32b"));
    CHECK(p.total == 32763876352ULL);
    CHECK(p.total - p.embedding - p.lm_head == 31206740992ULL);
    CHECK_FALSE(matches_published(p.total, "32.5"));
    CHECK(matches_published(p.total, "32.7"));
}

TEST_CASE("HF fixtures: Gemma 2 9B counts its report's non-embedding 8,324,201,984 — the embedding differs by 128 rows",
          "[hf][fixtures]") {
    // Gemma 2 report (Gemma Team 2024) Table 2: embedding 917,962,752 + non-embedding 8,324,201,984 =
    // 9,242,164,736, with Table 1's vocabulary of 256,128; the released config.json has 256,000 rows, so
    // memplan's embedding is 128 · 3584 = 458,752 smaller. modeling_gemma2.py: four norms per layer, tied.
    const param_breakdown p = count_of(load("hf", "gemma2_9b_it"));
    CHECK(p.embedding == 256000ULL * 3584);
    CHECK(p.lm_head == 0);
    CHECK(p.total - p.embedding == 8324201984ULL);
    CHECK(p.total == 9242164736ULL - 128ULL * 3584);
}

TEST_CASE("HF fixtures: OLMo 2 QK-norm spans the whole projection, Qwen3's one head", "[hf][fixtures][olmo2]") {
    const json olmo = load("hf", "olmo2_1124_7b_instruct");
    const param_breakdown p = count_of(olmo);
    // Olmo2Attention (modeling_olmo2.py): q_norm RMSNorm(32 · 128) and k_norm RMSNorm(32 · 128), per layer.
    CHECK(p.parts.attention.total == 32ULL * (4ULL * 4096 * 4096 + 4096 + 4096));
    // Olmo2DecoderLayer: post_attention_layernorm and post_feedforward_layernorm only.
    CHECK(p.parts.norms.total == 32ULL * 2 * 4096 + 4096);
    // With grouped KV heads, k_norm follows the KV width: 8 heads · 128 = 1024.
    json gqa = olmo;
    gqa["num_key_value_heads"] = 8;
    CHECK(count_of(gqa).parts.attention.total ==
          32ULL * (2ULL * 4096 * 4096 + 2ULL * 4096 * 1024 + 4096 + 1024));
    // Qwen3's norm is over head_dim, 128 each, for the same sizes.
    json qwen = olmo;
    qwen["model_type"] = "qwen3";
    qwen["architectures"] = json::array({"Qwen3ForCausalLM"});
    CHECK(count_of(qwen).parts.attention.total == 32ULL * (4ULL * 4096 * 4096 + 2 * 128));
    // A config.json without model_type is read by its architectures.
    json by_class = olmo;
    by_class.erase("model_type");
    CHECK(count_of(by_class).total == p.total);
    // The resolved model (memplan's keys, model_type olmo2) keeps the family's whole-projection norm.
    const json resolved = json::parse(resolve_model_json(R"({"mode": "infer"})", olmo.dump()));
    REQUIRE(resolved["errors"].empty());
    const json again = json::parse(estimate_json(json{{"model", resolved["model"]}, {"mode", "infer"}}.dump()));
    REQUIRE(again["errors"].empty());
    CHECK(again["params"] == p.total);
}

TEST_CASE("HF fixtures: OLMo 3 is OLMo 2's block with sliding layers from layer_types", "[hf][fixtures][olmo2]") {
    // modeling_olmo3.py Olmo3Attention: the same q_norm/k_norm over the projection; layer_types choose the window.
    json olmo3 = load("hf", "olmo2_1124_7b_instruct");
    olmo3["model_type"] = "olmo3";
    olmo3["architectures"] = json::array({"Olmo3ForCausalLM"});
    olmo3["sliding_window"] = 4096;
    json types = json::array();
    for (int i = 0; i < 32; ++i) types.push_back((i + 1) % 4 == 0 ? "full_attention" : "sliding_attention");
    olmo3["layer_types"] = types;
    const auto parsed = parse_config(R"({"mode": "infer"})", olmo3.dump());
    REQUIRE(parsed.ok());
    CHECK(parsed.value.model.sliding_window_layers == 24);
    CHECK(count_params(parsed.value.model).value.total == 7298617344ULL);
}

TEST_CASE("HF fixtures: DeepSeek-V3 MTP module is README_WEIGHTS' 11.5B decoder layer plus eh_proj and three norms",
          "[hf][fixtures][mtp]") {
    json v3 = load("hf", "deepseek_v3");
    v3["mtp"] = true;
    const param_breakdown q = count_of(v3);
    // One MoE decoder layer: MLA 187,107,328 + 256 experts and one shared expert of 3 · 7168 · 2048 + router
    // 256 · 7168 + 256 + two norms = 11,507,286,272, the "11.5B unique parameters" of the weights README (which
    // leaves out the shared embedding and head); eh_proj 2h × h and enorm, hnorm, shared_head.norm come on top.
    const std::uint64_t layer = 187107328ULL + 257ULL * 3 * 7168 * 2048 + 256ULL * 7168 + 256 + 2 * 7168;
    CHECK(layer == 11507286272ULL);
    CHECK(matches_published(layer, "11.5"));
    CHECK(q.parts.mtp.total == layer + 2ULL * 7168 * 7168 + 3 * 7168);
    CHECK(q.total == 671026419200ULL + 11610068224ULL);
}

TEST_CASE("HF fixtures: DeepSeek-V3.2 is DeepSeek-V3 plus a lightning indexer of 13,959,424 per MLA layer",
          "[hf][fixtures][mla][dsa]") {
    // DeepSeek-V3.2-Exp inference/model.py Indexer (vLLM vllm/model_executor/models/deepseek_v2.py Indexer at
    // 002d6073): wq_b q_lora_rank × index_n_heads · index_head_dim = 1536 · 64 · 128, wk h × index_head_dim =
    // 7168 · 128, k_norm a LayerNorm's weight and bias 2 · 128, weights_proj h × index_n_heads = 7168 · 64.
    const std::uint64_t indexer = 1536ULL * 64 * 128 + 7168ULL * 128 + 2 * 128 + 7168ULL * 64;
    CHECK(indexer == 13959424ULL);
    const json v32 = load("hf", "deepseek_v3_2");
    const param_breakdown p = count_of(v32);
    // Every other tensor is DeepSeek-V3's (the same config but the index_* keys): 61 MLA layers, each with one.
    CHECK(p.total == 671026419200ULL + 61 * indexer);
    CHECK(p.total == 671877944064ULL);
    CHECK(p.active == 37552297472ULL + 61 * indexer);
    CHECK(p.parts.attention.total == count_of(load("hf", "deepseek_v3")).parts.attention.total + 61 * indexer);
    // The MTP module is a decoder layer like the last: it has an indexer too.
    json with_mtp = v32;
    with_mtp["mtp"] = true;
    const param_breakdown q = count_of(with_mtp);
    CHECK(q.parts.mtp.total == 11610068224ULL + indexer);
    CHECK(q.total == 683501971712ULL);
    // Published: the Hub's model page of deepseek-ai/DeepSeek-V3.2 gives the safetensors count, "685B params",
    // which counts every stored tensor: the MTP layer's own copies of embed_tokens and shared_head.head (2 · V · h,
    // shared with the main model in memplan's count and in the engines) and the fp32 weight_scale_inv of every fp8
    // matrix (one element per 128 × 128 block). memplan's count plus those two matches the published figure.
    std::uint64_t scales = q.mtp_layer.native_scale_bytes / 4;
    for (const layer_params& l : q.layers) scales += l.native_scale_bytes / 4;
    const std::uint64_t stored = q.total + 2ULL * 129280 * 7168 + scales;
    // Scales per ⌈out/128⌉ · ⌈in/128⌉: an MLA layer 11,448 + the indexer's wq_b 768 and wk 56; a dense MLP 24,192;
    // an MoE layer's 257 experts 257 · 2,688; 61 MLA layers, 3 dense, 58 MoE, and the MTP layer (MLA + MoE).
    CHECK(scales == 62ULL * (11448 + 768 + 56) + 3ULL * 24192 + 59ULL * 257 * 2688);
    CHECK(stored == 685396921376ULL);
    CHECK(matches_published(stored, "685"));
    CHECK_FALSE(matches_published(q.total, "685"));  // the difference is those stored copies and scales
    // index_topk changes compute only: any value counts the same; the key is read, not ignored.
    json topk = v32;
    topk["index_topk"] = 512;
    CHECK(count_of(topk).total == p.total);
    topk["index_topk"] = "many";
    CHECK_FALSE(parse_config(R"({"mode": "infer"})", topk.dump()).ok());
    // The resolved model (memplan's keys) keeps the indexer.
    const json resolved = json::parse(resolve_model_json(R"({"mode": "infer"})", v32.dump()));
    REQUIRE(resolved["errors"].empty());
    CHECK(resolved["model"]["index_n_heads"] == 64);
    CHECK(resolved["model"]["index_head_dim"] == 128);
    const json again = json::parse(estimate_json(json{{"model", resolved["model"]}, {"mode", "infer"}}.dump()));
    REQUIRE(again["errors"].empty());
    CHECK(again["params"] == p.total);
}

TEST_CASE("HF fixtures: DeepSeek-V4-Flash counts 284,334,567,511 (13.8B active) and Pro 1,572,999,528,803, FP4 "
          "experts refused by name", "[hf][fixtures][deepseek_v4]") {
    // transformers src/transformers/models/deepseek_v4/modular_deepseek_v4.py (commit 02356fec), d = head_dim 512,
    // o_lora 1024, hc_mult 4, V 129280, top-k 6, no biases. Per layer:
    //  attention h·q_lora + q_lora (q_norm) + q_lora·a·d + h·d + d (kv_proj, kv_norm) + a·d·o_lora (o_a_proj) +
    //    g·o_lora·h (o_b_proj) + a (sinks): Flash (h 4096, a 64, q_lora 1024, g 8) 106,956,352; Pro (h 7168, a 128,
    //    q_lora 1536, g 16) 299,894,912;
    //  CSA (ratio 4) compressor 2·h·2d + 4·2d + d, indexer 2·h·256 + 4·256 + 128 + q_lora·64·128 + h·64:
    //    Flash 19,142,272, Pro 31,397,504; HCA (ratio 128) 2·h·d + 128·d + d: Flash 4,260,352, Pro 7,406,080;
    //  attn_hc and ffn_hc 2·(24·4h + 24 + 3): Flash 786,486, Pro 1,376,310; two RMSNorms 2h;
    //  router E·h, with e_score_correction_bias E, or (the first 3 layers) tid2eid V·6 = 775,680;
    //  E routed and one shared expert of 3·h·f: Flash (E 256, f 2048) 25,165,824 each, Pro (E 384, f 3072) 66,060,288.
    // Model: embed and head 2·V·h, norm h, hc_head 4·4h + 4 + 1. Flash's 43 layers: 21 CSA, 20 HCA, 2 window only;
    // Pro's 61: 30 CSA, 31 HCA.
    constexpr std::uint64_t V = 129280;
    const auto model = [](std::uint64_t h, std::uint64_t L, std::uint64_t att, std::uint64_t hc, std::uint64_t E,
                           std::uint64_t expert, std::uint64_t experts, std::uint64_t csa, std::uint64_t n_csa,
                           std::uint64_t hca, std::uint64_t n_hca) {
        return 2 * V * h + h + (16 * h + 5) + L * (att + hc + 2 * h + E * h + (experts + 1) * expert) + n_csa * csa +
               n_hca * hca + 3 * V * 6 + (L - 3) * E;
    };
    const std::uint64_t flash_total = model(4096, 43, 106956352, 786486, 256, 25165824, 256, 19142272, 21, 4260352, 20);
    const std::uint64_t flash_active = model(4096, 43, 106956352, 786486, 256, 25165824, 6, 19142272, 21, 4260352, 20);
    const std::uint64_t pro_total = model(7168, 61, 299894912, 1376310, 384, 66060288, 384, 31397504, 30, 7406080, 31);
    const std::uint64_t pro_active = model(7168, 61, 299894912, 1376310, 384, 66060288, 6, 31397504, 30, 7406080, 31);
    CHECK(flash_total == 284334567511ULL);
    CHECK(pro_total == 1572999528803ULL);
    // The released files store the routed experts in FP4 beside FP8 blocks (expert_dtype "fp4"): refused by name.
    const json flash = load("hf_refused", "deepseek_v4_flash"), pro = load("hf_refused", "deepseek_v4_pro");
    for (const json* doc : {&flash, &pro}) {
        const auto parsed = parse_config(R"({"mode": "infer"})", doc->dump());
        REQUIRE_FALSE(parsed.ok());
        CHECK(parsed.errors[0].field == "hf_config.expert_dtype");
    }
    const auto unquantized = [](json doc) {
        doc.erase("expert_dtype");
        doc.erase("quantization_config");
        return doc;
    };
    const param_breakdown f = count_of(unquantized(flash)), p = count_of(unquantized(pro));
    CHECK(f.total == flash_total);
    CHECK(f.active == flash_active);
    CHECK(f.active == 13801959511ULL);
    CHECK(p.total == pro_total);
    CHECK(p.active == pro_active);
    CHECK(p.active == 49781408099ULL);
    // Published (DeepSeek-V4 technical report, "DeepSeek-V4: Towards Highly Efficient Million-Token Context
    // Intelligence", and the model cards): Flash 284B total, 13B activated; Pro 1.6T total, 49B activated.
    CHECK(matches_published(f.total, "284"));
    CHECK(matches_published(f.active, "13"));
    CHECK(matches_published(p.active, "49"));
    CHECK(std::llabs(static_cast<long long>(p.total) - 1600000000000LL) < 50000000000LL);  // 1.6T to its 0.1T
    // sgl-project's FP8 file (every matrix in FP8 blocks, model_type deepseek_ref) reads whole: Flash's count.
    CHECK(count_of(load("hf", "sgl_deepseek_v4_flash_fp8")).total == flash_total);
    // The MTP module (vLLM deepseek_v4_mtp.py at 023da1fc): a window-only layer (compress_ratios[43] 0) with score
    // routing, e_proj and h_proj h×h, enorm, hnorm, shared_head.norm, hc_head; embedding and head shared.
    json mtp = unquantized(flash);
    mtp["mtp"] = true;
    const param_breakdown q = count_of(mtp);
    const std::uint64_t block = 106956352ULL + 786486 + 2 * 4096 + 256ULL * 4096 + 256 + 257ULL * 25165824;
    CHECK(q.parts.mtp.total == block + 2ULL * 4096 * 4096 + 3 * 4096 + (16ULL * 4096 + 5));
    CHECK(q.total == 290944616402ULL);
    json pro_mtp = unquantized(pro);
    pro_mtp["mtp"] = true;
    // Pro's MTP layer is window only too (compress_ratios[61] is 0), at Pro's sizes.
    const std::uint64_t pro_block = 299894912ULL + 1376310 + 2 * 7168 + 384ULL * 7168 + 384 + 385ULL * 66060288;
    CHECK(count_of(pro_mtp).parts.mtp.total == pro_block + 2ULL * 7168 * 7168 + 3 * 7168 + (16ULL * 7168 + 5));
    CHECK(count_of(pro_mtp).total == 1598839674782ULL);
    // Keys that would describe other weights are refused by name.
    json bad = unquantized(flash);
    bad["compress_ratios"][5] = 16;
    CHECK(parse_config(R"({"mode": "infer"})", bad.dump()).errors.at(0).field == "hf_config.compress_ratios");
    bad = unquantized(flash);
    bad["compress_ratios"] = json::array({0, 4});
    CHECK(parse_config(R"({"mode": "infer"})", bad.dump()).errors.at(0).field == "hf_config.compress_ratios");
    for (const char* key : {"num_experts_per_tok", "moe_intermediate_size", "o_groups", "hc_mult", "compress_ratios"}) {
        CAPTURE(key);
        bad = unquantized(flash);
        bad.erase(key);
        const auto missing = parse_config(R"({"mode": "infer"})", bad.dump());
        REQUIRE_FALSE(missing.ok());
        CHECK(missing.errors.at(0).field == std::string("hf_config.") + key);
    }
    bad = unquantized(flash);
    bad["num_key_value_heads"] = 8;
    CHECK(parse_config(R"({"mode": "infer"})", bad.dump()).errors.at(0).field == "hf_config.num_key_value_heads");
    bad = unquantized(flash);
    bad["attention_bias"] = true;
    CHECK(parse_config(R"({"mode": "infer"})", bad.dump()).errors.at(0).field == "hf_config.attention_bias");
    bad = unquantized(flash);
    bad["expert_dtype"] = "int4";
    CHECK(parse_config(R"({"mode": "infer"})", bad.dump()).errors.at(0).field == "hf_config.expert_dtype");
    // A family without these keys refuses them.
    json other = load("hf", "deepseek_v3");
    other["hc_mult"] = 4;
    CHECK_FALSE(parse_config(R"({"mode": "infer"})", other.dump()).ok());
    // NVIDIA's NVFP4 file (NVFP4 experts, FP8 elsewhere) is refused by name too.
    const auto nv = parse_config(R"({"mode": "infer"})", load("hf_refused", "nvidia_deepseek_v4_flash_nvfp4").dump());
    REQUIRE_FALSE(nv.ok());
    CHECK(nv.errors[0].field == "hf_config.expert_dtype");
    json nv_experts = load("hf_refused", "nvidia_deepseek_v4_flash_nvfp4");
    nv_experts.erase("expert_dtype");  // its quantization_config still names the NVFP4 experts
    const auto nv2 = parse_config(R"({"mode": "infer"})", nv_experts.dump());
    REQUIRE_FALSE(nv2.ok());
    CHECK(nv2.errors[0].field == "hf_config.quantization_config.moe_quant_algo");
    // The compressed KV cache is not modelled: an estimate is refused, naming compress_ratios.
    const json estimate = json::parse(estimate_json(R"({"mode": "infer"})", unquantized(flash).dump()));
    REQUIRE_FALSE(estimate["errors"].empty());
    CHECK(estimate["errors"][0]["field"] == "hf_config.compress_ratios");
    CHECK(estimate["errors"][0]["message"].get<std::string>().find("not modelled yet") != std::string::npos);
    const json training = json::parse(estimate_json(R"({"mode": "train"})", unquantized(flash).dump()));
    REQUIRE_FALSE(training["errors"].empty());
    CHECK(training["errors"][0]["field"] == "hf_config.compress_ratios");
    // Nor is a resolved model written: memplan's keys cannot hold these layers.
    const json resolved = json::parse(resolve_model_json(R"({"mode": "infer"})", unquantized(flash).dump()));
    REQUIRE_FALSE(resolved["errors"].empty());
    CHECK(resolved["model"].is_null());
}

TEST_CASE("HF fixtures: GLM-5 is DeepSeek-V3.2's layers at its own sizes, 743,911,218,432 without its MTP layer",
          "[hf][fixtures][mla][dsa]") {
    // transformers src/transformers/models/glm_moe_dsa/modular_glm_moe_dsa.py (commit 01f8fa55): h 6144, V 154880,
    // 78 layers, a 64, q_lora 2048, kv_lora 512, nope 192, rope 64, v 256; MLA per layer q_a_proj h·2048 +
    // q_a_layernorm 2048 + q_b_proj 2048·64·256 + kv_a_proj_with_mqa h·576 + kv_a_layernorm 512 + kv_b_proj
    // 512·64·448 + o_proj 64·256·h = 165,022,208; GlmMoeDsaIndexer wq_b 2048·32·128 + wk h·128 + k_norm 2·128 +
    // weights_proj h·32 = 9,371,904; two RMSNorms 2h. 3 dense layers 3·h·12288; 75 MoE layers of 256 experts and one
    // shared expert of 3·h·2048, router h·256 + e_score_correction_bias 256 = 9,702,998,272.
    const std::uint64_t mla = 6144ULL * 2048 + 2048 + 2048ULL * 64 * 256 + 6144ULL * 576 + 512 + 512ULL * 64 * 448 +
                              64ULL * 256 * 6144;
    const std::uint64_t indexer = 2048ULL * 32 * 128 + 6144ULL * 128 + 2 * 128 + 6144ULL * 32;
    const std::uint64_t moe = 257ULL * 3 * 6144 * 2048 + 6144ULL * 256 + 256;
    CHECK(mla == 165022208ULL);
    CHECK(indexer == 9371904ULL);
    CHECK(moe == 9702998272ULL);
    const std::uint64_t total =
        2ULL * 154880 * 6144 + 6144 + 78 * (mla + indexer + 2 * 6144) + 3ULL * 3 * 6144 * 12288 + 75 * moe;
    CHECK(total == 743911218432ULL);
    const json glm = load("hf", "glm_5");
    const param_breakdown p = count_of(glm);
    CHECK(p.total == total);
    CHECK(p.active == total - 75ULL * 248 * 3 * 6144 * 2048);
    CHECK(p.active == 41784728832ULL);
    CHECK(p.parts.attention.total == 78 * (mla + indexer));
    // Published: the GLM-5 technical report's architecture table (as quoted at glennklockwood.com/garden/GLM-5):
    // 744B total, 40B activated, 1 MTP layer. The 744B is the main model without the MTP layer (with it memplan
    // counts 753.9B); the 40B leaves out the input embedding and lm_head (2 · 154880 · 6144): 39,882,022,912.
    CHECK(matches_published(p.total, "744"));
    CHECK_FALSE(matches_published(p.active, "40"));
    CHECK(matches_published(p.active - p.embedding - p.lm_head, "40"));
    // The MTP layer (transformers skips model.layers.78 on load; vLLM and SGLang load it): a decoder layer like the
    // last (MLA, indexer, MoE) plus eh_proj 2h × h and enorm, hnorm, shared_head.norm.
    json with_mtp = glm;
    with_mtp["mtp"] = true;
    const param_breakdown q = count_of(with_mtp);
    CHECK(q.parts.mtp.total == mla + indexer + 2 * 6144 + moe + 2ULL * 6144 * 6144 + 3 * 6144);
    CHECK(q.total == 753864139008ULL);
    // GlmMoeDsaConfig's __post_init__: head_dim is the rotary width (qk_rope_head_dim), whatever config.json says.
    const auto parsed = parse_config(R"({"mode": "infer"})", glm.dump());
    REQUIRE(parsed.ok());
    CHECK(parsed.value.model.head_dim == 64);
    CHECK(parsed.value.model.index_n_heads == 32);
    // The cache per token and layer: the MLA latent 512 + 64 and the indexer's key of 128.
    const auto groups = kv_layer_groups(parsed.value.model);
    REQUIRE(groups.size() == 1);
    CHECK(groups[0].layers == 78);
    CHECK(groups[0].latent_dim == 576);
    CHECK(groups[0].index_head_dim == 128);
    // The FP8 release: the same tensors, fp8 blocks of 128 × 128; its modules_to_not_convert (norms, router, indexer
    // k_norm and weights_proj, eh_proj, embeddings, lm_head) are what memplan keeps in bf16 already.
    const json fp8 = load("hf", "glm_5_fp8");
    const auto fp8_parsed = parse_config(R"({"mode": "infer"})", fp8.dump());
    REQUIRE(fp8_parsed.ok());
    CHECK(fp8_parsed.value.model.checkpoint == checkpoint_format::fp8_block);
    CHECK(fp8_parsed.value.model.quant_block == 128);
    CHECK(count_of(fp8).total == total);
    json packed = fp8;
    packed["quantization_config"]["modules_to_not_convert"].push_back("model.layers.3.mlp.shared_experts.down_proj");
    const auto refused_list = parse_config(R"({"mode": "infer"})", packed.dump());
    REQUIRE_FALSE(refused_list.ok());
    CHECK(refused_list.errors[0].field == "hf_config.quantization_config.modules_to_not_convert");
    // Keys whose other values describe other weights are refused by name.
    const auto field_of = [](const json& config) {
        const auto r = parse_config(R"({"mode": "infer"})", config.dump());
        REQUIRE_FALSE(r.ok());
        return r.errors[0].field;
    };
    json freq = glm;
    freq["moe_layer_freq"] = 2;  // GlmMoeDsaConfig has no moe_layer_freq
    CHECK(field_of(freq) == "hf_config.moe_layer_freq");
    json qk = glm;
    qk["qk_head_dim"] = 192;
    CHECK(field_of(qk) == "hf_config.qk_head_dim");
    json shared = glm;  // indexer_types' default from index_topk_freq / index_skip_topk_offset
    shared["index_topk_freq"] = 4;
    shared["index_skip_topk_offset"] = 3;
    CHECK(field_of(shared) == "hf_config.index_topk_freq");
    json all_full = glm;
    all_full["indexer_types"] = json::array();
    for (int i = 0; i < 78; ++i) all_full["indexer_types"].push_back("full");
    CHECK(count_of(all_full).total == total);
    all_full["index_topk_pattern"] = "FFS";  // indexer_types takes precedence
    CHECK(count_of(all_full).total == total);
    json no_first_k = glm;  // first_k_dense_replace defaults to 3 (configuration_glm_moe_dsa.py)
    no_first_k.erase("first_k_dense_replace");
    CHECK(count_of(no_first_k).total == total);
    json no_indexer = glm;
    no_indexer.erase("index_n_heads");
    CHECK(field_of(no_indexer) == "hf_config.index_n_heads");
}

TEST_CASE("HF fixtures: MiMo-V2-Flash counts 308,778,780,864 — sliding layers with twice the KV heads and sinks",
          "[hf][fixtures][swa]") {
    // vLLM vllm/model_executor/models/mimo_v2_flash.py (commit 01ed47b4) from config.json: h 4096, V 152576, 48 layers,
    // a 64, head_dim 192 for q and k, v_head_dim 128 for v and o. Full layers (hybrid_layer_pattern 0: layers 0, 5,
    // 11, …, 47, nine) 4 KV heads: q h·64·192 + k h·4·192 + v h·4·128 + o 64·128·h = 89,128,960; sliding layers
    // (39) 8 KV heads and attention_sink_bias of 64: 94,371,904. Layer 0 a dense MLP 3·h·16384; 47 MoE layers of 256
    // experts of 3·h·2048, router h·256 + e_score_correction_bias 256, no shared expert = 6,443,499,776.
    const std::uint64_t full = 4096ULL * 64 * 192 + 4096ULL * 4 * 192 + 4096ULL * 4 * 128 + 64ULL * 128 * 4096;
    const std::uint64_t sliding = 4096ULL * 64 * 192 + 4096ULL * 8 * 192 + 4096ULL * 8 * 128 + 64ULL * 128 * 4096 + 64;
    const std::uint64_t moe = 256ULL * 3 * 4096 * 2048 + 4096ULL * 256 + 256;
    CHECK(full == 89128960ULL);
    CHECK(sliding == 94371904ULL);
    CHECK(moe == 6443499776ULL);
    const std::uint64_t total = 2ULL * 152576 * 4096 + 4096 + 9 * full + 39 * sliding + 48ULL * 2 * 4096 +
                                3ULL * 4096 * 16384 + 47 * moe;
    CHECK(total == 308778780864ULL);
    const json mimo = load("hf", "mimo_v2_flash");
    const param_breakdown p = count_of(mimo);
    CHECK(p.total == total);
    CHECK(p.active == total - 47ULL * 248 * 3 * 4096 * 2048);
    CHECK(p.active == 15445936320ULL);
    // Published: the model card (XiaomiMiMo/MiMo-V2-Flash README, as mirrored on GitHub): 309B total, 15B active.
    // The card's MTP module (3 layers) is stored under model.mtp.* and config.json gives no count for it: neither
    // figure nor memplan's count includes it.
    CHECK(matches_published(p.total, "309"));
    CHECK(matches_published(p.active, "15"));
    // The cache: full layers 4 · (192 + 128) per token, sliding layers 8 · (192 + 128) for the last 128 tokens.
    const auto parsed = parse_config(R"({"mode": "infer"})", mimo.dump());
    REQUIRE(parsed.ok());
    CHECK(parsed.value.model.checkpoint == checkpoint_format::fp8_block);
    const auto groups = kv_layer_groups(parsed.value.model);
    REQUIRE(groups.size() == 2);
    CHECK(groups[0].kind == attention_kind::full);
    CHECK(groups[0].layers == 9);
    CHECK(cache_elements_per_token(groups[0]) == 4ULL * (192 + 128));
    CHECK(groups[1].kind == attention_kind::sliding);
    CHECK(groups[1].layers == 39);
    CHECK(groups[1].window_tokens == 128);
    CHECK(cache_elements_per_token(groups[1]) == 8ULL * (192 + 128));
    // The resolved model (memplan's keys) counts the same.
    const json resolved = json::parse(resolve_model_json(R"({"mode": "infer"})", mimo.dump()));
    REQUIRE(resolved["errors"].empty());
    CHECK(resolved["model"]["sliding_num_key_value_heads"] == 8);
    CHECK(resolved["model"]["sliding_attention_sinks"] == true);
    const json again = json::parse(estimate_json(json{{"model", resolved["model"]}, {"mode", "infer"}}.dump()));
    REQUIRE(again["errors"].empty());
    CHECK(again["params"] == p.total);
    // Per-kind sizes memplan does not model, and sinks no modelling file builds, are refused by name.
    const auto field_of = [](const json& config) {
        const auto r = parse_config(R"({"mode": "infer"})", config.dump());
        REQUIRE_FALSE(r.ok());
        return r.errors[0].field;
    };
    json heads = mimo;
    heads["swa_num_attention_heads"] = 32;
    CHECK(field_of(heads) == "hf_config.swa_num_attention_heads");
    json sinks = mimo;
    sinks["add_full_attention_sink_bias"] = true;
    CHECK(field_of(sinks) == "hf_config.add_full_attention_sink_bias");
    json pattern = mimo;
    pattern["hybrid_layer_pattern"].erase(0);
    CHECK(field_of(pattern) == "hf_config.hybrid_layer_pattern");
    json window = mimo;
    window["sliding_window_size"] = 256;
    CHECK(field_of(window) == "hf_config.sliding_window_size");
}

TEST_CASE("HF fixtures: Qwen3-VL-8B counts its language model and its vision tower with the deepstack mergers",
          "[hf][fixtures][vision]") {
    json vl = load("hf", "qwen3_vl_8b_instruct");
    // The language model (text_config, qwen3_vl_text) is Qwen3-8B's shape: 8,190,735,360 parameters
    // (modeling_qwen3_vl.py Qwen3VLTextAttention: q_norm/k_norm over head_dim).
    // The vision tower, from modeling_qwen3_vl.py at 68a7b7e2 with d 1152, f 4304, depth 27, C 3, p 16,
    // t 2, 2,304 positions, merge 2 (H = 1152 · 4 = 4608), out 4096 and three deepstack indexes:
    //   patch_embed  3 · 2 · 16² · 1152 + 1152                                   =   1,770,624
    //   pos_embed    2304 · 1152                                                  =   2,654,208
    //   27 blocks    27 · (4d + 3d² + 3d + d² + d + d·f + f + f·d + d) = 27 · 15,239,504 = 411,466,608
    //   merger       2d + (H² + H) + (H · 4096 + 4096)                            =  40,119,040
    //   3 deepstack  3 · (2H + (H² + H) + (H · 4096 + 4096)) = 3 · 40,125,952      = 120,377,856
    //   tower                                                                     = 576,388,336
    // 8,190,735,360 + 576,388,336 = 8,767,123,696 (the Hub's model page: 8.77B).
    const auto counted = count_of(vl);
    CHECK(counted.vision == 576388336ULL);
    CHECK(counted.total == 8767123696ULL);
    CHECK(matches_published(counted.total, "8.77"));
    vl.erase("vision_config");
    CHECK(count_of(vl).total == 8190735360ULL);
    // Every size the tower is built from is read, not defaulted: one left out is refused by name.
    json partial = load("hf", "qwen3_vl_8b_instruct");
    partial["vision_config"].erase("out_hidden_size");
    const auto missing = parse_config(R"({"mode": "infer"})", partial.dump());
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.errors[0].field == "hf_config.vision_config.out_hidden_size");
    json outside = load("hf", "qwen3_vl_8b_instruct");
    outside["vision_config"]["deepstack_visual_indexes"] = json::array({8, 16, 27});
    const auto beyond = parse_config(R"({"mode": "infer"})", outside.dump());
    REQUIRE_FALSE(beyond.ok());
    CHECK(beyond.errors[0].field == "hf_config.vision_config.deepstack_visual_indexes");
    // No deepstack list: the tower without its three mergers.
    json plain = load("hf", "qwen3_vl_8b_instruct");
    plain["vision_config"].erase("deepstack_visual_indexes");
    CHECK(count_of(plain).vision == 576388336ULL - 120377856ULL);
    // A tie_word_embeddings beside text_config that the language model does not repeat, and that disagrees
    // with its default, is refused, naming it.
    vl["tie_word_embeddings"] = true;
    const auto tie = parse_config(R"({"mode": "infer"})", vl.dump());
    REQUIRE_FALSE(tie.ok());
    CHECK(tie.errors[0].field == "hf_config.tie_word_embeddings");
    vl["text_config"]["tie_word_embeddings"] = true;
    CHECK(count_of(vl).total == 8190735360ULL - 151936ULL * 4096);
}

namespace {
/// The text of tests/data/hf/<name>.json as stored: Python's json writes bare Infinity, which nlohmann's
/// own parser (load above) refuses and memplan's reader of config.json accepts.
std::string hf_text(const std::string& name) {
    std::ifstream in(std::string(MEMPLAN_DATA_DIR) + "/hf/" + name + ".json");
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

param_breakdown count_of_text(const std::string& text, const std::string& config = R"({"mode": "infer"})") {
    const auto parsed = parse_config(config, text);
    if (!parsed.ok()) FAIL(parsed.errors[0].field + ": " + parsed.errors[0].message);
    const auto counted = count_params(parsed.value.model);
    if (!counted.ok()) FAIL(counted.errors[0].field + ": " + counted.errors[0].message);
    return counted.value;
}
}  // namespace

TEST_CASE("HF fixtures: Nemotron 3 Nano, Super and Ultra count their Mamba-2, attention and (latent) MoE layers",
          "[hf][fixtures][nemotron]") {
    // modeling_nemotron_h.py (transformers 008d9e95), per layer one RMSNorm h and one mixer:
    //   Mamba-2  in_proj h·(2I + 2GN + nh) + conv1d (I + 2GN)·K + its bias (I + 2GN) + dt_bias, A_log, D 3·nh
    //            + gated norm I + out_proj I·h, with I = mamba_num_heads · mamba_head_dim, G 8, N 128, K 4;
    //   attention q and o h·a·d each, k and v h·kv·d each (no biases);
    //   MoE      router E·h + e_score_correction_bias E, shared MLP 2·h·S, E experts of up and down 2·w·f
    //            (w = moe_latent_size or h), and with a latent fc1/fc2_latent_proj 2·h·w;
    // model: embedding and lm_head V·h each (untied), final norm h. V = 131072.
    struct nemotron_row {
        const char* name;
        std::uint64_t total, active;
        const char* published_total;   ///< billions
        const char* published_active;  ///< billions, without the input embedding
    };
    const nemotron_row rows3[] = {
        // Nano: h 2688, 23 M (nh 64 → I 4096) + 6 * (a 32, kv 2, d 128) + 23 E (128 experts of 1856, top-6, S 3712):
        // Mamba 2688 + 2688·9280 + 5120·4 + 5120 + 192 + 4096 + 4096·2688 = 38,744,896;
        // attention 2688 + 2·2688·4096 + 2·2688·256 = 23,399,040;
        // MoE 2688 + 128·2688 + 128 + 2·2688·3712 = 20,302,592 + 128 · 2·2688·1856 (9,977,856 each);
        // 2·131072·2688 + 2688 + 23·38,744,896 + 6·23,399,040 + 23·(20,302,592 + 128·9,977,856) = 31,577,940,288;
        // active with 6 experts: 3,580,076,352. NVIDIA: 31.6B total, 3.2B active (the model card's
        // "3.5B active parameters" is the same count truncated, embedding included).
        {"nvidia_nemotron_3_nano_30b_a3b", 31577940288ULL, 3580076352ULL, "31.6", "3.2"},
        // Super: h 4096, 40 M (nh 128 → I 8192) + 8 * (a 32, kv 2, d 128) + 40 E (512 experts of 2688 in a latent
        // w 1024, top-22, S 5376): Mamba 4096 + 4096·16512 + 10240·4 + 10240 + 384 + 8192 + 8192·4096 = 109,640,064;
        // attention 4096 + 2·4096·4096 + 2·4096·256 = 35,655,680; MoE 4096 + 512·4096 + 512 + 2·4096·5376
        // + 2·4096·1024 = 54,530,560 + 512 · 2·1024·2688 (5,505,024 each); total 120,668,707,840, active
        // 12,770,237,440. research.nvidia.com/labs/nemotron/Nemotron-3-Super: "12B active 120B total".
        {"nvidia_nemotron_3_super_120b_a12b_fp8", 120668707840ULL, 12770237440ULL, "120", "12"},
        // Ultra (layers_block_type, no num_hidden_layers): h 8192, 48 mamba (nh 256 → I 16384) + 12 attention
        // (a 64, kv 2, d 128) + 48 moe (512 experts of 5120 in a latent w 2048, top-22, S 10240): Mamba
        // 421,645,056; attention 8192 + 2·8192·8192 + 2·8192·256 = 138,420,224; MoE 8192 + 512·8192 + 512
        // + 2·8192·10240 + 2·8192·2048 = 205,529,600 + 512 · 2·2048·5120 (20,971,520 each); total
        // 549,308,993,536, active 56,058,843,136. research.nvidia.com/labs/nemotron/Nemotron-3-Ultra: "550 billion
        // total and 55 billion active parameters".
        {"nvidia_nemotron_3_ultra_550b_a55b_bf16", 549308993536ULL, 56058843136ULL, "550", "55"},
    };
    for (const nemotron_row& row : rows3) {
        CAPTURE(row.name);
        const param_breakdown p = count_of_text(hf_text(row.name));
        CHECK(p.total == row.total);
        CHECK(p.active == row.active);
        CHECK(matches_published(p.total, row.published_total));
        // The published active counts leave out the input embedding (as DeepSeek-V2-Lite's above).
        CHECK(matches_published(p.active - p.embedding, row.published_active));
        CHECK(p.parts.router.total != 0);
    }
    CHECK(matches_published(3580076352ULL, "3.5"));  // the Nano model card's active figure, truncated
    // Per part, Super: 40 routers of 512·4096 + 512; 40 latent pairs 2·4096·1024 in the MoE layers' dense part.
    const param_breakdown super = count_of_text(hf_text("nvidia_nemotron_3_super_120b_a12b_fp8"));
    CHECK(super.parts.router.total == 40ULL * (512 * 4096 + 512));
    CHECK(super.parts.mlp.total == 40ULL * 2 * 4096 * 1024);
    CHECK(super.parts.shared_experts.total == 40ULL * 2 * 4096 * 5376);
    CHECK(super.parts.experts.total == 40ULL * 512 * 2 * 1024 * 2688);
    // Super's MTP block (an attention and an MoE layer, vLLM nemotron_h_mtp.py) is not counted: model.mtp is refused
    // by name rather than counted as a layer like the last; without it the MTP key changes nothing loaded.
    const auto with_mtp = parse_config(R"({"mode": "infer", "model": {"mtp": true}})",
                                       hf_text("nvidia_nemotron_3_super_120b_a12b_fp8"));
    REQUIRE(with_mtp.ok());
    const auto mtp_counted = count_params(with_mtp.value.model);
    REQUIRE_FALSE(mtp_counted.ok());
    CHECK(mtp_counted.errors[0].field == "model.mtp");
    // The resolved model (memplan's keys) keeps the latent width and counts the same.
    const json resolved = json::parse(resolve_model_json(R"({"mode": "infer"})", hf_text("nvidia_nemotron_3_super_120b_a12b_fp8")));
    REQUIRE(resolved["errors"].empty());
    CHECK(resolved["model"]["moe_latent_size"] == 1024);
    const json again = json::parse(estimate_json(json{{"model", resolved["model"]}, {"mode", "infer"}}.dump()));
    REQUIRE(again["errors"].empty());
    CHECK(again["params"] == super.total);
}

TEST_CASE("HF fixtures: Nemotron 3 keys are read, or refused by name", "[hf][fixtures][nemotron][errors]") {
    const json nano = load("hf", "nvidia_nemotron_3_nano_30b_a3b");
    const auto first_message = [](const json& config) {
        const auto parsed = parse_config(R"({"mode": "infer"})", config.dump());
        REQUIRE_FALSE(parsed.ok());
        return parsed.errors[0].field + ": " + parsed.errors[0].message;
    };
    for (const char* key : {"n_routed_experts", "moe_intermediate_size", "moe_shared_expert_intermediate_size",
                            "num_experts_per_tok"}) {
        CAPTURE(key);
        json missing = nano;
        missing.erase(key);
        CHECK(first_message(missing) == std::string("hf_config.") + key +
                                          ": is required for the MoE layers (E) of a Nemotron-H config (a positive integer)");
    }
    json shared = nano;
    shared["n_shared_experts"] = 2;
    CHECK(first_message(shared) == "hf_config.n_shared_experts: must be an integer from 1 to 1");
    json bias = nano;
    bias["mlp_bias"] = true;
    CHECK(first_message(bias).rfind("hf_config.mlp_bias: must be false", 0) == 0);
    json kind = nano;
    kind["hybrid_override_pattern"] = std::string(51, 'M') + "X";
    CHECK(first_message(kind).rfind("hf_config.hybrid_override_pattern: has a layer kind 'X'", 0) == 0);
    // The same layers as names: the count does not change; names the pattern disagrees with are refused.
    json names = nano;
    json list = json::array();
    for (char c : nano["hybrid_override_pattern"].get<std::string>())
        list.push_back(c == 'M' ? "mamba" : c == 'E' ? "moe" : "attention");
    names["layers_block_type"] = list;
    CHECK(count_of(names).total == 31577940288ULL);
    names.erase("hybrid_override_pattern");
    names.erase("num_hidden_layers");
    CHECK(count_of(names).total == 31577940288ULL);
    names["num_hidden_layers"] = 50;
    CHECK(first_message(names) == "hf_config.num_hidden_layers: must equal the length of layers_block_type (52)");
    names.erase("num_hidden_layers");
    names["layers_block_type"][0] = "ssm";
    CHECK(first_message(names).rfind("hf_config.layers_block_type: has a layer type \"ssm\"", 0) == 0);
    // moe_latent_size on another family is refused by name.
    json qwen = load("hf", "qwen3_30b_a3b_thinking_2507");
    qwen["moe_latent_size"] = 1024;
    CHECK(first_message(qwen) == "hf_config.moe_latent_size: is not supported yet for model_type qwen3_moe");
}

TEST_CASE("HF fixtures: Nemotron 3 infer mode keeps Mamba state per sequence and a KV cache for attention",
          "[hf][fixtures][nemotron]") {
    const std::string text = hf_text("nvidia_nemotron_3_nano_30b_a3b");
    const auto one = json::parse(estimate_json(R"({"mode": "infer", "infer": {"batch": 1, "context_len": 4096}})", text));
    const auto two = json::parse(estimate_json(R"({"mode": "infer", "infer": {"batch": 1, "context_len": 8192}})", text));
    REQUIRE(one["errors"].empty());
    REQUIRE(two["errors"].empty());
    CHECK(one["params"] == 31577940288ULL);
    // Doubling the context adds only the 6 attention layers' K and V: 2 · 2 heads · 128 · 2 bytes per token and layer.
    const std::uint64_t kv1 = one["per_gpu"]["kv_cache"].get<std::uint64_t>();
    const std::uint64_t kv2 = two["per_gpu"]["kv_cache"].get<std::uint64_t>();
    CHECK(kv2 > kv1);
    CHECK(kv2 - kv1 == 4096ULL * 6 * 2 * 2 * 128 * 2);
}

TEST_CASE("HF fixtures: real configs of families memplan does not count are refused by name", "[hf][fixtures][errors]") {
    const auto fields_of = [](const std::string& name) {
        const auto parsed = parse_config(R"({"mode": "infer"})", load("hf_refused", name).dump());
        REQUIRE_FALSE(parsed.ok());
        std::string fields;
        for (const auto& e : parsed.errors) fields += e.field + " ";
        return fields;
    };
    // DeepSeek-V3.2's indexer keys on another family are refused by name (the fixture itself is counted above).
    json v3_indexer = load("hf", "deepseek_v3");
    v3_indexer["index_n_heads"] = 64;
    v3_indexer["index_head_dim"] = 128;
    v3_indexer["index_topk"] = 2048;
    const auto indexer = parse_config(R"({"mode": "infer"})", v3_indexer.dump());
    REQUIRE_FALSE(indexer.ok());
    std::string indexer_fields;
    for (const auto& e : indexer.errors) indexer_fields += e.field + " ";
    for (const char* key : {"hf_config.index_n_heads", "hf_config.index_head_dim", "hf_config.index_topk"}) {
        CAPTURE(key);
        CHECK(indexer_fields.find(key) != std::string::npos);
    }
    // MiMo-7B (mimo): its MTP layer count is a key no known family of that name defines.
    CHECK(fields_of("mimo_7b_base").find("hf_config.num_nextn_predict_layers") != std::string::npos);
    // Gemma 4 26B-A4B NVFP4 keeps each layer's dense MLP ("mlp*") in bf16 beside its packed experts: a module memplan
    // does not keep apart yet (in other families "mlp*" holds the experts too); the model is counted in the Gemma 4 case.
    CHECK(fields_of("gemma_4_26b_a4b_nvfp4") == "hf_config.quantization_config.ignore ");
    // GLM-5.2: "shared" indexer layers (no indexer weights, no indexer cache) are not modelled per layer yet, nor the
    // MTP layer's shared indexer or a router stored in fp32.
    const std::string glm52 = fields_of("glm_5_2");
    for (const char* key : {"hf_config.indexer_types", "hf_config.index_share_for_mtp_iteration", "hf_config.moe_router_dtype"}) {
        CAPTURE(key);
        CHECK(glm52.find(key) != std::string::npos);
    }
    // Qwen3-Coder's use_qk_norm true agrees with the modelling file; false would describe other weights.
    json coder = load("hf", "qwen3_coder_480b_a35b");
    coder["use_qk_norm"] = false;
    const auto parsed = parse_config(R"({"mode": "infer"})", coder.dump());
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.errors[0].field == "hf_config.use_qk_norm");
}

TEST_CASE("HF fixtures: Qwen3.5 counts its language model, its vision tower and its MTP layer apart",
          "[hf][fixtures][qwen3_5]") {
    // Qwen3.5-27B: h 5120, V 248320, 64 layers of which 16 full attention (every 4th: full_attention_interval
    // 4), a 24 heads × d 256, kv 4; Gated DeltaNet nk 16, nv 48, dk = dv 128, K 4; f 17408.
    //   full layer  5120·12288 + 2·5120·1024 + 6144·5120 + 512 + 2·5120 + 3·5120·17408      = 372,255,232
    //   linear layer 5120·(4096 + 6144) + 5120·6144 + 2·5120·48 + 10240·4 + 96 + 128 + 6144·5120
    //                + 2·5120 + 3·5120·17408                                                = 383,273,184
    //   16 · 372,255,232 + 48 · 383,273,184 + 2·248320·5120 + 5120                        = 26,895,998,464
    // Tower (modeling_qwen3_vl.py; Qwen3_5VisionModel deletes the deepstack mergers): d 1152, f 4304, depth 27,
    // patch 16, temporal 2, 2304 positions, merge 2, out 5120: 3·2·16·16·1152 + 1152 + 2304·1152
    // + 27·(4·1152 + 3·1152² + 3·1152 + 1152² + 1152 + 2·1152·4304 + 4304 + 1152) + 2·1152 + 4608² + 4608
    // + 4608·5120 + 5120                                                                    = 460,730,096
    // MTP (vLLM qwen3_5_mtp.py): one full-attention layer, fc 2h → h and three norms: 372,255,232 + 2·5120²
    // + 3·5120 = 424,699,392.
    json q = load("hf", "qwen3_5_27b");
    const param_breakdown p = count_of(q);
    CHECK(p.vision == 460730096ULL);
    CHECK(p.total - p.vision == 26895998464ULL);
    const auto with_mtp = parse_config(R"({"mode": "infer", "model": {"mtp": true}})", q.dump());
    REQUIRE(with_mtp.ok());
    const auto counted = count_params(with_mtp.value.model);
    REQUIRE(counted.ok());
    CHECK(counted.value.total == 27356728560ULL + 424699392ULL);
    // The MoE sizes, with their MTP layers (an MoE layer like the last): 35B-A3B 844,640,768, 122B-A10B
    // 2,523,679,232, 397B-A17B 6,595,568,128.
    for (const auto& [name, mtp] : {std::pair<const char*, std::uint64_t>{"qwen3_5_35b_a3b", 844640768ULL},
                                    {"qwen3_5_122b_a10b", 2523679232ULL},
                                    {"qwen3_5_397b_a17b", 6595568128ULL}}) {
        CAPTURE(name);
        const json doc = load("hf", name);
        const auto on = parse_config(R"({"mode": "infer", "model": {"mtp": true}})", doc.dump());
        REQUIRE(on.ok());
        CHECK(count_params(on.value.model).value.total - count_of(doc).total == mtp);
    }
    // The checkpoint's recurrent state is fp32 (mamba_ssm_dtype), which vLLM serves it in unless told otherwise.
    const auto parsed = parse_config(R"({"mode": "infer"})", q.dump());
    REQUIRE(parsed.ok());
    CHECK(parsed.value.model.ssm_state_dtype == dtype::fp32);
    CHECK(parsed.value.infer.state_dtype == dtype::fp32);
    const auto bf16 = parse_config(R"({"mode": "infer", "infer": {"state_dtype": "bf16"}})", q.dump());
    REQUIRE(bf16.ok());
    CHECK(bf16.value.infer.state_dtype == dtype::bf16);
    // Partial rotary embedding inside rope_parameters: 0.25 of the 256-wide head.
    CHECK(parsed.value.model.rotary_dim == 64);
}

TEST_CASE("HF fixtures: Qwen3.5 keys that would describe other weights are refused by name",
          "[hf][fixtures][qwen3_5][errors]") {
    json q = load("hf", "qwen3_5_27b");
    q["text_config"]["attn_output_gate"] = false;
    CHECK(first_error(q) == "hf_config.text_config.attn_output_gate");
    q = load("hf", "qwen3_5_27b");
    q["text_config"]["mtp_use_dedicated_embeddings"] = true;
    CHECK(first_error(q) == "hf_config.text_config.mtp_use_dedicated_embeddings");
    q = load("hf", "qwen3_5_27b");
    q["text_config"]["mamba_ssm_dtype"] = "int8";
    CHECK(first_error(q) == "hf_config.text_config.mamba_ssm_dtype");
    // A Qwen3.5 MoE key on the dense family (Qwen3_5TextConfig deletes it) is refused, not read as a dense model.
    q = load("hf", "qwen3_5_27b");
    q["text_config"]["n_routed_experts"] = 8;
    CHECK(first_error(q) == "hf_config.text_config.n_routed_experts");
}

TEST_CASE("HF fixtures: MiniMax-M2.5 counts 228,689,764,864, its 9.8B activated without the embedding and lm_head",
          "[hf][fixtures][minimax]") {
    // modular_minimax_m2.py (commit 001f85b3): h 3072, 62 layers, a 48 × d 128, kv 8, 256 experts of 1536, top 8,
    // V 200064, untied. Per layer: q, o 2·3072·6144, k, v 2·3072·1024, q_norm 6144 and k_norm 1024 (whole
    // projection) = 44,047,360; router 256·3072, e_score_correction_bias 256, experts 256·3·3072·1536 =
    // 3,624,665,344; two norms 6144: 3,668,718,848. 62 · 3,668,718,848 + 2·200064·3072 + 3072 = 228,689,764,864.
    // MiniMax's own figures (the M2.5 report as summarised at emergentmind.com/topics/minimax-m2-5): 229.9B total,
    // 9.8B activated. The 1.2B between 228.7B and 229.9B is not in config.json's modules; the checkpoint's three MTP
    // modules, which vLLM does not load, are the stored weights memplan leaves out (as vLLM serves the model).
    const json doc = load("hf", "minimax_m2_5");
    const param_breakdown p = count_of(doc);
    CHECK(p.total == 228689764864ULL);
    CHECK(p.active == 228689764864ULL - 62ULL * 248 * 3 * 3072 * 1536);
    CHECK_FALSE(matches_published(p.total, "229.9"));
    CHECK(matches_published(p.total, "229"));
    CHECK(matches_published(p.active - p.embedding - p.lm_head, "9.8"));
    const auto parsed = parse_config(R"({"mode": "infer"})", doc.dump());
    REQUIRE(parsed.ok());
    CHECK(parsed.value.model.rotary_dim == 64);
    CHECK(parsed.value.model.assumptions.empty());
    // A per-head norm, a shared expert or a false use_qk_norm describe weights modular_minimax_m2.py does not build.
    for (const auto& [key, value] : {std::pair<const char*, json>{"qk_norm_type", "per_head"},
                                     {"shared_intermediate_size", 1536},
                                     {"use_qk_norm", false}}) {
        CAPTURE(key);
        json changed = doc;
        changed[key] = value;
        const auto refused = parse_config(R"({"mode": "infer"})", changed.dump());
        REQUIRE_FALSE(refused.ok());
        CHECK(refused.errors[0].field == std::string("hf_config.") + key);
    }
}

TEST_CASE("HF fixtures: ModelOpt NVFP4 checkpoints pack what their ignore list leaves, to the byte",
          "[hf][fixtures][quant][nvfp4]") {
    // MiniMax-M2.5-NVFP4 ignores lm_head, every router and every self_attn: the routed experts only. 62 layers of
    // 256 experts, each gate/up 3072 → 1536 and down 1536 → 3072; the other 228,689,764,864 − 62·256·3·3072·1536
    // parameters stay bf16.
    const json minimax = load("hf", "nvidia_minimax_m2_5_nvfp4");
    const std::uint64_t minimax_experts = 62ULL * 256 * 3 * 3072 * 1536;
    CHECK(stored_weight_bytes(minimax) ==
          2 * (228689764864ULL - minimax_experts) + 62ULL * 256 * (2 * nvfp4_matrix(3072, 1536) + nvfp4_matrix(1536, 3072)));
    CHECK(stored_weight_bytes(minimax) == 134401725440ULL);
    // Qwen3.5-122B-A10B-NVFP4 ignores per layer linear_attn / self_attn and the shared expert and its gate, the
    // vision tower and the MTP layer: 48 layers of 256 experts of 1024 over h 3072.
    const json qwen = load("hf", "nvidia_qwen3_5_122b_a10b_nvfp4");
    const std::uint64_t qwen_experts = 48ULL * 256 * 3 * 3072 * 1024;
    CHECK(count_of(qwen).total == 122562817776ULL);
    CHECK(stored_weight_bytes(qwen) ==
          2 * (122562817776ULL - qwen_experts) + 48ULL * 256 * (2 * nvfp4_matrix(3072, 1024) + nvfp4_matrix(1024, 3072)));
    // GLM-5.1-NVFP4 ignores the three dense layers whole ("model.layers.0*" … as fnmatch patterns), self_attn and
    // the shared experts of the 75 MoE layers, and the MTP layer 78: the routed experts only, 256 of 2048 over 6144.
    const json glm = load("hf", "nvidia_glm_5_1_nvfp4");
    const std::uint64_t glm_experts = 75ULL * 256 * 3 * 6144 * 2048;
    CHECK(stored_weight_bytes(glm) ==
          2 * (743911218432ULL - glm_experts) + 75ULL * 256 * (2 * nvfp4_matrix(6144, 2048) + nvfp4_matrix(2048, 6144)));
    // ModelOpt FP8 per tensor (Qwen3-32B-FP8-Static-PerTensor, producer modelopt without quant_method): every
    // linear layer e4m3 with its two fp32 scales, lm_head bf16. 64 layers of q 5120×8192, k and v 5120×1024,
    // o 8192×5120, gate/up/down 3·5120·25600.
    const json fp8 = load("hf", "qwen3_32b_fp8_static_per_tensor");
    const std::uint64_t linear = 64ULL * (5120 * 8192 + 2 * 5120 * 1024 + 8192 * 5120 + 3ULL * 5120 * 25600);
    CHECK(stored_weight_bytes(fp8) == 2 * (32762123264ULL - linear) + linear + 64ULL * 7 * 8);
}

TEST_CASE("HF fixtures: a ModelOpt ignore list memplan cannot represent is refused, naming it",
          "[hf][fixtures][quant][nvfp4][errors]") {
    json minimax = load("hf", "nvidia_minimax_m2_5_nvfp4");
    // One layer's attention missing from the list: neither the experts only nor every MLP with the attention kept.
    json partial = minimax;
    auto& ignore = partial["quantization_config"]["ignore"];
    for (auto it = ignore.begin(); it != ignore.end(); ++it)
        if (*it == "model.layers.5.self_attn*") {
            ignore.erase(it);
            break;
        }
    CHECK(first_error(partial) == "hf_config.quantization_config.ignore");
    // A module memplan cannot keep apart (one expert's projection).
    json expert = minimax;
    expert["quantization_config"]["ignore"].push_back("model.layers.3.block_sparse_moe.experts.7.w1");
    CHECK(first_error(expert) == "hf_config.quantization_config.ignore");
    // An algorithm memplan does not model.
    json mixed = minimax;
    mixed["quantization_config"]["quant_algo"] = "MIXED_PRECISION";
    CHECK(first_error(mixed) == "hf_config.quantization_config.quant_algo");
    // NVFP4 groups other than 16.
    json groups = minimax;
    groups["quantization_config"]["config_groups"]["group_0"]["weights"]["group_size"] = 32;
    CHECK(first_error(groups) == "hf_config.quantization_config.config_groups");
}

TEST_CASE("HF fixtures: Gemma 4 26B-A4B and 31B count their language model and vision tower apart",
          "[hf][fixtures][gemma4]") {
    // transformers src/transformers/models/gemma4/modeling_gemma4.py (commit c308a309) from config.json, V 262144, tied.
    // 26B-A4B: h 2816, 30 layers (every 6th full: 25 sliding, 5 full), a 16. Sliding layers kv 8, d 256: q h·16·256,
    // k and v h·8·256, o 16·256·h, q_norm and k_norm 256. Full layers (attention_k_eq_v) kv 2, d 512 and no v_proj:
    // q h·16·512, k h·2·512, o 16·512·h, q_norm and k_norm 512. Every layer (enable_moe_block): MLP 3·h·2112, router
    // proj h·128 + scale h + per_expert_scale 128, 128 experts of 3·h·704, seven RMSNorms 7h, layer_scalar 1.
    const std::uint64_t h = 2816;
    const std::uint64_t sliding = h * 16 * 256 + 2 * h * 8 * 256 + 16ULL * 256 * h + 2 * 256;
    const std::uint64_t full = h * 16 * 512 + h * 2 * 512 + 16ULL * 512 * h + 2 * 512;
    const std::uint64_t ffn = 3 * h * 2112 + (h * 128 + h + 128) + 128 * 3 * h * 704 + 7 * h + 1;
    CHECK(sliding == 34603520ULL);
    CHECK(full == 49021952ULL);
    const std::uint64_t text = 262144ULL * h + h + 25 * sliding + 5 * full + 30 * ffn;
    CHECK(text == 25233141790ULL);
    // Gemma4VisionModel (vision_config: d 1152, f 4304, 27 layers, 16 heads and 16 KV heads of 72, patch 16, 10240
    // positions, standardize): input_proj 3·16²·d, position table 2·10240·d; per layer q, k, v, o d·1152, q_norm and
    // k_norm 72, four norms 4d, MLP 3·d·f; std_bias and std_scale 2d; embed_vision's projection d·h.
    const std::uint64_t d = 1152;
    const std::uint64_t vision_layer = 4 * d * 1152 + 2 * 72 + 4 * d + 3 * d * 4304;
    const std::uint64_t tower = 3 * 16 * 16 * d + 2 * 10240 * d + 27 * vision_layer + 2 * d;
    CHECK(tower + d * h == 572794416ULL);
    const json moe = load("hf", "gemma_4_26b_a4b");
    const param_breakdown p = count_of(moe);
    CHECK(p.vision == tower + d * h);
    CHECK(p.total == text + p.vision);
    CHECK(p.total == 25805936206ULL);
    // Active: 8 of the 128 experts.
    CHECK(p.active == p.total - 30ULL * 120 * 3 * h * 704);
    // Published (Google's Gemma 4 model card, as quoted on vast.ai's and llmradar.eu's model pages): 25.2B total, 3.8B
    // active, and a vision encoder of about 550M: the card's figures leave the tower out.
    CHECK(matches_published(p.total - p.vision, "25.2"));
    CHECK(matches_published(p.active - p.vision, "3.8"));

    // 31B (nvidia/Gemma-4-31B-IT-NVFP4's config.json: the model without its NVFP4 quantization_config): h 5376,
    // 60 layers (50 sliding, 10 full), a 32; sliding kv 16 of 256, full (attention_k_eq_v) kv 4 of 512; a dense MLP
    // 3·h·21504, four norms and layer_scalar; the same tower projected to h.
    json dense = load("hf", "gemma_4_31b_it_nvfp4");
    // As stored (ModelOpt NVFP4, its ignore list keeping every self_attn and the tower): each layer's MLP packed,
    // 3 matrices of 5376 × 21504, the attention unquantized.
    {
        const std::uint64_t mlp = 60ULL * 3 * 5376 * 21504;
        CHECK(stored_weight_bytes(dense) == 2 * (31273088876ULL - mlp) +
                                                60ULL * (2 * nvfp4_matrix(5376, 21504) + nvfp4_matrix(21504, 5376)));
    }
    dense.erase("quantization_config");
    const std::uint64_t H = 5376;
    const std::uint64_t sliding31 = H * 32 * 256 + 2 * H * 16 * 256 + 32ULL * 256 * H + 2 * 256;
    const std::uint64_t full31 = H * 32 * 512 + H * 4 * 512 + 32ULL * 512 * H + 2 * 512;
    const std::uint64_t text31 = 262144ULL * H + H + 50 * sliding31 + 10 * full31 + 60 * (3 * H * 21504 + 4 * H + 1);
    CHECK(text31 == 30697345340ULL);
    const param_breakdown q = count_of(dense);
    CHECK(q.vision == tower + d * H);
    CHECK(q.total == text31 + q.vision);
    CHECK(q.active == q.total);
    // Published (the model card, as quoted on the same pages): 30.7B.
    CHECK(matches_published(q.total - q.vision, "30.7"));

    // The resolved model (memplan's keys) counts the same.
    const json resolved = json::parse(resolve_model_json(R"({"mode": "infer"})", moe.dump()));
    REQUIRE(resolved["errors"].empty());
    CHECK(resolved["model"]["full_head_dim"] == 512);
    CHECK(resolved["model"]["full_num_key_value_heads"] == 2);
    CHECK(resolved["model"]["full_value_from_key"] == true);
    const json again = json::parse(estimate_json(json{{"model", resolved["model"]}, {"mode", "infer"}}.dump()));
    INFO(again["errors"].dump());
    REQUIRE(again["errors"].empty());
    CHECK(again["params"] == p.total);
}

TEST_CASE("HF fixtures: Gemma 4 caches K and V per layer kind, sliding layers up to the window",
          "[hf][fixtures][gemma4]") {
    // 26B-A4B: sliding layers K and V of 8 heads · 256 (4096 elements), full layers of 2 heads · 512 (2048 elements;
    // attention_k_eq_v computes V from k_proj but caches it apart, vLLM gemma4.py at 001cabc1).
    const json moe = load("hf", "gemma_4_26b_a4b");
    const auto parsed = parse_config(R"({"mode": "infer"})", moe.dump());
    REQUIRE(parsed.ok());
    const auto groups = kv_layer_groups(parsed.value.model);
    REQUIRE(groups.size() == 2);
    CHECK(groups[0].kind == attention_kind::full);
    CHECK(groups[0].layers == 5);
    CHECK(cache_elements_per_token(groups[0]) == 2ULL * 2 * 512);
    CHECK(groups[1].kind == attention_kind::sliding);
    CHECK(groups[1].layers == 25);
    CHECK(groups[1].window_tokens == 1024);
    CHECK(cache_elements_per_token(groups[1]) == 2ULL * 8 * 256);
    // bf16: the full layers grow by 5 · 2048 · 2 = 20,480 B per token; the sliding layers stop at 1024 tokens.
    const auto served = [&moe](std::uint64_t context) {
        const json r = json::parse(estimate_json(
            R"({"mode": "infer", "gpu": {"memory_bytes": 85029615043}, "infer": {"engine": "vllm", "context_len": )" + std::to_string(context) + "}}", moe.dump()));
        REQUIRE(r["errors"].empty());
        return r;
    };
    const json short_run = served(4096), long_run = served(32768);
    CHECK(long_run["details"]["kv_cache_bytes_per_token"] == 5ULL * 2048 * 2);
    for (const json* r : {&short_run, &long_run}) {
        CHECK((*r)["per_gpu"]["kv_cache"].get<double>() > 0);
        CHECK((*r)["per_gpu"]["total"].get<double>() > 0);
    }
    // vLLM (kv_cache_utils.py at 001cabc1): pages of 16 tokens are 16 · 8192 B on the sliding layers and 16 · 4096 B on
    // the full ones; unify_kv_cache_spec_page_size gives the full layers 32-token blocks of the same 131,072 B. Groups
    // of 5 layers (one full, five sliding): a block id holds 5 · 131,072 B, and a 32,768-token request needs
    // ⌈32768 / 32⌉ = 1024 full blocks and per sliding group ⌈min(1023 + 8192, 32768) / 16⌉ + 1 = 577.
    const json& serving = long_run["serving"];
    CHECK(serving["page_bytes"] == 5ULL * 16 * 8192);
    CHECK(serving["blocks_per_request"] == 1024 + 5 * 577);
    CHECK(serving["kv_cache_bytes"].get<std::uint64_t>() % (5ULL * 16 * 8192) == 0);
    // vLLM loads K's weights into the V slot of the full layers' qkv_proj: 5 · 2816 · 2 · 512 bf16 more than counted.
    bool v_slot = false;
    for (const json& row : serving["breakdown"])
        if (row["label"].get<std::string>().find("attention_k_eq_v") != std::string::npos) {
            v_slot = true;
            CHECK(row["bytes"] == 5ULL * 2816 * 2 * 512 * 2);
        }
    CHECK(v_slot);
    // Plain accounting (no engine): one sequence of 32768 tokens holds 5 · 2048 · 2 · 32768 + 25 · 4096 · 2 · 1024.
    const auto plain_kv = [&moe](std::uint64_t context) {
        const json r = json::parse(estimate_json(
            R"({"mode": "infer", "infer": {"batch": 1, "context_len": )" + std::to_string(context) + "}}", moe.dump()));
        REQUIRE(r["errors"].empty());
        return r["per_gpu"]["kv_cache"].get<std::uint64_t>();
    };
    CHECK(plain_kv(32768) == 5ULL * 2048 * 2 * 32768 + 25ULL * 4096 * 2 * 1024);
    CHECK(plain_kv(32768) - plain_kv(16384) == 5ULL * 2048 * 2 * 16384);
    // Training activations are built for one layer shape: the full layers' own widths are named in a warning.
    const json train = json::parse(estimate_json(R"({"mode": "train", "train": {"seq_len": 4096}})", moe.dump()));
    REQUIRE(train["errors"].empty());
    bool named = false;
    for (const json& w : train["warnings"]) named = named || w["field"] == "model.full_head_dim";
    CHECK(named);
}

TEST_CASE("HF fixtures: Gemma 4 keys memplan does not count are refused by name", "[hf][fixtures][gemma4][errors]") {
    const json moe = load("hf", "gemma_4_26b_a4b");
    const auto field_of = [](const json& config) {
        const auto r = parse_config(R"({"mode": "infer"})", config.dump());
        REQUIRE_FALSE(r.ok());
        return r.errors[0].field;
    };
    json shared = moe;
    shared["text_config"]["num_kv_shared_layers"] = 10;
    CHECK(field_of(shared) == "hf_config.text_config.num_kv_shared_layers");
    json per_layer = moe;
    per_layer["text_config"]["hidden_size_per_layer_input"] = 256;
    CHECK(field_of(per_layer) == "hf_config.text_config.hidden_size_per_layer_input");
    json absent = moe;  // Gemma4TextConfig's default is 256
    absent["text_config"].erase("hidden_size_per_layer_input");
    CHECK(field_of(absent) == "hf_config.text_config.hidden_size_per_layer_input");
    json audio = moe;
    audio["audio_config"] = json{{"hidden_size", 1024}};
    CHECK(field_of(audio) == "hf_config.audio_config");
    json width = moe;
    width["text_config"]["expert_intermediate_size"] = 1408;
    CHECK(field_of(width) == "hf_config.text_config.expert_intermediate_size");
    json experts = moe;
    experts["text_config"].erase("top_k_experts");
    CHECK(field_of(experts) == "hf_config.text_config.top_k_experts");
    // Another family's config with a Gemma 4 key.
    json qwen = load("hf", "qwen3_0_6b");
    qwen["attention_k_eq_v"] = true;
    CHECK(field_of(qwen) == "hf_config.attention_k_eq_v");
    // Without the MoE block the experts are not built, whatever num_experts says; without attention_k_eq_v the full
    // layers keep v_proj and num_key_value_heads.
    json dense = moe;
    dense["text_config"]["enable_moe_block"] = false;
    CHECK(count_of(dense).total == count_of(moe).total - 30ULL * (128 * 3 * 2816 * 704 + 2816 * 128 + 2816 + 128 + 3 * 2816));
    json with_v = moe;
    with_v["text_config"]["attention_k_eq_v"] = false;
    CHECK(count_of(with_v).total == count_of(moe).total + 5ULL * (2 * 2816 * 8 * 512 - 2816 * 2 * 512));
}

TEST_CASE("HF fixtures: Kimi K2.5 is Kimi K2's language model and a MoonViT tower of 471,143,920",
          "[hf][fixtures][vision][kimi]") {
    json k25 = load("hf", "kimi_k2_5");
    // The language model (text_config, kimi_k2: DeepSeek-V3's row) is Kimi K2's shape: 1,026,408,232,448
    // parameters, 32,861,500,928 active (derived in test_arch_2026.cpp's Kimi K2 case).
    // The tower and projector (vLLM vllm/model_executor/models/kimi_k25_vit.py at 055e47c2: MoonViT3dPretrainedModel
    // and KimiK25MultiModalProjector "patchmerger"), d 1152, f 4304, 27 layers, p 14, a 64 × 64 position table,
    // merge 2 × 2 (H = 4608), text hidden 7168, LayerNorms and biases throughout:
    //   patch_embed  3 · 14² · 1152 + 1152                                      =     678,528
    //   pos_emb      64 · 64 · 1152                                             =   4,718,592
    //   27 blocks    27 · (4d + 3d² + 3d + d² + d + d·f + f + f·d + d) = 27 · 15,239,504 = 411,466,608
    //   final norm   2d                                                         =       2,304
    //   projector    2d + (H² + H) + (H · 7168 + 7168)                          =  54,277,888
    //   tower                                                                   = 471,143,920
    const param_breakdown p = count_of(k25);
    CHECK(p.vision == 471143920ULL);
    CHECK(p.total == 1026408232448ULL + 471143920ULL);
    CHECK(p.active == 32861500928ULL + 471143920ULL);
    // NVIDIA's technical blog "Build with Kimi K2.5 Multimodal VLM Using NVIDIA GPU-Accelerated Endpoints": total
    // parameters 1T, active parameters 32.86B (the language model's; the tower is counted active here, as image
    // tokens pass through all of it).
    CHECK(std::llround(static_cast<double>(p.total) / 1e12) == 1);
    CHECK(matches_published(p.active - p.vision, "32.86"));
    // compressed-tensors pack-quantized: the routed experts in symmetric int4 groups of 32 (weight_packed int32
    // d_out × d_in / 8, a bf16 weight_scale per group, weight_shape two int32), all else bf16 (the ignore list).
    const auto parsed = parse_config(R"({"mode": "infer"})", k25.dump());
    REQUIRE(parsed.ok());
    const model_config& m = parsed.value.model;
    CHECK(m.checkpoint == checkpoint_format::int4_group);
    CHECK(m.quant_block == 32);
    CHECK(m.quant_experts_only);
    CHECK(m.quant_symmetric);
    CHECK_FALSE(m.quant_g_idx);
    // Per expert: gate_proj and up_proj 2048 × 7168 and down_proj 7168 × 2048, each 2048·896·4 + 2048·224·2 + 8
    // = 8,257,544 bytes; 60 MoE layers of 384 experts: 570,761,441,280 bytes. The rest of each layer is bf16.
    std::uint64_t expert_bytes = 0, other_bytes = 0, layer_params_sum = 0, expert_params = 0;
    for (const layer_params& l : p.layers) {
        expert_bytes += l.native_expert_bytes;
        other_bytes += l.native_bytes;
        layer_params_sum += l.total;
        expert_params += l.experts;
    }
    CHECK(expert_bytes == 60ULL * 384 * 3 * 8257544ULL);
    CHECK(other_bytes == 2 * (layer_params_sum - expert_params));
    // Without its quantization_config the same weights are bf16.
    json bf16 = k25;
    bf16["text_config"].erase("quantization_config");
    const auto plain = parse_config(R"({"mode": "infer"})", bf16.dump());
    REQUIRE(plain.ok());
    CHECK(plain.value.model.checkpoint == checkpoint_format::none);
    CHECK(count_of(bf16).total == p.total);
    // NVIDIA's NVFP4 release is the same model (text_config deepseek_v3). Its ModelOpt ignore list keeps every
    // self_attn, the tower and lm_head: every MLP packed (layer 0's dense 7168 × 18432, then per MoE layer 384
    // routed and 1 shared expert of 2048), the attention unquantized.
    json nvfp4 = load("hf", "kimi_k2_5_nvfp4");
    CHECK(count_of(nvfp4).total == p.total);
    {
        const std::uint64_t mlp = 3ULL * 7168 * 18432 + 60ULL * 385 * 3 * 7168 * 2048;
        const std::uint64_t stored = stored_weight_bytes(nvfp4);
        CHECK(stored == 2 * (p.total - mlp) + 2 * nvfp4_matrix(7168, 18432) + nvfp4_matrix(18432, 7168) +
                            60ULL * 385 * (2 * nvfp4_matrix(7168, 2048) + nvfp4_matrix(2048, 7168)));
        CHECK(stored == 590779911576ULL);
    }
    nvfp4.erase("quantization_config");
    CHECK(count_of(nvfp4).total == p.total);
    // Infer mode: the MLA latent per token, no errors, finite and positive numbers.
    const json out = json::parse(estimate_json(R"({"mode": "infer", "parallel": {"tp": 8, "gpus": 8}})", k25.dump()), nullptr, false);
    REQUIRE(out.is_object());
    CHECK(out["errors"].empty());
    CHECK(out["params"] == p.total);
    // 61 layers · (kv_lora_rank 512 + qk_rope_head_dim 64) · 2 bytes, the latent whole on every GPU.
    CHECK(out["details"]["kv_cache_bytes_per_token"] == 70272);
    // Weights per GPU at tp 8: the experts' 570,761,441,280 bytes and the bf16 rest 2 · (1,026,879,376,368 −
    // 1,014,686,023,680 routed-expert parameters) = 24,386,705,376 bytes, each split eight ways.
    CHECK(out["per_gpu"]["weights"] == 570761441280ULL / 8 + 24386705376ULL / 8);
}

TEST_CASE("HF fixtures: Kimi K2.5 keys memplan does not model are refused by name", "[hf][fixtures][kimi][errors]") {
    const json k25 = load("hf", "kimi_k2_5");
    const std::string q = "hf_config.text_config.quantization_config";
    // Every size of the tower is read from vision_config, none defaulted.
    for (const char* key : {"vt_hidden_size", "vt_intermediate_size", "vt_num_hidden_layers", "vt_num_attention_heads",
                            "patch_size", "init_pos_emb_height", "init_pos_emb_width", "init_pos_emb_time",
                            "merge_kernel_size", "mm_hidden_size", "text_hidden_size", "mm_projector_type"}) {
        CAPTURE(key);
        json doc = k25;
        doc["vision_config"].erase(key);
        CHECK(first_error(doc) == std::string("hf_config.vision_config.") + key);
    }
    json doc = k25;
    doc["vision_config"]["mm_projector_type"] = "mlp";
    CHECK(first_error(doc) == "hf_config.vision_config.mm_projector_type");
    doc = k25;
    doc["vision_config"]["text_hidden_size"] = 4096;
    CHECK(first_error(doc) == "hf_config.vision_config.text_hidden_size");
    doc = k25;
    doc["vision_config"]["mm_hidden_size"] = 2048;
    CHECK(first_error(doc) == "hf_config.vision_config.mm_hidden_size");
    doc = k25;
    doc["vision_config"]["pos_emb_type"] = "rope";
    CHECK(first_error(doc) == "hf_config.vision_config.pos_emb_type");
    // K3's tower keys (RMSNorms, no biases, a q/k/v width of its own, patchmergerv2) are read as vLLM builds them:
    // per layer 2d + d·3q + q·d + 2·d·f, projector H² + H·7168 + 7168, patch 3·14²·d, final norm d.
    doc = k25;
    doc["vision_config"].update(json{{"norm_type", "rmsnorm"}, {"attn_bias", false}, {"linear_bias", false},
                                     {"patch_embed_proj_bias", false}, {"qkv_hidden_size", 1536},
                                     {"mm_projector_type", "patchmergerv2"}});
    CHECK(count_of(doc).vision == 3ULL * 196 * 1152 + 64ULL * 64 * 1152 +
                                      27 * (2ULL * 1152 + 1152ULL * 3 * 1536 + 1536ULL * 1152 + 2ULL * 1152 * 4304) +
                                      1152 + 4608ULL * 4608 + 4608ULL * 7168 + 7168);
    // compressed-tensors: only the scheme memplan packs is read.
    doc = k25;
    doc["text_config"]["quantization_config"]["config_groups"]["group_0"]["weights"]["symmetric"] = false;
    CHECK(first_error(doc) == q + ".config_groups.group_0.weights.symmetric");
    doc = k25;
    doc["text_config"]["quantization_config"]["config_groups"]["group_0"]["weights"]["num_bits"] = 8;
    CHECK(first_error(doc) == q + ".config_groups.group_0.weights.num_bits");
    doc = k25;
    doc["text_config"]["quantization_config"]["config_groups"]["group_0"]["input_activations"] = {{"num_bits", 8}};
    CHECK(first_error(doc) == q + ".config_groups.group_0.input_activations");
    doc = k25;
    doc["text_config"]["quantization_config"]["format"] = "float-quantized";
    CHECK(first_error(doc) == q + ".format");
    doc = k25;
    doc["text_config"]["quantization_config"]["kv_cache_scheme"] = {{"num_bits", 8}, {"type", "float"}};
    CHECK(first_error(doc) == q + ".kv_cache_scheme");
    // An ignore list that packs attention too, or names a module memplan does not know, describes other bytes.
    doc = k25;
    doc["text_config"]["quantization_config"]["ignore"].erase(1);
    CHECK(first_error(doc) == q + ".ignore");
    doc = k25;
    doc["text_config"]["quantization_config"]["ignore"].push_back("re:.*embed_tokens.*");
    CHECK(first_error(doc) == q + ".ignore");
    // NVIDIA's NVFP4 release (ModelOpt) and Kimi K3 (kimi_linear: KDA linear attention, latent MoE) are refused.
    const auto fields_of = [](const json& d) {
        const auto parsed = parse_config(R"({"mode": "infer"})", d.dump());
        REQUIRE_FALSE(parsed.ok());
        std::string fields;
        for (const auto& e : parsed.errors) fields += e.field + " ";
        return fields;
    };
    CHECK(fields_of(load("hf_refused", "kimi_k3")).find("hf_config.text_config.") != std::string::npos);
}

TEST_CASE("HF fixtures: Kimi K3 is refused by the parts of its language model memplan does not model, Kimi Linear's "
          "KDA and MLA layers and K3's tower are counted",
          "[hf][fixtures][kimi][kda]") {
    const json k3 = load("hf_refused", "kimi_k3");
    // Kimi K3's kimi_linear language model goes beyond vLLM's kimi_linear.py (at 8744bb09): attention residuals,
    // latent routed experts, the situ activation, gated MLA with compressed queries, a full-rank KDA decay gate
    // and MXFP4 experts. Each is refused by name.
    const auto parsed = parse_config(R"({"mode": "infer"})", k3.dump());
    REQUIRE_FALSE(parsed.ok());
    std::string fields;
    for (const auto& e : parsed.errors) fields += e.field + " ";
    for (const char* key : {"hidden_act", "q_lora_rank", "linear_attn_config.use_full_rank_gate", "attn_res_block_size",
                            "routed_expert_hidden_size", "latent_moe_use_norm", "mla_use_output_gate",
                            "activation_situ_beta", "activation_situ_linear_beta", "quantization_config.format"}) {
        CAPTURE(key);
        CHECK(fields.find(std::string("hf_config.text_config.") + key + " ") != std::string::npos);
    }
    CHECK(fields.find("hf_config.vision_config") == std::string::npos);
    // Without those parts the text_config is a Kimi Linear model (not a released one) at K3's sizes: h 7168, 93 layers,
    // kda_layers (1-based) 69 KDA layers of 96 heads × 128 (P = 12288), conv 4; the other 24 MLA, 96 heads, no
    // q_lora_rank; layer 0 a dense MLP of 33792, the others 896 experts of 3072 (top-16) and two shared.
    //   KDA  3·h·P + (h·128 + 128·P) + P + h·96 + 3·P·4 + 96 + (h·128 + 128·P) + 128 + P·h = 358,150,368
    //   MLA  h·96·192 + h·576 + 512 + 512·96·256 + 96·128·h                                 = 236,913,152
    //   MoE  896·h + 896 + 896·3·h·3072 + 3·h·6144                                         = 59,328,562,048
    //   2·163840·h + h + 69·(KDA + 2h) + 24·(MLA + 2h) + 3·h·33792 + 92·MoE              = 5,491,702,813,280
    // K3's tower (vLLM kimi_k25_vit.py with K3's vision_config: d 1024, f 4096, q/k/v 1536, RMSNorms, no biases,
    // patchmergerv2 to 7168): 3·14²·1024 + 64·64·1024 + 27·(2·1024 + 1024·3·1536 + 1536·1024 + 2·1024·4096) + 1024
    // + 4096² + 4096·7168 + 7168 = 447,358,976.
    json lin = k3;
    json& t = lin["text_config"];
    for (const char* key : {"attn_res_block_size", "routed_expert_hidden_size", "latent_moe_use_norm", "mla_use_output_gate",
                            "activation_situ_beta", "activation_situ_linear_beta", "quantization_config"})
        t.erase(key);
    t["hidden_act"] = "silu";
    t["q_lora_rank"] = nullptr;
    t["linear_attn_config"]["use_full_rank_gate"] = false;
    const param_breakdown p = count_of(lin);
    CHECK(p.vision == 447358976ULL);
    CHECK(p.total - p.vision == 5491702813280ULL);
    CHECK(p.active - p.vision == 5491702813280ULL - 92ULL * 880 * 3 * 7168 * 3072);
    REQUIRE(p.layers.size() == 93);
    CHECK(p.layers[0].attention == attention_kind::linear);
    CHECK(p.layers[0].total == 358150368ULL + 2 * 7168 + 3ULL * 7168 * 33792);
    CHECK(p.layers[3].attention == attention_kind::mla);
    CHECK(p.layers[3].total == 236913152ULL + 2 * 7168 + 59328562048ULL);
    CHECK(p.layers[90].attention == attention_kind::linear);
    CHECK(p.layers[91].attention == attention_kind::mla);
    CHECK(p.layers[92].attention == attention_kind::mla);
    // The text model alone, as a kimi_linear config.json.
    CHECK(count_of(t).total == 5491702813280ULL);
    // Serving: the 24 MLA layers cache 576 values per token; the 69 KDA layers keep per sequence three conv states
    // (4 − 1) × 12288 and a recurrent state 96 × 128 × 128 (vLLM mamba_utils.py kda_state_shape), here in bf16.
    const json out =
        json::parse(estimate_json(R"({"mode": "infer", "infer": {"state_dtype": "bf16"}})", t.dump()), nullptr, false);
    REQUIRE(out.is_object());
    CHECK(out["errors"].empty());
    CHECK(out["details"]["kv_cache_bytes_per_token"] == 24 * 576 * 2);
    CHECK(out["details"]["state_bytes_per_sequence"] == 69ULL * (3 * 3 * 12288 + 96 * 128 * 128) * 2);
    // vLLM at tp 8: a KDA state page of 3 · 3 · 1536 · 2 + 12 · 128 · 128 · 2 = 420,864 bytes; an MLA model aligns the
    // attention block to 64 tokens (config.py HybridAttentionMambaModelConfig): 64 · ⌈420,864 / (64 · 1152)⌉ = 384,
    // the state page padded to 384 · 1152 = 442,368; 24 MLA and 69 KDA layers in groups of 24 (one attention group,
    // three state groups), so a 65,536-token request needs ⌈65,536 / 384⌉ + 3 blocks.
    const json served = json::parse(
        estimate_json(R"({"mode": "infer", "parallel": {"tp": 8, "gpus": 8}, "gpu": {"memory_bytes": 141000000000},
                         "infer": {"engine": "vllm", "context_len": 65536, "state_dtype": "bf16"}})",
                      t.dump()),
        nullptr, false);
    REQUIRE(served.is_object());
    CHECK(served["errors"].empty());
    CHECK(served["serving"]["state_page_bytes"] == 420864);
    CHECK(served["serving"]["block_size"] == 384);
    CHECK(served["serving"]["state_page_padded_bytes"] == 442368);
    CHECK(served["serving"]["page_bytes"] == 442368 * 24);
    CHECK(served["serving"]["blocks_per_request"] == 171 + 3);
    // linear_attn_config's sizes are read, none defaulted; kda_layers are 1-based.
    json missing = t;
    missing["linear_attn_config"].erase("head_dim");
    const auto no_width = parse_config(R"({"mode": "infer"})", missing.dump());
    REQUIRE_FALSE(no_width.ok());
    CHECK(no_width.errors[0].field == "hf_config.linear_attn_config.head_dim");
    json zero = t;
    zero["linear_attn_config"]["kda_layers"].push_back(0);
    const auto zero_based = parse_config(R"({"mode": "infer"})", zero.dump());
    REQUIRE_FALSE(zero_based.ok());
    CHECK(zero_based.errors[0].field == "hf_config.linear_attn_config.kda_layers");
}

TEST_CASE("HF fixtures: the presets of the late-2026 families count as their fixtures", "[hf][fixtures][presets]") {
    // Each preset is its fixture without token ids and other keys that shape no weight (core/data/models.json).
    const std::pair<const char*, const char*> presets[] = {
        {"qwen3.5-27b", "qwen3_5_27b"},         {"qwen3.5-35b-a3b", "qwen3_5_35b_a3b"},
        {"qwen3.5-397b-a17b", "qwen3_5_397b_a17b"}, {"glm-5", "glm_5"},
        {"minimax-m2.5", "minimax_m2_5"},       {"nemotron-3-nano-30b-a3b", "nvidia_nemotron_3_nano_30b_a3b"},
        {"gemma-4-26b-a4b", "gemma_4_26b_a4b"}, {"kimi-k2.5", "kimi_k2_5"}};
    for (const auto& [id, fixture] : presets) {
        CAPTURE(id);
        const auto preset = parse_config(std::string(R"({"mode": "infer", "model": {"preset": ")") + id + "\"}}");
        REQUIRE(preset.ok());
        const auto counted = count_params(preset.value.model);
        REQUIRE(counted.ok());
        const param_breakdown expected = count_of(load("hf", fixture));
        CHECK(counted.value.total == expected.total);
        CHECK(counted.value.active == expected.active);
        CHECK(counted.value.vision == expected.vision);
        // The same weights as stored and the same recurrent-state precision as the fixture.
        const auto fixture_config = parse_config(R"({"mode": "infer"})", load("hf", fixture).dump());
        REQUIRE(fixture_config.ok());
        CHECK(preset.value.model.checkpoint == fixture_config.value.model.checkpoint);
        CHECK(preset.value.infer.state_dtype == fixture_config.value.infer.state_dtype);
    }
}
