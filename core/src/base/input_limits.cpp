#include "memplan/base/input_limits.hpp"

namespace memplan {

diagnostics check_input_text(const std::string& text, const std::string& field, bool required) {
    diagnostics errors;
    if (text.size() > max_config_bytes) {
        // Only the first max_config_bytes + 1 bytes may have been read: nothing else can be said.
        errors.push_back({field, "is larger than " + std::to_string(max_config_bytes) +
                                     " bytes (8 MiB), the most memplan reads"});
        return errors;
    }
    if (const auto nul = text.find('\0'); nul != std::string::npos) {
        errors.push_back({field, "contains a NUL byte at offset " + std::to_string(nul) +
                                     "; JSON text cannot contain one"});
        return errors;
    }
    if (required && text.find_first_not_of(" \t\r\n") == std::string::npos)
        errors.push_back({field, "is empty; it must be a JSON object"});
    return errors;
}

}  // namespace memplan
