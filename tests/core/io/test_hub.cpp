// A model on the Hugging Face Hub as the page reads it: the id typed (org/name, org/name@revision, a
// huggingface.co link; huggingface_hub's validate_repo_id rules), the range of a safetensors header
// from its first 8 bytes, the shards of an index, the headers fetched reconciled with memplan's count
// (tests/data/hf_cache: Qwen/Qwen3-0.6B's real header), and the Hub API's per-dtype counts.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "memplan/io/hub.hpp"
#include "memplan/io/safetensors.hpp"
#include "memplan/report/hub.hpp"

using namespace memplan;
using nlohmann::json;

namespace {
const std::string qwen = std::string(MEMPLAN_DATA_DIR) + "/hf_cache/models--Qwen--Qwen3-0.6B/snapshots/c1899de289a04d12100db370d81485cdf75e47ca";

std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string prefix(std::uint64_t n) {
    std::string out(8, '\0');
    for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
    return out;
}

std::string message(const std::string& text) {
    const auto parsed = parse_hub_model(text);
    REQUIRE(parsed.errors.size() == 1);
    CHECK(parsed.errors[0].field == "hub.model");
    return parsed.errors[0].message;
}
}  // namespace

TEST_CASE("parse_hub_model: org/name, @revision and huggingface.co links give the id, revision and addresses", "[hub]") {
    const auto plain = parse_hub_model("Qwen/Qwen3-0.6B");
    REQUIRE(plain.ok());
    CHECK(plain.value.id == "Qwen/Qwen3-0.6B");
    CHECK(plain.value.revision == "main");
    CHECK(plain.value.link == "Qwen/Qwen3-0.6B");
    CHECK(plain.value.files_url == "https://huggingface.co/Qwen/Qwen3-0.6B/resolve/main/");
    CHECK(plain.value.api_url == "https://huggingface.co/api/models/Qwen/Qwen3-0.6B/revision/main");
    const auto at = parse_hub_model("  Qwen/Qwen3-0.6B@c1899de289a04d12100db370d81485cdf75e47ca\n");
    REQUIRE(at.ok());
    CHECK(at.value.revision == "c1899de289a04d12100db370d81485cdf75e47ca");
    CHECK(at.value.link == "Qwen/Qwen3-0.6B@c1899de289a04d12100db370d81485cdf75e47ca");
    // A revision with '/' is quoted in the addresses, as huggingface_hub's hf_hub_url quotes it.
    const auto pr = parse_hub_model("meta-llama/Llama-3.1-8B@refs/pr/12");
    REQUIRE(pr.ok());
    CHECK(pr.value.files_url == "https://huggingface.co/meta-llama/Llama-3.1-8B/resolve/refs%2Fpr%2F12/");
    CHECK(pr.value.api_url == "https://huggingface.co/api/models/meta-llama/Llama-3.1-8B/revision/refs%2Fpr%2F12");
    for (const auto& [link, id, revision] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"https://huggingface.co/Qwen/Qwen3-0.6B", "Qwen/Qwen3-0.6B", "main"},
             {"https://huggingface.co/Qwen/Qwen3-0.6B/", "Qwen/Qwen3-0.6B", "main"},
             {"huggingface.co/Qwen/Qwen3-0.6B?library=transformers#top", "Qwen/Qwen3-0.6B", "main"},
             {"https://hf.co/Qwen/Qwen3-0.6B", "Qwen/Qwen3-0.6B", "main"},
             {"https://huggingface.co/Qwen/Qwen3-0.6B/tree/v1.0", "Qwen/Qwen3-0.6B", "v1.0"},
             {"https://huggingface.co/Qwen/Qwen3-0.6B/tree/main/subfolder", "Qwen/Qwen3-0.6B", "main"},
             {"https://huggingface.co/Qwen/Qwen3-0.6B/blob/abc123/config.json", "Qwen/Qwen3-0.6B", "abc123"},
             {"https://huggingface.co/Qwen/Qwen3-0.6B/resolve/main/config.json", "Qwen/Qwen3-0.6B", "main"},
             {"https://huggingface.co/org/m/tree/refs%2Fpr%2F3", "org/m", "refs/pr/3"},
             {"https://huggingface.co/org/m/blob/refs/pr/3/config.json", "org/m", "refs/pr/3"},
             {"https://huggingface.co/gpt2", "gpt2", "main"},
             {"https://huggingface.co/gpt2/blob/main/config.json", "gpt2", "main"},
         }) {
        CAPTURE(link);
        const auto parsed = parse_hub_model(link);
        REQUIRE(parsed.ok());
        CHECK(parsed.value.id == id);
        CHECK(parsed.value.revision == revision);
    }
}

TEST_CASE("parse_hub_model: what is not a Hub model id is refused naming hub.model", "[hub][errors]") {
    CHECK(message("") == "is empty: write org/name, org/name@revision or the model's https://huggingface.co/org/name link");
    CHECK(message("a/b/c").find("\"a/b/c\", which is not a Hub model id") != std::string::npos);
    CHECK(message("org/na me").find("not a Hub model id") != std::string::npos);
    CHECK(message("org/-name").find("not a Hub model id") != std::string::npos);
    CHECK(message("org/name.").find("not a Hub model id") != std::string::npos);
    CHECK(message("org--x/name").find("not a Hub model id") != std::string::npos);
    CHECK(message("org/..").find("not a Hub model id") != std::string::npos);
    CHECK(message("org/name.git").find("not a Hub model id") != std::string::npos);
    CHECK(message("org/" + std::string(97, 'a')).find("not a Hub model id") != std::string::npos);
    CHECK(parse_hub_model("org/" + std::string(96, 'a')).ok());
    CHECK(message("org/name@").rfind("ends in @ without a revision", 0) == 0);
    CHECK(message("org/name@../../etc").find("is not a branch, tag or commit") != std::string::npos);
    CHECK(message("org/name@a b").find("is not a branch, tag or commit") != std::string::npos);
    CHECK(message("https://example.com/org/name").rfind("is a link to another site than huggingface.co", 0) == 0);
    CHECK(message("https://huggingface.co.evil.example/org/name").rfind("is a link to another site", 0) == 0);
    CHECK(message("https://huggingface.co/datasets/org/data").rfind("is a link to a dataset, not to a model", 0) == 0);
    CHECK(message("https://huggingface.co/spaces/org/app").rfind("is a link to a Space, not to a model", 0) == 0);
    CHECK(message("https://huggingface.co/org/name/discussions/4").rfind("is a link to discussions of a model", 0) == 0);
    CHECK(message("https://huggingface.co/org/name/tree/a%20b").find("an escape other than %2F") != std::string::npos);
    CHECK(message(std::string(2000, 'a')).rfind("is longer than 1024 characters", 0) == 0);
    const json j = json::parse(hub_model_json("a/b/c"));
    CHECK(j["id"].is_null());
    CHECK(j["errors"][0]["field"] == "hub.model");
}

TEST_CASE("safetensors_range_json: the header's range from the first 8 bytes, bounded by the format and the file", "[hub][safetensors]") {
    std::uint64_t total = 0;
    CHECK(content_range_total("bytes 0-7/1503300328", total));
    CHECK(total == 1503300328ULL);
    CHECK_FALSE(content_range_total("bytes 0-7/*", total));
    CHECK_FALSE(content_range_total("", total));
    CHECK_FALSE(content_range_total("bytes 0-7/99999999999999999999999", total));
    const json ok = json::parse(safetensors_range_json(prefix(35552), "bytes 0-7/1503300328", "model.safetensors"));
    CHECK(ok["length"] == 35552);
    CHECK(ok["range"] == "bytes=8-35559");
    CHECK(ok["file_bytes"] == 1503300328ULL);
    CHECK(ok["errors"].empty());
    // Without a Content-Range (not exposed cross-origin) only the format's bound applies.
    CHECK(json::parse(safetensors_range_json(prefix(35552), "", "model.safetensors"))["file_bytes"].is_null());
    const json big = json::parse(safetensors_range_json(prefix(100000001), "", "model-00001-of-00002.safetensors"));
    CHECK(big["range"].is_null());
    CHECK(big["errors"][0]["field"] == "model-00001-of-00002.safetensors");
    CHECK(big["errors"][0]["message"] == "states a header of 100000001 bytes; a safetensors header has 2 to 100000000 bytes");
    CHECK(json::parse(safetensors_range_json(prefix(100000000), "", "f"))["range"] == "bytes=8-100000007");
    const json beyond = json::parse(safetensors_range_json(prefix(5000), "bytes 0-7/1000", "f.safetensors"));
    CHECK(beyond["errors"][0]["message"] == "states a header of 5000 bytes but holds only 1000 bytes");
    CHECK(json::parse(safetensors_range_json("abc", "", "f"))["errors"][0]["message"] ==
          "is not a safetensors file: shorter than its 8-byte header length");
}

TEST_CASE("safetensors_index_json and checkpoint_headers_json: the fetched headers read as memplan checkpoint reads files", "[hub][safetensors]") {
    const json files = json::parse(safetensors_index_json(
        R"({"weight_map": {"a": "model-00002-of-00002.safetensors", "b": "model-00001-of-00002.safetensors"}})", "model.safetensors.index.json"));
    CHECK(files["files"] == json::array({"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}));
    const json away = json::parse(safetensors_index_json(R"({"weight_map": {"a": "https://elsewhere.example/x.safetensors"}})",
                                                         "model.safetensors.index.json"));
    CHECK(away["errors"][0]["field"] == "model.safetensors.index.json");
    CHECK(away["errors"][0]["message"] == "weight_map.a names https://elsewhere.example/x.safetensors, which is not a file of the model's folder");

    const std::string file = read(qwen + "/model.safetensors");
    const std::string config = read(qwen + "/config.json");
    // The fixture's header: 35,339 bytes (its JSON written compactly; tests/data/hf_cache/SOURCE.md).
    REQUIRE(file.size() == 8 + 35339);
    const std::string header = file.substr(8);
    const json entry = json::array({{{"file", "model.safetensors"}, {"length", 35339}, {"header", header}}});
    const json r = json::parse(checkpoint_headers_json(config, entry.dump()));
    CHECK(r["errors"].empty());
    CHECK(r["params"] == 596049920ULL);
    CHECK(r["stored"]["by_dtype"]["BF16"]["values"] == 751632384ULL);
    CHECK(r["stored"]["by_dtype"]["BF16"]["bytes"] == 1503264768ULL);
    CHECK(r["unexplained"] == 0);
    // A reply cut short is named as such, with its file.
    const json cut = json::array({{{"file", "model.safetensors"}, {"length", 35339}, {"header", header.substr(0, 1000)}}});
    const json t = json::parse(checkpoint_headers_json(config, cut.dump()));
    CHECK(t["errors"][0]["field"] == "model.safetensors");
    CHECK(t["errors"][0]["message"] == "states a header of 35339 bytes but 1000 bytes came (a truncated reply)");
    const json html = json::array({{{"file", "model.safetensors"}, {"length", 6}, {"header", "<html>"}}});
    CHECK(json::parse(checkpoint_headers_json(config, html.dump()))["errors"][0]["message"] == "has a header that is not a JSON object");
    CHECK(json::parse(checkpoint_headers_json(config, "[]"))["errors"][0]["field"] == "headers");
    CHECK(json::parse(checkpoint_headers_json(config, R"([{"file": "x"}])"))["errors"][0]["field"] == "headers");
}

TEST_CASE("checkpoint_api_json: the Hub API's per-dtype counts at each dtype's width beside memplan's count", "[hub]") {
    const std::string config = read(qwen + "/config.json");
    const json r = json::parse(checkpoint_api_json(config, R"({"id": "Qwen/Qwen3-0.6B", "safetensors": {"parameters": {"BF16": 751632384}, "total": 751632384}})"));
    CHECK(r["errors"].empty());
    CHECK(r["params"] == 596049920ULL);
    CHECK(r["stored"]["values"] == 751632384ULL);
    CHECK(r["stored"]["bytes"] == 1503264768ULL);
    CHECK(r["stored"]["by_dtype"]["BF16"]["bytes"] == 1503264768ULL);
    CHECK(r["api_total"] == 751632384ULL);
    CHECK(r["difference"] == 151936ULL * 1024);  // the tied lm_head copy
    CHECK(r["larger"] == "stored");
    CHECK(r["note"].get<std::string>().find("tie_word_embeddings") != std::string::npos);
    const json mixed = json::parse(checkpoint_api_json(config, R"({"safetensors": {"parameters": {"F8_E4M3": 1000, "F32": 10, "F4": 3}}})"));
    CHECK(mixed["stored"]["by_dtype"]["F8_E4M3"]["bytes"] == 1000);
    CHECK(mixed["stored"]["by_dtype"]["F32"]["bytes"] == 40);
    CHECK(mixed["stored"]["by_dtype"]["F4"]["bytes"] == 2);  // 12 bits, rounded up to whole bytes
    CHECK(mixed["api_total"].is_null());
    CHECK(json::parse(checkpoint_api_json(config, "<html>"))["errors"][0]["field"] == "api");
    CHECK(json::parse(checkpoint_api_json(config, R"({"id": "x"})"))["errors"][0]["message"].get<std::string>().rfind("has no safetensors.parameters", 0) == 0);
    CHECK(json::parse(checkpoint_api_json(config, R"({"safetensors": {"parameters": {"Q4": 5}}})"))["errors"][0]["message"] ==
          "safetensors.parameters.Q4 is not a safetensors dtype");
    CHECK(json::parse(checkpoint_api_json(config, R"({"safetensors": {"parameters": {"BF16": -5}}})"))["errors"][0]["message"] ==
          "safetensors.parameters.BF16 must be a count of values");
}

TEST_CASE("safetensors headers and indexes read from the parser's events: as a parsed document reads them", "[hub][safetensors]") {
    // A name given twice keeps its last value, names come in order, members memplan does not read and
    // __metadata__ (at any depth) are skipped.
    const auto two = parse_safetensors_header(
        R"({"b": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "__metadata__": {"format": {"x": [1, [2]]}},)"
        R"( "a": {"dtype": "F16", "shape": [2, 3], "data_offsets": [0, 12], "extra": {"shape": [[9]]}},)"
        R"( "b": {"dtype": "BF16", "shape": [4], "data_offsets": [4, 12]}})", "f");
    REQUIRE(two.ok());
    REQUIRE(two.value.size() == 2);
    CHECK(two.value[0].name == "a");
    CHECK(two.value[0].shape == std::vector<std::uint64_t>{2, 3});
    CHECK(two.value[1].name == "b");
    CHECK(two.value[1].dtype == "BF16");
    CHECK(two.value[1].bytes == 8);
    // A member given twice keeps its last value too.
    CHECK(parse_safetensors_header(R"({"t": {"dtype": "F32", "shape": [2], "shape": [1], "data_offsets": [0, 4]}})", "f").ok());
    const auto first = [](const std::string& text) {
        const auto o = parse_safetensors_header(text, "f");
        return o.errors.empty() ? std::string() : o.errors[0].message;
    };
    CHECK(first("[1, 2]") == "has a header that is not a JSON object");
    CHECK(first("7") == "has a header that is not a JSON object");
    CHECK(first(R"({"t": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}} trailing)") == "has a header that is not a JSON object");
    CHECK(first(R"({"t": [1]})") == "tensor t must be an object with dtype, shape and data_offsets");
    CHECK(first(R"({"t": {"dtype": 5, "shape": [1], "data_offsets": [0, 4]}})") == "tensor t must be an object with dtype, shape and data_offsets");
    CHECK(first(R"({"t": {"dtype": "F32", "shape": {"0": 1}, "data_offsets": [0, 4]}})") == "tensor t must be an object with dtype, shape and data_offsets");
    CHECK(first(R"({"t": {"dtype": "F32", "shape": [[1]], "data_offsets": [0, 4]}})") == "tensor t must have a shape of non-negative sizes");
    CHECK(first(R"({"t": {"dtype": "F32", "shape": [1.5], "data_offsets": [0, 4]}})") == "tensor t must have a shape of non-negative sizes");
    CHECK(first(R"({"t": {"dtype": "F32", "shape": [1], "data_offsets": [0, "4"]}})") == "tensor t must have data_offsets [begin, end] spanning its 4 bytes");
    CHECK(first(R"({"t": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4, 8]}})") == "tensor t must have data_offsets [begin, end] spanning its 4 bytes");
    CHECK(first(R"({"t": {"dtype": "F32", "shape": [], "data_offsets": [4, 8]}})").empty());  // a scalar: one value

    const auto files = [](const std::string& text) {
        const auto o = safetensors_index_files(text, "i");
        return o.errors.empty() ? json(o.value).dump() : o.errors[0].message;
    };
    CHECK(files(R"({"metadata": {"weight_map": {"x": "no.safetensors"}}, "weight_map": {"b": "2.safetensors", "a": "1.safetensors"}})") ==
          R"(["1.safetensors","2.safetensors"])");
    CHECK(files(R"({"weight_map": {"a": "old.safetensors"}, "weight_map": {"a": "new.safetensors"}})") == R"(["new.safetensors"])");
    CHECK(files(R"({"weight_map": ["a.safetensors"]})") == "must be a JSON object with a non-empty weight_map");
    CHECK(files(R"({"weight_map": "a.safetensors"})") == "must be a JSON object with a non-empty weight_map");
    CHECK(files(R"({"metadata": {}})") == "must be a JSON object with a non-empty weight_map");
    CHECK(files(R"(["weight_map"])") == "must be a JSON object with a non-empty weight_map");
    CHECK(files(R"({"weight_map": {"a": {"file": "x"}}})") == "weight_map.a must be a file name");
    CHECK(files(R"({"weight_map": {"a": 3}})") == "weight_map.a must be a file name");
    CHECK(files(R"({"weight_map": {"a": "x\\y.safetensors"}})") == "weight_map.a names x\\y.safetensors, which is not a file of the model's folder");
}
