// GGUF headers (memplan/io/gguf.hpp): written byte by byte here following the format (ggml-org/ggml
// docs/gguf.md at commit d99724f2b141fed9e1a9f402213506c081433465), with the tensor names, shapes and
// types of llama.cpp conversions of Qwen3-0.6B and Llama 3.2 1B (their config.json in tests/data/hf),
// read back, reconciled with memplan's count of the same config.json, and every refusal checked.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>
#include <unistd.h>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "memplan/io/gguf.hpp"
#include "memplan/report/gguf.hpp"
#include "memplan/report/json.hpp"

using namespace memplan;
using nlohmann::json;

namespace {

/// A GGUF writer: little-endian fields in the order of docs/gguf.md.
struct gguf_writer {
    std::string bytes;
    void u8(std::uint8_t v) { bytes += static_cast<char>(v); }
    void u32(std::uint32_t v) {
        for (int i = 0; i < 4; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    void u64(std::uint64_t v) {
        for (int i = 0; i < 8; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    void f32(float v) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &v, 4);
        u32(bits);
    }
    void str(const std::string& s) {
        u64(s.size());
        bytes += s;
    }
};

/// One tensor: GGUF name, ggml dimensions (ne0 first) and ggml type id.
struct tensor_spec {
    std::string name;
    std::vector<std::uint64_t> dims;
    std::uint32_t type;
};

// ggml type ids (ggml include/ggml.h enum ggml_type) and their block sizes and bytes (src/ggml.c
// type_traits, src/ggml-common.h) at the commit above: F32 1/4, Q8_0 32/34, Q4_K 256/144, Q6_K 256/210.
constexpr std::uint32_t F32 = 0, Q8_0 = 8, Q4_K = 12, Q6_K = 14;

std::uint64_t bytes_of(const tensor_spec& t) {
    std::uint64_t n = 1;
    for (auto d : t.dims) n *= d;
    switch (t.type) {
        case F32: return n * 4;
        case Q8_0: return n / 32 * 34;
        case Q4_K: return n / 256 * 144;
        case Q6_K: return n / 256 * 210;
        default: return n;
    }
}

/// A metadata value writer: the key, then its type and value.
using kv_writer = void (*)(gguf_writer&);

/// A whole header: magic, version, counts, `kv` (already written pairs, `kv_count` of them), the tensor
/// infos with offsets packed at 32-byte alignment, padding; `file_bytes` the file's size with its data.
std::string gguf_bytes(const std::string& kv, std::uint64_t kv_count, const std::vector<tensor_spec>& tensors,
                       std::uint64_t& file_bytes, std::uint32_t version = 3) {
    gguf_writer w;
    w.bytes = "GGUF";
    w.u32(version);
    w.u64(tensors.size());
    w.u64(kv_count);
    w.bytes += kv;
    std::uint64_t offset = 0;
    for (const auto& t : tensors) {
        w.str(t.name);
        w.u32(static_cast<std::uint32_t>(t.dims.size()));
        for (auto d : t.dims) w.u64(d);
        w.u32(t.type);
        w.u64(offset);
        offset += (bytes_of(t) + 31) / 32 * 32;
    }
    while (w.bytes.size() % 32 != 0) w.u8(0);
    file_bytes = w.bytes.size() + offset;
    return w.bytes;
}

/// Key-value pairs of a llama.cpp conversion (gguf-py/gguf/constants.py keys).
struct kv_list {
    gguf_writer w;
    std::uint64_t count = 0;
    void u32(const std::string& key, std::uint32_t v) {
        w.str(key), w.u32(4), w.u32(v), ++count;
    }
    void f32(const std::string& key, float v) {
        w.str(key), w.u32(6), w.f32(v), ++count;
    }
    void text(const std::string& key, const std::string& v) {
        w.str(key), w.u32(8), w.str(v), ++count;
    }
    /// An array of `n` short strings (a vocabulary): only its length is kept by the reader.
    void tokens(std::uint64_t n) {
        w.str("tokenizer.ggml.tokens"), w.u32(9), w.u32(8), w.u64(n);
        for (std::uint64_t i = 0; i < n; ++i) w.str("t" + std::to_string(i % 1000));
        ++count;
    }
};

/// Qwen3-0.6B (tests/data/hf/qwen3_0_6b.json): 28 layers, hidden 1024, 16 heads, 8 KV heads,
/// head_dim 128, FFN 3072, vocabulary 151,936, tied (no output.weight). `big(i, name)`: the type of a
/// 2-D tensor; norms are F32 (convert_hf_to_gguf.py keeps 1-D tensors in F32).
std::vector<tensor_spec> qwen3_0_6b(std::uint32_t (*type)(std::uint64_t layer, const std::string& name)) {
    std::vector<tensor_spec> t{{"token_embd.weight", {1024, 151936}, type(0, "token_embd")}};
    for (std::uint64_t i = 0; i < 28; ++i) {
        const std::string b = "blk." + std::to_string(i) + ".";
        t.push_back({b + "attn_norm.weight", {1024}, F32});
        t.push_back({b + "attn_q.weight", {1024, 2048}, type(i, "attn_q")});
        t.push_back({b + "attn_k.weight", {1024, 1024}, type(i, "attn_k")});
        t.push_back({b + "attn_v.weight", {1024, 1024}, type(i, "attn_v")});
        t.push_back({b + "attn_output.weight", {2048, 1024}, type(i, "attn_output")});
        t.push_back({b + "attn_q_norm.weight", {128}, F32});
        t.push_back({b + "attn_k_norm.weight", {128}, F32});
        t.push_back({b + "ffn_norm.weight", {1024}, F32});
        t.push_back({b + "ffn_gate.weight", {1024, 3072}, type(i, "ffn_gate")});
        t.push_back({b + "ffn_up.weight", {1024, 3072}, type(i, "ffn_up")});
        t.push_back({b + "ffn_down.weight", {3072, 1024}, type(i, "ffn_down")});
    }
    t.push_back({"output_norm.weight", {1024}, F32});
    return t;
}

/// The key-value pairs of `arch` with these widths (and the MoE ones when `experts` is non-zero).
kv_list model_kv(const std::string& arch, std::uint32_t layers, std::uint32_t hidden, std::uint32_t ffn, std::uint32_t heads,
                 std::uint32_t kv_heads, std::uint32_t head_dim, std::uint32_t vocab, std::uint32_t experts = 0,
                 std::uint32_t used = 0, std::uint32_t expert_ffn = 0) {
    kv_list kv;
    kv.text("general.architecture", arch);
    kv.u32(arch + ".block_count", layers);
    kv.u32(arch + ".embedding_length", hidden);
    kv.u32(arch + ".feed_forward_length", ffn);
    kv.u32(arch + ".attention.head_count", heads);
    kv.u32(arch + ".attention.head_count_kv", kv_heads);
    kv.u32(arch + ".attention.key_length", head_dim);
    kv.u32(arch + ".attention.value_length", head_dim);
    kv.u32(arch + ".vocab_size", vocab);
    if (experts != 0) {
        kv.u32(arch + ".expert_count", experts);
        kv.u32(arch + ".expert_used_count", used);
        if (expert_ffn != 0) kv.u32(arch + ".expert_feed_forward_length", expert_ffn);
    }
    return kv;
}

kv_list qwen3_0_6b_kv(bool with_tokens = true) {
    kv_list kv;
    kv.text("general.architecture", "qwen3");
    kv.text("general.name", "Qwen3 0.6B");
    kv.u32("qwen3.block_count", 28);
    kv.u32("qwen3.context_length", 40960);
    kv.u32("qwen3.embedding_length", 1024);
    kv.u32("qwen3.feed_forward_length", 3072);
    kv.u32("qwen3.attention.head_count", 16);
    kv.u32("qwen3.attention.head_count_kv", 8);
    kv.f32("qwen3.rope.freq_base", 1000000.0f);
    kv.f32("qwen3.attention.layer_norm_rms_epsilon", 1e-6f);
    kv.u32("qwen3.attention.key_length", 128);
    kv.u32("qwen3.attention.value_length", 128);
    if (with_tokens) kv.tokens(151936);
    return kv;
}

/// llama-quantize's Q4_K_M rule for attn_v and ffn_down (use_more_bits: the first and last eighth of
/// the layers and every third between get Q6_K; with 28 layers: 0-2, 5, 8, 11, 14, 17, 20, 23, 24-27,
/// 14 layers); the other matrices Q4_K; the tied token_embd, which is also the output, Q6_K.
std::uint32_t q4_k_m(std::uint64_t i, const std::string& name) {
    if (name == "token_embd") return Q6_K;
    const bool more = i < 3 || i >= 24 || (i >= 3 && (i - 3) % 3 == 2);
    return (name == "attn_v" || name == "ffn_down") && more ? Q6_K : Q4_K;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// memplan's count of a config.json of tests/data/hf.
std::uint64_t memplan_params(const std::string& config) {
    return json::parse(checkpoint_json(read_text(std::string(MEMPLAN_DATA_DIR) + "/hf/" + config), {}))["params"].get<std::uint64_t>();
}

std::string first_error(const gguf_parse& p) {
    return p.header.errors.empty() ? std::string() : p.header.errors[0].field + ": " + p.header.errors[0].message;
}

/// A sparse file under /tmp: the header, then zeros up to `file_bytes` (never written out).
std::string write_gguf(const std::string& name, const std::string& header, std::uint64_t file_bytes) {
    const std::string path = "/tmp/memplan-test-" + name + ".gguf";
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << header;
    }
    REQUIRE(truncate(path.c_str(), static_cast<off_t>(file_bytes)) == 0);
    return path;
}

}  // namespace

TEST_CASE("GGUF: Qwen3-0.6B at Q8_0 reads back its tensors, bytes per type and memplan's exact count", "[gguf]") {
    const kv_list kv = qwen3_0_6b_kv();
    const auto tensors = qwen3_0_6b([](std::uint64_t, const std::string&) { return Q8_0; });
    std::uint64_t file_bytes = 0;
    const std::string header = gguf_bytes(kv.w.bytes, kv.count, tensors, file_bytes);
    const gguf_parse p = parse_gguf_header(header, file_bytes, "qwen3-0.6b-q8_0.gguf");
    REQUIRE(p.header.ok());
    REQUIRE(!p.needs_more);
    const gguf_header& h = p.header.value;
    CHECK(h.version == 3);
    CHECK(h.tensors.size() == 310);  // 28 layers · 11 + token_embd + output_norm (no output.weight: tied)
    CHECK(h.metadata.at("general.architecture").text == "qwen3");
    CHECK(h.metadata.at("tokenizer.ggml.tokens").array_length == 151936);  // the length kept, not the strings
    CHECK(h.metadata.at("tokenizer.ggml.tokens").text.empty());
    CHECK(h.data_offset_bytes == header.size());
    CHECK(h.tensors[0].name == "token_embd.weight");
    CHECK(h.tensors[0].dtype == "Q8_0");
    CHECK(h.tensors[0].values == 155582464ULL);        // 1024 · 151,936
    CHECK(h.tensors[0].bytes == 165306368ULL);         // 155,582,464 / 32 blocks · 34 bytes
    const std::string text = checkpoint_gguf_json(h, "qwen3-0.6b-q8_0.gguf");
    const json r = json::parse(text);
    CAPTURE(text);
    CHECK(r["errors"].empty());
    CHECK(r["file"] == "qwen3-0.6b-q8_0.gguf");
    CHECK(r["format"] == "gguf");
    CHECK(r["architecture"] == "qwen3");
    CHECK(r["model_type"] == "qwen3");
    CHECK(r["hf_config"]["tie_word_embeddings"] == true);
    CHECK(r["hf_config"]["vocab_size"] == 151936);
    // memplan's count of the GGUF's config equals its count of Qwen3-0.6B's own config.json, and the stored
    // values equal it exactly (the GGUF stores no tied lm_head, unlike the safetensors checkpoint).
    CHECK(r["params"] == memplan_params("qwen3_0_6b.json"));
    CHECK(r["params"] == 596049920ULL);
    CHECK(r["stored"]["values"] == 596049920ULL);
    CHECK(r["unexplained"] == 0);
    for (const auto& part : r["parts"]) CHECK(part["difference"] == 0);
    // F32: the norms, 28 · (1024 + 128 + 128 + 1024) + 1024 = 65,536 values · 4 = 262,144 bytes.
    CHECK(r["stored"]["by_dtype"]["F32"]["values"] == 65536);
    CHECK(r["stored"]["by_dtype"]["F32"]["bytes"] == 262144);
    // Q8_0: the other 595,984,384 values, 18,624,512 blocks · 34 = 633,233,408 bytes.
    CHECK(r["stored"]["by_dtype"]["Q8_0"]["values"] == 595984384ULL);
    CHECK(r["stored"]["by_dtype"]["Q8_0"]["bytes"] == 633233408ULL);
    CHECK(r["stored"]["bytes"] == 633233408ULL + 262144);
}

TEST_CASE("GGUF: Qwen3-0.6B at Q4_K_M mixes Q4_K and Q6_K, each type's bytes exact", "[gguf]") {
    const kv_list kv = qwen3_0_6b_kv();
    std::uint64_t file_bytes = 0;
    const std::string header = gguf_bytes(kv.w.bytes, kv.count, qwen3_0_6b(q4_k_m), file_bytes);
    const gguf_parse p = parse_gguf_header(header, file_bytes, "qwen3-0.6b-q4_k_m.gguf");
    REQUIRE(p.header.ok());
    const json r = json::parse(checkpoint_gguf_json(p.header.value, "qwen3-0.6b-q4_k_m.gguf"));
    CHECK(r["params"] == 596049920ULL);
    CHECK(r["unexplained"] == 0);
    // Q6_K: token_embd 155,582,464 values (607,744 blocks · 210 = 127,626,240 bytes) and, in 14 layers,
    // attn_v 1,048,576 (4,096 blocks · 210 = 860,160) and ffn_down 3,145,728 (12,288 · 210 = 2,580,480):
    // 155,582,464 + 14 · 4,194,304 = 214,302,720 values; 127,626,240 + 14 · 3,440,640 = 175,795,200 bytes.
    CHECK(r["stored"]["by_dtype"]["Q6_K"]["values"] == 214302720ULL);
    CHECK(r["stored"]["by_dtype"]["Q6_K"]["bytes"] == 175795200ULL);
    // Q4_K: q, k, o, gate, up in every layer, 11,534,336 values (45,056 blocks · 144 = 6,488,064 bytes),
    // and attn_v + ffn_down in the other 14 layers (16,384 blocks · 144 = 2,359,296 bytes):
    // 28 · 11,534,336 + 14 · 4,194,304 = 381,681,664 values; 28 · 6,488,064 + 14 · 2,359,296 = 214,695,936 bytes.
    CHECK(r["stored"]["by_dtype"]["Q4_K"]["values"] == 381681664ULL);
    CHECK(r["stored"]["by_dtype"]["Q4_K"]["bytes"] == 214695936ULL);
    CHECK(r["stored"]["by_dtype"]["F32"]["bytes"] == 262144);
}

TEST_CASE("GGUF: Llama 3.2 1B at Q8_0, its RoPE factors a buffer, counted as its config.json", "[gguf]") {
    // meta-llama/Llama-3.2-1B-Instruct (tests/data/hf/llama3_2_1b_instruct.json): 16 layers, hidden 2048,
    // 32 heads, 8 KV heads, head_dim 64, FFN 8192, vocabulary 128,256, tied; convert_hf_to_gguf.py writes
    // the llama3 RoPE scaling as rope_freqs.weight, head_dim / 2 = 32 F32 values. No tokenizer array:
    // llama.vocab_size gives the vocabulary.
    kv_list kv = model_kv("llama", 16, 2048, 8192, 32, 8, 64, 128256);
    kv.u32("general.alignment", 32);
    kv.u32("llama.context_length", 131072);
    kv.f32("llama.rope.freq_base", 500000.0f);
    kv.f32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
    std::vector<tensor_spec> t{{"rope_freqs.weight", {32}, F32}, {"token_embd.weight", {2048, 128256}, Q8_0}};
    for (int i = 0; i < 16; ++i) {
        const std::string b = "blk." + std::to_string(i) + ".";
        t.push_back({b + "attn_norm.weight", {2048}, F32});
        t.push_back({b + "attn_q.weight", {2048, 2048}, Q8_0});
        t.push_back({b + "attn_k.weight", {2048, 512}, Q8_0});
        t.push_back({b + "attn_v.weight", {2048, 512}, Q8_0});
        t.push_back({b + "attn_output.weight", {2048, 2048}, Q8_0});
        t.push_back({b + "ffn_norm.weight", {2048}, F32});
        t.push_back({b + "ffn_gate.weight", {2048, 8192}, Q8_0});
        t.push_back({b + "ffn_up.weight", {2048, 8192}, Q8_0});
        t.push_back({b + "ffn_down.weight", {8192, 2048}, Q8_0});
    }
    t.push_back({"output_norm.weight", {2048}, F32});
    std::uint64_t file_bytes = 0;
    const std::string header = gguf_bytes(kv.w.bytes, kv.count, t, file_bytes, /*version=*/2);
    const gguf_parse p = parse_gguf_header(header, file_bytes, "llama-3.2-1b-q8_0.gguf");
    REQUIRE(p.header.ok());
    const json r = json::parse(checkpoint_gguf_json(p.header.value, "llama-3.2-1b-q8_0.gguf"));
    CAPTURE(r.dump());
    CHECK(r["gguf_version"] == 2);
    CHECK(r["model_type"] == "llama");
    CHECK(r["params"] == memplan_params("llama3_2_1b_instruct.json"));
    CHECK(r["params"] == 1235814400ULL);
    CHECK(r["unexplained"] == 0);
    // Stored: the parameters and the 32 RoPE factors, which checkpoint_json names a buffer.
    CHECK(r["stored"]["values"] == 1235814400ULL + 32);
    for (const auto& part : r["parts"]) {
        if (part["part"] == "buffers") CHECK(part["stored"] == 32);
        else CHECK(part["difference"] == 0);
    }
    // F32: 32 + 16 · 2 · 2048 + 2048 = 67,616 values · 4 = 270,464 bytes; Q8_0 the other 1,235,746,816
    // values (38,617,088 blocks · 34 = 1,312,980,992 bytes).
    CHECK(r["stored"]["by_dtype"]["F32"]["bytes"] == 270464);
    CHECK(r["stored"]["by_dtype"]["Q8_0"]["values"] == 1235746816ULL);
    CHECK(r["stored"]["by_dtype"]["Q8_0"]["bytes"] == 1312980992ULL);
}

TEST_CASE("GGUF: every metadata value type reads, nested arrays included", "[gguf]") {
    gguf_writer w;
    std::uint64_t n = 0;
    const auto key = [&](const std::string& k, std::uint32_t type) { w.str(k), w.u32(type), ++n; };
    key("a.u8", 0), w.u8(200);
    key("a.i8", 1), w.u8(0xfe);  // −2
    key("a.u16", 2), w.u8(0x34), w.u8(0x12);
    key("a.i16", 3), w.u8(0xff), w.u8(0xff);  // −1
    key("a.u32", 4), w.u32(70000);
    key("a.i32", 5), w.u32(0xfffffff6u);  // −10
    key("a.f32", 6), w.f32(0.5f);
    key("a.bool", 7), w.u8(1);
    key("a.str", 8), w.str("hello");
    key("a.u64", 10), w.u64(std::uint64_t{1} << 40);
    key("a.i64", 11), w.u64(~std::uint64_t{0});  // −1
    key("a.f64", 12), w.u64(0x3ff8000000000000ULL);  // 1.5
    key("a.arr", 9), w.u32(9), w.u64(2);  // an array of 2 arrays of u16
    w.u32(2), w.u64(3), w.u8(1), w.u8(0), w.u8(2), w.u8(0), w.u8(3), w.u8(0);
    w.u32(2), w.u64(1), w.u8(4), w.u8(0);
    std::uint64_t file_bytes = 0;
    const std::string header = gguf_bytes(w.bytes, n, {}, file_bytes);
    const gguf_parse p = parse_gguf_header(header, file_bytes, "x.gguf");
    REQUIRE(p.header.ok());
    const auto& m = p.header.value.metadata;
    CHECK(m.at("a.u8").integer == 200);
    CHECK((m.at("a.i8").negative && m.at("a.i8").integer == 2));
    CHECK(m.at("a.u16").integer == 0x1234);
    CHECK((m.at("a.i16").negative && m.at("a.i16").integer == 1));
    CHECK(m.at("a.u32").integer == 70000);
    CHECK((m.at("a.i32").negative && m.at("a.i32").integer == 10));
    CHECK(m.at("a.f32").real == 0.5);
    CHECK(m.at("a.bool").integer == 1);
    CHECK(m.at("a.str").text == "hello");
    CHECK(m.at("a.u64").integer == (std::uint64_t{1} << 40));
    CHECK((m.at("a.i64").negative && m.at("a.i64").integer == 1));
    CHECK(m.at("a.f64").real == 1.5);
    CHECK(m.at("a.arr").array_type == 9);
    CHECK(m.at("a.arr").array_length == 2);
    // Every type id of ggml's table resolves; removed ids (4, 5, 31-33, 36-38) do not.
    CHECK(std::string(gguf_type(12)->name) == "Q4_K");
    CHECK(gguf_type(23)->block_bytes == 136);
    CHECK(gguf_type(39)->block_bytes == 17);
    CHECK(gguf_type(4) == nullptr);
    CHECK(gguf_type(31) == nullptr);
    CHECK(gguf_type(99) == nullptr);
}

TEST_CASE("GGUF: broken and hostile headers are refused naming the file and the field, quickly", "[gguf][errors]") {
    const kv_list kv = qwen3_0_6b_kv(/*with_tokens=*/false);
    const auto good = qwen3_0_6b([](std::uint64_t, const std::string&) { return Q8_0; });
    std::uint64_t file_bytes = 0;
    const std::string header = gguf_bytes(kv.w.bytes, kv.count, good, file_bytes);
    const auto error = [](const std::string& bytes, std::uint64_t size) { return first_error(parse_gguf_header(bytes, size, "m.gguf")); };
    const auto has = [](const std::string& text, const std::string& part) {
        CAPTURE(text, part);
        CHECK(text.find(part) != std::string::npos);
    };
    has(error("GGML" + header.substr(4), file_bytes), "m.gguf: is not a GGUF file");
    has(error("", 0), "m.gguf: is not a GGUF file");
    gguf_writer v1;
    v1.bytes = "GGUF";
    v1.u32(1);
    v1.u64(0), v1.u64(0);
    has(error(v1.bytes, 1000), "m.gguf: is GGUF version 1; memplan reads versions 2 and 3");
    // Truncated: the file ends inside the tensor infos.
    has(error(header.substr(0, header.size() - 100), header.size() - 100), "m.gguf: tensor ");
    has(error(header.substr(0, header.size() - 100), header.size() - 100), "but the file holds");
    // Fewer bytes read than the file holds: more is asked for, no error.
    const gguf_parse partial = parse_gguf_header(header.substr(0, 1000), file_bytes, "m.gguf");
    CHECK(partial.needs_more);
    // Huge counts and lengths: refused before anything is allocated or skipped.
    gguf_writer huge;
    huge.bytes = "GGUF";
    huge.u32(3);
    huge.u64(std::uint64_t{1} << 60), huge.u64(0);
    has(error(huge.bytes, 4096), "m.gguf: states tensor_count 1152921504606846976, more than its 4096 bytes can hold");
    gguf_writer many_kv;
    many_kv.bytes = "GGUF";
    many_kv.u32(3);
    many_kv.u64(0), many_kv.u64(std::uint64_t{1} << 60);
    has(error(many_kv.bytes, 4096), "m.gguf: states metadata_kv_count");
    gguf_writer long_string;
    long_string.bytes = "GGUF";
    long_string.u32(3);
    long_string.u64(0), long_string.u64(1);
    long_string.str("general.name"), long_string.u32(8), long_string.u64(std::uint64_t{1} << 40);  // a 1 TB string
    has(error(long_string.bytes, 1 << 20), "m.gguf: metadata general.name states a length of 1099511627776 bytes");
    gguf_writer long_array;
    long_array.bytes = "GGUF";
    long_array.u32(3);
    long_array.u64(0), long_array.u64(1);
    long_array.str("tokenizer.ggml.tokens"), long_array.u32(9), long_array.u32(8), long_array.u64(std::uint64_t{1} << 50);
    has(error(long_array.bytes, 1 << 20), "m.gguf: metadata tokenizer.ggml.tokens states 1125899906842624 elements of string");
    gguf_writer bad_bool;
    bad_bool.bytes = "GGUF";
    bad_bool.u32(3);
    bad_bool.u64(0), bad_bool.u64(1);
    bad_bool.str("a.flag"), bad_bool.u32(7), bad_bool.u8(2);
    has(error(bad_bool.bytes, bad_bool.bytes.size()), "metadata a.flag is a bool of value 2");
    gguf_writer bad_type;
    bad_type.bytes = "GGUF";
    bad_type.u32(3);
    bad_type.u64(0), bad_type.u64(1);
    bad_type.str("a.x"), bad_type.u32(13), bad_type.u8(0);
    has(error(bad_type.bytes, bad_type.bytes.size()), "metadata a.x has unknown value type 13");
    // Tensor infos: an unknown ggml type, a row not a multiple of the block, too many dimensions, a
    // misaligned offset, data beyond the file.
    const auto one_tensor = [&](std::uint32_t dims, std::uint64_t ne0, std::uint32_t type, std::uint64_t offset) {
        gguf_writer w;
        w.bytes = "GGUF";
        w.u32(3);
        w.u64(1), w.u64(0);
        w.str("blk.0.attn_q.weight");
        w.u32(dims);
        for (std::uint32_t d = 0; d < dims; ++d) w.u64(d == 0 ? ne0 : 2);
        w.u32(type);
        w.u64(offset);
        return error(w.bytes, 1 << 20);
    };
    has(one_tensor(2, 64, 4, 0), "m.gguf: tensor blk.0.attn_q.weight has unknown ggml type 4");
    has(one_tensor(2, 64, 99, 0), "unknown ggml type 99");
    has(one_tensor(2, 100, Q4_K, 0), "tensor blk.0.attn_q.weight of type Q4_K has rows of 100 values, not a multiple of its block of 256");
    has(one_tensor(5, 64, F32, 0), "tensor blk.0.attn_q.weight has 5 dimensions; at most 4");
    has(one_tensor(2, 64, F32, 16), "tensor blk.0.attn_q.weight has offset 16, not a multiple of the alignment 32");
    has(one_tensor(2, 64, F32, 1 << 21), "end beyond the file's");
    has(one_tensor(4, std::uint64_t{1} << 40, F32, 0), "end beyond the file's");  // 2^43 values: not in a 1 MiB file
    has(one_tensor(4, std::uint64_t{1} << 61, F32, 0), "has more than 2^62 values");  // 2^64 values: not wrapped
}

TEST_CASE("GGUF: metadata that memplan does not map is refused naming the key", "[gguf][errors]") {
    const auto tensors = qwen3_0_6b([](std::uint64_t, const std::string&) { return Q8_0; });
    std::uint64_t file_bytes = 0;
    kv_list other;
    other.text("general.architecture", "rwkv7");
    const std::string header = gguf_bytes(other.w.bytes, other.count, tensors, file_bytes);
    const gguf_parse p = parse_gguf_header(header, file_bytes, "m.gguf");
    REQUIRE(p.header.ok());
    const json r = json::parse(checkpoint_gguf_json(p.header.value, "m.gguf"));
    REQUIRE(r["errors"].size() == 1);
    CHECK(r["errors"][0]["field"] == "m.gguf");
    CHECK(r["errors"][0]["message"] ==
          "metadata general.architecture is \"rwkv7\", which memplan does not map onto a model (it maps llama, qwen2, qwen3, qwen3moe)");
    kv_list missing;
    missing.text("general.architecture", "qwen3");
    missing.u32("qwen3.block_count", 28);
    const std::string missing_header = gguf_bytes(missing.w.bytes, missing.count, tensors, file_bytes);
    const gguf_parse q = parse_gguf_header(missing_header, file_bytes, "m.gguf");
    REQUIRE(q.header.ok());
    const auto config = gguf_hf_config(q.header.value, "m.gguf");
    REQUIRE(!config.ok());
    CHECK(config.errors[0].message == "metadata qwen3.embedding_length is required for a qwen3 model");
}

TEST_CASE("memplan checkpoint and estimate --hf-model FILE.gguf read the header only", "[gguf][cli]") {
    const kv_list kv = qwen3_0_6b_kv();
    std::uint64_t file_bytes = 0;
    const std::string header = gguf_bytes(kv.w.bytes, kv.count, qwen3_0_6b(q4_k_m), file_bytes);
    // A sparse file of the real size (390,753,280 bytes of tensor data after the header, never written).
    const std::string path = write_gguf("qwen3-0.6b-q4_k_m", header, file_bytes);
    const cli_output out = run_cli({"checkpoint", "--hf-model", path});
    REQUIRE(out.status == 0);
    const json r = json::parse(out.out);
    CHECK(r["file"] == path);
    CHECK(r["params"] == 596049920ULL);
    CHECK(r["stored"]["by_dtype"]["Q6_K"]["bytes"] == 175795200ULL);
    CHECK(r["unexplained"] == 0);
    // estimate: memplan's model from the GGUF's metadata, the same as from Qwen3-0.6B's config.json, and a
    // warning that the weights are counted at the configuration's dtype, not at the GGUF's bytes.
    const cli_output est = run_cli({"estimate", "--hf-model", path});
    REQUIRE(est.status == 0);
    const json e = json::parse(est.out);
    CHECK(e["params"] == 596049920ULL);
    bool warned = false;
    for (const auto& w : e["warnings"])
        if (w["field"] == "hf_model" && w["message"].get<std::string>().find("Q4_K 214695936 bytes, Q6_K 175795200 bytes") != std::string::npos)
            warned = true;
    CHECK(warned);
    // Refusals name the file; analyze and compare do not take a GGUF file.
    const std::string broken = write_gguf("broken", std::string("GGUF\x01\0\0\0", 8) + std::string(16, '\0'), 1000);
    const cli_output bad = run_cli({"checkpoint", "--hf-model", broken}, /*with_stderr=*/true);
    CHECK(bad.status == 2);
    CHECK(bad.out.find(broken + ": is GGUF version 1") != std::string::npos);
    CHECK(run_cli({"analyze", "--hf-model", path}).status == 2);
    const cli_output absent = run_cli({"checkpoint", "--hf-model", "/tmp/memplan-test-absent.gguf"}, true);
    CHECK(absent.status == 2);
    CHECK(absent.out.find("cannot read /tmp/memplan-test-absent.gguf") != std::string::npos);
    std::remove(path.c_str());
    std::remove(broken.c_str());
}

namespace {

/// The tensors of a llama.cpp conversion: attention (with q/k/v biases when `qkv_bias`, Qwen3's
/// q_norm/k_norm when `qk_norm`), then a dense FFN, or experts stacked in one 3-D tensor each
/// (ffn_*_exps: ne0 the input, ne2 the experts) and the router ffn_gate_inp; output.weight unless tied.
std::vector<tensor_spec> model_tensors(std::uint64_t layers, std::uint64_t hidden, std::uint64_t ffn, std::uint64_t heads,
                                       std::uint64_t kv_heads, std::uint64_t head_dim, std::uint64_t vocab, bool tied,
                                       bool qkv_bias, bool qk_norm, std::uint64_t experts = 0) {
    std::vector<tensor_spec> t{{"token_embd.weight", {hidden, vocab}, Q8_0}};
    for (std::uint64_t i = 0; i < layers; ++i) {
        const std::string b = "blk." + std::to_string(i) + ".";
        t.push_back({b + "attn_norm.weight", {hidden}, F32});
        t.push_back({b + "attn_q.weight", {hidden, heads * head_dim}, Q8_0});
        t.push_back({b + "attn_k.weight", {hidden, kv_heads * head_dim}, Q8_0});
        t.push_back({b + "attn_v.weight", {hidden, kv_heads * head_dim}, Q8_0});
        if (qkv_bias) {
            t.push_back({b + "attn_q.bias", {heads * head_dim}, F32});
            t.push_back({b + "attn_k.bias", {kv_heads * head_dim}, F32});
            t.push_back({b + "attn_v.bias", {kv_heads * head_dim}, F32});
        }
        t.push_back({b + "attn_output.weight", {heads * head_dim, hidden}, Q8_0});
        if (qk_norm) {
            t.push_back({b + "attn_q_norm.weight", {head_dim}, F32});
            t.push_back({b + "attn_k_norm.weight", {head_dim}, F32});
        }
        t.push_back({b + "ffn_norm.weight", {hidden}, F32});
        if (experts == 0) {
            t.push_back({b + "ffn_gate.weight", {hidden, ffn}, Q8_0});
            t.push_back({b + "ffn_up.weight", {hidden, ffn}, Q8_0});
            t.push_back({b + "ffn_down.weight", {ffn, hidden}, Q8_0});
        } else {
            t.push_back({b + "ffn_gate_inp.weight", {hidden, experts}, F32});
            t.push_back({b + "ffn_gate_exps.weight", {hidden, ffn, experts}, Q8_0});
            t.push_back({b + "ffn_up_exps.weight", {hidden, ffn, experts}, Q8_0});
            t.push_back({b + "ffn_down_exps.weight", {ffn, hidden, experts}, Q8_0});
        }
    }
    t.push_back({"output_norm.weight", {hidden}, F32});
    if (!tied) t.push_back({"output.weight", {hidden, vocab}, Q8_0});
    return t;
}

json gguf_checkpoint(const kv_list& kv, const std::vector<tensor_spec>& tensors) {
    std::uint64_t file_bytes = 0;
    const std::string header = gguf_bytes(kv.w.bytes, kv.count, tensors, file_bytes);
    const gguf_parse p = parse_gguf_header(header, file_bytes, "m.gguf");
    INFO(first_error(p));
    REQUIRE(p.header.ok());
    return json::parse(checkpoint_gguf_json(p.header.value, "m.gguf"));
}
}  // namespace

TEST_CASE("GGUF: Qwen2.5-0.5B, Qwen3-30B-A3B and Mixtral 8x7B count exactly as their config.json", "[gguf]") {
    // Qwen/Qwen2.5-0.5B (tests/data/hf/qwen2_5_0_5b.json): 24 layers, hidden 896, FFN 4864, 14 heads of 64,
    // 2 KV heads, vocabulary 151,936, tied; q/k/v biases.
    const json qwen2 = gguf_checkpoint(model_kv("qwen2", 24, 896, 4864, 14, 2, 64, 151936),
                                       model_tensors(24, 896, 4864, 14, 2, 64, 151936, true, true, false));
    CAPTURE(qwen2.dump());
    CHECK(qwen2["model_type"] == "qwen2");
    CHECK(qwen2["params"] == memplan_params("qwen2_5_0_5b.json"));
    CHECK(qwen2["stored"]["values"] == qwen2["params"]);
    CHECK(qwen2["unexplained"] == 0);
    // Qwen/Qwen3-30B-A3B-Thinking-2507 (tests/data/hf/qwen3_30b_a3b_thinking_2507.json): 48 layers, hidden 2048,
    // 32 heads of 128, 4 KV heads, 128 experts of width 768, 8 used, vocabulary 151,936, untied; every layer sparse.
    const json moe = gguf_checkpoint(model_kv("qwen3moe", 48, 2048, 6144, 32, 4, 128, 151936, 128, 8, 768),
                                     model_tensors(48, 2048, 768, 32, 4, 128, 151936, false, false, true, 128));
    CAPTURE(moe.dump());
    CHECK(moe["model_type"] == "qwen3_moe");
    CHECK(moe["hf_config"]["mlp_only_layers"].empty());
    CHECK(moe["params"] == memplan_params("qwen3_30b_a3b_thinking_2507.json"));
    CHECK(moe["stored"]["values"] == moe["params"]);
    CHECK(moe["unexplained"] == 0);
    // mistralai/Mixtral-8x7B-v0.1 (tests/data/hf/mixtral_8x7b.json), which convert_hf_to_gguf.py writes as
    // "llama" with expert_count 8: 32 layers, hidden 4096, FFN 14336, 32 heads of 128, 8 KV heads, top 2,
    // vocabulary 32,000, untied.
    const json mixtral = gguf_checkpoint(model_kv("llama", 32, 4096, 14336, 32, 8, 128, 32000, 8, 2),
                                         model_tensors(32, 4096, 14336, 32, 8, 128, 32000, false, false, false, 8));
    CAPTURE(mixtral.dump());
    CHECK(mixtral["model_type"] == "mixtral");
    CHECK(mixtral["params"] == memplan_params("mixtral_8x7b.json"));
    CHECK(mixtral["stored"]["values"] == mixtral["params"]);
    CHECK(mixtral["unexplained"] == 0);
}
