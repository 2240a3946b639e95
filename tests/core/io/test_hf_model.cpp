// A model's checkpoint read from disk: safetensors headers parsed from their bytes (the core), and
// `memplan checkpoint --hf-model` / `estimate --hf-model` over a model folder or the Hugging Face
// cache (tests/data/hf_cache: real tensor names, dtypes and shapes; headers only, no weights).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "memplan/io/safetensors.hpp"
#include "memplan/report/json.hpp"

using namespace memplan;
using nlohmann::json;

namespace {
const std::string cache = std::string(MEMPLAN_DATA_DIR) + "/hf_cache";

/// The 8-byte little-endian length prefix of `n`.
std::string prefix(std::uint64_t n) {
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
    return out;
}

/// A folder under /tmp holding config.json (Qwen3-0.6B's) and `files` {name, bytes}.
std::string folder_with(const std::string& name, const std::vector<std::pair<std::string, std::string>>& files) {
    const std::string dir = "/tmp/memplan-test-" + name;
    REQUIRE(std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "' && cp '" + cache +
                         "/qwen3-0.6b-sharded/config.json' '" + dir + "/'").c_str()) == 0);
    for (const auto& [file, bytes] : files) std::ofstream(dir + "/" + file, std::ios::binary) << bytes;
    return dir;
}

/// `memplan ARGS` with HF_HUB_CACHE (or HF_HOME) set to `value` for the run.
cli_output run_with(const char* variable, const std::string& value, const std::vector<std::string>& args) {
    setenv(variable, value.c_str(), 1);
    const cli_output out = run_cli(args);
    unsetenv(variable);
    return out;
}
}  // namespace

TEST_CASE("safetensors headers: the length prefix, the tensors and the index, bounded", "[hf][safetensors]") {
    const std::string header = R"({"__metadata__": {"format": "pt"}, "a.weight": {"dtype": "BF16", "shape": [3, 4],
        "data_offsets": [0, 24]}, "b.scale": {"dtype": "F8_E4M3", "shape": [5], "data_offsets": [24, 29]}})";
    const auto parsed = parse_safetensors_header(header, "x.safetensors");
    REQUIRE(parsed.ok());
    REQUIRE(parsed.value.size() == 2);
    CHECK(parsed.value[0].name == "a.weight");
    CHECK(parsed.value[0].values == 12);
    CHECK(parsed.value[0].bytes == 24);
    CHECK(parsed.value[1].bytes == 5);
    CHECK(safetensors_header_length(prefix(header.size()) + header, 8 + header.size(), "x").value == header.size());
    // Bounds, each error naming the file.
    const auto first = [](const outcome<std::uint64_t>& o) { return o.errors.empty() ? std::string() : o.errors[0].field + ": " + o.errors[0].message; };
    CHECK(first(safetensors_header_length("abc", 3, "x.safetensors")) ==
          "x.safetensors: is not a safetensors file: shorter than its 8-byte header length");
    CHECK(first(safetensors_header_length(prefix(1000000000), 2000000000, "x.safetensors")) ==
          "x.safetensors: states a header of 1000000000 bytes; a safetensors header has 2 to 100000000 bytes");
    CHECK(first(safetensors_header_length(prefix(5000), 100, "x.safetensors")) ==
          "x.safetensors: states a header of 5000 bytes but holds only 100 bytes");
    CHECK(first(safetensors_header_length(prefix(0), 100, "x")).find("a safetensors header has 2 to") != std::string::npos);
    const auto bad = [](const std::string& text) {
        const auto o = parse_safetensors_header(text, "x.safetensors");
        return o.errors.empty() ? std::string() : o.errors[0].message;
    };
    CHECK(bad("not json") == "has a header that is not a JSON object");
    CHECK(bad(R"({"t": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 3]}})") ==
          "tensor t must have data_offsets [begin, end] spanning its 4 bytes");
    CHECK(bad(R"({"t": {"dtype": "Q4_K", "shape": [2], "data_offsets": [0, 1]}})") == "tensor t has an unknown dtype Q4_K");
    CHECK(bad(R"({"t": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 1]}})") == "tensor t must have a shape of non-negative sizes");
    CHECK(bad(R"({"t": {"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 1]}})") ==
          "tensor t must have a shape of non-negative sizes");  // 2^64 values: refused, not wrapped
    const auto shards = safetensors_index_files(R"({"weight_map": {"a": "m-1.safetensors", "b": "m-2.safetensors", "c": "m-1.safetensors"}})", "i");
    REQUIRE(shards.ok());
    CHECK(shards.value == std::vector<std::string>{"m-1.safetensors", "m-2.safetensors"});
    const auto outside = safetensors_index_files(R"({"weight_map": {"a": "../../etc/passwd"}})", "model.safetensors.index.json");
    REQUIRE(!outside.ok());
    CHECK(outside.errors[0].message == "weight_map.a names ../../etc/passwd, which is not a file of the model's folder");
    CHECK(!safetensors_index_files(R"({"weight_map": {}})", "i").ok());
}

TEST_CASE("memplan checkpoint --hf-model: Qwen3-0.6B from the Hugging Face cache, its stored tied copy explained",
          "[hf][safetensors][cli]") {
    // Qwen/Qwen3-0.6B: the Hub API (safetensors.parameters) gives BF16 751,632,384, and model.safetensors is
    // 1,503,300,328 bytes (8 + its 35,552-byte header + 2 · 751,632,384). memplan counts 596,049,920: the
    // checkpoint also stores lm_head.weight (151,936 × 1024 = 155,582,464) although the embedding is tied.
    const cli_output out = run_with("HF_HUB_CACHE", cache, {"checkpoint", "--hf-model", "Qwen/Qwen3-0.6B"});
    REQUIRE(out.status == 0);
    const json r = json::parse(out.out);
    CHECK(r["model_type"] == "qwen3");
    CHECK(r["params"] == 596049920ULL);
    CHECK(r["stored"]["values"] == 751632384ULL);
    CHECK(r["stored"]["bytes"] == 2ULL * 751632384);
    CHECK(r["stored"]["tensors"] == 311);  // 28 layers · 11 tensors + embed_tokens, norm, lm_head
    CHECK(r["stored"]["by_dtype"]["BF16"]["bytes"] == 1503264768ULL);
    CHECK(r["unexplained"] == 0);
    for (const auto& part : r["parts"]) {
        CAPTURE(part.dump());
        if (part["part"] == "output") {
            CHECK(part["stored"] == 151936ULL * 1024);
            CHECK(part["memplan"] == 0);
            CHECK(part["note"].get<std::string>().find("tie_word_embeddings") != std::string::npos);
        } else {
            CHECK(part["difference"] == 0);
        }
    }
    // HF_HOME/hub is the cache when HF_HUB_CACHE is unset; the cache folder and the snapshot folder read the same.
    REQUIRE(std::system(("rm -rf /tmp/memplan-test-home && mkdir -p /tmp/memplan-test-home && ln -s '" + cache +
                         "' /tmp/memplan-test-home/hub").c_str()) == 0);
    CHECK(run_with("HF_HOME", "/tmp/memplan-test-home", {"checkpoint", "--hf-model", "Qwen/Qwen3-0.6B"}).out == out.out);
    CHECK(run_cli({"checkpoint", "--hf-model", cache + "/models--Qwen--Qwen3-0.6B"}).out == out.out);
    // The same tensors in two shards with an index give the same answer.
    const json sharded = json::parse(run_cli({"checkpoint", "--hf-model", cache + "/qwen3-0.6b-sharded"}).out);
    CHECK(sharded["stored"] == r["stored"]);
    CHECK(sharded["parts"] == r["parts"]);
    // estimate --hf-model reads the folder's config.json as --hf-config does.
    const std::string config = cache + "/qwen3-0.6b-sharded/config.json";
    CHECK(run_cli({"estimate", "--hf-model", cache + "/qwen3-0.6b-sharded"}).out == run_cli({"estimate", "--hf-config", config}).out);
    CHECK(json::parse(run_cli({"estimate", "--hf-model", cache + "/qwen3-0.6b-sharded"}).out)["params"] == 596049920ULL);
}

TEST_CASE("memplan checkpoint --hf-model: broken files are refused naming the file", "[hf][safetensors][cli][errors]") {
    const auto error = [](const std::vector<std::string>& args) {
        const cli_output out = run_with("HF_HUB_CACHE", cache, args);
        CHECK(out.status == 2);
        const json r = json::parse(out.out);
        REQUIRE(!r["errors"].empty());
        return r["errors"][0]["field"].get<std::string>() + ": " + r["errors"][0]["message"].get<std::string>();
    };
    // A header claiming a gigabyte (and a file too short for it), non-JSON, and an index pointing elsewhere.
    const std::string big = folder_with("big", {{"model.safetensors", prefix(1000000000) + "{}"}});
    CHECK(error({"checkpoint", "--hf-model", big}) == big + "/model.safetensors: states a header of 1000000000 bytes; a "
                                                            "safetensors header has 2 to 100000000 bytes");
    const std::string short_file = folder_with("short", {{"model.safetensors", prefix(64) + "{}"}});
    CHECK(error({"checkpoint", "--hf-model", short_file}) ==
          short_file + "/model.safetensors: states a header of 64 bytes but holds only 10 bytes");
    const std::string text = folder_with("text", {{"model.safetensors", prefix(8) + "not json"}});
    CHECK(error({"checkpoint", "--hf-model", text}) == text + "/model.safetensors: has a header that is not a JSON object");
    const std::string away = folder_with("away", {{"model.safetensors.index.json", R"({"weight_map": {"a": "../big/model.safetensors"}})"}});
    CHECK(error({"checkpoint", "--hf-model", away}) == away + "/model.safetensors.index.json: weight_map.a names "
                                                              "../big/model.safetensors, which is not a file of the model's folder");
    const std::string none = folder_with("none", {});
    CHECK(error({"checkpoint", "--hf-model", none}) ==
          "hf_model: " + none + " holds neither model.safetensors nor model.safetensors.index.json");
    CHECK(error({"checkpoint", "--hf-model", "nobody/nothing"}) ==
          "hf_model: nobody/nothing is not in the Hugging Face cache (" + cache +
              "/models--nobody--nothing does not exist; memplan reads no network)");
    CHECK(error({"checkpoint", "--hf-model", "not a path"}) == "hf_model: not a path is neither a folder nor a model id ORG/NAME");
}

TEST_CASE("checkpoint_json: stored tensors assigned to memplan's parts, differences explained or counted",
          "[hf][safetensors]") {
    // A two-layer Llama (modeling_llama.py names): embed_tokens, q/k/v/o, gate/up/down, two norms per layer,
    // the final norm and an untied lm_head; plus an FP8 scale and a rotary buffer, which are no parameters.
    const std::string config = R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 64,
        "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 10, "tie_word_embeddings": false})";
    const auto t = [](const std::string& name, std::vector<std::uint64_t> shape, const char* dtype = "BF16") {
        stored_tensor s{name, dtype, shape, 1, 0};
        for (auto d : shape) s.values *= d;
        s.bytes = s.values * (std::string(dtype) == "F32" ? 4 : 2);
        return s;
    };
    std::vector<stored_tensor> tensors = {t("model.embed_tokens.weight", {10, 64}), t("model.norm.weight", {64}),
                                          t("lm_head.weight", {10, 64})};
    for (int i = 0; i < 2; ++i) {
        const std::string p = "model.layers." + std::to_string(i) + ".";
        for (const char* m : {"q_proj", "k_proj", "v_proj", "o_proj"}) tensors.push_back(t(p + "self_attn." + m + ".weight", {64, 64}));
        tensors.push_back(t(p + "mlp.gate_proj.weight", {128, 64}));
        tensors.push_back(t(p + "mlp.up_proj.weight", {128, 64}));
        tensors.push_back(t(p + "mlp.down_proj.weight", {64, 128}));
        tensors.push_back(t(p + "input_layernorm.weight", {64}));
        tensors.push_back(t(p + "post_attention_layernorm.weight", {64}));
    }
    tensors.push_back(t("model.layers.0.self_attn.q_proj.weight_scale_inv", {1, 1}, "F32"));
    tensors.push_back(t("model.layers.0.self_attn.rotary_emb.inv_freq", {8}, "F32"));
    const json r = json::parse(checkpoint_json(config, tensors));
    REQUIRE(r["errors"].empty());
    // By hand: 2 · 640 (embedding, lm_head) + 2 · (4 · 64² + 3 · 64 · 128 + 2 · 64) + 64.
    CHECK(r["params"] == 2ULL * 640 + 2 * (4 * 4096 + 3 * 8192 + 128) + 64);
    CHECK(r["stored"]["values"] == r["params"].get<std::uint64_t>() + 1 + 8);
    CHECK(r["stored"]["by_dtype"]["F32"]["bytes"] == 4 * 9);
    CHECK(r["unexplained"] == 0);
    std::map<std::string, json> parts;
    for (const auto& p : r["parts"]) parts[p["part"].get<std::string>()] = p;
    CHECK(parts["attention"]["stored"] == 2 * 4 * 4096);
    CHECK(parts["mlp"]["stored"] == 2 * 3 * 8192);
    CHECK(parts["norms"]["stored"] == 2 * 128 + 64);
    CHECK(parts["quantization"]["stored"] == 1);
    CHECK(parts["buffers"]["stored"] == 8);
    CHECK(parts["buffers"].contains("note"));
    // A tensor missing from the checkpoint is a difference no note explains, in its part.
    tensors.erase(tensors.begin() + 2);  // lm_head.weight
    const json missing = json::parse(checkpoint_json(config, tensors));
    CHECK(missing["unexplained"] == 640);
    for (const auto& p : missing["parts"])
        if (p["part"] == "output") {
            CHECK(p["memplan"] == 640);
            CHECK(p["stored"] == 0);
            CHECK(p["larger"] == "memplan");
        }
    // A config memplan refuses is refused here too, naming the key.
    CHECK(json::parse(checkpoint_json(R"({"hidden_size": 64})", tensors))["errors"][0]["field"] == "hf_config.model_type");
}

TEST_CASE("memplan checkpoint --hf-model: a header of 100,000 tensors is read in bounded time", "[hf][safetensors][cli]") {
    // Big checkpoints list some 100,000 tensors (DeepSeek-V3's index); an insertion-ordered JSON object
    // searches its keys linearly on each insert, which made this header take minutes. Killed after 60 s.
    std::string header = R"({"__metadata__": {"format": "pt"})";
    for (int i = 0; i < 100000; ++i)
        header += ", \"model.layers." + std::to_string(i % 28) + ".mlp.experts." + std::to_string(i) +
                  ".up_proj.weight\": {\"dtype\": \"F8_E4M3\", \"shape\": [8, 8], \"data_offsets\": [" +
                  std::to_string(64 * i) + ", " + std::to_string(64 * i + 64) + "]}";
    header += "}";
    const std::string dir = folder_with("many", {{"model.safetensors", prefix(header.size()) + header}});
    const cli_output out = run_cli_piped("true", {"checkpoint", "--hf-model", dir}, 60);
    REQUIRE(out.status == 0);
    const json r = json::parse(out.out);
    CHECK(r["stored"]["tensors"] == 100000);
    CHECK(r["stored"]["by_dtype"]["F8_E4M3"]["bytes"] == 6400000);
}
