// The estimate of a configuration text, for tests that assert on a valid configuration: parse errors
// and estimate errors fail the test with the first error's field and message. Include after catch.hpp.
#pragma once

#include <string>

#include "memplan/api/estimate.hpp"
#include "memplan/io/json.hpp"

namespace memplan_test {
inline memplan::estimate_result run(const std::string& config) {
    const auto parsed = memplan::parse_config(config);
    INFO(config);
    INFO((parsed.ok() ? std::string() : parsed.errors[0].field + ": " + parsed.errors[0].message));
    REQUIRE(parsed.ok());
    auto r = memplan::estimate(parsed.value);
    INFO((r.errors.empty() ? std::string() : r.errors[0].field + ": " + r.errors[0].message));
    REQUIRE(r.errors.empty());
    return r;
}
}  // namespace memplan_test
