// Reading untrusted JSON text (a configuration or a Hugging Face config.json) within limits.
#include "json_input.hpp"

#include <set>
#include <vector>

#include "memplan/input_limits.hpp"

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

/// Checks bytes and nesting outside strings; rewrites lone surrogate escapes to \uFFFD in `out`.
bool scan(const std::string& text, const char* field, diagnostics& errors, std::string& out) {
    std::uint64_t depth = 0;
    bool in_string = false;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
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

nlohmann::ordered_json parse_document(const std::string& text, const char* field, diagnostics& errors) {
    using json = nlohmann::ordered_json;
    if (const diagnostics refused = check_input_text(text, field, false); !refused.empty()) {
        errors.insert(errors.end(), refused.begin(), refused.end());
        return json();
    }
    std::string clean;
    if (!scan(text, field, errors, clean)) return json();
    // Keys seen in each open object, to refuse a key given twice (JSON parsers disagree on which wins).
    std::vector<std::set<std::string>> open;
    std::vector<std::string> path;
    std::string duplicate;
    const json::parser_callback_t watch = [&](int, json::parse_event_t event, json& parsed) {
        switch (event) {
            case json::parse_event_t::object_start: open.emplace_back(); break;
            case json::parse_event_t::object_end:
                if (!open.empty()) open.pop_back();
                break;
            case json::parse_event_t::key:
                if (!open.empty() && parsed.is_string()) {
                    const std::string key = parsed.get<std::string>();
                    if (!open.back().insert(key).second && duplicate.empty()) duplicate = key;
                }
                break;
            default: break;
        }
        return true;
    };
    json doc = json::parse(clean, watch, /*allow_exceptions=*/false);
    if (doc.is_discarded()) errors.push_back({field, "is not valid JSON"});
    else if (!duplicate.empty()) errors.push_back({field, "has the key " + echoed_name(duplicate) + " twice in one object"});
    else if (!doc.is_object()) errors.push_back({field, "must be a JSON object"});
    return doc;
}

}  // namespace memplan::detail
