// JSON schema v1 of memplan configurations and results (docs/schema.md). The `model` section and
// Hugging Face config.json import are read in model_json.cpp.
#include "memplan/io/json.hpp"

#include <cstring>
#include <set>

#include <nlohmann/json.hpp>

#include "base/checks.hpp"
#include "io/json_input.hpp"
#include "io/json_text.hpp"
#include "io/model_json.hpp"
#include "memplan/memory/frameworks.hpp"

namespace memplan {

namespace {
using json = nlohmann::ordered_json;
using ordered_json = nlohmann::ordered_json;
using detail::dump_json;
using detail::errors_json;

using detail::object_reader;
using detail::read_model;
using detail::read_model_object;
using detail::parse_document;

/// Reads the schema fields whose path lies directly in `section` ("" = the top level) and records
/// which were given.
void read_section(object_reader& r, const std::string& section, estimate_config& c, std::set<std::string>& given) {
    for (const auto& field : config_fields()) {
        // The field's section is its path up to the last dot ("" without one), compared in place: this
        // loop runs over every schema field for each section of every configuration read.
        const char* dot = std::strrchr(field.path, '.');
        const std::size_t owner = dot == nullptr ? 0 : static_cast<std::size_t>(dot - field.path);
        if (owner == section.size() && section.compare(0, owner, field.path, owner) == 0 && r.read(field, c))
            given.insert(field.path);
    }
}

/// A list of module names (array of strings, or one string) as comma-separated text; false on a wrong type.
bool names_text(const json& v, std::string& out) {
    if (v.is_string()) {
        out = v.get<std::string>();
        return true;
    }
    if (!v.is_array()) return false;
    out.clear();
    for (const auto& item : v) {
        if (!item.is_string()) return false;
        out += (out.empty() ? "" : ",") + item.get<std::string>();
    }
    return true;
}

/// The nested form train.adapter = {"type", "rank", "targets", "modules_to_save", "dropout", "dtype"}
/// (PEFT LoraConfig names: r, target_modules, lora_dropout, use_dora also accepted), mapped onto the
/// flat train.adapter_* fields of the schema. Giving both forms of one field is an error.
void read_adapter_object(object_reader& r, estimate_config& c, std::set<std::string>& given) {
    const json* v = r.find("adapter");
    if (v == nullptr) return;
    if (!v->is_object()) return r.fail("train.adapter", "must be an object");
    object_reader a(*v, "train.adapter", r.errors());
    const auto set_field = [&](const char* path, const char* key, const json& value) {
        if (given.count(path) != 0)
            return a.fail(a.field(key), std::string("and ") + path + " are both given; use one");
        given.insert(path);
        const field_spec* spec = find_field(path);
        json one = json::object();
        one[std::string(path).substr(std::string(path).rfind('.') + 1)] = value;
        object_reader inner(one, "train", r.errors());
        inner.read(*spec, c);
    };
    if (const json* t = a.find("type")) set_field("train.adapter_type", "type", *t);
    else if (const json* dora = a.find("use_dora"); dora != nullptr && dora->is_boolean())
        set_field("train.adapter_type", "use_dora", *dora ? json("dora") : json("lora"));
    else if (dora != nullptr) a.fail(a.field("use_dora"), "must be true or false");
    else set_field("train.adapter_type", "type", json("lora"));  // an adapter object without a type is LoRA
    for (const char* key : {"rank", "r"})
        if (const json* rank = a.find(key)) set_field("train.adapter_rank", key, *rank);
    for (const char* key : {"targets", "target_modules"})
        if (const json* t = a.find(key)) {
            std::string text;
            if (!names_text(*t, text)) a.fail(a.field(key), "must be \"all-linear\" or a list of module names");
            else set_field("train.adapter_targets", key, text);
        }
    if (const json* m = a.find("modules_to_save")) {
        std::string text;
        if (!names_text(*m, text)) a.fail(a.field("modules_to_save"), "must be a list of module names");
        else set_field("train.modules_to_save", "modules_to_save", text);
    }
    for (const char* key : {"dropout", "lora_dropout"})
        if (const json* d = a.find(key)) {
            // PEFT lora_dropout is a probability; what memory sees is whether it is above 0.
            if (d->is_boolean()) set_field("train.adapter_dropout", key, *d);
            else if (d->is_number() && d->get<double>() >= 0 && d->get<double>() <= 1)
                set_field("train.adapter_dropout", key, json(d->get<double>() > 0));
            else a.fail(a.field(key), "must be a number from 0 to 1");
        }
    if (const json* d = a.find("dtype")) set_field("train.adapter_dtype", "dtype", *d);
    a.finish();
}

}  // namespace

outcome<estimate_config> parse_config(const std::string& json_text, const std::string& hf_config_text) {
    outcome<estimate_config> out;
    const json doc = parse_document(json_text, "config", out.errors);
    if (!out.ok()) return out;
    estimate_config& c = out.value;
    object_reader top(doc, "", out.errors);
    std::int64_t version = 1;
    top.signed_integer("version", version, 1, 1, "must be 1");
    std::set<std::string> given;
    read_section(top, "", c, given);
    for (const char* section : {"parallel", "model", "train", "infer", "overhead", "gpu"}) {
        if (std::string(section) == "model") {
            if (const json* model = top.find("model"); model != nullptr) {
                if (!model->is_object()) top.fail("model", "must be an object");
                else read_model(*model, "model", c.model, out.errors);
            }
            continue;
        }
        top.object(section, [&](object_reader& r) {
            read_section(r, section, c, given);
            if (std::string(section) == "train") read_adapter_object(r, c, given);
        });
    }
    top.finish();
    // A named framework's own defaults for the train.* fields not given (memplan/memory/frameworks.hpp).
    apply_framework_defaults(c, [&given](const std::string& path) { return given.count(path) != 0; });
    // Without an explicit infer.weight_dtype a quantized checkpoint is served in its native format.
    c.infer.weight_dtype_given = given.count("infer.weight_dtype") != 0;
    if (out.ok()) {
        const diagnostics layout =
            resolve_layout(c, given.count("parallel.zero_stage") != 0, given.count("parallel.zero_shard_size") != 0);
        out.errors.insert(out.errors.end(), layout.begin(), layout.end());
    }
    if (!hf_config_text.empty()) {
        // A Hugging Face config.json gives the model. Beside it the config's model object may hold only
        // memplan's own load-time keys (model.mtp, model.max_position_embeddings), applied on top; any
        // other model key is refused rather than silently dropped.
        const json hf = parse_document(hf_config_text, "hf_config", out.errors, /*python_tokens=*/true);
        // Without model_type (nor architectures, a text_config or memplan's preset) nothing names the
        // family: refused rather than read with GPT-style defaults.
        if (out.ok() && hf.is_object() && !hf.contains("model_type") && !hf.contains("architectures") &&
            !hf.contains("text_config") && !hf.contains("preset"))
            out.errors.push_back({"hf_config.model_type", "is required (a Hugging Face config.json names its family "
                                                          "by model_type or architectures)"});
        if (out.ok()) {
            const model_config given_model = c.model;
            c.model = model_config{};
            object_reader r(hf, "hf_config", out.errors, /*lenient=*/true);
            read_model_object(r, c.model, 0);
            if (const json* model = top.find("model"); model != nullptr && model->is_object()) {
                for (const auto& item : model->items()) {
                    if (item.key() == "mtp") c.model.mtp = given_model.mtp;
                    else if (item.key() == "max_position_embeddings")
                        c.model.max_position_embeddings = given_model.max_position_embeddings;
                    else
                        out.errors.push_back({"model." + item.key(),
                                              "cannot stand beside hf_config, which gives the model; only model.mtp and "
                                              "model.max_position_embeddings may"});
                }
            }
        }
    }
    c.infer.state_dtype_given = given.count("infer.state_dtype") != 0;
    follow_model_state_dtype(c);
    // The draft model of speculative decoding, read as the `model` section reads a preset; an id that
    // names no stored model stays unresolved, and validate() says so (infer.draft_preset).
    if (out.ok() && !c.infer.draft_preset.empty()) {
        model_config draft;
        diagnostics draft_errors;
        read_model(json{{"preset", c.infer.draft_preset}}, "infer.draft_preset", draft, draft_errors);
        if (draft_errors.empty()) c.infer.draft_model = std::move(draft);
    }
    return out;
}

outcome<model_config> preset_model(const std::string& id) {
    const ordered_json config{{"model", {{"preset", id}}}};
    const auto parsed = parse_config(dump_json(config));
    return {parsed.value.model, parsed.errors};
}


}  // namespace memplan
