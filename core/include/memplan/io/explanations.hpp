// memplan — how each row of the per-GPU breakdown is computed, in words, with the sources its formula
// follows: stored once in core/data/explanations.json and compiled in, so that the page (the text under
// each breakdown row, through the WebAssembly module) and `memplan explain` read the same text.
#pragma once

#include <string>
#include <vector>

#include "memplan/config/config.hpp"

namespace memplan {

/// One row of the breakdown as explained for one run mode.
struct explanation {
    std::string key;      ///< the estimate result's per_gpu key: "weights", …, "misc", "total"
    std::string label;    ///< "Weights"
    std::string formula;  ///< how the row is computed, in words
    std::string source;   ///< the papers and upstream files the formula follows ("—" for a row that is zero)
};

/// The rows of `mode`, in the order of the estimate result's per_gpu object (memory_breakdown), the
/// total last.
const std::vector<explanation>& explanations(run_mode mode);

/// {"version": 1, "modes": {"train": [{"key", "label", "formula", "source"}, …], "infer": […]}}: the rows of
/// each run mode (`memplan explain --json`, mp.explanations()).
std::string explanations_json();

}  // namespace memplan
