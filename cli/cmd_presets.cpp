// memplan presets / schema: the stored models (core/data/models.json) with their exact parameter counts.
#include <cstdio>
#include <iostream>

#include "args.hpp"
#include "commands.hpp"
#include "memplan/model/arch.hpp"
#include "memplan/api/front_end.hpp"
#include "memplan/io/presets.hpp"
#include "memplan/report/json.hpp"
#include "memplan/config/schema.hpp"
#include "report.hpp"

namespace memplan::cli {

int run_presets(const std::vector<std::string>& argv) {
    const auto args = parse_args(argv, {{"json", {}, false}});
    if (!args.error.empty()) return usage_error(args.error);
    if (args.has("json")) {
        std::cout << model_presets_json() << "\n";
        return 0;
    }
    std::size_t count = 0;
    const model_preset* presets = model_presets(count);
    for (std::size_t i = 0; i < count; ++i) {
        const auto model = preset_model(presets[i].id);
        const auto counted = count_params(model.value);
        char line[256];
        std::snprintf(line, sizeof line, "%-18s %-20s %18s params", presets[i].id, presets[i].name,
                      counted.ok() ? with_commas(counted.value.total).c_str() : "?");
        std::cout << line << "  (" << presets[i].source << ")\n";
    }
    return 0;
}

int run_schema(const std::vector<std::string>& argv) {
    const auto args = parse_args(argv, {{"json", {}, false}, {"markdown", {}, false}, {"typescript", {}, false}});
    if (!args.error.empty()) return usage_error(args.error);
    if (args.has("json") + args.has("markdown") + args.has("typescript") > 1)
        return usage_error("--json, --markdown and --typescript cannot be combined");
    std::cout << (args.has("json") ? schema_json() + "\n" : args.has("typescript") ? schema_typescript() : schema_markdown());
    return 0;
}

}  // namespace memplan::cli
