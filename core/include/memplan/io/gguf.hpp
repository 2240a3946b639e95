// memplan — the header of a GGUF file (llama.cpp, Ollama, LM Studio), read from its bytes (the CLI
// reads the file): the metadata, the tensors' names, ggml types and shapes, and the bytes they store;
// and the Hugging Face config.json and tensor names that its metadata describes, so that memplan's
// own resolver counts the model (one source of truth for a family). Format: ggml-org/ggml
// docs/gguf.md at commit d99724f2b141fed9e1a9f402213506c081433465.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "memplan/base/types.hpp"
#include "memplan/io/checkpoint.hpp"

namespace memplan {

/// The alignment of the tensor data when general.alignment is absent (docs/gguf.md "File Structure";
/// gguf-py/gguf/constants.py GGUF_DEFAULT_ALIGNMENT = 32 in ggml-org/llama.cpp at commit
/// 0024aa7417efd50a7c2a79e049dfbbbceb0beaaf).
constexpr std::uint64_t gguf_default_alignment_bytes = 32;

/// The most header bytes memplan reads: a bound of its own (the largest real headers, a 256k-token
/// vocabulary with scores and merges, are some 20 MB); a longer header is refused naming the file.
constexpr std::uint64_t max_gguf_header_bytes = std::uint64_t{256} << 20;

/// One ggml type: its GGUF name ("Q4_K"), the values in a block and the bytes a block stores.
struct gguf_type_info {
    std::uint32_t id = 0;
    const char* name = "";
    std::uint64_t block_values = 0;
    std::uint64_t block_bytes = 0;
};

/// The ggml type of id `id`, or nullptr for an id that is unknown or whose support was removed.
const gguf_type_info* gguf_type(std::uint32_t id);

/// A metadata value. Scalars keep their value (integers in `integer` with `negative` for a signed
/// value below zero, floats in `real`, bools in `integer` 0/1, strings in `text`); an array keeps only
/// its element type and length (a vocabulary's strings are not kept).
struct gguf_value {
    std::uint32_t type = 0;  ///< gguf_metadata_value_type (docs/gguf.md): 0 uint8 … 12 float64
    std::uint64_t integer = 0;
    bool negative = false;
    double real = 0;
    std::string text;
    std::uint32_t array_type = 0;
    std::uint64_t array_length = 0;
};

/// What a GGUF header holds.
struct gguf_header {
    std::uint32_t version = 0;
    std::uint64_t tensor_count = 0;
    std::uint64_t metadata_kv_count = 0;
    std::map<std::string, gguf_value> metadata;
    std::uint64_t alignment_bytes = gguf_default_alignment_bytes;
    std::uint64_t data_offset_bytes = 0;   ///< where the tensor data starts (the header's aligned end)
    std::vector<stored_tensor> tensors;    ///< in file order; dtype the ggml type's name, shape ggml's ne0…
    std::vector<std::uint64_t> offsets;    ///< each tensor's offset relative to data_offset_bytes
};

/// parse_gguf_header's answer: the header, or errors naming the file; `needs_more` when `bytes` ended
/// before the header did but the file holds more (read a longer prefix and call again).
struct gguf_parse {
    outcome<gguf_header> header;
    bool needs_more = false;
};

/// Reads the header of a GGUF file from `bytes`, its first bytes, and `file_bytes`, its size: magic
/// "GGUF", version 2 or 3, the counts, every metadata value, the tensor infos (at most 4 dimensions,
/// known ggml types, rows a multiple of the block size, offsets aligned and within the file). Every
/// count and length is checked against the bytes the file holds before anything is allocated.
/// Errors name `file` and what is wrong.
gguf_parse parse_gguf_header(const std::string& bytes, std::uint64_t file_bytes, const std::string& file);

/// The GGUF architectures whose metadata memplan maps onto a Hugging Face config.json.
std::vector<std::string> gguf_architectures();

/// The Hugging Face config.json (text) that a header's metadata describes, for memplan's own
/// resolver; an architecture not mapped is refused naming general.architecture and the known ones.
outcome<std::string> gguf_hf_config(const gguf_header& header, const std::string& file);

/// The header's tensors renamed to the Hugging Face module names (token_embd.weight →
/// model.embed_tokens.weight, blk.N.attn_q.weight → model.layers.N.self_attn.q_proj.weight, …), which
/// checkpoint_json assigns to memplan's parts; a name not mapped stays as it is.
std::vector<stored_tensor> gguf_hf_tensors(const gguf_header& header);

}  // namespace memplan
