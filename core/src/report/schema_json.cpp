// The schema as JSON, Markdown and TypeScript (memplan/report/json.hpp), and the configuration echo
// of every result, each written from the schema's one table (memplan/config/schema.hpp).
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "base/checks.hpp"
#include "io/json_text.hpp"
#include "memplan/config/field_text.hpp"
#include "memplan/config/schema.hpp"
#include "memplan/report/json.hpp"
#include "report/json.hpp"

namespace memplan {

namespace {
/// The JSON value of a field in `config`: null for an optional integer left at 0.
nlohmann::ordered_json value_json(const field_spec& field, const estimate_config& config) {
    const field_value v = field.get(config);
    switch (field.type) {
        case field_type::boolean: return v.flag;
        case field_type::choice:
        case field_type::text: return v.name.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(v.name);
        case field_type::integer:
        case field_type::bytes:
            if (field.unset_is_zero && v.number == 0) return nullptr;
            return v.number;
    }
    return nullptr;
}
}  // namespace

namespace detail {
nlohmann::ordered_json config_echo_json(const estimate_config& config) {
    using object_t = nlohmann::ordered_json::object_t;
    using entries = std::vector<object_t::value_type>;  // ordered_map's own storage, in insertion order
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    entries& sections = out.get_ref<object_t&>();
    for (const auto* table : {&config_fields(), &model_fields()})
        for (const auto& field : *table) {
            // Paths are unique (schema tests), so each key is appended without ordered_map's search of
            // the keys before it (operator[] made this echo quadratic in the model's 80-odd keys).
            const char* dot = std::strchr(field.path, '.');
            if (dot == nullptr) {
                sections.emplace_back(field.path, value_json(field, config));
                continue;
            }
            const std::string section(field.path, static_cast<std::size_t>(dot - field.path));
            auto it = std::find_if(sections.rbegin(), sections.rend(), [&](const auto& e) { return e.first == section; });
            if (it == sections.rend()) {
                sections.emplace_back(section, nlohmann::ordered_json::object());
                it = sections.rbegin();
            }
            static_cast<entries&>(it->second.get_ref<object_t&>()).emplace_back(dot + 1, value_json(field, config));
        }
    return out;
}
}  // namespace detail

std::string schema_json() {
    using ordered_json = nlohmann::ordered_json;
    const estimate_config defaults{};
    ordered_json fields = ordered_json::array();
    for (const auto* table : {&config_fields(), &model_fields()}) {
        for (const auto& field : *table) {
            ordered_json row;
            row["path"] = field.path;
            switch (field.type) {
                case field_type::integer: row["type"] = "integer"; break;
                case field_type::bytes: row["type"] = "bytes"; break;
                case field_type::boolean: row["type"] = "boolean"; break;
                case field_type::choice: row["type"] = "choice"; break;
                case field_type::text: row["type"] = "text"; break;
            }
            if (field.type == field_type::integer || field.type == field_type::bytes) {
                row["min"] = field.min;
                row["max"] = field.max;
            }
            // An optional choice has no default: not given, the core decides (schema_rows.hpp).
            row["default"] = field.type == field_type::choice && field.unset_is_zero ? ordered_json(nullptr)
                                                                                    : value_json(field, defaults);
            if (field.type == field_type::choice) {
                ordered_json names = ordered_json::array();
                std::string all = field.choices();
                for (std::size_t start = 0; start <= all.size();) {
                    const auto end = std::min(all.find(',', start), all.size());
                    names.push_back(all.substr(start, end - start));
                    start = end + 1;
                }
                row["choices"] = std::move(names);
            }
            row["label"] = field.label;
            row["help"] = field.help;
            row["unit"] = field.unit;
            ordered_json modes = ordered_json::array();
            for (const char* mode : {"train", "infer"})
                if (std::string(field.modes).find(mode) != std::string::npos) modes.push_back(mode);
            row["modes"] = std::move(modes);
            row["message"] = field_message(field);
            if (field.type == field_type::integer || field.type == field_type::bytes) {
                // How the field's text is read (memplan/config/field_text.hpp), for the form's hints.
                row["kind"] = to_string(number_kind_of(field));
                row["forms"] = field_forms_text(field);
                // The default as a person types it where that differs from the stored number (a
                // fraction's 900 thousandths is typed 0.9): the form opens on this text.
                if (number_kind_of(field) == number_kind::fraction && row["default"].is_number_unsigned())
                    row["default_text"] = field_typed_text(field, row["default"].get<std::uint64_t>());
            }
            fields.push_back(std::move(row));  // moved: a copy per row was most of the cost
        }
    }
    ordered_json out;
    out["version"] = 1;
    out["fields"] = std::move(fields);
    out["limits"] = ordered_json{{"max_exact_integer", max_exact_integer},
                                 {"max_param_count", max_param_count},
                                 {"max_gpu_count", max_gpu_count},
                                 {"max_token_count", max_token_count},
                                 {"max_config_bytes", max_config_bytes},
                                 {"max_json_depth", max_json_depth},
                                 {"bytes_per_gb", bytes_per_gb},
                                 {"bytes_per_gib", bytes_per_gib},
                                 {"max_plan_gpus", max_plan_gpus},
                                 {"max_plan_top_n", max_plan_top_n},
                                 {"max_plan_micro_batch", max_plan_micro_batch},
                                 {"max_plan_layouts", max_plan_layouts}};
    return detail::dump_json(out);
}

namespace {
/// "2^20" for powers of two from 2^10 up, else the decimal digits.
std::string readable(std::uint64_t value) {
    for (unsigned k = 10; k < 64; ++k)
        if (value == (std::uint64_t{1} << k)) return "2^" + std::to_string(k);
    return std::to_string(value);
}
}  // namespace

std::string schema_markdown() {
    nlohmann::ordered_json schema;
    detail::parse_json(schema_json(), schema);
    std::string out, section = "-";
    for (const auto& f : schema["fields"]) {
        const std::string path = f["path"];
        const auto dot = path.find('.');
        const std::string owner = dot == std::string::npos ? "(top level)" : path.substr(0, dot);
        if (owner != section) {
            section = owner;
            out += (out.empty() ? "" : "\n") + std::string("#### `") + section + "`\n\n" +
                   "| key | type, range | default | label | meaning |\n|---|---|---|---|---|\n";
        }
        std::string range;
        const std::string type = f["type"];
        if (type == "integer" || type == "bytes")
            range = (type == "bytes" ? "bytes " : "integer ") + readable(f["min"]) + " … " + readable(f["max"]);
        else if (type == "choice") {
            for (const auto& c : f["choices"]) range += (range.empty() ? "" : ", ") + ("`" + c.get<std::string>() + "`");
        } else range = type;
        std::string fallback = "not set";
        const auto& d = f["default"];
        if (d.is_string()) fallback = "`" + d.get<std::string>() + "`";
        else if (d.is_boolean()) fallback = d.get<bool>() ? "true" : "false";
        else if (d.is_number()) fallback = readable(d.get<std::uint64_t>());
        std::string unit = f["unit"];
        out += "| `" + path + "` | " + range + (unit.empty() || unit == "bytes" ? "" : " " + unit) + " | " + fallback +
               " | " + f["label"].get<std::string>() + " | " + f["help"].get<std::string>() + " |\n";
    }
    return out;
}

namespace {
/// "'a' | 'b'" for a choice field.
std::string union_of(const nlohmann::ordered_json& choices) {
    std::string out;
    for (const auto& c : choices) out += (out.empty() ? "'" : " | '") + c.get<std::string>() + "'";
    return out;
}

/// One documented member line: "  /** label: help (range; default d) */\n  key?: type;\n".
std::string member(const nlohmann::ordered_json& f, const std::string& indent) {
    const std::string path = f["path"];
    const std::string key = path.substr(path.rfind('.') + 1);
    const std::string type = f["type"];
    std::string ts = type == "boolean" ? "boolean" : type == "text" ? "string" : type == "choice" ? union_of(f["choices"]) : "number";
    std::string range;
    if (type == "integer" || type == "bytes")
        range = std::to_string(f["min"].get<std::uint64_t>()) + " … " + std::to_string(f["max"].get<std::uint64_t>()) +
                (f["unit"].get<std::string>().empty() ? "" : " " + f["unit"].get<std::string>());
    const auto& d = f["default"];
    const std::string fallback = d.is_null() ? "not set" : d.is_string() ? "'" + d.get<std::string>() + "'" : d.dump();
    return indent + "/** " + f["label"].get<std::string>() + ": " + f["help"].get<std::string>() +
           (range.empty() ? "" : " " + range + ".") + " Default: " + fallback + ". */\n" + indent + key + "?: " + ts + ";\n";
}
/// The TypeScript type of a field's value in the configuration echo (config_echo_json): null where
/// value_json can write null (an optional integer or choice not set, a text).
std::string echo_type(const field_spec& field) {
    switch (field.type) {
        case field_type::boolean: return "boolean";
        case field_type::text: return "string | null";
        case field_type::choice: {
            std::string out;
            const std::string all = field.choices();
            for (std::size_t start = 0; start <= all.size();) {
                const auto end = std::min(all.find(',', start), all.size());
                out += (out.empty() ? "'" : " | '") + all.substr(start, end - start) + "'";
                start = end + 1;
            }
            // Null when not given (no default), and where the default itself has no name (parallel.fsdp).
            return field.unset_is_zero || field.get(estimate_config{}).name.empty() ? out + " | null" : out;
        }
        case field_type::integer:
        case field_type::bytes: return field.unset_is_zero ? "number | null" : "number";
    }
    return "unknown";
}

/// The configuration echo of every result (`config`: config_echo_json) as a TypeScript interface, its
/// keys in the echo's order: every field present, defaults filled in.
std::string echo_typescript() {
    std::string top;
    std::vector<std::pair<std::string, std::string>> sections;  // in the echo's order, model last
    for (const auto* table : {&config_fields(), &model_fields()})
        for (const auto& field : *table) {
            const std::string path = field.path;
            const auto dot = path.find('.');
            if (dot == std::string::npos) {
                top += "  " + path + ": " + echo_type(field) + ";\n";
                continue;
            }
            const std::string section = path.substr(0, dot);
            auto it = std::find_if(sections.begin(), sections.end(), [&](const auto& s) { return s.first == section; });
            if (it == sections.end()) {
                sections.emplace_back(section, "");
                it = sections.end() - 1;
            }
            it->second += "    " + path.substr(dot + 1) + ": " + echo_type(field) + ";\n";
        }
    std::string out =
        "/** The configuration an estimate used (its result's `config`): every field of Config, defaults filled in, FSDP\n"
        " *  names resolved to their ZeRO stage; null: not set (the core derives it). */\n"
        "export interface ResolvedConfig {\n" +
        top;
    for (const auto& [name, body] : sections) out += "  " + name + ": {\n" + body + "  };\n";
    return out + "}\n";
}
}  // namespace

std::string schema_typescript() {
    nlohmann::ordered_json schema;
    detail::parse_json(schema_json(), schema);
    std::string top, model;
    std::vector<std::pair<std::string, std::string>> sections;  // in schema order
    for (const auto& f : schema["fields"]) {
        const std::string path = f["path"];
        const auto dot = path.find('.');
        if (dot == std::string::npos) {
            top += member(f, "  ");
            continue;
        }
        const std::string section = path.substr(0, dot);
        if (section == "model") {
            model += member(f, "  ");
            continue;
        }
        auto it = std::find_if(sections.begin(), sections.end(), [&](const auto& s) { return s.first == section; });
        if (it == sections.end()) {
            sections.emplace_back(section, "");
            it = sections.end() - 1;
        }
        it->second += member(f, "    ");
    }
    std::string out =
        "/** The model keys memplan reads; a Hugging Face config.json (with model_type) may carry any others. */\n"
        "export interface ModelConfig {\n"
        "  /** A stored model (presets()); the other keys override it. */\n"
        "  preset?: string;\n" +
        model +
        "  [huggingFaceField: string]: unknown;\n"
        "}\n\n"
        "/** A configuration, schema v1 (docs/schema.md). Every key is optional; defaults as in the CLI. */\n"
        "export interface Config {\n"
        "  version?: 1;\n" +
        top + "  model?: ModelConfig;\n";
    for (const auto& [name, body] : sections) out += "  " + name + "?: {\n" + body + "  };\n";
    return out + "}\n\n" + echo_typescript();
}

}  // namespace memplan
