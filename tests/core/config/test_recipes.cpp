// The fine-tuning recipes (core/data/recipes.json compiled in, memplan/io/recipes.hpp): the stored list,
// every value checked against the schema, and --recipe as the front end applies it
// (memplan/api/front_end.hpp json_request::recipe).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "memplan/report/json.hpp"
#include "memplan/api/front_end.hpp"
#include "memplan/config/schema.hpp"
#include "memplan/io/json.hpp"
#include "memplan/io/recipes.hpp"
#include "memplan/reproduce/compare.hpp"
#include "memplan/search/analyze.hpp"

using namespace memplan;
using json = nlohmann::json;

namespace {
/// What is wrong with setting `path` to the JSON value `value_text` by the schema: the path is a field
/// outside the model (find_field), the value has the field's type and is in its range or among its
/// choices. "" when nothing is.
std::string schema_problem(const std::string& path, const std::string& value_text) {
    const field_spec* field = find_field(path);
    if (field == nullptr || path.rfind("model.", 0) == 0) return path + " is not a configuration field";
    const json value = json::parse(value_text);
    switch (field->type) {
        case field_type::integer:
        case field_type::bytes:
            if (!value.is_number_unsigned()) return path + " must be a whole number";
            if (value.get<std::uint64_t>() < field->min || value.get<std::uint64_t>() > field->max)
                return path + " " + field_message(*field);
            return "";
        case field_type::boolean: return value.is_boolean() ? "" : path + " must be true or false";
        case field_type::choice: {
            if (!value.is_string()) return path + " must be a name";
            const std::string choices = std::string(",") + field->choices() + ",";
            return choices.find("," + value.get<std::string>() + ",") != std::string::npos ? "" : path + " " + field_message(*field);
        }
        case field_type::text: return value.is_string() ? "" : path + " must be text";
    }
    return path + " has an unknown type";
}

/// The configuration `config` (JSON text) with a recipe's values written into it by hand.
std::string with_values(const std::string& config, const std::vector<std::pair<std::string, json>>& values) {
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(config);
    for (const auto& [path, value] : values) doc[path.substr(0, path.find('.'))][path.substr(path.find('.') + 1)] = value;
    return doc.dump();
}

json_reply with_recipe(json_reply (*answer)(const json_request&), const std::string& config, const std::string& id,
                       const std::string& preset = "") {
    json_request request;
    request.config_text = config;
    request.recipe = id;
    request.preset = preset;
    return answer(request);
}
}  // namespace

TEST_CASE("the stored recipes: full fine-tuning, LoRA, QLoRA and DoRA with their values and sources", "[recipes]") {
    const auto& all = recipes();
    REQUIRE(all.size() == 4);
    std::vector<std::string> ids;
    for (const auto& r : all) ids.push_back(r.id);
    CHECK(ids == std::vector<std::string>{"full", "lora", "qlora", "dora"});
    CHECK(recipe_ids() == "full, lora, qlora, dora");
    const recipe* qlora = find_recipe("qlora");
    REQUIRE(qlora != nullptr);
    CHECK(qlora->label == "QLoRA r16 all-linear, checkpointing, paged 8-bit AdamW");
    CHECK(qlora->source.rfind("Dettmers et al. 2023, QLoRA", 0) == 0);
    std::vector<std::pair<std::string, std::string>> values;
    for (const auto& v : qlora->values) values.emplace_back(v.path, v.json);
    CHECK(values == std::vector<std::pair<std::string, std::string>>{
                        {"train.adapter_type", "\"lora\""}, {"train.adapter_rank", "16"},
                        {"train.adapter_targets", "\"all-linear\""}, {"train.base_dtype", "\"nf4\""},
                        {"train.double_quant", "true"}, {"train.recompute", "\"full\""},
                        {"train.optimizer", "\"adam_8bit\""}, {"train.paged_optimizer", "true"}});
    CHECK(find_recipe("lora")->source.rfind("Hu et al. 2021", 0) == 0);
    CHECK(find_recipe("dora")->source.rfind("Liu et al. 2024", 0) == 0);
    CHECK(find_recipe("dora")->values.front().json == "\"dora\"");
    CHECK(find_recipe("full")->values.front().json == "\"none\"");
    CHECK(find_recipe("QLoRA") == nullptr);  // ids are exact
    // The JSON the page reads is the stored document.
    const json doc = json::parse(recipes_json());
    CHECK(doc["version"] == 1);
    REQUIRE(doc["recipes"].size() == 4);
    CHECK(doc["recipes"][2]["values"]["train.adapter_rank"] == 16);
    CHECK(doc["recipes"][2]["values"]["train.double_quant"] == true);
}

TEST_CASE("every recipe sets existing fields to values in their ranges", "[recipes][schema]") {
    for (const auto& r : recipes()) {
        CAPTURE(r.id);
        CHECK(!r.label.empty());
        CHECK(!r.source.empty());
        CHECK(!r.values.empty());
        for (const auto& v : r.values) {
            CAPTURE(v.path, v.json);
            CHECK(schema_problem(v.path, v.json).empty());
        }
    }
    // The check itself refuses what a recipe must never set.
    CHECK(schema_problem("train.no_such_field", "1") == "train.no_such_field is not a configuration field");
    CHECK(schema_problem("model.hidden_size", "4096") == "model.hidden_size is not a configuration field");
    CHECK(schema_problem("train.adapter_rank", "0") == "train.adapter_rank " + field_message(*find_field("train.adapter_rank")));
    CHECK(schema_problem("train.adapter_rank", "\"16\"") == "train.adapter_rank must be a whole number");
    CHECK(!schema_problem("train.base_dtype", "\"nf3\"").empty());
    CHECK(!schema_problem("train.double_quant", "1").empty());
}

TEST_CASE("a request's recipe sets the recipe's values over the configuration, as if written in it by hand", "[recipes][front_end]") {
    const std::string config = R"({"mode":"train","model":{"preset":"llama-3.2-3b"},"parallel":{"gpus":1},"gpu":{"memory_bytes":80e9}})";
    // QLoRA, written out by hand.
    const std::string by_hand =
        R"({"mode":"train","model":{"preset":"llama-3.2-3b"},"parallel":{"gpus":1},"gpu":{"memory_bytes":80e9},)"
        R"("train":{"adapter_type":"lora","adapter_rank":16,"adapter_targets":"all-linear","base_dtype":"nf4",)"
        R"("double_quant":true,"recompute":"full","optimizer":"adam_8bit","paged_optimizer":true}})";
    const json_reply e = with_recipe(estimate_reply, config, "qlora");
    CHECK(e.ok);
    CHECK(e.text == estimate_json(by_hand));
    const json result = json::parse(e.text);
    CHECK(result["config"]["train"]["base_dtype"] == "nf4");
    CHECK(result["config"]["train"]["adapter_rank"] == 16);
    CHECK(result["per_gpu"]["dequant_workspace"] > 0);  // a 4-bit base is dequantized for its matmuls
    CHECK(with_recipe(analyze_reply, config, "qlora").text == analyze_json(by_hand));
    CHECK(with_recipe(compare_reply, config, "qlora").text == compare_json(by_hand));
    // Every recipe, beside its values written into the configuration.
    for (const auto& r : recipes()) {
        CAPTURE(r.id);
        std::vector<std::pair<std::string, json>> values;
        for (const auto& v : r.values) values.emplace_back(v.path, json::parse(v.json));
        const json_reply reply = with_recipe(estimate_reply, config, r.id);
        CHECK(reply.ok);
        CHECK(reply.text == estimate_json(with_values(config, values)));
    }
    // The recipe's values win over the configuration's own; the fields it does not set stay.
    const std::string own = R"({"mode":"train","model":{"preset":"llama-3.2-3b"},"parallel":{"gpus":1},"gpu":{"memory_bytes":80e9},)"
                            R"("train":{"adapter_rank":64,"optimizer":"sgd","seq_len":1024}})";
    const json over = json::parse(with_recipe(estimate_reply, own, "lora").text);
    CHECK(over["config"]["train"]["adapter_rank"] == 16);
    CHECK(over["config"]["train"]["optimizer"] == "adam");
    CHECK(over["config"]["train"]["seq_len"] == 1024);
    // With --preset: the preset gives the model, the recipe the training fields.
    CHECK(with_recipe(estimate_reply, R"({"mode":"train","parallel":{"gpus":1}})", "dora", "llama-3.2-1b").text ==
          estimate_json(with_values(R"({"mode":"train","parallel":{"gpus":1},"model":{"preset":"llama-3.2-1b"}})",
                                    {{"train.adapter_type", "dora"}, {"train.adapter_rank", 16},
                                     {"train.adapter_targets", "all-linear"}, {"train.base_dtype", "bf16"},
                                     {"train.double_quant", false}, {"train.optimizer", "adam"},
                                     {"train.paged_optimizer", false}})));
}

TEST_CASE("an unknown recipe, or one the run mode does not read, is an error naming recipe", "[recipes][front_end][errors]") {
    const std::string config = R"({"mode":"train","model":{"preset":"llama-3.2-1b"}})";
    const json_reply unknown = with_recipe(estimate_reply, config, "qlora4");
    CHECK(!unknown.ok);
    CHECK(unknown.text == R"x({"warnings":[],"errors":[{"field":"recipe","message":"must be one of: full, lora, qlora, dora (memplan recipes lists them)"}]})x");
    const json analyzed = json::parse(with_recipe(analyze_reply, config, "qlora4").text);
    CHECK(analyzed["errors"][0]["field"] == "recipe");
    CHECK(analyzed["estimate"]["errors"][0]["field"] == "recipe");
    const json compared = json::parse(with_recipe(compare_reply, config, "").text);  // "" = none
    CHECK(compared["errors"].empty());
    // Inference reads no training field: the recipe would change nothing.
    const json_reply infer = with_recipe(estimate_reply, R"({"mode":"infer","model":{"preset":"llama-3.2-1b"}})", "qlora");
    CHECK(!infer.ok);
    CHECK(infer.text == R"x({"warnings":[],"errors":[{"field":"recipe","message":"qlora sets train.adapter_type, which mode infer does not read (set \"mode\": \"train\")"}]})x");
    // The configuration as given is still checked first, and its errors are its own.
    const json_reply bad = with_recipe(estimate_reply, R"({"mode":"train","train":{"seq_len":"long"}})", "lora");
    CHECK(!bad.ok);
    CHECK(bad.text.find(R"("field":"train.seq_len")") != std::string::npos);
    // A PEFT adapter object gives the adapter fields too: the reader refuses both, naming them.
    const json_reply peft = with_recipe(estimate_reply, R"({"mode":"train","model":{"preset":"llama-3.2-1b"},"train":{"adapter":{"r":8}}})", "lora");
    CHECK(!peft.ok);
    CHECK(peft.text.find("and train.adapter_type are both given; use one") != std::string::npos);
}
