#include "memplan/units.hpp"

#include <cctype>

#include "checks.hpp"

namespace memplan {

using detail::u128;

namespace {
struct suffix {
    const char* text;
    std::uint64_t factor;
};
// Decimal SI multipliers (GB = 1e9 bytes) and binary IEC ones (GiB = 2^30 bytes), IEC 80000-13.
constexpr suffix suffixes[] = {
    {"", 1ULL},
    {"K", 1000ULL},          {"M", 1000000ULL},       {"B", 1000000000ULL},       {"T", 1000000000000ULL},
    {"KB", 1000ULL},         {"MB", 1000000ULL},      {"GB", 1000000000ULL},      {"TB", 1000000000000ULL},
    {"KiB", 1ULL << 10},     {"MiB", 1ULL << 20},     {"GiB", 1ULL << 30},        {"TiB", 1ULL << 40},
};
constexpr u128 too_big = u128{1} << 100;  // anything beyond is rejected before it can overflow
}  // namespace

outcome<std::uint64_t> parse_quantity(const std::string& text, const std::string& field, std::uint64_t max) {
    outcome<std::uint64_t> out;
    const std::string message = "must be a whole number from 0 to " + detail::to_decimal(max) +
                                ", optionally with a suffix K, M, B, T, KB, MB, GB, TB, KiB, MiB, GiB, TiB";
    auto fail = [&] {
        out.errors.push_back({field, message});
        return out;
    };
    std::size_t i = 0;
    u128 digits = 0;
    int scale = 0;  // value = digits × 10^scale
    bool any_digit = false;
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
        digits = digits * 10 + static_cast<unsigned>(text[i] - '0');
        any_digit = true;
        if (digits > too_big) return fail();
    }
    if (i < text.size() && text[i] == '.') {
        for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
            digits = digits * 10 + static_cast<unsigned>(text[i] - '0');
            --scale;
            any_digit = true;
            if (digits > too_big) return fail();
        }
    }
    if (!any_digit) return fail();
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool negative = false;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
        int exponent = 0;
        bool any_exponent_digit = false;
        for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
            exponent = exponent * 10 + (text[i] - '0');
            any_exponent_digit = true;
            if (exponent > 40) return fail();
        }
        if (!any_exponent_digit) return fail();
        scale += negative ? -exponent : exponent;
    }
    const std::string unit = text.substr(i);
    u128 value = 0;
    bool known = false;
    for (const auto& s : suffixes)
        if (unit == s.text) {
            value = digits * s.factor;
            known = true;
        }
    if (!known || value > too_big) return fail();
    for (; scale > 0; --scale) {
        value *= 10;
        if (value > too_big) return fail();
    }
    for (; scale < 0; ++scale) {
        if (value % 10 != 0) return fail();  // not a whole number
        value /= 10;
    }
    if (value > max) return fail();
    out.value = static_cast<std::uint64_t>(value);
    return out;
}

}  // namespace memplan
