// memplan — internal JSON helpers shared by json.cpp and analyze.cpp (not part of the public API).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "memplan/types.hpp"

namespace memplan::detail {

using ordered_json = nlohmann::ordered_json;

/// [{"field": …, "message": …}, …], the one shape of every error and warning list.
inline ordered_json errors_json(const diagnostics& list) {
    ordered_json out = ordered_json::array();
    for (const auto& e : list) out.push_back(ordered_json{{"field", e.field}, {"message", e.message}});
    return out;
}

/// Compact text; invalid UTF-8 (from user-supplied key names) is replaced rather than thrown on.
inline std::string dump_json(const ordered_json& value) {
    return value.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace memplan::detail
