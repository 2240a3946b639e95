// memplan — where a model's parameters live and how many layers of each kind it has: the plain
// structs that count_params (memplan/model/arch.hpp) fills and an estimate result carries.
#pragma once

#include <cstdint>

namespace memplan {

/// A parameter count split into all parameters and those one token uses.
struct param_part {
    std::uint64_t total = 0;
    std::uint64_t active = 0;
};

/// Where a model's parameters live; the totals sum to the parameter count, the actives to the active count.
struct model_param_parts {
    param_part embedding, attention, mlp, experts, shared_experts, router, norms, output, mtp, vision;
};

/// Layers of each attention and MLP kind.
struct layer_kind_counts {
    std::uint64_t full = 0, sliding = 0, chunked = 0, mla = 0, linear = 0, mamba = 0, no_attention = 0;
    std::uint64_t dense = 0, moe = 0, no_mlp = 0;
};

}  // namespace memplan
