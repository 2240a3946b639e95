// memplan — one tensor that a checkpoint stores, as its header gives it (a safetensors header,
// memplan/io/safetensors.hpp, or a GGUF header, memplan/io/gguf.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace memplan {

/// One stored tensor: its name, dtype (safetensors: "BF16", "F8_E4M3", …; GGUF: the ggml type, "Q4_K"),
/// shape, value count and bytes.
struct stored_tensor {
    std::string name;
    std::string dtype;
    std::vector<std::uint64_t> shape;
    std::uint64_t values = 0;
    std::uint64_t bytes = 0;
};

}  // namespace memplan
