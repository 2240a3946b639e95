// Looking up the schema's fields and their allowed-range messages (memplan/config/schema.hpp); the
// tables themselves are schema_config.cpp (outside `model`) and schema_model.cpp (the `model` keys).
#include "memplan/config/schema.hpp"

#include "base/checks.hpp"

namespace memplan {

const field_spec* find_field(const std::string& path) {
    for (const auto* table : {&config_fields(), &model_fields()})
        for (const auto& field : *table)
            if (path == field.path) return &field;
    return nullptr;
}

std::string field_message(const field_spec& field) {
    switch (field.type) {
        case field_type::boolean: return "must be true or false";
        case field_type::text: return "must be a string";
        case field_type::choice: {
            std::string names = field.choices();
            for (std::size_t at = names.find(','); at != std::string::npos; at = names.find(',', at + 2))
                names.replace(at, 1, ", ");
            return "must be one of: " + names;
        }
        case field_type::integer:
        case field_type::bytes:
            if (field.max - field.min <= 4) {  // a short list reads better: "must be 0, 1, 2 or 3"
                std::string out = "must be ";
                for (std::uint64_t v = field.min; v <= field.max; ++v)
                    out += std::to_string(v) + (v + 2 <= field.max ? ", " : v + 1 == field.max ? " or " : "");
                return out;
            }
            return detail::integer_range_message(field.min, field.max);
    }
    return "";
}

}  // namespace memplan
