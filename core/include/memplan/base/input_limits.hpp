// memplan — limits on the text a front end hands to the core's JSON readers (configuration and
// Hugging Face config.json), so that hostile input is refused with a message instead of exhausting
// memory or being half read.
#pragma once

#include <cstddef>
#include <string>

#include "memplan/base/types.hpp"

namespace memplan {

/// Problems with a document's text before it is parsed, naming `field` ("config", "hf_config"):
/// longer than max_config_bytes (memplan/limits.hpp); a NUL byte (never valid in JSON text, RFC 8259 §2 and §7, and a
/// reader that stops there would silently use half a document); and, when `required`, no content
/// (empty or only whitespace). Empty when the text may be parsed.
diagnostics check_input_text(const std::string& text, const std::string& field, bool required);

}  // namespace memplan
