// memplan — internal JSON helpers shared by json.cpp and analyze.cpp (not part of the public API).
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
/// the first key found twice in one object is reported there (json_input.cpp). The one way the core
/// parses JSON, so that the WebAssembly module compiles nlohmann's parser once.
bool parse_json(const std::string& text, ordered_json& out, repeated_key* repeated = nullptr);

/// A stored table compiled in (core/data/*.json) parsed into `doc`, and its list `key`; null when the
/// document holds no such list.
inline const ordered_json* stored_list(const char* text, ordered_json& doc, const char* key) {
    parse_json(text, doc);
    if (!doc.is_object() || !doc.contains(key) || !doc[key].is_array()) return nullptr;
    return &doc[key];
}


}  // namespace memplan::detail
