// memplan — per-GPU memory of training or inference of a transformer under a parallel layout.
// Conventions: everything is for the most loaded GPU; every byte count is an exact integer,
// rounded up to a whole byte; no figure is scaled by a hidden factor.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "memplan/base/types.hpp"
#include "memplan/config/config.hpp"
#include "memplan/memory/result.hpp"
#include "memplan/model/arch.hpp"

namespace memplan {

/// Checks every field of `config` against its allowed range; empty when all is well.
diagnostics validate(const estimate_config& config);

/// What estimate() derives from the model alone, counted once for many estimates of one model
/// (estimate_options::counts). model.params is not read by any of them.
struct model_counts {
    outcome<param_breakdown> params;  ///< count_params(model)
    layer_kind_counts layer_kinds;    ///< count_layer_kinds(model)
    bool uniform_layers = false;      ///< every decoder layer has the same parameters (estimate.cpp)
    diagnostics train_warnings;       ///< architecture_warnings(model, train)
    diagnostics infer_warnings;       ///< architecture_warnings(model, infer)
    diagnostics architecture_errors;  ///< validate_architecture(model), which validate() reports
};

/// count_params, count_layer_kinds and the uniform-layers test of `model`.
model_counts count_model(const model_config& model);

/// What estimate() fills beyond the totals.
struct estimate_options {
    /// The result's two lists, details.layer_activations (the per-tensor list with names and notes)
    /// and details.weight_bytes_by_dtype, which the JSON result writes; false: the totals-only path
    /// of searches (analyze, the numeric fast path), both lists empty, every other field the same.
    bool want_tensors = true;
    /// count_model(config.model) when the caller estimates one model many times (analyze, the numeric
    /// fast path); it must describe config.model (model.params aside, which no count reads). Null:
    /// counted here.
    const model_counts* counts = nullptr;
    /// The caller has checked every schema field outside the model against its range (the numeric
    /// fast path sets each value through that check and leaves the rest at parse_config's defaults):
    /// true skips validate()'s loop over those ranges, nothing else. An out-of-range field given with
    /// true is a caller's bug; leave it false for any configuration built elsewhere.
    bool fields_in_range = false;
    /// The result's warnings; false: r.warnings is left empty and their texts are not built (the
    /// searches of analyze(), which read totals, errors and fits only). Errors are the same either way.
    bool want_warnings = true;
};

/// The context a configuration asks the model to handle, and the field that sets it: train.seq_len in
/// training; infer.max_model_len under a serving engine when it is longer than infer.context_len;
/// infer.context_len otherwise. Compared with model.max_position_embeddings (estimate's warning, fits).
struct context_asked {
    const char* field;
    std::uint64_t tokens;
};
context_asked asked_context(const estimate_config& config);

/// Per-GPU memory for `config` as counted by memplan, without a serving engine's start-up arithmetic
/// (memplan/serving/serving.hpp adds it; memplan/api/estimate.hpp estimate() is the whole answer).
/// result.errors is non-empty (and nothing else is set) when the input is invalid.
estimate_result estimate_memory(const estimate_config& config, const estimate_options& options = {});

}  // namespace memplan
