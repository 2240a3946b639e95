// memplan — internal helpers shared by the core's source files (not part of the public API).
#pragma once

#include <cstdint>
#include <string>

#include "memplan/base/types.hpp"

namespace memplan::detail {

__extension__ typedef unsigned __int128 u128;  // GCC and Clang (also wasm32) extension

/// "must be an integer from LO to HI", the one wording of every integer range error.
std::string integer_range_message(std::uint64_t lo, std::uint64_t hi);

/// Converts `value` to an integer in [lo, hi]; on failure appends an error for `field` and returns lo.
std::uint64_t checked_integer(double value, const std::string& field, std::uint64_t lo, std::uint64_t hi,
                              diagnostics& errors);

/// Rounds a non-negative fraction up: ceil(numerator / denominator).
/// Operands that fit in 64 bits (nearly always) take the machine's 64-bit division instead of the
/// 128-bit library routine; the quotient is the same.
inline u128 ceil_div(u128 numerator, u128 denominator) {
    if ((numerator >> 64) == 0 && (denominator >> 64) == 0) {
        const std::uint64_t n = static_cast<std::uint64_t>(numerator), d = static_cast<std::uint64_t>(denominator);
        return n / d + (n % d != 0 ? 1 : 0);
    }
    return numerator / denominator + (numerator % denominator != 0 ? 1 : 0);
}

/// a · b, or false when it exceeds 2^62 (no real tensor comes near; a hostile checkpoint header must
/// not wrap): the tensor sizes of io/safetensors.cpp and io/gguf.cpp.
inline bool times(std::uint64_t a, std::uint64_t b, std::uint64_t& out) {
    constexpr std::uint64_t limit = std::uint64_t{1} << 62;
    if (a != 0 && b > limit / a) return false;
    out = a * b;
    return true;
}

/// Decimal text of a 128-bit unsigned integer (for messages).
std::string to_decimal(u128 value);

}  // namespace memplan::detail
