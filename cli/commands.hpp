// memplan CLI — the dispatch table: one entry per command, with the usage text that `memplan --help`
// and `memplan COMMAND --help` print.
#pragma once

#include <string>
#include <vector>

namespace memplan::cli {

/// Runs a command with the arguments after its name; returns the exit status.
using command_fn = int (*)(const std::vector<std::string>& args);

struct command {
    const char* name;   ///< "model-states"
    const char* usage;  ///< its lines of the usage text (synopsis and description, indented)
    command_fn run;
};

/// Every command, in the order of the usage text.
const std::vector<command>& commands();

int run_model_states(const std::vector<std::string>& args);        // cmd_zero.cpp
int run_max_params(const std::vector<std::string>& args);          // cmd_zero.cpp
int run_transformer_mem(const std::vector<std::string>& args);     // cmd_transformer_mem.cpp
int run_estimate(const std::vector<std::string>& args);            // cmd_config.cpp
int run_analyze(const std::vector<std::string>& args);             // cmd_config.cpp
int run_compare(const std::vector<std::string>& args);             // cmd_config.cpp
int run_fits(const std::vector<std::string>& args);                // cmd_config.cpp
int run_checkpoint(const std::vector<std::string>& args);          // cmd_config.cpp
int run_presets(const std::vector<std::string>& args);             // cmd_presets.cpp
int run_schema(const std::vector<std::string>& args);              // cmd_presets.cpp
int run_recipes(const std::vector<std::string>& args);             // cmd_presets.cpp
int run_explain(const std::vector<std::string>& args);             // cmd_presets.cpp
int run_engines(const std::vector<std::string>& args);             // cmd_presets.cpp
int run_frameworks(const std::vector<std::string>& args);          // cmd_presets.cpp
int run_deepspeed_estimate(const std::vector<std::string>& args);  // cmd_reference.cpp
int run_megatron_memory(const std::vector<std::string>& args);     // cmd_reference.cpp
int run_plan(const std::vector<std::string>& args);                // cmd_plan.cpp
int run_step_time(const std::vector<std::string>& args);           // cmd_plan.cpp

}  // namespace memplan::cli
