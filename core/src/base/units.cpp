#include "memplan/base/units.hpp"

#include <cctype>

#include "base/checks.hpp"

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
    {"k", 1000ULL},          {"kB", 1000ULL},  // SI writes kilo as lowercase k (SI Brochure, 9th ed., Table 7)
    {"K", 1000ULL},          {"M", 1000000ULL},       {"B", 1000000000ULL},       {"T", 1000000000000ULL},
    {"KB", 1000ULL},         {"MB", 1000000ULL},      {"GB", 1000000000ULL},      {"TB", 1000000000000ULL},
    {"KiB", 1ULL << 10},     {"MiB", 1ULL << 20},     {"GiB", 1ULL << 30},        {"TiB", 1ULL << 40},
};
constexpr u128 too_big = u128{1} << 100;  // anything beyond is rejected before it can overflow
}  // namespace

outcome<std::uint64_t> parse_quantity(const std::string& text, const std::string& field, std::uint64_t max) {
    outcome<std::uint64_t> out;
    const std::string message = "must be a whole number from 0 to " + detail::to_decimal(max) +
                                ", optionally with a suffix k/K, M, B, T, kB/KB, MB, GB, TB, KiB, MiB, GiB, TiB "
                                "(one space allowed before it; commas only between groups of three digits; "
                                "lowercase b means bits and is refused)";
    auto fail = [&] {
        out.errors.push_back({field, message});
        return out;
    };
    std::size_t i = 0;
    u128 digits = 0;
    int scale = 0;  // value = digits × 10^scale
    bool any_digit = false;
    // Whole part: plain digits, or digits in comma-separated thousands ("8,000,000,000"): the first
    // group has 1 to 3 digits and every later one exactly 3, so "80,00" or "8,0000" are refused.
    std::size_t group_digits = 0;
    bool grouped = false;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (std::isdigit(static_cast<unsigned char>(c))) {
            digits = digits * 10 + static_cast<unsigned>(c - '0');
            any_digit = true;
            ++group_digits;
            if (digits > too_big) return fail();
        } else if (c == ',') {
            if (group_digits == 0 || (grouped ? group_digits != 3 : group_digits > 3)) return fail();
            grouped = true;
            group_digits = 0;
        } else {
            break;
        }
    }
    if (grouped && group_digits != 3) return fail();  // "8,", "8,00"
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
    // One space may separate the number from its suffix ("80 GiB"), never trail it ("80 ").
    if (i + 1 < text.size() && text[i] == ' ' && text[i + 1] != ' ') ++i;
    const std::string unit = text.substr(i);
    if (!unit.empty() && unit[0] == ' ') return fail();
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
