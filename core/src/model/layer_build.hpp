// memplan — internal: one transformer layer's weight matrices and parameters by place, built by
// build_layer (params.cpp) for the parameter counts and for the linear modules adapters target
// (arch.cpp). Not public API.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "base/checks.hpp"
#include "memplan/config/config.hpp"

namespace memplan::detail {

/// One kind of weight matrix in a layer: d_in × d_out, `count` of them (experts), HF module name.
struct matrix {
    const char* name;
    u128 d_in, d_out, count;
    bool expert;
    bool mixer = false;  ///< an attention / linear-attention / Mamba projection (model.quant_mixer_kept)
};

/// One layer's parameters by place, and its weight matrices.
struct layer_build {
    u128 attention = 0;        ///< mixer: projections, their biases, mixer-internal norms, sinks
    u128 mlp = 0;              ///< dense MLP
    u128 experts = 0;          ///< routed experts, all
    u128 experts_active = 0;   ///< top-k of them
    u128 shared = 0;           ///< shared experts and their gate
    u128 router = 0;
    u128 norms = 0;            ///< the layer's own norms (norms_per_layer)
    std::vector<matrix> matrices;
    u128 total() const { return attention + mlp + experts + shared + router + norms; }
    u128 active() const { return attention + mlp + experts_active + shared + router + norms; }
};

/// Layer `layer` (its index, for the per-layer variants of DeepSeek-V4; any other family ignores it).
layer_build build_layer(const model_config& m, attention_kind a, layer_mlp_kind f, std::uint64_t layer = ~std::uint64_t{0});

inline std::uint64_t narrow(u128 v) { return static_cast<std::uint64_t>(v); }

}  // namespace memplan::detail
