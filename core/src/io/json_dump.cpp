// memplan — internal: compact JSON text of an ordered_json document, byte for byte what nlohmann's
// dump(-1, ' ', false, error_handler_t::replace) writes (tests/core/report/test_json_dump.cpp compares the
// two), written by one recursive walk into one string. nlohmann's serializer, compiled for size in
// the WebAssembly build, was a tenth of analyze()'s time there; it still writes what this walk does
// not: floating-point numbers and strings with escapes or bytes outside printable ASCII.
#include <array>
#include <cstdint>
#include <string>

#include "io/json_text.hpp"

namespace memplan::detail {

namespace {

/// True when nlohmann writes `s` as it is between quotes: printable ASCII without '"' or '\'.
bool plain(const std::string& s) {
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
    }
    return true;
}

void append_string(std::string& out, const std::string& s) {
    if (plain(s)) {
        out += '"';
        out += s;
        out += '"';
    } else {  // escapes, UTF-8 (validated, invalid bytes replaced): nlohmann's own serializer
        out += ordered_json(s).dump(-1, ' ', false, ordered_json::error_handler_t::replace);
    }
}

void append_unsigned(std::string& out, std::uint64_t v) {
    std::array<char, 20> digits{};
    std::size_t n = 0;
    do {
        digits[n++] = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n != 0) out += digits[--n];
}

void append(std::string& out, const ordered_json& v) {
    switch (v.type()) {
        case ordered_json::value_t::object: {
            out += '{';
            bool first = true;
            for (const auto& [key, value] : v.get_ref<const ordered_json::object_t&>()) {
                if (!first) out += ',';
                first = false;
                append_string(out, key);
                out += ':';
                append(out, value);
            }
            out += '}';
            return;
        }
        case ordered_json::value_t::array: {
            out += '[';
            bool first = true;
            for (const auto& item : v.get_ref<const ordered_json::array_t&>()) {
                if (!first) out += ',';
                first = false;
                append(out, item);
            }
            out += ']';
            return;
        }
        case ordered_json::value_t::string: append_string(out, v.get_ref<const std::string&>()); return;
        case ordered_json::value_t::boolean: out += v.get<bool>() ? "true" : "false"; return;
        case ordered_json::value_t::null: out += "null"; return;
        case ordered_json::value_t::number_unsigned: append_unsigned(out, v.get<std::uint64_t>()); return;
        case ordered_json::value_t::number_integer: {
            const std::int64_t i = v.get<std::int64_t>();
            if (i < 0) {
                out += '-';
                append_unsigned(out, std::uint64_t{0} - static_cast<std::uint64_t>(i));
            } else {
                append_unsigned(out, static_cast<std::uint64_t>(i));
            }
            return;
        }
        default:  // floating point (and the binary type, which memplan never writes)
            out += v.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
            return;
    }
}

}  // namespace

std::string dump_json(const ordered_json& value) {
    std::string out;
    out.reserve(256);
    append(out, value);
    return out;
}

}  // namespace memplan::detail
