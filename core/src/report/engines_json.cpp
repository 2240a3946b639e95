// The serving engines memplan reproduces and the training frameworks it names, as JSON
// (memplan/report/json.hpp): what the page and the CLI say about each engine comes from its entry in
// serving/ (label, upstream source, share field and flag, budget formula) and the budget's terms, and
// about each framework from memory/frameworks.cpp, written once there.
#include "io/json_text.hpp"
#include "memplan/report/json.hpp"
#include "memplan/memory/frameworks.hpp"
#include "memplan/serving/serving.hpp"

namespace memplan {

std::string engines_json() {
    using detail::ordered_json;
    ordered_json engines = ordered_json::array();
    for (const engine_description& e : engine_descriptions())
        engines.push_back(ordered_json{{"id", e.id},
                                       {"label", e.label},
                                       {"version", e.version},
                                       {"share_field", e.share_field},
                                       {"share_flag", e.share_flag},
                                       {"share_of", e.share_of},
                                       {"budget", e.budget}});
    ordered_json terms = ordered_json::array();
    for (const budget_term& t : budget_terms())
        terms.push_back(ordered_json{{"key", t.key}, {"label", t.label}, {"formula", t.formula}});
    return detail::dump_json(ordered_json{{"engines", engines}, {"budget_terms", terms}});
}

std::string frameworks_json() {
    using detail::ordered_json;
    ordered_json list = ordered_json::array();
    for (const train_framework id : all_train_frameworks) {
        const char* name = to_string(id);
        const framework_conventions& f = conventions_of(id);
        list.push_back(ordered_json{{"id", name},
                                    {"label", f.label},
                                    {"version", f.version},
                                    {"logs", allocator_figure_names[static_cast<int>(f.logs)]},
                                    {"log_text", f.log_text},
                                    {"log_unit", f.log_unit},
                                    {"conventions", f.conventions},
                                    {"source", f.source}});
    }
    const reserved_band band = reserved_ratio_band();
    return detail::dump_json(ordered_json{
        {"frameworks", list},
        {"reserved_band", ordered_json{{"low_permille", band.low_permille},
                                       {"median_permille", band.median_permille},
                                       {"high_permille", band.high_permille},
                                       {"measurements", band.measurements}}}});
}

}  // namespace memplan
