// memplan presets / schema / recipes / explain: the stored data — the models (core/data/models.json) with
// their exact parameter counts, the schema, the fine-tuning recipes (core/data/recipes.json) and the
// breakdown's explanations (core/data/explanations.json).
#include <cstdio>
#include <iostream>

#include "args.hpp"
#include "commands.hpp"
#include "memplan/model/arch.hpp"
#include "memplan/api/front_end.hpp"
#include "memplan/io/explanations.hpp"
#include "memplan/io/presets.hpp"
#include "memplan/io/recipes.hpp"
#include "memplan/memory/frameworks.hpp"
#include "memplan/serving/serving.hpp"
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

namespace {
/// Parses the only option of a listing command (--json); `json` prints the core's JSON text, `text`
/// the listing for people.
int run_listing(const std::vector<std::string>& argv, std::string (*json)(), void (*text)()) {
    const auto args = parse_args(argv, {{"json", {}, false}});
    if (!args.error.empty()) return usage_error(args.error);
    if (args.has("json")) std::cout << json() << "\n";
    else text();
    return 0;
}

void print_recipes() {
    for (const auto& r : recipes()) {
        std::cout << r.id << ": " << r.label << "\n";
        for (const auto& v : r.values) std::cout << "    " << v.path << " = " << v.json << "\n";
        std::cout << "    source: " << r.source << "\n";
    }
}

void print_explanations() {
    for (const run_mode mode : {run_mode::train, run_mode::infer}) {
        std::cout << "mode " << to_string(mode) << ":\n";
        for (const auto& e : explanations(mode))
            std::cout << "  " << e.label << " (" << e.key << ")\n    " << e.formula << "\n    Source: " << e.source << "\n";
    }
}
void print_engines() {
    for (const engine_description& e : engine_descriptions())
        std::cout << e.id << ": " << e.label << "\n    " << e.share_field << " (" << e.share_flag << ") " << e.share_of
                  << "\n    budget: " << e.budget << "\n    reproduces: " << e.version << "\n";
    std::cout << "budget terms (serving.*):\n";
    for (const budget_term& t : budget_terms()) std::cout << "  " << t.label << " (" << t.key << "): " << t.formula << "\n";
}
void print_frameworks() {
    for (const framework_conventions& f : framework_entries()) {
        const train_framework id = f.id;
        const char* name = to_string(id);
        std::cout << name << ": " << f.label;
        const framework_notes& n = framework_notes_of(id);
        if (*n.version != 0) std::cout << " (" << n.version << ")";
        std::cout << "\n    its log prints: " << allocator_figure_names[static_cast<int>(f.logs)] << " — " << n.log_text
                  << "\n    conventions: " << framework_notes_of(id).conventions << "\n    source: " << framework_notes_of(id).source
                  << "\n";
    }
    const reserved_band band = reserved_ratio_band();
    const auto ratio = [](std::uint64_t permille) {  // 1171 -> "1.171"
        char text[32];
        std::snprintf(text, sizeof text, "%llu.%03llu", static_cast<unsigned long long>(permille / 1000),
                      static_cast<unsigned long long>(permille % 1000));
        return std::string(text);
    };
    std::cout << "reserved peak: the allocated peak rounded to 2 MiB, times " << ratio(band.low_permille) << " to "
              << ratio(band.high_permille) << " (median " << ratio(band.median_permille) << ", " << band.measurements
              << " public runs)\n";
}
}  // namespace

int run_frameworks(const std::vector<std::string>& argv) { return run_listing(argv, frameworks_json, print_frameworks); }

int run_engines(const std::vector<std::string>& argv) { return run_listing(argv, engines_json, print_engines); }

int run_recipes(const std::vector<std::string>& argv) { return run_listing(argv, recipes_json, print_recipes); }

int run_explain(const std::vector<std::string>& argv) { return run_listing(argv, explanations_json, print_explanations); }

}  // namespace memplan::cli
