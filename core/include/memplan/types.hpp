// memplan — GPU memory planner. Shared value types of the public API.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace memplan {

/// One problem with one input: `field` is a dotted path ("parallel.tp"), `message` says what is allowed.
struct field_error {
    std::string field;
    std::string message;
};

/// A list of problems; empty means "no problem".
using diagnostics = std::vector<field_error>;

/// A value together with the errors that prevented computing it; `value` is meaningful only if ok().
template <class T>
struct outcome {
    T value{};
    diagnostics errors;
    bool ok() const { return errors.empty(); }
};

/// Largest integer that a JS number (IEEE double) holds exactly: 2^53.
constexpr std::uint64_t max_exact_integer = 9007199254740992ULL;

/// Largest parameter count the API accepts or returns: 2^49, so that 16 bytes per parameter stays below 2^53.
constexpr std::uint64_t max_param_count = 562949953421312ULL;

/// Largest GPU count the API accepts: 2^20.
constexpr std::uint64_t max_gpu_count = 1048576ULL;

/// Bytes in a GB (decimal, as vendors and the ZeRO paper use it) and in a GiB (binary).
constexpr std::uint64_t bytes_per_gb = 1000000000ULL;
constexpr std::uint64_t bytes_per_gib = 1073741824ULL;

}  // namespace memplan
