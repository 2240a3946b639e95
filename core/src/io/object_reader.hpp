// memplan — internal: reads one level of a JSON object, key by key, with range-checked values
// and errors that name the dotted field (not public API); and the `model` section read with it
// (model_json.cpp, its vision towers in vision_tower.cpp, its quantization in quantization.cpp).
#pragma once

#include <cstring>
#include <functional>
#include <limits>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "base/checks.hpp"
#include "io/json_text.hpp"
#include "memplan/config/config.hpp"
#include "memplan/config/schema.hpp"
#include "memplan/model/families.hpp"

namespace memplan::detail {

/// Reads one object level: each known key has a handler; unknown keys are errors unless the object
/// is a Hugging Face config (lenient), whose many unrelated keys are ignored and whose nulls read as absent.
class object_reader {
public:
    using json = nlohmann::ordered_json;
    object_reader(const json& object, std::string path, diagnostics& errors, bool lenient = false)
        : object_(object), path_(std::move(path)), errors_(errors), lenient_(lenient) {}

    std::string field(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

    /// The value of `key` when present and not null; marks the key as known.
    const json* find(const char* key) {
        const auto it = object_.find(key);
        if (it == object_.end()) return nullptr;
        // Only keys present are recorded (finish() looks at those; read() tells what a lenient object used).
        known_.emplace(key);
        // Hugging Face configs write null for "not set"; memplan's own objects treat null as a wrong type.
        if (lenient_ && it->is_null()) return nullptr;
        return &*it;
    }

    bool has(const char* key) { return find(key) != nullptr; }

    void integer(const char* key, std::uint64_t& out, std::uint64_t lo, std::uint64_t hi) {
        const json* v = find(key);
        if (v == nullptr) return;
        // The error names the field in the schema's wording where it has a row (one message per field
        // everywhere); both are built only on failure.
        const auto failed = [&] {
            const std::string name = field(key);
            const field_spec* spec = find_field(name);
            fail(name, nonfinite_prefix(*v) + (spec != nullptr && spec->min == lo && spec->max == hi
                                                   ? field_message(*spec)
                                                   : detail::integer_range_message(lo, hi)));
        };
        if (v->is_number_unsigned()) {
            const auto value = v->get<std::uint64_t>();
            if (value < lo || value > hi) return failed();
            out = value;
        } else if (v->is_number()) {
            // Negative integers and floats: accept only an integral value in range (7e9 is fine).
            diagnostics range_errors;
            out = detail::checked_integer(v->get<double>(), key, lo, hi, range_errors);
            if (!range_errors.empty()) failed();
        } else {
            failed();
        }
    }

    void signed_integer(const char* key, std::int64_t& out, std::int64_t lo, std::int64_t hi, const char* message) {
        const json* v = find(key);
        if (v == nullptr) return;
        if (v->is_number()) {
            const double value = v->get<double>();
            for (std::int64_t candidate = lo; candidate <= hi; ++candidate)
                if (value == static_cast<double>(candidate)) {
                    out = candidate;
                    return;
                }
        }
        fail(field(key), message);
    }

    void boolean(const char* key, bool& out) {
        const json* v = find(key);
        if (v == nullptr) return;
        if (!v->is_boolean()) return fail(field(key), "must be true or false");
        out = v->get<bool>();
    }

    /// A probability (dropout rates); false when absent, an error when not a number from 0 to 1.
    bool probability(const char* key, double& out) {
        const json* v = find(key);
        if (v == nullptr) return false;
        if (!v->is_number() || !(v->get<double>() >= 0 && v->get<double>() <= 1)) {
            fail(field(key), nonfinite_prefix(*v) + "must be a number from 0 to 1");
            return false;
        }
        out = v->get<double>();
        return true;
    }

    void text(const char* key, std::string& out) {
        const json* v = find(key);
        if (v == nullptr) return;
        if (!v->is_string()) return fail(field(key), "must be a string");
        out = v->get<std::string>();
    }

    template <class E>
    void name(const char* key, E& out, const char* allowed) {
        const json* v = find(key);
        if (v == nullptr) return;
        if (!v->is_string() || !parse_enum(v->get<std::string>(), out))
            fail(field(key), std::string("must be one of: ") + allowed);
    }

    /// The field `spec` (its key is the last part of its path) into `config`, with the schema's
    /// range and message; true when the key was present.
    bool read(const field_spec& spec, estimate_config& config) {
        const char* dot = std::strrchr(spec.path, '.');
        const char* key = dot != nullptr ? dot + 1 : spec.path;
        const json* v = find(key);
        // A field whose schema default is null ("not set") may be written as null, as the
        // resolved-configuration echo writes it.
        if (v != nullptr && v->is_null() && is_optional(spec)) return false;
        if (v == nullptr) return false;
        const std::string name = field(key);
        field_value value;
        switch (spec.type) {
            case field_type::integer:
            case field_type::bytes:
                if (v->is_number_unsigned()) {
                    value.number = v->get<std::uint64_t>();
                    if (value.number < spec.min || value.number > spec.max) {
                        fail(name, field_message(spec));
                        return true;
                    }
                } else if (v->is_number()) {
                    // Negative integers and floats: accept only an integral value in range (7e9 is fine).
                    diagnostics range_errors;
                    value.number = detail::checked_integer(v->get<double>(), name, spec.min, spec.max, range_errors);
                    if (!range_errors.empty()) {
                        fail(name, field_message(spec));
                        return true;
                    }
                } else {
                    fail(name, field_message(spec));
                    return true;
                }
                break;
            case field_type::boolean:
                if (!v->is_boolean()) {
                    fail(name, field_message(spec));
                    return true;
                }
                value.flag = v->get<bool>();
                break;
            case field_type::choice:
            case field_type::text:
                if (!v->is_string()) {
                    fail(name, field_message(spec));
                    return true;
                }
                value.name = v->get<std::string>();
                break;
        }
        if (!spec.set(config, value)) fail(name, field_message(spec));
        return true;
    }

    /// True when the schema's default of `spec` is "not set" (null).
    static bool is_optional(const field_spec& spec) {
        if (spec.unset_is_zero) return true;
        return (spec.type == field_type::choice || spec.type == field_type::text) && spec.get(estimate_config{}).name.empty();
    }

    /// A nested object; `read` is called only when the key is present and holds an object.
    void object(const char* key, const std::function<void(object_reader&)>& read) {
        const json* v = find(key);
        if (v == nullptr) return;
        if (!v->is_object()) return fail(field(key), "must be an object");
        object_reader inner(*v, field(key), errors_);
        read(inner);
        inner.finish();
    }

    /// "is Infinity; " (or -Infinity, NaN) for the non-finite values a Hugging Face config.json may hold
    /// (json_text.hpp parse_document), else "": the start of a message that then gives the allowed range.
    static std::string nonfinite_prefix(const json& v) {
        if (!v.is_number_float()) return "";
        const double x = v.get<double>();
        if (x != x) return "is NaN; ";
        if (x == std::numeric_limits<double>::infinity()) return "is Infinity; ";
        if (x == -std::numeric_limits<double>::infinity()) return "is -Infinity; ";
        return "";
    }

    /// Reports every key that no handler claimed (strict objects only).
    void finish() {
        if (lenient_) return;
        for (auto it = object_.begin(); it != object_.end(); ++it)
            if (known_.count(it.key()) == 0) fail(field(echoed_name(it.key())), "is not a known key");
    }

    /// True when a handler looked up `key` (present in the object).
    bool looked_up(const std::string& key) const { return known_.count(key) != 0; }

    void fail(const std::string& name, const std::string& message) { errors_.push_back({name, message}); }
    const json& raw() const { return object_; }
    diagnostics& errors() { return errors_; }

private:
    const json& object_;
    std::string path_;
    diagnostics& errors_;
    bool lenient_;
    std::set<std::string> known_;
};

// ---- The `model` section and Hugging Face config.json files, read with the reader (model_json.cpp).

/// Reads a `model` object at `path` (memplan's keys, a preset, or a Hugging Face config) into `m`.
void read_model(const nlohmann::ordered_json& object, const std::string& path, model_config& m, diagnostics& errors);

/// Reads a Hugging Face config.json given beside a configuration (`--hf-config`) into `m`.
void read_model_object(object_reader& r, model_config& m, int depth);

/// A multimodal config's vision tower and projector into m.vision_params (vision_tower.cpp).
void read_vision_tower(object_reader& r, const nlohmann::ordered_json& outer, const nlohmann::ordered_json& vision,
                       vision_tower kind, const std::string& outer_type, model_config& m);

/// The quantization_config of a released checkpoint into m's checkpoint format (quantization.cpp).
void read_quantization(object_reader& r, model_config& m);

/// A true/false value of the nested object `o` at `key` (named `field` in errors): `fallback` when
/// absent or null; any other type is an error, and `fallback`.
inline bool flag_in(object_reader& r, const nlohmann::ordered_json& o, const char* key, bool fallback, const std::string& field) {
    const auto it = o.find(key);
    if (it == o.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) {
        r.fail(field, "must be true or false");
        return fallback;
    }
    return it->get<bool>();
}

}  // namespace memplan::detail
