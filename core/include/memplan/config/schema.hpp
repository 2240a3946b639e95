// memplan — the schema: one table of every configuration field (path, type, range, default,
// allowed names, label, help, unit, modes). The JSON reader, validation, error messages, the CLI
// flags that map to config keys, the resolved-configuration echo and the page's form are all
// driven by it (`memplan schema --json`, `mp.schema()`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/config/config.hpp"
#include "memplan/base/types.hpp"

namespace memplan {

/// Kinds of configuration values.
enum class field_type {
    integer,  ///< whole number in [min, max]
    bytes,    ///< whole number of bytes in [min, max]
    boolean,  ///< true or false
    choice,   ///< one of `choices`
    text,     ///< free text (names)
};

/// A value as the schema moves it between JSON and the configuration structs.
struct field_value {
    std::uint64_t number = 0;  ///< integer and bytes fields
    bool flag = false;         ///< boolean fields
    std::string name;          ///< choice and text fields
};

/// One configuration field. `get` reads it from a configuration (the default is `get` of a
/// default-constructed estimate_config, so a default lives only in the struct's initializer);
/// `set` writes a value that is already in range (choice: false when `name` is not allowed).
struct field_spec {
    const char* path;     ///< dotted JSON path: "train.micro_batch"
    field_type type;
    std::uint64_t min;    ///< integer and bytes fields: smallest allowed value
    std::uint64_t max;    ///< integer and bytes fields: largest allowed value
    /// choice fields: the allowed names, comma-separated ("none,selective,full"); null for other types
    /// (a function, joined once from the enumeration's names, so that the tables are constant data)
    const char* (*choices)();
    const char* label;    ///< short human label ("Micro-batch size")
    const char* help;     ///< one sentence
    const char* unit;     ///< "", "tokens", "sequences", "bytes", "parameters", "GPUs", "elements"
    const char* modes;    ///< run modes that use it: "train", "infer" or "train,infer"
    field_value (*get)(const estimate_config& config);
    bool (*set)(estimate_config& config, const field_value& value);
    bool unset_is_zero;   ///< integer fields where 0 means "not set" (derived), though min is above 0; a choice
                          ///< with no default (null in the schema: not given, the core decides)
    /// integer and bytes fields: get(config).number without building a field_value (validate's range
    /// checks run on every estimate); null for other types.
    std::uint64_t (*get_number)(const estimate_config& config) = nullptr;
};

/// Every field of a configuration outside `model`, in reading order.
const std::vector<field_spec>& config_fields();

/// memplan's own keys of the `model` section (Hugging Face config.json names where one exists);
/// a Hugging Face config may carry other keys, read by the model importer (model_json.cpp).
const std::vector<field_spec>& model_fields();

/// The field at `path` (either table), or nullptr.
const field_spec* find_field(const std::string& path);

/// The allowed-range message of a field: "must be an integer from 1 to 1,048,576",
/// "must be one of: none, selective, full", "must be true or false".
std::string field_message(const field_spec& field);


}  // namespace memplan
