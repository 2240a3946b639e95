// The core's tables and their helpers: layer_params sums and comparison, the MTP modules held as one
// layer_params, the model families (memplan/model/families.hpp) and the serving engines
// (memplan/serving/engines.hpp), each checked against what the code that reads them does.
#include <catch2/catch.hpp>

#include <algorithm>
#include <dirent.h>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "memplan/config/schema.hpp"
#include "memplan/io/json.hpp"
#include "memplan/io/presets.hpp"
#include "memplan/model/arch.hpp"
#include "memplan/model/families.hpp"
#include "memplan/report/json.hpp"
#include "memplan/serving/serving.hpp"
#include "config/names.hpp"
#include "serving/engines.hpp"

using namespace memplan;

namespace {
/// A Hugging Face fixture of tests/data/hf, without its "_source" note (kept in one that nlohmann cannot parse).
std::string hf_fixture(const std::string& name) {
    std::ifstream in(std::string(MEMPLAN_DATA_DIR) + "/hf/" + name);
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, false);
    if (doc.is_discarded()) return text.str();  // Python's bare Infinity (memplan reads it; nlohmann does not)
    doc.erase("_source");
    return doc.dump();
}

model_config model_of(const std::string& fixture) {
    const auto parsed = parse_config(R"({"mode": "infer"})", hf_fixture(fixture));
    if (!parsed.ok()) FAIL(parsed.errors[0].field + ": " + parsed.errors[0].message);
    return parsed.value.model;
}

/// The names of the Hugging Face fixtures (tests/data/hf/*.json).
std::vector<std::string> hf_fixtures() {
    std::vector<std::string> out;
    DIR* dir = opendir((std::string(MEMPLAN_DATA_DIR) + "/hf").c_str());
    REQUIRE(dir != nullptr);
    while (const dirent* e = readdir(dir)) {
        const std::string name = e->d_name;
        if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) out.push_back(name);
    }
    closedir(dir);
    std::sort(out.begin(), out.end());
    return out;
}

/// The reads of a family's key reader over a JSON object, each key recorded.
class recording_keys final : public hf_config_keys {
public:
    explicit recording_keys(const nlohmann::json& object) : o_(object) {}
    std::set<std::string> asked;
    bool contains(const char* key) const override {
        asked_mutable().insert(key);
        return o_.contains(key);
    }
    bool given(const char* key) const override { return contains(key) && !o_.at(key).is_null(); }
    std::uint64_t integer(const char* key, std::uint64_t fallback, std::uint64_t, std::uint64_t) override {
        return given(key) && o_.at(key).is_number_unsigned() ? o_.at(key).get<std::uint64_t>() : fallback;
    }
    void boolean(const char* key, bool& out) override {
        if (given(key) && o_.at(key).is_boolean()) out = o_.at(key).get<bool>();
    }
    void text(const char* key, std::string& out) override {
        if (given(key) && o_.at(key).is_string()) out = o_.at(key).get<std::string>();
    }
    bool index_list(const char* key, std::uint64_t layers, std::vector<char>& out) override {
        out.assign(layers, 0);
        if (given(key))
            for (const auto& e : o_.at(key))
                if (e.is_number_unsigned() && e.get<std::uint64_t>() < layers) out[e.get<std::size_t>()] = 1;
        return true;
    }
    bool flag_list(const char* key, std::vector<char>& out) override {
        if (!given(key) || !o_.at(key).is_array() || o_.at(key).empty()) return false;
        out.clear();
        for (const auto& e : o_.at(key)) out.push_back(e.is_number() && e.get<double>() != 0 ? 1 : 0);
        return true;
    }
    bool text_list(const char* key, std::vector<std::string>& out) override {
        out.clear();
        if (!given(key) || !o_.at(key).is_array()) return false;
        for (const auto& e : o_.at(key))
            if (e.is_string()) out.push_back(e.get<std::string>());
        return true;
    }
    bool integer_or_word(const char* key, const char*, std::uint64_t& out) override {
        if (given(key) && o_.at(key).is_number_unsigned()) out = o_.at(key).get<std::uint64_t>();
        return true;
    }
    bool name_list(const char* key, std::vector<std::string>& out) override {
        out.clear();
        if (given(key) && o_.at(key).is_array())
            for (const auto& e : o_.at(key))
                if (e.is_string()) out.push_back(e.get<std::string>());
        return true;
    }
    void fail(const char* key, const std::string& message) override { FAIL(std::string(key) + " " + message); }

private:
    std::set<std::string>& asked_mutable() const { return const_cast<recording_keys*>(this)->asked; }
    const nlohmann::json& o_;
};
}  // namespace

TEST_CASE("layer_params: sums, multiples and the nine counts compared", "[tables][layer_params]") {
    model_config m = model_of("deepseek_r1.json");
    m.mtp = true;
    const auto counted = count_params(m);
    REQUIRE(counted.ok());
    const param_breakdown& p = counted.value;
    layer_params sum;
    for (const layer_params& l : p.layers) sum += l;
    std::uint64_t total = 0, experts = 0;
    for (const layer_params& l : p.layers) {
        total += l.total;
        experts += l.experts;
    }
    CHECK(sum.total == total);
    CHECK(sum.experts == experts);
    // DeepSeek-R1: 3 dense layers, then 58 MoE layers alike.
    layer_params moe = p.layers[3];
    moe *= 58;
    layer_params dense = p.layers[0];
    dense *= 3;
    dense += moe;
    CHECK(dense == sum);
    CHECK(dense.active == sum.active);
    CHECK(p.layers[0] != p.layers[3]);
    // `active` and the kinds are not compared: the memory of a layer is in the nine counts.
    layer_params other = p.layers[3];
    other.active += 1;
    other.attention = attention_kind::full;
    CHECK(other == p.layers[3]);
    // The MTP modules: one layer_params of all of them, as the parts count them.
    CHECK(p.mtp_layer.total == p.parts.mtp.total);
    CHECK(p.mtp_layer.active == p.parts.mtp.active);
    CHECK(p.mtp_layer.mlp == layer_mlp_kind::moe);
    CHECK(p.mtp_layer.total > p.layers[3].total);
    m.mtp = false;
    CHECK(count_params(m).value.mtp_layer == layer_params{});
}

TEST_CASE("Model families: one row per name, every alias found, defaults named", "[tables][families]") {
    std::set<std::string> names;
    for (const model_family& f : model_families()) {
        INFO(f.model_type);
        CHECK(names.insert(f.model_type).second);
        CHECK(find_family(f.model_type) == &f);
        CHECK(std::string(f.label).size() > 0);
        CHECK(!f.attention_kinds.empty());
        CHECK(!f.mlp_kinds.empty());
        for (const char* alias : f.aliases) {
            CHECK(names.insert(alias).second);
            CHECK(find_family(alias) == &f);
            CHECK(family_defaults(alias).model_type == alias);
        }
        std::set<std::string> keys;
        for (const family_key& k : f.keys) {
            CHECK(keys.insert(k.name).second);
            CHECK(std::string(k.meaning).size() > 0);
        }
        // A multimodal family's tower is counted; vision_config is one of its keys.
        if (f.text_config_type != nullptr) {
            CHECK(f.tower != vision_tower::none);
            CHECK(family_reads(f, "vision_config"));
        }
    }
    CHECK(find_family("no_such_family") == nullptr);
    CHECK(!is_known_family(""));
    CHECK(family_defaults("no_such_family").norm == model_config{}.norm);
    // Every refused key is one string once.
    std::set<std::string> refused;
    for (const char* key : family_only_keys()) CHECK(refused.insert(key).second);
}

TEST_CASE("Model families: the stored models and fixtures build only their row's layer kinds", "[tables][families]") {
    std::vector<model_config> models;
    std::size_t count = 0;
    const model_preset* presets = model_presets(count);
    for (std::size_t i = 0; i < count; ++i) {
        const auto parsed = parse_config(std::string(R"({"mode": "infer", "model": {"preset": ")") + presets[i].id + "\"}}");
        REQUIRE(parsed.ok());
        models.push_back(parsed.value.model);
    }
    for (const std::string& name : hf_fixtures()) models.push_back(model_of(name));
    for (const model_config& m : models) {
        INFO(m.model_type);
        const model_family* f = find_family(m.model_type);
        REQUIRE(f != nullptr);
        for (attention_kind k : resolved_layer_attention(m))
            CHECK(std::find(f->attention_kinds.begin(), f->attention_kinds.end(), k) != f->attention_kinds.end());
        for (layer_mlp_kind k : resolved_layer_mlp(m))
            CHECK(std::find(f->mlp_kinds.begin(), f->mlp_kinds.end(), k) != f->mlp_kinds.end());
    }
}

TEST_CASE("Model families: a multimodal row names its text_config's model_type", "[tables][families]") {
    std::ifstream in(std::string(MEMPLAN_DATA_DIR) + "/../../core/data/models.json");
    REQUIRE(in.good());
    const nlohmann::json stored = nlohmann::json::parse(in);
    std::size_t multimodal = 0;
    for (const auto& preset : stored.at("models")) {
        const auto& config = preset.at("config");
        if (!config.contains("text_config")) continue;
        ++multimodal;
        const model_family* f = find_family(config.at("model_type").get<std::string>());
        REQUIRE(f != nullptr);
        REQUIRE(f->text_config_type != nullptr);
        CHECK(config.at("text_config").at("model_type").get<std::string>() == f->text_config_type);
    }
    CHECK(multimodal >= 3);
}

TEST_CASE("Model families: a row's reader asks of a real config only its row's keys and memplan's", "[tables][families]") {
    std::set<std::string> memplan_keys;
    for (const field_spec& f : model_fields()) memplan_keys.insert(std::string(f.path).substr(std::string("model.").size()));
    memplan_keys.insert({"layer_types", "mlp_layer_types"});  // memplan's per-layer lists (Hugging Face's layer_types too)
    for (const std::string& name : hf_fixtures()) {
        // nlohmann's parser has no Python tokens (Nemotron 3 Super's time_step_limit holds Infinity): read as null
        // here, where only the keys are looked at.
        const std::regex python_token(R"(([\[,:]\s*)-?(Infinity|NaN)(?=\s*[,\]\}]))");
        nlohmann::json doc = nlohmann::json::parse(std::regex_replace(hf_fixture(name), python_token, "$1null"));
        const nlohmann::json& language = doc.contains("text_config") ? doc.at("text_config") : doc;
        const model_family* f = find_family(language.value("model_type", std::string()));
        INFO(name);
        REQUIRE(f != nullptr);
        if (f->read_keys == nullptr) continue;
        model_config m = model_of(name);
        m.layer_attention.clear();
        m.layer_mlp.clear();
        recording_keys keys(language);
        f->read_keys(keys, m);
        CHECK(!keys.asked.empty());
        for (const std::string& key : keys.asked) {
            INFO(key);
            if (!language.contains(key)) continue;
            CHECK((family_reads(*f, key.c_str()) || memplan_keys.count(key) != 0));
        }
    }
}

TEST_CASE("Serving engines: one registered entry per engine name, its version in the result", "[tables][engines]") {
    const auto& names = detail::names_of(serving_engine{});
    std::set<serving_engine> seen;
    for (const detail::engine* e : detail::engines()) {
        INFO(to_string(e->id));
        CHECK(e->id != serving_engine::none);
        CHECK(seen.insert(e->id).second);
        CHECK(detail::find_engine(e->id) == e);
        CHECK(std::string(e->label).size() > 0);
        CHECK(std::string(e->version).find(" at commit ") != std::string::npos);
        CHECK(find_field(e->share_field) != nullptr);
        CHECK(e->size_pool != nullptr);
        // The result names the engine and the source its arithmetic reproduces.
        estimate_config c;
        c.mode = run_mode::infer;
        c.model = model_of("qwen3_8b.json");
        c.gpu_memory_bytes = 80000000000ULL;
        c.infer.engine = e->id;
        c.infer.mem_fraction_static_permille = 880;
        const estimate_result r = estimate_with_engine(c);
        REQUIRE(r.errors.empty());
        CHECK(r.serving.engine == to_string(e->id));
        CHECK(r.serving.engine_version == e->version);
        // The share analyze raises is the engine's own field.
        estimate_config raised = c;
        raised.infer.*(e->share_permille) = 950;
        CHECK(estimate_with_engine(raised).serving.budget_bytes >= r.serving.budget_bytes);
    }
    CHECK(detail::find_engine(serving_engine::none) == nullptr);
    // Every name but none is a registered engine.
    std::size_t engine_names = 0;
    std::stringstream list(names.joined());
    for (std::string name; std::getline(list, name, ',');) {
        serving_engine id{};
        REQUIRE(names.parse(name, id));
        if (id == serving_engine::none) continue;
        INFO(name);
        CHECK(seen.count(id) == 1);
        ++engine_names;
    }
    CHECK(engine_names != 0);
    CHECK(seen.size() == engine_names);
}

TEST_CASE("Serving engines: described once for the page and the CLI, the budget's terms serving's fields",
          "[tables][engines]") {
    // memplan engines --json / mp.engines(): each registered entry as it is, in registration order.
    const nlohmann::json doc = nlohmann::json::parse(engines_json());
    const auto& described = doc.at("engines");
    REQUIRE(described.size() == detail::engines().size());
    for (std::size_t i = 0; i < described.size(); ++i) {
        const detail::engine& e = *detail::engines()[i];
        const auto& d = described[i];
        INFO(e.label);
        CHECK(d.at("id") == to_string(e.id));
        CHECK(d.at("label") == e.label);
        CHECK(d.at("version") == e.version);
        CHECK(d.at("share_field") == e.share_field);
        CHECK(std::string(d.at("share_flag")).size() > 0);
        CHECK(std::string(d.at("share_of")).rfind("of the ", 0) == 0);
        CHECK(std::string(d.at("budget")).find(".py") + std::string(d.at("budget")).find(".cpp") != 2 * std::string::npos);
    }
    CHECK(described[0].at("share_flag") == "--gpu-memory-utilization");  // vllm/engine/arg_utils.py
    // Every term is a byte field of the result's serving object, which the budget is divided into.
    estimate_config c;
    c.mode = run_mode::infer;
    c.model = model_of("qwen3_8b.json");
    c.gpu_memory_bytes = 80000000000ULL;
    c.infer.engine = serving_engine::vllm;
    const nlohmann::json result = nlohmann::json::parse(to_json(estimate_with_engine(c)));
    const auto& terms = doc.at("budget_terms");
    REQUIRE(terms.size() == budget_terms().size());
    std::uint64_t parts = 0;
    for (const auto& t : terms) {
        INFO(t.at("key").get<std::string>());
        REQUIRE(result.at("serving").contains(t.at("key").get<std::string>()));
        CHECK(std::string(t.at("formula")).size() > 20);
        if (t.at("key") != "draft_weights_bytes")  // already inside weights_bytes (target + draft)
            parts += result.at("serving").at(t.at("key").get<std::string>()).get<std::uint64_t>();
    }
    // vLLM's budget: weights + activation peak + non-torch + graphs + the pool, less what the block
    // rounding leaves over (under one block of every layer).
    const std::uint64_t budget = result.at("serving").at("budget_bytes");
    CHECK(parts <= budget);
    CHECK(budget - parts < result.at("serving").at("page_bytes").get<std::uint64_t>());
}

TEST_CASE("preset_names_json: every preset's id, name and source, in catalogue order, as model_presets_json has them", "[tables][presets]") {
    const auto names = nlohmann::json::parse(memplan::preset_names_json()).at("models");
    const auto full = nlohmann::json::parse(memplan::model_presets_json()).at("models");
    REQUIRE(names.size() == full.size());
    REQUIRE(names.size() >= 60);
    for (std::size_t i = 0; i < names.size(); ++i) {
        CHECK(names[i].size() == 3);
        CHECK(names[i].at("id") == full[i].at("id"));
        CHECK(names[i].at("name") == full[i].at("name"));
        CHECK(names[i].at("source") == full[i].at("source"));
    }
    CHECK(names[0].at("id") == std::string(memplan::find_preset(names[0].at("id").get<std::string>())->id));
}
