// memplan — the tensors a safetensors checkpoint stores, read from the bytes of its header (the CLI
// reads the files): per tensor its dtype and shape, and the stored bytes they add up to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/base/types.hpp"
#include "memplan/io/checkpoint.hpp"

namespace memplan {

/// The largest header memplan reads: the safetensors format's own bound (safetensors
/// safetensors/src/tensor.rs MAX_HEADER_SIZE, 100,000,000 bytes, at v0.6.2).
constexpr std::uint64_t max_safetensors_header_bytes = 100000000;

/// The length of the JSON header that a safetensors file states in its first 8 bytes (a little-endian
/// unsigned 64-bit integer): from 2 to max_safetensors_header_bytes and within the file's
/// `file_bytes`; errors name `file`.
outcome<std::uint64_t> safetensors_header_length(const std::string& first_bytes, std::uint64_t file_bytes,
                                                 const std::string& file);

/// The tensors of a safetensors JSON header (its "__metadata__" skipped), in order of name: each
/// with a known dtype, a shape of non-negative sizes and data_offsets [begin, end] whose span is the
/// shape's bytes; errors name `file` and the tensor.
outcome<std::vector<stored_tensor>> parse_safetensors_header(const std::string& header, const std::string& file);

/// The shard files that a model.safetensors.index.json text names (its weight_map's values, each once,
/// in order of name); a name holding a path separator or "..", which would point outside the
/// model's folder, is refused; errors name `file`.
outcome<std::vector<std::string>> safetensors_index_files(const std::string& index_text, const std::string& file);

}  // namespace memplan
