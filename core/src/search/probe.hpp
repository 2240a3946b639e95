// memplan — internal: the probes every search of this layer makes, written once. Each evaluates
// estimate() (memory/estimate.cpp) on a changed copy of the configuration and reads totals only.
#pragma once

#include <utility>

#include "memplan/memory/estimate.hpp"
#include "memplan/serving/serving.hpp"

namespace memplan::detail {

/// estimate() without the per-tensor activation list or warnings: the searches read totals only.
/// `counts` is count_model(config.model), counted once per search: no change the searches make
/// touches the model except model.params, which no count reads.
inline estimate_result estimate_totals(const estimate_config& config, const model_counts& counts) {
    estimate_options options;
    options.want_tensors = false;
    options.want_warnings = false;
    options.counts = &counts;
    return estimate_with_engine(config, options);
}

/// True when `config` estimates without error and fits its GPU.
inline bool fits(const estimate_config& config, const model_counts& counts) {
    const estimate_result r = estimate_totals(config, counts);
    return r.errors.empty() && r.fits;
}

/// Serving: true when `config` serves — with an engine, it starts and holds infer.batch requests of
/// max_model_len at once (num_blocks ≥ batch × blocks per request); without one, it fits.
inline bool serves(const estimate_config& config, const model_counts& counts, estimate_result* out = nullptr) {
    estimate_result r = estimate_totals(config, counts);
    bool ok = r.errors.empty();
    if (ok && config.infer.engine == serving_engine::none) ok = r.fits;
    else if (ok) {
        const serving_result& s = r.serving;
        ok = s.starts && s.max_concurrency_numerator / s.max_concurrency_denominator >= config.infer.batch;
    }
    if (out != nullptr) *out = std::move(r);
    return ok;
}

/// The fit every inverse answer asks for: serving in inference, fitting the GPU in training.
inline bool answers(const estimate_config& config, const model_counts& counts, estimate_result* out = nullptr) {
    if (config.mode == run_mode::infer) return serves(config, counts, out);
    estimate_result r = estimate_totals(config, counts);
    const bool ok = r.errors.empty() && r.fits;
    if (out != nullptr) *out = std::move(r);
    return ok;
}

}  // namespace memplan::detail
