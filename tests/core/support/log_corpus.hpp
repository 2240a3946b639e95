// The public start-up log corpora of tests/data (engine-logs/ for vLLM, engine-logs-sglang/ for SGLang): each
// file read as JSON, sorted by name, and one log's settings estimated with the errors named in the report.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "memplan/api/estimate.hpp"
#include "memplan/io/json.hpp"

namespace memplan::test {

struct logged_run {
    std::string name;  ///< the file's name
    nlohmann::json doc;
};

/// Every .json file of tests/data/<folder>, sorted by file name.
inline std::vector<logged_run> read_log_folder(const std::string& folder) {
    std::vector<logged_run> out;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(MEMPLAN_DATA_DIR) + "/" + folder)) {
        if (entry.path().extension() != ".json") continue;
        std::ifstream in(entry.path());
        out.push_back({entry.path().filename().string(), nlohmann::json::parse(in)});
    }
    std::sort(out.begin(), out.end(), [](const logged_run& a, const logged_run& b) { return a.name < b.name; });
    return out;
}

/// A log's "config" parsed, its first error named when it does not parse.
inline estimate_config config_of(const nlohmann::json& doc) {
    const auto parsed = parse_config(doc.at("config").dump());
    INFO((parsed.errors.empty() ? std::string() : parsed.errors[0].field + ": " + parsed.errors[0].message));
    REQUIRE(parsed.errors.empty());
    return parsed.value;
}

/// The serving answer of a configuration, its first error named when the estimate refuses it.
inline serving_result serve(const estimate_config& c) {
    const auto r = estimate(c);
    INFO((r.errors.empty() ? std::string() : r.errors[0].field + ": " + r.errors[0].message));
    REQUIRE(r.errors.empty());
    REQUIRE(r.serving.present);
    return r.serving;
}

/// The capacity the answer says a plan can count on (its "infer.engine" warning: "… count on N
/// tokens"), 0 when the answer gives none.
inline double counted_on_tokens(const estimate_config& c) {
    const auto r = estimate(c);
    for (const auto& w : r.warnings) {
        const auto at = w.message.find("count on ");
        if (w.field == "infer.engine" && at != std::string::npos)
            return std::stod(w.message.substr(at + 9));
    }
    return 0;
}

}  // namespace memplan::test
