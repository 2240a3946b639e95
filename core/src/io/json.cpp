// Untrusted JSON text (a configuration or a Hugging Face config.json) read within limits: the core's one
// JSON parse (parse_json, parse_document; io/json_text.hpp). Then JSON schema v1 of memplan configurations
// (docs/schema.md) read from the document; the `model` section and Hugging Face config.json import are
// read in model_json.cpp.
#include "memplan/io/json.hpp"

#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/checks.hpp"
#include "io/json_text.hpp"
#include "io/object_reader.hpp"
#include "memplan/base/input_limits.hpp"
#include "memplan/memory/frameworks.hpp"

namespace memplan::detail {

namespace {
bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/// The code unit of a "\uXXXX" escape starting at `at` (the backslash), or -1.
long escape_unit(const std::string& text, std::size_t at) {
    if (at + 6 > text.size() || text[at] != '\\' || text[at + 1] != 'u') return -1;
    for (std::size_t i = at + 2; i < at + 6; ++i)
        if (!is_hex(text[i])) return -1;
    return std::stol(text.substr(at + 2, 4), nullptr, 16);
}

/// The number literals that stand in for Python's bare Infinity, -Infinity and NaN while nlohmann parses
/// (it has no such tokens); dom_builder turns them back into the non-finite doubles. A text that already
/// holds one of them is parsed without the stand-ins (see python_tokens).
constexpr const char* stand_in_infinity = "-3.14159265358979e-301";
constexpr const char* stand_in_minus_infinity = "-3.14159265358979e-302";
constexpr const char* stand_in_nan = "-3.14159265358979e-303";
constexpr const char* stand_in_stem = "3.14159265358979e-30";

bool word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '+' || c == '-';
}

/// The bare token of Python's json.dumps (allow_nan=True) at `at`, outside a string: Infinity, -Infinity or
/// NaN as a whole word (Infinityx, NaNa stay as they are, and stay invalid); its stand-in, or null.
const char* python_token(const std::string& text, std::size_t at, std::size_t& length) {
    if (at > 0 && word_char(text[at - 1])) return nullptr;
    const struct {
        const char* word;
        const char* stand_in;
    } tokens[] = {{"-Infinity", stand_in_minus_infinity}, {"Infinity", stand_in_infinity}, {"NaN", stand_in_nan}};
    for (const auto& t : tokens) {
        const std::size_t n = std::char_traits<char>::length(t.word);
        if (text.compare(at, n, t.word) != 0) continue;
        if (at + n < text.size() && word_char(text[at + n])) return nullptr;
        length = n;
        return t.stand_in;
    }
    return nullptr;
}

/// Checks bytes and nesting outside strings; rewrites lone surrogate escapes to \uFFFD in `out`. With
/// `python_tokens`, bare Infinity, -Infinity and NaN outside strings are rewritten to their stand-ins
/// (`rewritten` counts them).
bool scan(const std::string& text, const char* field, diagnostics& errors, std::string& out, bool python_tokens,
          std::size_t& rewritten) {
    std::uint64_t depth = 0;
    bool in_string = false;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (!in_string && python_tokens && (c == 'I' || c == 'N' || c == '-')) {
            std::size_t length = 0;
            if (const char* stand_in = python_token(text, i, length); stand_in != nullptr) {
                out += stand_in;
                i += length - 1;
                ++rewritten;
                continue;
            }
        }
        if (in_string) {
            if (c == '"') in_string = false;
            if (c == '\\' && i + 1 < text.size()) {
                const long unit = escape_unit(text, i);
                const bool high = unit >= 0xD800 && unit <= 0xDBFF, low = unit >= 0xDC00 && unit <= 0xDFFF;
                const long next = high ? escape_unit(text, i + 6) : -1;
                if ((high && !(next >= 0xDC00 && next <= 0xDFFF)) || low) {
                    out += "\\uFFFD";  // a lone surrogate: replaced, as JSON.parse then TextEncoder would
                    i += 5;
                    continue;
                }
                if (high) {  // a valid pair: copy both escapes
                    out.append(text, i, 12);
                    i += 11;
                    continue;
                }
                out += c;
                out += text[++i];
                continue;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            if (++depth > max_json_depth) {
                errors.push_back({field, "nests objects and arrays deeper than " + std::to_string(max_json_depth) +
                                             " levels"});
                return false;
            }
        } else if (c == '}' || c == ']') {
            if (depth > 0) --depth;
        }
        out += c;
    }
    return true;
}
}  // namespace

std::string echoed_name(const std::string& name) {
    if (name.empty()) return "\"\"";
    if (name.size() <= max_echoed_name_chars) return name;
    std::size_t cut = max_echoed_name_chars;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;  // whole UTF-8 characters
    return name.substr(0, cut) + "…";
}

namespace {
/// Builds the document from nlohmann's SAX events (json::sax_parse), as its own DOM parser does, and
/// notes the first key given twice in one object. One handler for every parse keeps one instantiation
/// of nlohmann's parser in the WebAssembly module instead of two (its DOM parser and its callback
/// parser, each with the parser loop).
class dom_builder {
public:
    using json = nlohmann::ordered_json;

    explicit dom_builder(json& root, repeated_key* repeated, bool stand_ins = false)
        : root_(root), repeated_(repeated), stand_ins_(stand_ins) {}

    bool null() { return put(json(nullptr)) != nullptr; }
    bool boolean(bool v) { return put(json(v)) != nullptr; }
    bool number_integer(json::number_integer_t v) { return put(json(v)) != nullptr; }
    bool number_unsigned(json::number_unsigned_t v) { return put(json(v)) != nullptr; }
    bool number_float(json::number_float_t v, const json::string_t& literal) {
        if (stand_ins_) {  // Python's Infinity, -Infinity and NaN, written as their stand-ins by scan()
            if (literal == stand_in_infinity) v = std::numeric_limits<double>::infinity();
            else if (literal == stand_in_minus_infinity) v = -std::numeric_limits<double>::infinity();
            else if (literal == stand_in_nan) v = std::numeric_limits<double>::quiet_NaN();
        }
        return put(json(v)) != nullptr;
    }
    bool string(json::string_t& v) { return put(json(std::move(v))) != nullptr; }
    bool binary(json::binary_t&) { return false; }  // JSON text has no binary values
    bool start_object(std::size_t) {
        open_.push_back(put(json::object()));
        if (repeated_ != nullptr) keys_.emplace_back();
        return true;
    }
    bool key(json::string_t& k) {
        if (repeated_ != nullptr && !keys_.back().insert(k).second && !repeated_->found) {
            repeated_->found = true;
            repeated_->key = k;
        }
        value_ = &(*open_.back())[k];  // a repeated key overwrites, like nlohmann's DOM parser
        return true;
    }
    bool end_object() {
        open_.pop_back();
        if (repeated_ != nullptr) keys_.pop_back();
        return true;
    }
    bool start_array(std::size_t) {
        open_.push_back(put(json::array()));
        return true;
    }
    bool end_array() {
        open_.pop_back();
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

private:
    /// Stores a value where the next one goes: the root, the end of the open array, or the open
    /// object's last key. Pointers into a container stay valid: only the innermost open one grows.
    json* put(json&& v) {
        if (open_.empty()) {
            root_ = std::move(v);
            return &root_;
        }
        json& parent = *open_.back();
        if (parent.is_array()) {
            auto& items = parent.get_ref<json::array_t&>();
            items.push_back(std::move(v));
            return &items.back();
        }
        *value_ = std::move(v);
        return value_;
    }

    json& root_;
    repeated_key* repeated_;
    bool stand_ins_;
    std::vector<json*> open_;
    std::vector<std::set<std::string>> keys_;
    json* value_ = nullptr;
};
}  // namespace

namespace {
bool parse_with(const std::string& text, nlohmann::ordered_json& out, repeated_key* repeated, bool stand_ins) {
    out = nullptr;
    dom_builder builder(out, repeated, stand_ins);
    if (nlohmann::ordered_json::sax_parse(text, &builder)) return true;
    out = nullptr;
    return false;
}
}  // namespace

bool parse_json(const std::string& text, nlohmann::ordered_json& out, repeated_key* repeated) {
    return parse_with(text, out, repeated, false);
}

nlohmann::ordered_json parse_document(const std::string& text, const char* field, diagnostics& errors,
                                      bool python_tokens) {
    using json = nlohmann::ordered_json;
    if (const diagnostics refused = check_input_text(text, field, false); !refused.empty()) {
        errors.insert(errors.end(), refused.begin(), refused.end());
        return json();
    }
    // A text that already spells a stand-in is read without them (its Infinity, if any, stays invalid).
    python_tokens = python_tokens && text.find(stand_in_stem) == std::string::npos;
    std::string clean;
    std::size_t rewritten = 0;
    if (!scan(text, field, errors, clean, python_tokens, rewritten)) return json();
    json doc;
    repeated_key duplicate;  // a key given twice in one object is refused: JSON parsers disagree on which wins
    const bool parsed = parse_with(clean, doc, &duplicate, rewritten != 0);
    if (!parsed) errors.push_back({field, "is not valid JSON"});
    else if (duplicate.found) errors.push_back({field, "has the key " + echoed_name(duplicate.key) + " twice in one object"});
    else if (!doc.is_object()) errors.push_back({field, "must be a JSON object"});
    return doc;
}

}  // namespace memplan::detail

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
    c.train.kbit_prepare_given = given.count("train.kbit_prepare") != 0;
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
