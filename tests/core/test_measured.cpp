// Public measurements (tests/data/measured/*.json, one file per source with every setting and its
// address) against memplan under the configuration each row states: the signed error of the step peak
// (details.phases.peak_bytes) and of the steady-state total, printed as a table; every row within the
// band the corpus reaches today (docs/validation.md, scripts/measured-table.py), the goal being ±10 %.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "memplan/api/estimate.hpp"
#include "memplan/io/json.hpp"

using namespace memplan;
using nlohmann::json;

namespace {
/// Every stored source, by file name.
std::vector<std::pair<std::string, json>> sources() {
    std::vector<std::pair<std::string, json>> out;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(MEMPLAN_DATA_DIR) + "/measured")) {
        if (entry.path().extension() != ".json") continue;
        std::ifstream in(entry.path());
        std::stringstream text;
        text << in.rdbuf();
        out.emplace_back(entry.path().filename().string(), json::parse(text.str()));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return out;
}
double signed_error(std::uint64_t memplan, std::uint64_t published) {
    return (static_cast<double>(memplan) - static_cast<double>(published)) / static_cast<double>(published);
}
}  // namespace

TEST_CASE("every stored public measurement states its source, settings and figure", "[measured]") {
    const auto all = sources();
    REQUIRE_FALSE(all.empty());
    for (const auto& [name, doc] : all) {
        INFO(name);
        CHECK(doc["source"].get<std::string>().rfind("https://", 0) == 0);
        CHECK_FALSE(doc["settings"].get<std::string>().empty());
        CHECK_FALSE(doc["figure"].get<std::string>().empty());
        REQUIRE_FALSE(doc["rows"].empty());
        for (const auto& row : doc["rows"]) {
            CHECK(row["published_bytes"].get<std::uint64_t>() > 0);
            CHECK_FALSE(row["published_text"].get<std::string>().empty());
            CHECK(row["config"].contains("model"));
            if (row.contains("known_gap")) CHECK(row["known_gap"].get<std::string>().size() > 40);  // a reason, not a flag
        }
    }
}

TEST_CASE("memplan under each row's configuration: signed errors of the step peak and the total", "[measured]") {
    // The band the corpus reaches today (torchtune's README: −10.1 % to +12.0 % on the step peak; LitGPT's
    // LoRA rows −5.6 % to +2.5 % and its 1B QLoRA row −5.7 %); a change that moves any row outside it fails here and shows in
    // docs/validation.md's generated table. A row with a stated gap ("known_gap": a term memplan does not
    // model yet, LitGPT's QLoRA rows) must stay outside the band: once the term is modelled the test fails
    // until the marker is removed, so a gap is never kept after it closes.
    constexpr double band = 0.13;
    int within = 0, gaps = 0;
    std::printf("%-28s %-26s %14s %14s %8s %14s %8s\n", "source", "row", "published", "total", "error", "peak", "error");
    for (const auto& [name, doc] : sources()) {
        for (const auto& row : doc["rows"]) {
            const std::string id = row["id"];
            INFO(name << " " << id);
            const auto parsed = parse_config(row["config"].dump());
            REQUIRE(parsed.ok());
            const auto r = estimate(parsed.value);
            REQUIRE(r.errors.empty());
            const step_phases& ph = r.details.phases;
            REQUIRE(ph.present);
            const std::uint64_t published = row["published_bytes"];
            const double total_error = signed_error(r.per_gpu.total, published);
            // A source printing the allocator's reserved peak (torchtitan) is compared with the reserved range:
            // its typical figure, and the published figure inside the range.
            const bool reserved = row.value("figure", "allocated") == "reserved";
            const double peak_error = signed_error(reserved ? ph.reserved_typical_bytes : ph.peak_bytes, published);
            if (reserved) {
                CHECK(ph.reserved_low_bytes <= published);
                CHECK(published <= ph.reserved_high_bytes);
            }
            std::printf("%-28s %-26s %14llu %14llu %+7.1f%% %14llu %+7.1f%%\n", name.c_str(), id.c_str(),
                        static_cast<unsigned long long>(published), static_cast<unsigned long long>(r.per_gpu.total),
                        100 * total_error, static_cast<unsigned long long>(ph.peak_bytes), 100 * peak_error);
            if (row.contains("known_gap")) {
                CHECK(std::fabs(peak_error) > band);
                ++gaps;
            } else {
                CHECK(std::fabs(peak_error) <= band);
                ++within;
            }
        }
    }
    // Every source brings rows that are checked, not only stated gaps.
    CHECK(within >= 10);
    CHECK(gaps <= within);
}
