// The serving engines memplan reproduces, as JSON (memplan/report/json.hpp): what the page and the CLI
// say about each engine comes from its entry in serving/ (label, upstream source, share field and
// flag, budget formula) and the budget's terms, written once there.
#include "io/json_text.hpp"
#include "memplan/report/json.hpp"
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

}  // namespace memplan
