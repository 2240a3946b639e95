// memplan CLI — command-line arguments in the manner of Python's argparse: --name=value,
// --name value, single-dash aliases (-tp 2, -tp=2), and unambiguous prefixes of long names
// (--param for --params), so that transformer_mem.py's command lines work unchanged.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "memplan/base/types.hpp"

namespace memplan::cli {

/// One option a command accepts.
struct option_spec {
    std::string name;                  ///< long name without dashes
    std::vector<std::string> aliases;  ///< single-dash aliases without the dash
    bool takes_value = false;
};

/// What parse_args found: values of options that take one, switches that were given, or an error.
struct parsed_args {
    std::map<std::string, std::string> values;
    std::map<std::string, bool> flags;
    std::string error;  ///< "" = parsed; else "unrecognized argument -x", "ambiguous option --num", …
    bool has(const std::string& name) const { return values.count(name) != 0 || flags.count(name) != 0; }
    /// The value of `name`, or std::nullopt when it was not given.
    std::optional<std::string> value(const std::string& name) const;
};

/// Parses `argv` (the arguments after the command name) against `specs`; stops at the first error.
parsed_args parse_args(const std::vector<std::string>& argv, const std::vector<option_spec>& specs);

/// A whole quantity option ("7e9", "14.5B", "80GB", "80GiB", memplan/units.hpp): `fallback` when
/// not given; otherwise its value, or 0 with the error (naming the option) appended to `errors`.
std::uint64_t quantity(const parsed_args& args, const std::string& name, std::uint64_t fallback, diagnostics& errors,
                       std::uint64_t max = max_exact_integer);

}  // namespace memplan::cli
