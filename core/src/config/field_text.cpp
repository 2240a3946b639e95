// A number field's text read by the field's kind (memplan/config/field_text.hpp). The digits, commas,
// fractions and exponents are read by the one parser of quantities (memplan/base/units.hpp); this file
// decides which suffixes a field takes and what they mean there.
#include "memplan/config/field_text.hpp"

#include <cctype>
#include <cstring>

#include "base/checks.hpp"
#include "memplan/base/limits.hpp"
#include "memplan/base/units.hpp"

namespace memplan {

using detail::u128;

namespace {
bool unit_is(const field_spec& field, const char* unit) { return std::strcmp(field.unit, unit) == 0; }

/// "1,048,576": a whole number with comma-separated thousands.
std::string grouped(u128 value) {
    std::string digits = detail::to_decimal(value), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

/// The unit of one ("tokens" → "token", "micro-batches" → "micro-batch") for "1 sequence".
std::string unit_of(const field_spec& field, u128 value) {
    std::string unit = field.unit;
    if (value != 1 || unit.size() < 2 || unit.back() != 's') return unit;
    unit.pop_back();
    if (unit.size() > 3 && unit.compare(unit.size() - 3, 3, "che") == 0) unit.pop_back();  // batches → batch
    return unit;
}

/// "from 1 to 1,048,576" in the field's unit where it has one.
std::string range_text(const field_spec& field) {
    return "from " + grouped(field.min) + " to " + grouped(field.max);
}

/// The text split into its number and its suffix (one space allowed between them): "32 K" → {"32", "K"}.
struct split_text {
    std::string number;
    std::string suffix;
};
split_text split_suffix(const std::string& text) {
    std::size_t end = text.size();
    while (end > 0 && std::isalpha(static_cast<unsigned char>(text[end - 1])) != 0) --end;
    split_text out{text.substr(0, end), text.substr(end)};
    // "7e9": the exponent's e belongs to the number (a suffix never ends in a digit, so this is the e of "8e").
    if (!out.number.empty() && out.number.back() == ' ' && !out.suffix.empty()) out.number.pop_back();
    return out;
}

/// Whole number of `field`'s range or an error naming the field with `message`.
outcome<std::uint64_t> in_range(const field_spec& field, const outcome<std::uint64_t>& parsed, const std::string& message) {
    outcome<std::uint64_t> out;
    if (!parsed.errors.empty() || parsed.value < field.min || parsed.value > field.max) {
        out.errors.push_back({field.path, message});
        return out;
    }
    out.value = parsed.value;
    return out;
}

/// Thousandths from "0.9", "90%", "900": {value, error text ("" when read)}.
outcome<std::uint64_t> fraction_text(const field_spec& field, const std::string& text, const std::string& message) {
    outcome<std::uint64_t> out;
    const bool percent = !text.empty() && text.back() == '%';
    std::string number = percent ? text.substr(0, text.size() - 1) : text;
    if (percent && !number.empty() && number.back() == ' ') number.pop_back();  // "90 %"
    for (const char c : number)
        if (std::isdigit(static_cast<unsigned char>(c)) == 0 && c != '.') {
            out.errors.push_back({field.path, message});
            return out;
        }
    // The number × 1000 (a fraction) or × 10 (a percent), exact: "0.955" → 955, "95.5%" → 955.
    const std::size_t dot = number.find('.');
    const std::size_t decimals = dot == std::string::npos ? 0 : number.size() - dot - 1;
    const std::size_t places = percent ? 1 : 3;
    if (decimals > places) {
        out.errors.push_back({field.path, "must be given to " + std::string(percent ? "a tenth of a percent" : "a thousandth") +
                                              " at most (" + message.substr(8) + ")"});
        return out;
    }
    const bool fraction = percent || dot != std::string::npos || number == "1" || number == "0";
    if (!fraction) {  // a whole number: thousandths (the stored form, 900 = 0.9) when above 100
        const auto whole = parse_quantity(number, field.path, 1000000);
        if (whole.errors.empty() && whole.value >= 2 && whole.value <= 100) {
            out.errors.push_back({field.path, "cannot be " + number + ": write " + (whole.value < 10 ? "0.0" : "0.") +
                                                  number + " or " + number + "% (" + number + "0 in thousandths)"});
            return out;
        }
        return in_range(field, whole, message);
    }
    std::string scaled = number + std::string(places - decimals, '0');
    if (dot != std::string::npos) scaled.erase(dot, 1);
    if (scaled.empty() || scaled == ".") {
        out.errors.push_back({field.path, message});
        return out;
    }
    return in_range(field, parse_quantity(scaled, field.path, 1000000), message);
}
}  // namespace

number_kind number_kind_of(const field_spec& field) {
    if (field.type == field_type::bytes) return number_kind::bytes;
    if (field.type != field_type::integer) return number_kind::count;
    if (unit_is(field, "tokens") || unit_is(field, "positions")) return number_kind::tokens;
    if (unit_is(field, "parameters") || unit_is(field, "elements") || unit_is(field, "weights"))
        return number_kind::quantity;
    if (unit_is(field, "permille")) return number_kind::fraction;
    return number_kind::count;
}

const char* to_string(number_kind kind) {
    switch (kind) {
        case number_kind::count: return "count";
        case number_kind::tokens: return "tokens";
        case number_kind::quantity: return "quantity";
        case number_kind::bytes: return "bytes";
        case number_kind::fraction: return "fraction";
    }
    return "count";
}

std::string field_forms_text(const field_spec& field) {
    const std::string unit = field.unit[0] != '\0' ? std::string(" of ") + field.unit : "";
    switch (number_kind_of(field)) {
        case number_kind::count:  // k and M said where they can be typed: not for a ZeRO stage of 0 to 3
            return "a whole number" + unit + " " + range_text(field) + (field.max >= 1000 ? " (k = 1,000, M = 1,000,000)" : "");
        case number_kind::tokens:
            // vllm/engine/arg_utils.py human_readable_int (vllm-project/vllm 99d7eb5d): k = 10^3, K = 2^10.
            return "a whole number" + unit + " " + range_text(field) +
                   ", such as 32768, 32,768, 32K (K = 1,024: 32,768) or 32k (k = 1,000: 32,000), as vLLM's "
                   "command line reads them";
        case number_kind::quantity:
            return "a whole number" + unit + " " + range_text(field) +
                   ", such as 7B, 70b, 8.03B, 7e9 or 7,000,000,000 (k, M, B, T: thousand, million, billion, trillion)";
        case number_kind::bytes:
            return "a size " + range_text(field) +
                   " bytes with a byte unit, such as 80GB (10^9 bytes), 74.5GiB (2^30 bytes) or 80000000000 "
                   "(bytes); K, M, B and T are counts, not sizes";
        case number_kind::fraction:
            return "a fraction from " + std::string(field.min == 1 ? "0.001" : "0") +
                   " to 1, written as 0.9, 90% or 900 (thousandths)";
    }
    return "";
}

outcome<std::uint64_t> parse_field_text(const field_spec& field, const std::string& text) {
    const std::string message = "must be " + field_forms_text(field);
    const number_kind kind = number_kind_of(field);
    if (kind == number_kind::fraction) return fraction_text(field, text, message);
    const split_text parts = split_suffix(text);
    const std::string& suffix = parts.suffix;
    auto read = [&](const std::string& quantity) { return in_range(field, parse_quantity(quantity, field.path, field.max), message); };
    auto refuse = [&] {
        outcome<std::uint64_t> out;
        out.errors.push_back({field.path, message});
        return out;
    };
    switch (kind) {
        case number_kind::count: {
            // "8k" sequences: k and M are 10^3 and 10^6 (as for parameter counts; a count has no
            // power-of-two convention), and the result must still be whole ("2.5k" = 2,500).
            if (suffix.empty()) return read(parts.number);
            if (suffix != "k" && suffix != "K" && suffix != "M") return refuse();
            return read(parts.number + (suffix == "M" ? "M" : "k"));
        }
        case number_kind::quantity: {
            if (suffix.empty()) return read(parts.number);
            if (suffix.size() != 1) return refuse();
            // Counts: k/K thousand, M/m million, B/b billion ("70b" as model names write it), T/t trillion.
            const char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix[0])));
            if (std::strchr("KMBT", upper) == nullptr) return refuse();
            return read(parts.number + upper);
        }
        case number_kind::bytes: {
            // Sizes only: kB/KB … TB (10^3 … 10^12 bytes, SI) and KiB … TiB (2^10 … 2^40 bytes, IEC 80000-13).
            static const char* const units[] = {"", "kB", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB"};
            for (const char* unit : units)
                if (suffix == unit) return read(parts.number + unit);
            return refuse();
        }
        case number_kind::tokens: {
            // vLLM's human_readable_int (vllm/engine/arg_utils.py, vllm-project/vllm 99d7eb5d): lowercase
            // k, m, g are 10^3, 10^6, 10^9 (decimals allowed: "25.6k" = 25,600); uppercase K, M, G are
            // 2^10, 2^20, 2^30 and take a whole number only ("1.5K" is refused). t and T continue the
            // pattern (10^12, 2^40), past every token range of the schema.
            if (suffix.empty()) return read(parts.number);
            if (suffix.size() != 1) return refuse();
            static constexpr char decimal_names[] = "kmgt", binary_names[] = "KMGT";
            const char c = suffix[0];
            if (const char* decimal = std::strchr(decimal_names, c)) {
                static const char* const si[] = {"k", "M", "B", "T"};  // the quantity parser's names of 10^3 … 10^12
                return read(parts.number + si[decimal - decimal_names]);
            }
            const char* at = std::strchr(binary_names, c);
            if (at == nullptr) return refuse();
            const unsigned shift = 10 * static_cast<unsigned>(at - binary_names + 1);
            if (parts.number.find_first_not_of("0123456789,") != std::string::npos) {
                outcome<std::uint64_t> out;
                out.errors.push_back({field.path, "cannot be " + text + ": " + std::string(1, c) +
                                                      " (2^" + std::to_string(shift) +
                                                      ") takes a whole number, as in vLLM; did you mean " +
                                                      parts.number + std::string(1, static_cast<char>(std::tolower(c))) +
                                                      "?"});
                return out;
            }
            const auto whole = parse_quantity(parts.number, field.path, field.max);
            outcome<std::uint64_t> scaled = whole;
            if (whole.errors.empty()) {
                const u128 value = u128{whole.value} << shift;
                if (value > field.max) return refuse();
                scaled.value = static_cast<std::uint64_t>(value);
            }
            return in_range(field, scaled, message);
        }
        case number_kind::fraction: break;
    }
    return refuse();
}

std::string field_value_text(const field_spec& field, std::uint64_t value) {
    switch (number_kind_of(field)) {
        case number_kind::fraction: {
            // Thousandths as a percent ("90%", "95.5%").
            const std::string tenths = value % 10 != 0 ? "." + std::to_string(value % 10) : "";
            return grouped(value / 10) + tenths + "%";
        }
        case number_kind::bytes: {
            const u128 hundredths = (u128{value} * 200 + bytes_per_gib) / (2 * u128{bytes_per_gib});  // GiB, rounded half up
            const std::string cents = std::to_string(static_cast<unsigned>(hundredths % 100));
            return grouped(value) + (value == 1 ? " byte" : " bytes") + " (" + grouped(hundredths / 100) + "." +
                   (cents.size() == 1 ? "0" : "") + cents + " GiB)";
        }
        default: {
            const std::string unit = unit_of(field, value);
            return grouped(value) + (unit.empty() ? "" : " " + unit);
        }
    }
}

std::string field_typed_text(const field_spec& field, std::uint64_t value) {
    if (number_kind_of(field) != number_kind::fraction) return detail::to_decimal(value);
    // Thousandths as a decimal fraction, trailing zeros dropped: 900 → "0.9", 955 → "0.955", 1000 → "1".
    std::string thousandths = std::to_string(1000 + value % 1000).substr(1);
    while (!thousandths.empty() && thousandths.back() == '0') thousandths.pop_back();
    return std::to_string(value / 1000) + (thousandths.empty() ? "" : "." + thousandths);
}

std::string field_text_note(const field_spec& field, const std::string& text) {
    if (number_kind_of(field) != number_kind::tokens) return "";
    const split_text parts = split_suffix(text);
    if (parts.suffix != "k") return "";
    const auto binary = parse_quantity(parts.number, field.path, field.max);
    const std::string upper = parts.number + "K";
    if (!binary.errors.empty() || (u128{binary.value} << 10) > field.max) return "k is 1,000, as vLLM reads it";
    return "k is 1,000, as vLLM reads it; " + upper + " is " + grouped(u128{binary.value} << 10);
}

}  // namespace memplan
