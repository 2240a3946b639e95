// memplan model-states / max-params: ZeRO model-state arithmetic (Rajbhandari et al. 2020, §5).
#include <iostream>

#include "args.hpp"
#include "commands.hpp"
#include "memplan/api/front_end.hpp"
#include "memplan/memory/zero.hpp"
#include "report.hpp"

namespace memplan::cli {

namespace {

/// The core's argument names (zero.hpp) as this command's flags.
const std::vector<std::pair<std::string, std::string>> zero_flag_names = {
    {"n_params", "params"}, {"n_gpus", "gpus"}, {"gpu_bytes", "gpu-bytes"}};

int run_zero(const std::vector<std::string>& argv, bool inverse) {
    const std::string amount_name = inverse ? "gpu-bytes" : "params";
    const auto args = parse_args(argv, {{amount_name, {}, true}, {"gpus", {}, true}, {"stage", {}, true}, {"json", {}, false}});
    if (!args.error.empty()) return usage_error(args.error);
    diagnostics errors;
    if (!args.has(amount_name)) errors.push_back({amount_name, "is required"});
    if (!args.has("gpus")) errors.push_back({"gpus", "is required"});
    const std::uint64_t amount = quantity(args, amount_name, 0, errors, inverse ? max_exact_integer : max_param_count);
    const std::uint64_t gpus = quantity(args, "gpus", 1, errors, max_gpu_count);
    std::optional<std::int64_t> stage;
    if (const auto s = args.value("stage")) {
        if (*s == "0" || *s == "1" || *s == "2" || *s == "3") stage = (*s)[0] - '0';
        else errors.push_back({"stage", "must be 0, 1, 2 or 3"});
    }
    const bool json = args.has("json");
    if (!errors.empty()) return report_errors(errors, json);

    const std::vector<std::int64_t> stages = stage ? std::vector<std::int64_t>{*stage} : std::vector<std::int64_t>{0, 1, 2, 3};
    std::vector<std::uint64_t> values;
    for (const auto s : stages) {
        auto r = inverse ? max_params(amount, gpus, s) : model_state_bytes(amount, gpus, s);
        if (!r.ok()) return report_errors(rename_fields(r.errors, zero_flag_names), json);
        values.push_back(r.value);
    }
    if (json) {
        std::cout << zero_stages_json(stages, values, inverse ? "params" : "bytes", stage.has_value()) << "\n";
        return 0;
    }
    if (inverse)
        std::cout << "largest model whose mixed-precision Adam states fit in " << with_commas(amount)
                  << " bytes per GPU (" << in_units(amount, false) << ", " << in_units(amount, true) << "), "
                  << gpus << " GPU" << (gpus == 1 ? "" : "s") << ":\n";
    else
        std::cout << "model states of " << with_commas(amount) << " parameters under mixed-precision Adam, " << gpus
                  << " GPU" << (gpus == 1 ? "" : "s") << ", per GPU:\n";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (inverse)
            std::cout << "  ZeRO stage " << stages[i] << ": " << with_commas(values[i]) << " parameters\n";
        else
            std::cout << "  ZeRO stage " << stages[i] << ": " << with_commas(values[i]) << " bytes ("
                      << in_units(values[i], false) << ", " << in_units(values[i], true) << ")\n";
    }
    return 0;
}

}  // namespace

int run_model_states(const std::vector<std::string>& args) { return run_zero(args, false); }

int run_max_params(const std::vector<std::string>& args) { return run_zero(args, true); }

}  // namespace memplan::cli
