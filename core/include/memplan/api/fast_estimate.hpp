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

/// Slots of numeric_estimator::run's output, in order, named once: `handled` (1: the other slots hold
/// the result; 0: take the JSON path), the result's params and data_parallel, its per_gpu parts and
/// total, and its gpu verdict (has_capacity 1 when a capacity was given, fits 0 or 1).
#define MEMPLAN_NUMERIC_SLOTS(SLOT)                                                                              \
    SLOT(handled) SLOT(params) SLOT(data_parallel) SLOT(weights) SLOT(gradients) SLOT(optimizer_states)        \
    SLOT(activations) SLOT(logits) SLOT(communication) SLOT(kv_cache) SLOT(dequant_workspace) SLOT(misc)        \
    SLOT(total) SLOT(has_capacity) SLOT(capacity_bytes) SLOT(fits) SLOT(needed_bytes) SLOT(headroom_bytes) SLOT(shortfall_bytes)

enum class numeric_slot : std::size_t {
#define MEMPLAN_SLOT_ENUM(name) name,
    MEMPLAN_NUMERIC_SLOTS(MEMPLAN_SLOT_ENUM)
#undef MEMPLAN_SLOT_ENUM
    count
};

/// The slots' names, in order (numeric_slot_names[i] names slot i).
constexpr const char* numeric_slot_names[] = {
#define MEMPLAN_SLOT_NAME(name) #name,
    MEMPLAN_NUMERIC_SLOTS(MEMPLAN_SLOT_NAME)
#undef MEMPLAN_SLOT_NAME
};
static_assert(sizeof numeric_slot_names / sizeof numeric_slot_names[0] == static_cast<std::size_t>(numeric_slot::count));

class numeric_estimator {
public:
    numeric_estimator();

    /// The configuration fields the numbers address (index i is config_fields()[i]) and the output's
    /// slots, as JSON: {"fields": [{"path", "type", "min", "max", "optional", "choices": [...]}, ...],
    /// "slots": ["handled", "params", ...]} (numeric_slot_names); a choice is sent as its index in choices.
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
    std::size_t zero_stage_ = 0, shard_size_ = 0, weight_dtype_ = 0, state_dtype_ = 0,
                kbit_prepare_ = 0;  ///< indices of the fields resolve_layout and the warnings ask about
    estimate_config defaults_;            ///< what parse_config starts from
    std::vector<estimate_config> models_;
    std::vector<model_counts> counts_;  ///< count_model of each model
};

}  // namespace memplan
