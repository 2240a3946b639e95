// Reading untrusted JSON text (a configuration or a Hugging Face config.json) within limits.
#include "io/json_input.hpp"

#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "io/json_text.hpp"
#include "memplan/base/input_limits.hpp"

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
