#include "base/checks.hpp"

#include <cmath>

namespace memplan::detail {

std::string to_decimal(u128 value) {
    if (value == 0) return "0";
    std::string digits;
    while (value != 0) {
        digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(value % 10)));
        value /= 10;
    }
    return digits;
}

std::string integer_range_message(std::uint64_t lo, std::uint64_t hi) {
    return "must be an integer from " + to_decimal(lo) + " to " + to_decimal(hi);
}

std::uint64_t checked_integer(double value, const std::string& field, std::uint64_t lo, std::uint64_t hi,
                              diagnostics& errors) {
    // NaN fails every comparison, so the range test below also rejects it.
    const bool in_range = std::isfinite(value) && value >= static_cast<double>(lo) &&
                          value <= static_cast<double>(hi) && std::floor(value) == value;
    if (!in_range) {
        errors.push_back({field, integer_range_message(lo, hi)});
        return lo;
    }
    return static_cast<std::uint64_t>(value);
}

}  // namespace memplan::detail
