// memplan — the whole estimate of one configuration: memplan's count of every part of the most
// loaded GPU's memory (memplan/memory/estimate.hpp) and, under a serving engine, the engine's
// start-up arithmetic (memplan/serving/serving.hpp), with infer.draft_preset read from the stored
// models. The function a C++ caller wants; the JSON entry points give the same answer.
#pragma once

#include "memplan/config/config.hpp"
#include "memplan/memory/estimate.hpp"
#include "memplan/serving/serving.hpp"

namespace memplan {

/// Per-GPU memory for `config`; result.errors is non-empty (and nothing else is set) when the input
/// is invalid. infer.draft_model is set from infer.draft_preset first (left empty when that names no
/// stored model, which validation then reports), whatever it held.
estimate_result estimate(const estimate_config& config, const estimate_options& options = {});

}  // namespace memplan
