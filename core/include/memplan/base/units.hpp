// memplan — reading quantities such as "7e9", "7B", "80GB", "80GiB" exactly.
#pragma once

#include <cstdint>
#include <string>

#include "memplan/base/types.hpp"

namespace memplan {

/// Parses a non-negative whole quantity: a decimal number (with optional fraction and exponent)
/// and an optional suffix: k or K, M, B, T (×1e3, 1e6, 1e9, 1e12 — counts), kB or KB, MB, GB, TB
/// (×1e3 … 1e12 bytes) or KiB, MiB, GiB, TiB (×2^10 … 2^40 bytes). Exact: "14.5B" is 14500000000,
/// "1.5GiB" is 1610612736; a value that is not whole, or above `max`, is an error for `field`.
/// As people write numbers: one space may stand before the suffix ("80 GiB"), and the whole part may
/// use commas between groups of three digits ("8,000,000,000"). Lowercase b ("7b", "80Gb") means bits
/// in SI/IEC usage and is refused rather than guessed.
/// This is the one parser of numeric input for the CLI and the page (mp.parseQuantity).
outcome<std::uint64_t> parse_quantity(const std::string& text, const std::string& field,
                                      std::uint64_t max = max_exact_integer);

}  // namespace memplan
