// The serving engines, registered: each engine's own file defines its entry (its names, the upstream
// source it reproduces and its pool arithmetic); registering one is its line below and in the table.
#include "serving/engines.hpp"

namespace memplan::detail {

extern const engine vllm_engine;    // vllm.cpp
extern const engine sglang_engine;  // sglang.cpp
extern const engine trtllm_engine;  // trtllm.cpp

const std::vector<const engine*>& engines() {
    // Built once; immutable afterwards.
    static const std::vector<const engine*> table = {&vllm_engine, &sglang_engine, &trtllm_engine};
    return table;
}

const engine* find_engine(serving_engine id) {
    for (const engine* e : engines())
        if (e->id == id) return e;
    return nullptr;
}

}  // namespace memplan::detail
