// memplan CLI — reading a JSON document from a file or standard input, bounded: at most
// max_config_bytes + 1 bytes are read (memplan/input_limits.hpp), so /dev/zero or an endless pipe
// is refused instead of filling memory or running forever.
#pragma once

#include <string>

#include "memplan/base/types.hpp"

namespace memplan::cli {

/// The text of `path` ("-" = standard input) for the input named `field` ("config", "hf_config").
/// Errors name the field: a path that cannot be read or is a directory, and everything
/// check_input_text refuses (too large, a NUL byte, and — when `required` — empty).
outcome<std::string> read_input(const std::string& path, const std::string& field, bool required);

}  // namespace memplan::cli
