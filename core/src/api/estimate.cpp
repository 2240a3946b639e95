// The whole estimate (memplan/api/estimate.hpp): the draft preset read from the stored models, then
// memplan's count and the serving engine's arithmetic.
#include "memplan/api/estimate.hpp"

#include "memplan/io/json.hpp"

namespace memplan {

estimate_result estimate(const estimate_config& config, const estimate_options& options) {
    if (config.infer.draft_preset.empty() && !config.infer.draft_model) return estimate_with_engine(config, options);
    estimate_config c = config;  // only with a draft: the configuration is copied to carry its model
    c.infer.draft_model.reset();
    if (!c.infer.draft_preset.empty())
        if (auto draft = preset_model(c.infer.draft_preset); draft.ok()) c.infer.draft_model = std::move(draft.value);
    return estimate_with_engine(c, options);
}

}  // namespace memplan
