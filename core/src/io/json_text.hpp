// memplan — internal JSON helpers shared by the core's files (not part of the public API): the one parse
// of JSON text (json.cpp) and dump (json_dump.cpp), the error list's shape, and the stored documents
// compiled in (core/data/*.json; the models document, presets.cpp).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "memplan/base/types.hpp"

namespace memplan::detail {

using ordered_json = nlohmann::ordered_json;

/// [{"field": …, "message": …}, …], the one shape of every error and warning list.
inline ordered_json errors_json(const diagnostics& list) {
    ordered_json out = ordered_json::array();
    for (const auto& e : list) out.push_back(ordered_json{{"field", e.field}, {"message", e.message}});
    return out;
}

/// Compact text; invalid UTF-8 (from user-supplied key names) is replaced rather than thrown on. Byte
/// for byte value.dump(-1, ' ', false, error_handler_t::replace), written faster (json_dump.cpp).
std::string dump_json(const ordered_json& value);

/// The first key a JSON text gives twice in one object, if any (the empty key "" is a key too).
struct repeated_key {
    bool found = false;
    std::string key;
};

/// Parses JSON text into `out` (false, with `out` null, when the text is not JSON); with `repeated`,
/// the first key found twice in one object is reported there (json.cpp). The one way the core
/// parses JSON, so that the WebAssembly module compiles nlohmann's parser once.
bool parse_json(const std::string& text, ordered_json& out, repeated_key* repeated = nullptr);

/// A stored table compiled in (core/data/*.json) parsed into `doc`, and its list `key`; null when the
/// document holds no such list.
inline const ordered_json* stored_list(const char* text, ordered_json& doc, const char* key) {
    parse_json(text, doc);
    if (!doc.is_object() || !doc.contains(key) || !doc[key].is_array()) return nullptr;
    return &doc[key];
}

// ---- Untrusted JSON text read into a document, within stated limits (json.cpp).

/// Parses `text` as one JSON object for the input named `field` ("config", "hf_config"). Refused,
/// with an error naming `field`: what check_input_text refuses (size, NUL byte), nesting deeper than
/// max_json_depth, invalid JSON, a key given twice in one object, anything but an object. A lone
/// UTF-16 surrogate escape (which JavaScript's JSON.parse accepts) reads as U+FFFD. With `python_tokens`
/// (a Hugging Face config.json, which Python's json module writes), the bare values Infinity, -Infinity
/// and NaN outside strings read as those doubles; without it they are invalid JSON, as the standard says.
nlohmann::ordered_json parse_document(const std::string& text, const char* field, diagnostics& errors,
                                      bool python_tokens = false);

/// `name` for an error message: quoted when empty, cut to max_echoed_name_chars characters.
std::string echoed_name(const std::string& name);

// ---- The stored models document (core/data/models.json, compiled in and parsed once; presets.cpp).

/// The stored config object of the preset `id` (an empty object when the entry has none), or nullptr
/// when there is no such preset.
const nlohmann::ordered_json* preset_config(const std::string& id);

/// The whole document, parsed once (report/presets_json.cpp adds each model's counts to a copy).
const nlohmann::ordered_json& presets_document();

/// The document's text as compiled in (what is listed when it does not parse as a models document).
const char* presets_text();

}  // namespace memplan::detail
