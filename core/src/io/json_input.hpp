// memplan — internal: reading untrusted JSON text into a document, within stated limits.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "memplan/base/types.hpp"

namespace memplan::detail {

/// Parses `text` as one JSON object for the input named `field` ("config", "hf_config"). Refused,
/// with an error naming `field`: what check_input_text refuses (size, NUL byte), nesting deeper than
/// max_json_depth, invalid JSON, a key given twice in one object, anything but an object. A lone
/// UTF-16 surrogate escape (which JavaScript's JSON.parse accepts) reads as U+FFFD. With `python_tokens`
/// (a Hugging Face config.json, which Python's json module writes), the bare values Infinity, -Infinity
/// and NaN outside strings read as those doubles; without it they are invalid JSON, as the standard says.
nlohmann::ordered_json parse_document(const std::string& text, const char* field, diagnostics& errors,
                                      bool python_tokens = false);

/// `name` for an error message: quoted when empty, cut to max_echoed_name_chars characters.
std::string echoed_name(const std::string& name);

}  // namespace memplan::detail
