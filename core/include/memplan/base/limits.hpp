// memplan — the named limits of the public API: the largest values memplan accepts or returns.
// Every range in the schema (memplan/schema.hpp) is written with these names.
#pragma once

#include <cstddef>
#include <cstdint>

namespace memplan {

/// Largest integer that a JS number (IEEE double) holds exactly: 2^53.
constexpr std::uint64_t max_exact_integer = 9007199254740992ULL;

/// Largest parameter count the API accepts or returns: 2^49, so that 16 bytes per parameter stays below 2^53.
constexpr std::uint64_t max_param_count = 562949953421312ULL;

/// Largest GPU count the API accepts: 2^20.
constexpr std::uint64_t max_gpu_count = 1048576ULL;

/// Bytes in a GB (decimal, as vendors and the ZeRO paper use it) and in a GiB (binary).
constexpr std::uint64_t bytes_per_gb = 1000000000ULL;
constexpr std::uint64_t bytes_per_gib = 1073741824ULL;

/// Largest tensor-, pipeline-, context- or expert-parallel degree: 2^10.
constexpr std::uint64_t max_parallel_degree = 1024ULL;
/// Largest batch, micro-batch or number of micro-batches in flight: 2^20 sequences.
constexpr std::uint64_t max_batch_size = 1048576ULL;
/// Largest sequence or context length: 2^24 tokens.
constexpr std::uint64_t max_token_count = 16777216ULL;
/// Largest model.max_position_embeddings read (configs state up to ~10^7; the key does not change memory).
constexpr std::uint64_t max_context_limit = 1099511627776ULL;
/// Largest hidden or FFN width: 2^20.
constexpr std::uint64_t max_width = 1048576ULL;
/// Largest number of layers, heads, KV heads, experts or head size: 2^16.
constexpr std::uint64_t max_layer_count = 65536ULL;
/// Largest vocabulary: 2^24 tokens.
constexpr std::uint64_t max_vocab_size = 16777216ULL;
/// Largest number of GPUs in one node: 2^10.
constexpr std::uint64_t max_gpus_per_node = 1024ULL;
/// The layout planner's bounds (memplan/search/plan.hpp): the largest GPU count it searches (2^16),
/// the most layouts it returns, the largest micro-batch it sweeps, and the most layouts it evaluates.
constexpr std::uint64_t max_plan_gpus = 65536ULL;
constexpr std::uint64_t max_plan_top_n = 100ULL;
constexpr std::uint64_t max_plan_micro_batch = 64ULL;
constexpr std::uint64_t max_plan_layouts = 4000000ULL;

/// Largest number of interleaved pipeline chunks per GPU.
constexpr std::uint64_t max_virtual_stages = 64ULL;
/// Largest number of norms per transformer layer.
constexpr std::uint64_t max_norms_per_layer = 16ULL;

/// Largest configuration or Hugging Face config.json text memplan reads: 8 MiB (2^23 bytes). Real
/// config.json files are a few KiB; a reader needs at most max_config_bytes + 1 bytes to tell.
constexpr std::size_t max_config_bytes = 8388608;
/// Deepest nesting of objects and arrays accepted in a JSON input (real configs nest 3 levels).
constexpr std::uint64_t max_json_depth = 64ULL;
/// Longest key or name echoed in an error message; longer ones are cut with "…".
constexpr std::uint64_t max_echoed_name_chars = 64ULL;

}  // namespace memplan
