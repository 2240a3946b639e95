// memplan — GPU memory planner. Shared value types of the public API.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/base/limits.hpp"

namespace memplan {

/// One problem with one input: `field` is a dotted path ("parallel.tp"), `message` says what is allowed.
struct field_error {
    std::string field;
    std::string message;
};

/// A list of problems; empty means "no problem".
using diagnostics = std::vector<field_error>;

/// A value together with the errors that prevented computing it; `value` is meaningful only if ok().
template <class T>
struct outcome {
    T value{};
    diagnostics errors;
    bool ok() const { return errors.empty(); }
};

}  // namespace memplan
