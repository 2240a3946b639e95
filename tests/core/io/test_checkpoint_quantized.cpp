// `memplan checkpoint` over quantized checkpoints: packed tensors counted as the parameters they unpack to and
// their scales, zero points, indexes and scalars checked against the format's layout (tests/data/quantized_headers:
// synthetic headers of a 2-layer Llama, or gpt-oss for MXFP4, derived from each format's published layout).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "memplan/io/checkpoint.hpp"
#include "memplan/io/safetensors.hpp"
#include "memplan/report/json.hpp"

using namespace memplan;
using nlohmann::json;

namespace {

struct fixture {
    std::string config;
    std::string header;  ///< the safetensors JSON header of its tensors, laid end to end
    std::vector<stored_tensor> tensors;
};

/// A header fixture: its config.json and its tensors, read through the safetensors header parser (each tensor's
/// data_offsets laid end to end at its dtype's size).
fixture load(const std::string& name) {
    std::ifstream in(std::string(MEMPLAN_DATA_DIR) + "/quantized_headers/" + name + ".json");
    REQUIRE(in.good());
    const json doc = json::parse(in);
    const std::map<std::string, std::uint64_t> size = {{"BF16", 2}, {"F16", 2}, {"F32", 4}, {"I32", 4}, {"U8", 1}, {"F8_E4M3", 1}};
    json header = {{"__metadata__", {{"format", "pt"}}}};
    std::uint64_t at = 0;
    for (const auto& t : doc["tensors"]) {
        std::uint64_t bytes = size.at(t["dtype"].get<std::string>());
        for (const auto& d : t["shape"]) bytes *= d.get<std::uint64_t>();
        header[t["name"].get<std::string>()] = {{"dtype", t["dtype"]}, {"shape", t["shape"]}, {"data_offsets", {at, at + bytes}}};
        at += bytes;
    }
    fixture f{doc["config"].dump(), header.dump(), {}};
    auto parsed = parse_safetensors_header(f.header, name + ".safetensors");
    REQUIRE(parsed.ok());
    f.tensors = parsed.value;
    return f;
}

std::map<std::string, json> parts_of(const json& r) {
    std::map<std::string, json> out;
    for (const auto& p : r["parts"]) out[p["part"].get<std::string>()] = p;
    return out;
}

// The tiny Llama of the fixtures: h 64, 4 heads and 2 KV heads of 16, intermediate 128, vocabulary 32, 2 layers,
// untied. Per layer q 64·64, k and v 32·64, o 64·64, gate and up 128·64, down 64·128.
constexpr std::uint64_t attention = 2 * (64 * 64 + 2 * 32 * 64 + 64 * 64);  // 24,576
constexpr std::uint64_t mlp = 2 * 3 * 128 * 64;                              // 49,152
constexpr std::uint64_t matrices = attention + mlp;                           // 73,728 packed weights
constexpr std::uint64_t unpacked = 2 * 32 * 64 + 2 * 2 * 64 + 64;             // embedding, lm_head, norms: 4,416
constexpr std::uint64_t llama_params = matrices + unpacked;                   // 78,144

/// Checks a Llama fixture reconciles: every part exact, no byte unexplained, parameters unpacked.
json reconciled(const std::string& name) {
    const fixture f = load(name);
    const json r = json::parse(checkpoint_json(f.config, f.tensors));
    REQUIRE(r["errors"].empty());
    CHECK(r["params"] == llama_params);
    CHECK(r["stored"]["params"] == llama_params);
    CHECK(r["unexplained"] == 0);
    CHECK(r["unexplained_bytes"] == 0);
    CHECK(r["refused_tensors"].empty());
    auto parts = parts_of(r);
    CHECK(parts["attention"]["stored"] == attention);
    CHECK(parts["mlp"]["stored"] == mlp);
    CHECK(parts["embedding"]["stored"] == 2048);
    CHECK(parts["output"]["stored"] == 2048);
    CHECK(parts["norms"]["stored"] == 320);
    return r;
}

/// The fixture with `tensor`'s shape replaced: refused by name, its bytes unexplained, nothing absorbed.
void hostile(const std::string& name, const std::string& tensor, std::vector<std::uint64_t> shape) {
    fixture f = load(name);
    std::uint64_t bytes = 0;
    bool found = false;
    for (auto& t : f.tensors)
        if (t.name == tensor) {
            const std::uint64_t per = t.values != 0 ? t.bytes / t.values : 0;
            t.shape = shape;
            t.values = 1;
            for (auto d : shape) t.values *= d;
            t.bytes = bytes = t.values * per;
            found = true;
        }
    REQUIRE(found);
    const json r = json::parse(checkpoint_json(f.config, f.tensors));
    REQUIRE(r["errors"].empty());
    REQUIRE(r["refused_tensors"].size() == 1);
    CHECK(r["refused_tensors"][0].get<std::string>().rfind(tensor + ": shape", 0) == 0);
    CHECK(r["unexplained_bytes"] == bytes);
    CHECK(r["unexplained"].get<std::uint64_t>() > 0);
    CHECK(r["stored"]["params"] == r["params"]);  // the refused tensor is no parameter
    auto parts = parts_of(r);
    CHECK(parts["other"]["bytes"] == bytes);
}

}  // namespace

TEST_CASE("checkpoint_json: AWQ int4 reconciles (qweight packed 8 per int32 along the output)", "[checkpoint][quantized]") {
    const json r = reconciled("awq");
    // Groups of 32 along the input: 73,728 / 32 = 2,304 groups, an fp16 scale each and a 4-bit zero point each.
    auto parts = parts_of(r);
    CHECK(parts["quantization"]["bytes"] == 2304 * 2 + 2304 / 2);
    CHECK(parts["quantization"]["memplan_bytes"] == parts["quantization"]["bytes"]);
    CHECK(parts["quantization"]["by_dtype"]["F16"] == 2304 * 2);
    CHECK(parts["quantization"]["by_dtype"]["I32"] == 2304 / 2);
    CHECK(r["stored"]["by_dtype"]["I32"]["bytes"] == matrices / 2 + 2304 / 2);  // qweight: 4 bits a weight
    CHECK(r["stored"]["by_dtype"]["F16"]["bytes"] == 2 * unpacked + 2304 * 2);
    hostile("awq", "model.layers.0.self_attn.q_proj.scales", {2, 32});
}

TEST_CASE("checkpoint_json: GPTQ int4 reconciles (qweight packed 8 per int32 along the input, g_idx)", "[checkpoint][quantized]") {
    const json r = reconciled("gptq");
    // As AWQ, plus g_idx: one int32 per input row, 2 · (6 · 64 + 128) rows.
    auto parts = parts_of(r);
    CHECK(parts["quantization"]["bytes"] == 2304 * 2 + 2304 / 2 + 4 * 2 * (6 * 64 + 128));
    CHECK(parts["quantization"]["memplan_bytes"] == parts["quantization"]["bytes"]);
    CHECK(r["stored"]["by_dtype"]["I32"]["bytes"] == matrices / 2 + 2304 / 2 + 4 * 2 * (6 * 64 + 128));
    hostile("gptq", "model.layers.1.mlp.down_proj.g_idx", {64});
    hostile("gptq", "model.layers.1.mlp.down_proj.qzeros", {4, 16});
}

TEST_CASE("checkpoint_json: bitsandbytes NF4 with double quantization reconciles", "[checkpoint][quantized]") {
    const json r = reconciled("nf4");
    // 14 matrices: per matrix a 4-byte nested_absmax (≤ 256 absmax), quant_map 16 · 4, nested_quant_map 256 · 4.
    auto parts = parts_of(r);
    CHECK(parts["quantization"]["by_dtype"]["F32"] == 14 * (4 + 64 + 1024));
    CHECK(r["stored"]["by_dtype"]["BF16"]["bytes"] == 2 * unpacked);
    // uint8: the packed weights (two per byte), one absmax byte per 64 and the serialized states.
    std::uint64_t states = 0;
    for (const auto& t : load("nf4").tensors)
        if (t.name.find("quant_state.bitsandbytes__nf4") != std::string::npos) states += t.bytes;
    CHECK(parts["quantization"]["by_dtype"]["U8"] == matrices / 64 + states);
    CHECK(r["stored"]["by_dtype"]["U8"]["bytes"] == matrices / 2 + matrices / 64 + states);
    // memplan's native bytes hold the absmax and nested_absmax only: the two lookup tables and the serialized
    // states are the difference.
    CHECK(parts["quantization"]["memplan_bytes"] == matrices / 64 + 14 * 4);
    CHECK(parts["quantization"]["bytes"].get<std::uint64_t>() - parts["quantization"]["memplan_bytes"].get<std::uint64_t>() ==
          14 * (64 + 1024) + states);
    hostile("nf4", "model.layers.0.mlp.up_proj.weight.absmax", {64});
    hostile("nf4", "model.layers.0.mlp.up_proj.weight.quant_map", {256});
}

TEST_CASE("checkpoint_json: FP8 block (weight_scale_inv) reconciles", "[checkpoint][quantized]") {
    const json r = reconciled("fp8_block");
    // Blocks of 32 × 32: per layer q 2·2, k and v 1·2, o 2·2, gate and up 4·2, down 2·4 = 36 fp32 scales.
    auto parts = parts_of(r);
    CHECK(parts["quantization"]["bytes"] == 2 * 36 * 4);
    CHECK(parts["quantization"]["memplan_bytes"] == parts["quantization"]["bytes"]);
    CHECK(r["stored"]["by_dtype"]["F8_E4M3"]["bytes"] == matrices);
    hostile("fp8_block", "model.layers.1.self_attn.k_proj.weight_scale_inv", {2, 2});
}

TEST_CASE("checkpoint_json: ModelOpt NVFP4 reconciles", "[checkpoint][quantized]") {
    const json r = reconciled("nvfp4");
    // An e4m3 scale per 16 weights, and two fp32 scalars per matrix (14 matrices).
    auto parts = parts_of(r);
    CHECK(parts["quantization"]["by_dtype"]["F8_E4M3"] == matrices / 16);
    CHECK(parts["quantization"]["by_dtype"]["F32"] == 14 * 2 * 4);
    CHECK(parts["quantization"]["memplan_bytes"] == matrices / 16 + 14 * 2 * 4);
    CHECK(r["stored"]["by_dtype"]["U8"]["bytes"] == matrices / 2);
    hostile("nvfp4", "model.layers.0.self_attn.o_proj.weight_scale", {64, 8});
    hostile("nvfp4", "model.layers.0.self_attn.o_proj.weight_scale_2", {64});
}

TEST_CASE("checkpoint_json: ModelOpt per-tensor FP8 reconciles", "[checkpoint][quantized]") {
    const json r = reconciled("fp8_tensor");
    auto parts = parts_of(r);
    CHECK(parts["quantization"]["bytes"] == 14 * 2 * 4);
    CHECK(parts["quantization"]["memplan_bytes"] == 14 * 2 * 4);
    CHECK(r["stored"]["by_dtype"]["F8_E4M3"]["bytes"] == matrices);
    hostile("fp8_tensor", "model.layers.1.mlp.gate_proj.input_scale", {128});
}

TEST_CASE("checkpoint_json: gpt-oss MXFP4 experts reconcile", "[checkpoint][quantized]") {
    const fixture f = load("mxfp4");
    const json r = json::parse(checkpoint_json(f.config, f.tensors));
    REQUIRE(r["errors"].empty());
    CHECK(r["unexplained"] == 0);
    CHECK(r["unexplained_bytes"] == 0);
    CHECK(r["refused_tensors"].empty());
    // 4 experts of gate_up 128 · 64 and down 64 · 64 per layer, with their biases (128 + 64 each).
    constexpr std::uint64_t experts = 2 * 4 * (128 * 64 + 64 * 64 + 128 + 64);
    auto parts = parts_of(r);
    CHECK(parts["experts"]["stored"] == experts);
    CHECK(parts["experts"]["memplan"] == experts);
    // Attention with biases and 4 sinks, router 4 · 64 + 4, per layer.
    CHECK(parts["attention"]["stored"] == 2 * (64 * 64 + 64 + 2 * (32 * 64 + 32) + 64 * 64 + 64 + 4));
    CHECK(parts["router"]["stored"] == 2 * (4 * 64 + 4));
    // One e8m0 scale byte per 32 weights.
    CHECK(parts["quantization"]["bytes"] == 2 * 4 * (128 * 64 + 64 * 64) / 32);
    CHECK(parts["quantization"]["memplan_bytes"] == parts["quantization"]["bytes"]);
    CHECK(r["stored"]["params"] == r["params"]);
    hostile("mxfp4", "model.layers.1.mlp.experts.down_proj_scales", {4, 64, 4});
}

TEST_CASE("memplan checkpoint --hf-model: a ModelOpt NVFP4 folder reconciles", "[checkpoint][quantized][cli]") {
    // The fixture written as a model folder: config.json and a model.safetensors of its header (no weights).
    const fixture f = load("nvfp4");
    const std::string dir = "/tmp/memplan-test-quantized-nvfp4";
    REQUIRE(std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str()) == 0);
    std::ofstream(dir + "/config.json") << f.config;
    std::string prefix(8, '\0');
    for (int i = 0; i < 8; ++i) prefix[static_cast<std::size_t>(i)] = static_cast<char>((f.header.size() >> (8 * i)) & 0xff);
    std::ofstream(dir + "/model.safetensors", std::ios::binary) << prefix + f.header;
    const cli_output out = run_cli({"checkpoint", "--hf-model", dir});
    REQUIRE(out.status == 0);
    const json r = json::parse(out.out);
    CHECK(r["params"] == llama_params);
    CHECK(r["stored"]["params"] == llama_params);
    CHECK(r["unexplained"] == 0);
    CHECK(r["unexplained_bytes"] == 0);
    CHECK(r["stored"]["by_dtype"]["U8"]["bytes"] == matrices / 2);
}

TEST_CASE("checkpoint_json: quantization tensors with no packed values beside them are refused by name", "[checkpoint][quantized]") {
    // GPTQ without layer 0's q_proj.qweight: its scales, qzeros and g_idx fit nothing; the attention lacks 64 · 64.
    fixture f = load("gptq");
    const std::string q = "model.layers.0.self_attn.q_proj";
    f.tensors.erase(std::remove_if(f.tensors.begin(), f.tensors.end(), [&](const stored_tensor& t) { return t.name == q + ".qweight"; }),
                    f.tensors.end());
    json r = json::parse(checkpoint_json(f.config, f.tensors));
    REQUIRE(r["refused_tensors"].size() == 3);
    CHECK(r["refused_tensors"][0] == q + ".g_idx: no packed " + q + ".qweight is stored beside it");
    // g_idx 64 · 4, qzeros 2 · 8 · 4, scales 2 · 64 · 2 bytes, all in "other".
    CHECK(r["unexplained_bytes"] == 64 * 4 + 2 * 8 * 4 + 2 * 64 * 2);
    CHECK(r["unexplained"] == 64 * 64 + 64 + 2 * 8 + 2 * 64);
    // gpt-oss experts whose blocks are not 16 bytes of 32 values: the blocks refused, and their scales with them.
    f = load("mxfp4");
    const std::string down = "model.layers.1.mlp.experts.down_proj";
    for (auto& t : f.tensors)
        if (t.name == down + "_blocks") t.shape = {4, 64, 4, 8};
    r = json::parse(checkpoint_json(f.config, f.tensors));
    REQUIRE(r["refused_tensors"].size() == 2);
    CHECK(r["refused_tensors"][0] == down + "_blocks: U8 [4, 64, 4, 8] is not the packed layout of mxfp4");
    CHECK(r["refused_tensors"][1] == down + "_scales: no packed " + down + "_blocks is stored beside it");
    CHECK(r["unexplained_bytes"] == 4 * 64 * 2 * 16 + 4 * 64 * 2);
    // AWQ scales stored in bf16 rather than fp16: refused naming the dtype.
    f = load("awq");
    for (auto& t : f.tensors)
        if (t.name == "model.layers.1.mlp.gate_proj.scales") t.dtype = "BF16";
    r = json::parse(checkpoint_json(f.config, f.tensors));
    REQUIRE(r["refused_tensors"].size() == 1);
    CHECK(r["refused_tensors"][0] == "model.layers.1.mlp.gate_proj.scales: stored as BF16, the int4_group layout stores it as F16");
    CHECK(r["unexplained_bytes"] == 2 * 128 * 2);
}
