// memplan CLI — what every command prints: numbers for people, errors (stderr, and JSON on stdout
// with --json), exit statuses.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "memplan/base/types.hpp"

namespace memplan::cli {

/// Exit status of every usage or input error.
constexpr int exit_usage = 2;

/// 7000000000 → "7,000,000,000".
std::string with_commas(std::uint64_t value);

/// Bytes in GB (1e9) or GiB (2^30) with two decimals and the unit: "6.43 GiB".
std::string in_units(std::uint64_t bytes, bool gib);

/// Prints each error as "memplan: error: FIELD: MESSAGE" on stderr (and the core's {"errors": […]}
/// on stdout when `json`); returns exit_usage.
int report_errors(const diagnostics& errors, bool json);

/// Prints "memplan: error: MESSAGE" and a pointer to --help on stderr; returns exit_usage.
int usage_error(const std::string& message);

/// The core's field names replaced by the flags the user typed: a field equal to `from` becomes
/// `to`, and so does every whole-word `from` in a message ("must not exceed total_params").
diagnostics rename_fields(diagnostics errors, const std::vector<std::pair<std::string, std::string>>& names);

/// Field names of upstream Python arguments (num_layers) as their command-line flags (num-layers).
diagnostics dashed_fields(diagnostics errors);

}  // namespace memplan::cli
