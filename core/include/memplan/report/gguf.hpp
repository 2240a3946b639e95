// memplan — a GGUF file's header reconciled with memplan's count, and the warning an estimate from one
// carries (the CLI reads the file; memplan/io/gguf.hpp parses it).
#pragma once

#include <string>

#include "memplan/io/gguf.hpp"

namespace memplan {

/// checkpoint_json (memplan/report/json.hpp) of a GGUF file's header: {"file", "format": "gguf",
/// "gguf_version", "architecture", "hf_config": the config.json its metadata describes, then
/// checkpoint_json's keys over its tensors renamed to the Hugging Face modules (by_dtype keyed by the
/// ggml type, "Q4_K", its bytes the blocks stored)}; an architecture not mapped, or metadata that does
/// not describe the model, is refused naming `file` and the key.
std::string checkpoint_gguf_json(const gguf_header& header, const std::string& file);

/// An estimate's JSON text (estimate_json over gguf_hf_config's config.json) with a warning naming
/// `file`: memplan has no GGUF weight format, so the estimate counts the weights at the
/// configuration's weight dtype, not at the GGUF's stored bytes (given per ggml type and in sum).
std::string gguf_estimate_json(const std::string& estimate_text, const gguf_header& header, const std::string& file);

}  // namespace memplan
