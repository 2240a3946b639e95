// The schema table: every field is described completely, and the JSON reader, validation and the
// resolved-configuration echo agree with it field by field.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"
#include "memplan/config/schema.hpp"

using namespace memplan;
using nlohmann::json;

namespace {
/// {"a": {"b": value}} for path "a.b"; {"a": value} for "a".
json nested(const std::string& path, const json& value) {
    const auto dot = path.find('.');
    if (dot == std::string::npos) return json{{path, value}};
    return json{{path.substr(0, dot), json{{path.substr(dot + 1), value}}}};
}

/// The errors of a configuration that sets only `path`, as "field: message" lines.
std::vector<std::string> errors_of(const std::string& path, const json& value) {
    json config = nested(path, value);
    if (path.rfind("model.", 0) == 0) config["model"]["params"] = 7000000000ULL;  // keep the model valid
    const auto parsed = parse_config(config.dump());
    std::vector<std::string> out;
    for (const auto& e : parsed.errors) out.push_back(e.field + ": " + e.message);
    return out;
}
}  // namespace

TEST_CASE("every schema field has a label, help, modes, a default and a range or choices", "[schema]") {
    const json schema = json::parse(schema_json());
    REQUIRE(schema["version"] == 1);
    REQUIRE(schema["fields"].size() == config_fields().size() + model_fields().size());
    std::set<std::string> paths;
    for (const auto& f : schema["fields"]) {
        const std::string path = f["path"];
        CAPTURE(path);
        CHECK(paths.insert(path).second);  // no path twice
        CHECK_FALSE(f["label"].get<std::string>().empty());
        CHECK_FALSE(f["help"].get<std::string>().empty());
        CHECK_FALSE(f["modes"].empty());
        CHECK_FALSE(f["message"].get<std::string>().empty());
        REQUIRE(f.contains("default"));
        const std::string type = f["type"];
        if (type == "integer" || type == "bytes") {
            CHECK(f["min"].get<std::uint64_t>() <= f["max"].get<std::uint64_t>());
            CHECK(f["max"].get<std::uint64_t>() <= max_exact_integer);
            if (!f["default"].is_null()) {
                CHECK(f["default"].get<std::uint64_t>() <= f["max"].get<std::uint64_t>());
            }
        }
        if (type == "choice") {
            REQUIRE(f["choices"].size() >= 2);
            if (!f["default"].is_null()) {
                const auto& c = f["choices"];
                CHECK(std::find(c.begin(), c.end(), f["default"]) != c.end());
            }
        }
        if (type == "boolean") CHECK(f["default"].is_boolean());
    }
    CHECK(schema["limits"]["max_exact_integer"] == 9007199254740992ULL);
}

TEST_CASE("schema defaults are the configuration structs' defaults", "[schema]") {
    const json schema = json::parse(schema_json());
    std::map<std::string, json> by_path;
    for (const auto& f : schema["fields"]) by_path[f["path"]] = f["default"];
    // Published in docs/schema.md; the page builds its form from these.
    CHECK(by_path["mode"] == "train");
    CHECK(by_path["parallel.gpus"] == 1);
    CHECK(by_path["parallel.zero_stage"] == 0);
    CHECK(by_path["parallel.fsdp"].is_null());
    CHECK(by_path["parallel.zero_bucket_params"] == 500000000);
    CHECK(by_path["train.seq_len"] == 2048);
    CHECK(by_path["train.recompute"] == "none");
    CHECK(by_path["train.optimizer"] == "adam");
    CHECK(by_path["train.microbatches_in_flight"].is_null());
    CHECK(by_path["infer.context_len"] == 2048);
    CHECK(by_path["infer.weight_dtype"].is_null());  // not given: a checkpoint served as it is stored
    CHECK(by_path["infer.flash_attention"] == true);
    CHECK(by_path["gpu.memory_bytes"].is_null());
    // Where the stored number is not what a person types, the text the page's box opens on.
    for (const auto& f : schema["fields"])
        if (f["path"] == "infer.gpu_memory_utilization_permille") CHECK(f["default_text"] == "0.9");
}

TEST_CASE("the JSON reader accepts each field's bounds and refuses one past them with the schema's message",
          "[schema][json]") {
    for (const auto* table : {&config_fields(), &model_fields()}) {
        for (const field_spec& f : *table) {
            const std::string path = f.path;
            CAPTURE(path);
            const std::string expected = path + ": " + field_message(f);
            switch (f.type) {
                case field_type::integer:
                case field_type::bytes:
                    if (path == "model.params") break;  // set by errors_of itself
                    CHECK(errors_of(path, f.min).empty());
                    CHECK(errors_of(path, f.max).empty());
                    CHECK(errors_of(path, f.max + 1) == std::vector<std::string>{expected});
                    if (f.min > 0) CHECK(errors_of(path, f.min - 1) == std::vector<std::string>{expected});
                    CHECK(errors_of(path, "7") == std::vector<std::string>{expected});
                    CHECK(errors_of(path, 1.5) == std::vector<std::string>{expected});
                    break;
                case field_type::boolean:
                    CHECK(errors_of(path, true).empty());
                    CHECK(errors_of(path, 1) == std::vector<std::string>{expected});
                    break;
                case field_type::choice: {
                    std::string all = f.choices();
                    for (std::size_t start = 0; start <= all.size();) {
                        const auto end = std::min(all.find(',', start), all.size());
                        const std::string name = all.substr(start, end - start);
                        CAPTURE(name);
                        CHECK(errors_of(path, name).empty());
                        start = end + 1;
                    }
                    CHECK(errors_of(path, "no-such-name") == std::vector<std::string>{expected});
                    break;
                }
                case field_type::text: CHECK(errors_of(path, 3) == std::vector<std::string>{expected}); break;
            }
        }
    }
}

TEST_CASE("range messages read as people write them", "[schema]") {
    CHECK(field_message(*find_field("parallel.zero_stage")) == "must be 0, 1, 2 or 3");
    CHECK(field_message(*find_field("train.micro_batch")) == "must be an integer from 1 to 1048576");
    CHECK(field_message(*find_field("train.recompute")) == "must be one of: none, selective, full, selective_op");
    CHECK(field_message(*find_field("parallel.sequence_parallel")) == "must be true or false");
    CHECK(find_field("no.such.field") == nullptr);
}

TEST_CASE("the result echoes the resolved configuration", "[schema][json]") {
    const json out = json::parse(estimate_json(
        R"({"model": {"preset": "llama-3-8b"}, "parallel": {"gpus": 16, "fsdp": "full_shard"},
            "gpu": {"memory_bytes": 80e9}})"));
    REQUIRE(out["errors"].empty());
    const json& c = out["config"];
    CHECK(c["mode"] == "train");
    CHECK(c["parallel"]["fsdp"] == "full_shard");
    CHECK(c["parallel"]["zero_stage"] == 3);  // the FSDP name resolved
    CHECK(c["parallel"]["zero_shard_size"].is_null());
    CHECK(c["train"]["seq_len"] == 2048);     // a default filled in
    CHECK(c["gpu"]["memory_bytes"] == 80000000000ULL);
    CHECK(c["model"]["num_hidden_layers"] == 32);
    CHECK(c["model"]["num_key_value_heads"] == 8);
    CHECK(out["gpu"]["capacity_bytes"] == 80000000000ULL);
    // The echo is itself a valid configuration that gives the same result.
    json again = c;
    again["model"] = json{{"preset", "llama-3-8b"}};
    const json replay = json::parse(estimate_json(again.dump()));
    REQUIRE(replay["errors"].empty());
    CHECK(replay["per_gpu"] == out["per_gpu"]);
}

TEST_CASE("FSDP hybrid sharding shards over the data-parallel ranks of one node", "[schema][fsdp]") {
    const std::string model = R"("model": {"preset": "llama-2-7b"}, "train": {"recompute": "full"})";
    // 16 GPUs, 4 per node: weights sharded over 4 (6,738,415,616 params × 2 B / 4 = 3,369,207,808 B).
    const json four = json::parse(
        estimate_json("{" + model + R"(, "parallel": {"fsdp": "hybrid_shard", "gpus": 16, "gpus_per_node": 4}})"));
    REQUIRE(four["errors"].empty());
    CHECK(four["per_gpu"]["weights"] == 3369207808ULL);
    CHECK(four["config"]["parallel"]["zero_shard_size"] == 4);
    // 4 GPUs in one 8-GPU node: one shard group of all 4, no error on a key the user never set.
    const json small = json::parse(estimate_json("{" + model + R"(, "parallel": {"fsdp": "hybrid_shard", "gpus": 4}})"));
    REQUIRE(small["errors"].empty());
    CHECK(small["per_gpu"]["weights"] == 3369207808ULL);
    // With tp 2, a node of 8 holds 4 data-parallel ranks.
    const json tp2 = json::parse(
        estimate_json("{" + model + R"(, "parallel": {"fsdp": "hybrid_shard", "gpus": 16, "tp": 2}})"));
    REQUIRE(tp2["errors"].empty());
    CHECK(tp2["config"]["parallel"]["zero_shard_size"] == 4);
    // A contradictory explicit stage is refused rather than silently overridden.
    const auto both = parse_config(R"({"parallel": {"fsdp": "full_shard", "zero_stage": 2}})");
    REQUIRE(both.errors.size() == 1);
    CHECK(both.errors[0].field == "parallel.zero_stage");
    CHECK(both.errors[0].message == "is 2 but parallel.fsdp full_shard means ZeRO stage 3");
}

TEST_CASE("docs/schema.md carries the schema's tables verbatim", "[schema][docs]") {
    std::ifstream in(std::string(MEMPLAN_DATA_DIR) + "/../../docs/schema.md");
    REQUIRE(in.good());
    const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string begin = "<!-- schema:begin (generated by `memplan schema --markdown`) -->\n";
    const std::string end = "<!-- schema:end -->";
    const auto a = doc.find(begin), b = doc.find(end);
    REQUIRE(a != std::string::npos);
    REQUIRE(b != std::string::npos);
    CHECK(doc.substr(a + begin.size(), b - a - begin.size()) == schema_markdown());
}

TEST_CASE("web/memplan.d.ts declares the configuration exactly as the schema generates it", "[schema][docs]") {
    std::ifstream in(std::string(MEMPLAN_DATA_DIR) + "/../../web/memplan.d.ts");
    REQUIRE(in.good());
    const std::string dts((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string begin =
        "// schema:begin (generated by `memplan schema --typescript` from the core's schema; a test keeps it equal)\n";
    const auto a = dts.find(begin), b = dts.find("// schema:end");
    REQUIRE(a != std::string::npos);
    REQUIRE(b != std::string::npos);
    CHECK(dts.substr(a + begin.size(), b - a - begin.size()) == schema_typescript());
    // The generated types name every choice, so TypeScript users see the allowed names.
    CHECK(schema_typescript().find("engine?: 'none' | 'vllm' | 'sglang' | 'trtllm';") != std::string::npos);
    // The configuration echo of every result (ResolvedConfig): each field present, null where the echo writes
    // null (an optional integer or choice not set, a text), so that a reader of result.config handles it.
    const std::string ts = schema_typescript();
    CHECK(ts.find("export interface ResolvedConfig {\n  mode: 'train' | 'infer';\n") != std::string::npos);
    CHECK(ts.find("    seq_len: number;\n") != std::string::npos);
    CHECK(ts.find("    recompute_layers: number | null;\n") != std::string::npos);
    CHECK(ts.find("    fsdp: 'full_shard' | 'shard_grad_op' | 'hybrid_shard' | 'hybrid_shard_zero2' | 'no_shard' | null;\n") !=
          std::string::npos);
    CHECK(ts.find("    model_type: string | null;\n") != std::string::npos);
}

TEST_CASE("ResolvedConfig of web/memplan.d.ts has the keys and nulls of the configuration echo", "[schema][docs]") {
    // Every key the echo writes is declared, and a null only where the declaration allows it.
    const json echo = json::parse(estimate_json(R"({"model": {"preset": "llama-3.1-8b"}, "train": {"modules_to_save": ""}})"));
    REQUIRE(echo["errors"].empty());
    const std::string ts = schema_typescript();
    const std::string body = ts.substr(ts.find("export interface ResolvedConfig {"));
    for (const auto& item : echo["config"].items()) {
        const std::string& key = item.key();
        const json& value = item.value();
        if (!value.is_object()) {
            CHECK(body.find("\n  " + key + ": ") != std::string::npos);
            continue;
        }
        const auto open = body.find("\n  " + key + ": {\n");
        REQUIRE(open != std::string::npos);
        const std::string section = body.substr(open, body.find("\n  };", open) - open);
        for (const auto& entry : value.items()) {
            const auto at = section.find("\n    " + entry.key() + ": ");
            CHECK(at != std::string::npos);
            if (entry.value().is_null()) CHECK(section.substr(at, section.find(';', at) - at).find("| null") != std::string::npos);
        }
    }
}
