// A totals-only estimate fed with numbers (memplan/fast_estimate.hpp). No new formula: the fields are
// set through the schema table's own setters, in the order the JSON reader (json.cpp parse_config)
// applies them, then resolve_layout and estimate() run as for JSON input.
#include "memplan/api/fast_estimate.hpp"

#include <cmath>
#include <cstring>

#include "memplan/api/estimate.hpp"
#include "memplan/io/json.hpp"
#include "memplan/config/schema.hpp"
#include "memplan/memory/frameworks.hpp"

namespace memplan {

namespace {
/// Sections in the order parse_config reads them: the top level, then parallel, train, infer,
/// overhead, gpu (the model is read separately, add_model).
constexpr const char* section_order[] = {"", "parallel", "train", "infer", "overhead", "gpu"};
constexpr int section_count = 6;

int owner_rank(const char* path) {
    const char* dot = std::strrchr(path, '.');
    const std::size_t length = dot == nullptr ? 0 : static_cast<std::size_t>(dot - path);
    for (int s = 0; s < section_count; ++s)
        if (std::strlen(section_order[s]) == length && std::strncmp(section_order[s], path, length) == 0) return s;
    return -1;  // a section the numeric path does not carry
}

const char* type_name(field_type t) {
    switch (t) {
        case field_type::integer: return "integer";
        case field_type::bytes: return "bytes";
        case field_type::boolean: return "boolean";
        case field_type::choice: return "choice";
        case field_type::text: return "text";
    }
    return "text";
}

/// The `index`-th name of a comma-separated list into `out`; false when there is none.
bool nth_choice(const char* choices, std::size_t index, std::string& out) {
    const char* start = choices;
    for (std::size_t i = 0;; ++i) {
        const char* end = std::strchr(start, ',');
        if (i == index) {
            out.assign(start, end == nullptr ? std::strlen(start) : static_cast<std::size_t>(end - start));
            return true;
        }
        if (end == nullptr) return false;
        start = end + 1;
    }
}

double number(std::uint64_t v) { return static_cast<double>(v); }
}  // namespace

numeric_estimator::numeric_estimator() {
    const auto& fields = config_fields();
    const std::size_t none = fields.size();  // an index no field has
    zero_stage_ = shard_size_ = weight_dtype_ = state_dtype_ = kbit_prepare_ = none;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        owners_.push_back(owner_rank(fields[i].path));
        if (owners_.back() < 0) uncarried_.push_back(i);
        if (std::strcmp(fields[i].path, "parallel.zero_stage") == 0) zero_stage_ = i;
        if (std::strcmp(fields[i].path, "parallel.zero_shard_size") == 0) shard_size_ = i;
        if (std::strcmp(fields[i].path, "infer.weight_dtype") == 0) weight_dtype_ = i;
        if (std::strcmp(fields[i].path, "infer.state_dtype") == 0) state_dtype_ = i;
        if (std::strcmp(fields[i].path, "train.kbit_prepare") == 0) kbit_prepare_ = i;
    }
    for (int section = 0; section < section_count; ++section)
        for (std::size_t i = 0; i < fields.size(); ++i)
            if (owners_[i] == section) order_.push_back(i);
}

std::string numeric_estimator::fields_json() const {
    std::string out = "{\"fields\":[";
    const auto& fields = config_fields();
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const field_spec& f = fields[i];
        out += i == 0 ? "{" : ",{";
        out += "\"path\":\"" + std::string(f.path) + "\",\"type\":\"" + type_name(f.type) + "\"";
        out += ",\"min\":" + std::to_string(f.min) + ",\"max\":" + std::to_string(f.max);
        out += ",\"optional\":" + std::string(f.unset_is_zero ? "true" : "false");
        out += ",\"choices\":[";
        if (f.type == field_type::choice && f.choices != nullptr) {
            std::string name;
            for (std::size_t k = 0; nth_choice(f.choices(), k, name); ++k) out += (k == 0 ? "\"" : ",\"") + name + "\"";
        }
        out += "]}";
    }
    out += "],\"slots\":[";
    for (std::size_t s = 0; s < static_cast<std::size_t>(numeric_slot::count); ++s)
        out += (s == 0 ? "\"" : ",\"") + std::string(numeric_slot_names[s]) + "\"";
    return out + "]}";
}

int numeric_estimator::add_model(const std::string& model_json) {
    const auto parsed = parse_config("{\"model\":" + model_json + "}");
    if (!parsed.ok()) return -1;
    models_.push_back(parsed.value);
    counts_.push_back(count_model(parsed.value.model));
    return static_cast<int>(models_.size() - 1);
}

bool numeric_estimator::run(int model, const double* values, double* out) {
    for (std::size_t s = 0; s < static_cast<std::size_t>(numeric_slot::count); ++s) out[s] = 0;
    if (model < 0 || static_cast<std::size_t>(model) >= models_.size()) return false;
    estimate_config& c = models_[static_cast<std::size_t>(model)];
    // Everything but the model back to the defaults parse_config starts from.
    c.mode = defaults_.mode;
    c.parallel = defaults_.parallel;
    c.train = defaults_.train;
    c.infer = defaults_.infer;
    c.misc_bytes = defaults_.misc_bytes;
    c.gpu_memory_bytes = defaults_.gpu_memory_bytes;
    for (const std::size_t i : uncarried_)
        if (!std::isnan(values[i])) return false;
    const auto& fields = config_fields();
    field_value value;
    for (const std::size_t i : order_) {  // the JSON reader's order
        if (std::isnan(values[i])) continue;
        const field_spec& f = fields[i];
        const double v = values[i];
        switch (f.type) {
            case field_type::integer:
            case field_type::bytes:
                // As the JSON reader: an integral value in [min, max]; anything else is the JSON path's to name.
                if (!(v >= 0) || v > 9007199254740992.0 || v != std::floor(v)) return false;
                value.number = static_cast<std::uint64_t>(v);
                if (value.number < f.min || value.number > f.max) return false;
                break;
            case field_type::boolean:
                if (v != 0 && v != 1) return false;
                value.flag = v == 1;
                break;
            case field_type::choice:
                if (!(v >= 0) || v != std::floor(v) || f.choices == nullptr ||
                    !nth_choice(f.choices(), static_cast<std::size_t>(v), value.name))
                    return false;
                break;
            case field_type::text: return false;
        }
        if (!f.set(c, value)) return false;
    }
    const auto given = [&](std::size_t i) { return i < fields.size() && !std::isnan(values[i]); };
    const bool zero_stage_given = given(zero_stage_), shard_size_given = given(shard_size_);
    c.infer.weight_dtype_given = given(weight_dtype_);
    c.infer.state_dtype_given = given(state_dtype_);
    c.train.kbit_prepare_given = given(kbit_prepare_);
    // A named framework's defaults for the fields not given, as parse_config applies them; the warnings that
    // state them send the call to the JSON path.
    apply_framework_defaults(c, [&](const std::string& path) {
        for (std::size_t i = 0; i < fields.size(); ++i)
            if (path == fields[i].path) return given(i);
        return false;
    });
    follow_model_state_dtype(c);
    if (!resolve_layout(c, zero_stage_given, shard_size_given).empty()) return false;
    estimate_options options;
    options.want_tensors = false;
    options.counts = &counts_[static_cast<std::size_t>(model)];
    options.fields_in_range = true;  // every value above passed its field's range; the rest are defaults
    const estimate_result r = estimate(c, options);
    if (!r.errors.empty() || !r.warnings.empty() || r.serving.present) return false;
    const auto at = [out](numeric_slot s) -> double& { return out[static_cast<std::size_t>(s)]; };
    const memory_breakdown& b = r.per_gpu;
    at(numeric_slot::params) = number(r.params);
    at(numeric_slot::data_parallel) = number(r.data_parallel);
    at(numeric_slot::weights) = number(b.weights);
    at(numeric_slot::gradients) = number(b.gradients);
    at(numeric_slot::optimizer_states) = number(b.optimizer_states);
    at(numeric_slot::activations) = number(b.activations);
    at(numeric_slot::logits) = number(b.logits);
    at(numeric_slot::communication) = number(b.communication);
    at(numeric_slot::kv_cache) = number(b.kv_cache);
    at(numeric_slot::dequant_workspace) = number(b.dequant_workspace);
    at(numeric_slot::misc) = number(b.misc);
    at(numeric_slot::total) = number(b.total);
    at(numeric_slot::has_capacity) = r.has_capacity ? 1 : 0;
    at(numeric_slot::capacity_bytes) = number(r.capacity_bytes);
    at(numeric_slot::fits) = r.fits ? 1 : 0;
    at(numeric_slot::needed_bytes) = number(r.needed_bytes);
    at(numeric_slot::headroom_bytes) = number(r.headroom_bytes);
    at(numeric_slot::shortfall_bytes) = number(r.shortfall_bytes);
    at(numeric_slot::handled) = 1;
    return true;
}

}  // namespace memplan
