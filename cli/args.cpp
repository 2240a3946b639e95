#include "args.hpp"

#include "memplan/base/units.hpp"

namespace memplan::cli {

std::optional<std::string> parsed_args::value(const std::string& name) const {
    const auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
}

parsed_args parse_args(const std::vector<std::string>& argv, const std::vector<option_spec>& specs) {
    parsed_args out;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& arg = argv[i];
        std::optional<std::string> inline_value;
        const option_spec* spec = nullptr;
        const bool is_long = arg.rfind("--", 0) == 0;
        if (is_long || (arg.size() > 1 && arg[0] == '-')) {
            std::string name = arg.substr(is_long ? 2 : 1);
            const auto eq = name.find('=');
            if (eq != std::string::npos) {
                inline_value = name.substr(eq + 1);
                name = name.substr(0, eq);
            }
            if (is_long) {
                // An exact name wins; otherwise a prefix must match exactly one long name.
                std::vector<const option_spec*> matches;
                for (const auto& s : specs) {
                    if (s.name == name) {
                        matches = {&s};
                        break;
                    }
                    if (!name.empty() && s.name.rfind(name, 0) == 0) matches.push_back(&s);
                }
                if (matches.size() > 1) {
                    out.error = "ambiguous option --" + name;
                    return out;
                }
                if (!matches.empty()) spec = matches.front();
            } else {
                for (const auto& s : specs)
                    for (const auto& alias : s.aliases)
                        if (alias == name) spec = &s;
            }
        }
        if (spec == nullptr) {
            out.error = "unrecognized argument " + arg;
            return out;
        }
        if (!spec->takes_value) {
            if (inline_value) {
                out.error = "--" + spec->name + " takes no value";
                return out;
            }
            out.flags[spec->name] = true;
            continue;
        }
        if (!inline_value) {
            if (i + 1 >= argv.size()) {
                out.error = "--" + spec->name + " needs a value";
                return out;
            }
            inline_value = argv[++i];
        }
        out.values[spec->name] = *inline_value;
    }
    return out;
}

std::uint64_t quantity(const parsed_args& args, const std::string& name, std::uint64_t fallback, diagnostics& errors,
                       std::uint64_t max) {
    const auto text = args.value(name);
    if (!text) return fallback;
    auto parsed = parse_quantity(*text, name, max);
    errors.insert(errors.end(), parsed.errors.begin(), parsed.errors.end());
    return parsed.value;
}

}  // namespace memplan::cli
