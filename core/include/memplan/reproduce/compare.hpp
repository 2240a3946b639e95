// memplan — one configuration, every well-known estimator: each tool's figure reproduced with its own
// conventions (memplan/reference.hpp) next to memplan's estimate, with the differences named term by
// term ("why does DeepSpeed say 18 GB and memplan 22?"). Documented in docs/compare.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/memory/estimate.hpp"
#include "memplan/reproduce/reference.hpp"
#include "memplan/base/types.hpp"

namespace memplan {

/// One part of a figure: what the tool counts and what memplan counts for the same thing, and why they differ.
struct compare_term {
    std::string term;                ///< "model_states", "activations", "communication", …
    std::uint64_t tool_bytes = 0;
    std::uint64_t memplan_bytes = 0;
    std::string reason;              ///< "" when equal
};

/// One tool on the configuration.
struct tool_comparison {
    std::string tool;          ///< "deepspeed_zero3_doc", "megatron_theoretical_memory", …
    std::string version;       ///< which version of the tool is reproduced
    std::string source;        ///< "owner/repo path@commit"
    bool expressible = false;  ///< the configuration can be given to the tool
    std::string lacks;         ///< what the tool cannot express (why not expressible, or what it ignores)
    std::uint64_t figure_bytes = 0;  ///< the tool's per-GPU figure in bytes (rounded up); 0 when not expressible
    std::string figure_text;   ///< as the tool prints it: "18.00 GB"
    std::string units;         ///< "GiB labelled GB", "MiB labelled MB", …
    std::vector<compare_term> terms;
};

/// The comparison: memplan's estimate and every tool.
struct comparison {
    estimate_result memplan;
    std::vector<tool_comparison> tools;
    /// DeepSpeed's buffers for this run (ZeRO stage 1 to 3 in training): the configuration's allgather
    /// bucket and stage3_max_live_parameters, DeepSpeed's defaults for everything memplan does not model.
    bool has_deepspeed_buffers = false;
    deepspeed_comm_config deepspeed_buffer_config;
    deepspeed_comm_buffers deepspeed_buffers;
    diagnostics errors;
};

/// Runs memplan's estimate and every reproduced tool on `config`.
comparison compare(const estimate_config& config);


}  // namespace memplan
