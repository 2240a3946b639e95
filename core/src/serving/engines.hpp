// memplan — internal: the serving engines memplan reproduces, one file each (vllm.cpp, sglang.cpp,
// trtllm.cpp), registered in engines.cpp (not public API).
#pragma once

#include <vector>

#include "memplan/config/config.hpp"
#include "serving/engine.hpp"

namespace memplan::detail {

/// Every registered engine, in the order of serving_engine.
const std::vector<const engine*>& engines();

/// The engine of `id`; null for serving_engine::none.
const engine* find_engine(serving_engine id);

}  // namespace memplan::detail
