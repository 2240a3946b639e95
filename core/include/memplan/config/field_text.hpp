// memplan — a number field's text as people type it, read by the field's kind (memplan/config/schema.hpp):
// token counts as vLLM's command line reads them ("32K" = 32,768, "32k" = 32,000), parameter counts
// with decimal suffixes ("7B", "70b"), byte sizes only with byte units ("80GB", "74.5GiB"), fractions
// as fractions, percents or thousandths ("0.9", "90%", "900"), and plain counts (GPUs, sequences) as
// whole numbers with k and M (10^3, 10^6). The page reads every number field through this
// (mp.parseField), and shows the value understood beside the field (field_value_text).
#pragma once

#include <cstdint>
#include <string>

#include "memplan/base/types.hpp"
#include "memplan/config/schema.hpp"

namespace memplan {

/// How an integer or bytes field's text is read; decided by the field's unit in the schema.
enum class number_kind {
    count,       ///< GPUs, sequences, layers, heads: a whole number ("8", "1,024", "8k" = 8,000)
    tokens,      ///< tokens and positions: vLLM's human-readable integers (k = 10^3, K = 2^10, m, M, g, G)
    quantity,    ///< parameters and elements: decimal suffixes k/K, M/m, B/b, T/t ("7B", "70b", "1.5M")
    bytes,       ///< a size: byte units only (kB … TB = 10^3 … 10^12 bytes, KiB … TiB = 2^10 … 2^40)
    fraction,    ///< stored in thousandths: "0.9", "90%" or "900"
};

/// The kind of an integer or bytes field (count for other types).
number_kind number_kind_of(const field_spec& field);

/// The kind's name as the schema JSON states it: "count", "tokens", "quantity", "bytes", "fraction".
const char* to_string(number_kind kind);

/// What the field accepts, in words, with examples that fit it: "a whole number of tokens from 1 to
/// 1,048,576, such as 32768, 32,768, 32K (32,768: K = 1,024) or 32k (32,000), as vLLM reads
/// --max-model-len". The error message of a text it cannot read is "must be " + this.
std::string field_forms_text(const field_spec& field);

/// Reads what a person typed into an integer or bytes field, by the field's kind, and checks the
/// field's range (an optional field's 0, "not set", is refused: leave the text empty instead). Errors
/// name the field's path and say what it accepts.
outcome<std::uint64_t> parse_field_text(const field_spec& field, const std::string& text);

/// The value as the field means it, for showing beside the field: "8,192 tokens", "1 sequence",
/// "90%", "80,000,000,000 bytes (74.51 GiB)", "7,000,000,000 parameters".
std::string field_value_text(const field_spec& field, std::uint64_t value);

/// The value as a person would type it into the field (what the form shows in the box, where
/// field_value_text is the readout beside it): "0.9" for 900 thousandths, "8192" for a count.
std::string field_typed_text(const field_spec& field, std::uint64_t value);

/// A note on how the text was read where another reading is common ("" otherwise): a token count
/// with lowercase k ("8k") is 8,000 as vLLM reads it, while model cards' "8K" means 8,192.
std::string field_text_note(const field_spec& field, const std::string& text);

}  // namespace memplan
