// memplan — a totals-only estimate fed with numbers instead of JSON text, for callers that evaluate
// many configurations (the JS API's fast estimator, benchmarks). It reads exactly what the JSON
// reader reads (the schema table, core/src/schema.cpp, through each field's own `set`) and answers
// exactly what estimate() answers; anything it does not carry (text fields, out-of-range or
// non-integral numbers, errors, warnings) is reported as "not handled" so that the caller takes the
// JSON path, which names the problem.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "memplan/config/config.hpp"
#include "memplan/memory/estimate.hpp"

namespace memplan {

/// Slots of numeric_estimator::run's output, in order.
enum class numeric_slot : std::size_t {
    handled = 0,  ///< 1: the other slots hold the result; 0: take the JSON path
    params, data_parallel,
    weights, gradients, optimizer_states, activations, logits, communication, kv_cache, dequant_workspace, misc, total,
    has_capacity, capacity_bytes, fits, headroom_bytes, shortfall_bytes,
    count
};

class numeric_estimator {
public:
    numeric_estimator();

    /// The configuration fields the numbers address: index i is config_fields()[i]. As JSON:
    /// [{"path", "type", "min", "max", "choices": [...]}, ...]; a choice is sent as its index in choices.
    std::string fields_json() const;
    std::size_t field_count() const { return owners_.size(); }

    /// Registers a model section (the JSON text of a configuration's "model" object); returns its id,
    /// or -1 when the model does not read without error (the JSON path then reports why).
    int add_model(const std::string& model_json);

    /// Estimates the configuration with model `model` and, for each field i, values[i] (NaN = not
    /// given; booleans 0/1; choices their index). Fills out[0 … numeric_slot::count); false (and
    /// out[handled] = 0) when the JSON path must answer instead.
    bool run(int model, const double* values, double* out);

private:
    std::vector<int> owners_;  ///< per field: section rank in the JSON reader's order
    std::vector<std::size_t> order_;      ///< the carried fields' indices in the JSON reader's order
    std::vector<std::size_t> uncarried_;  ///< fields of sections the numbers do not carry
    std::size_t zero_stage_ = 0, shard_size_ = 0, weight_dtype_ = 0;  ///< indices of the fields resolve_layout asks about
    estimate_config defaults_;            ///< what parse_config starts from
    std::vector<estimate_config> models_;
    std::vector<model_counts> counts_;  ///< count_model of each model
};

}  // namespace memplan
