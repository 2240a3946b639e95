// Public measurements (tests/data/measured/*.json, one file per source with every setting and its
// address) against memplan under the configuration each row states: the signed error of the step peak
// (details.phases.peak_bytes) and of the steady-state total, printed as a table; every row within the
// band the corpus reaches today (docs/validation.md, scripts/measured-table.py), the goal being ±10 %.
// Files marked "held_out_set" were written before memplan was run on them (the split is fixed before any
// fitting); they are not held to that band but counted apart, in the view each source logs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>
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
/// memplan under a row's configuration: parsed and estimated without error, with its step phases.
estimate_result estimate_row(const json& row) {
    const auto parsed = parse_config(row["config"].dump());
    REQUIRE(parsed.ok());
    estimate_result r = estimate(parsed.value);
    REQUIRE(r.errors.empty());
    REQUIRE(r.details.phases.present);
    return r;
}
double signed_error(std::uint64_t memplan, std::uint64_t published) {
    return (static_cast<double>(memplan) - static_cast<double>(published)) / static_cast<double>(published);
}
bool held_out(const json& doc) { return doc.contains("held_out_set"); }
/// The figure a held-out row's source logs: the row's figure_view, else the file's.
std::string view_of(const json& doc, const json& row) {
    return row.value("figure_view", doc.value("figure_view", std::string()));
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
            if (!held_out(doc)) continue;
            // A held-out row names the view it is compared in; PyTorch's peaks leave the CUDA context out
            // (misc 0), nvidia-smi counts it (memplan's default context stays).
            const std::string view = view_of(doc, row);
            INFO(row["id"].get<std::string>() << " view " << view);
            CHECK((view == "allocated" || view == "reserved" || view == "nvidia_smi"));
            CHECK((view == "reserved") == (row.value("figure", "allocated") == "reserved"));
            const bool misc_zero = row["config"].contains("overhead") && row["config"]["overhead"].value("misc_bytes", 1) == 0;
            CHECK(misc_zero == (view != "nvidia_smi"));
        }
    }
}

TEST_CASE("memplan under each row's configuration: signed errors of the step peak and the total", "[measured]") {
    // The band the corpus reaches today (torchtune's README: −10.1 % to +12.0 % on the step peak; LitGPT's
    // LoRA rows +2.5 % to +11.3 % and its QLoRA rows −10.0 % to +1.6 %, with LitGPT's eager RMSNorm counted as
    // its framework default); a change that moves any row outside it fails here and shows in
    // docs/validation.md's generated table. A row with a stated gap ("known_gap": a term memplan does not
    // model yet) must stay outside the band: once the term is modelled the test fails until the marker is
    // removed, so a gap is never kept after it closes.
    constexpr double band = 0.13;
    int within = 0, gaps = 0;
    std::printf("%-28s %-26s %14s %14s %8s %14s %8s\n", "source", "row", "published", "total", "error", "peak", "error");
    for (const auto& [name, doc] : sources()) {
        if (held_out(doc)) continue;  // counted by the held-out test below, not held to this band
        for (const auto& row : doc["rows"]) {
            const std::string id = row["id"];
            INFO(name << " " << id);
            const estimate_result r = estimate_row(row);
            const step_phases& ph = r.details.phases;
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

TEST_CASE("held-out public measurements: peaks within 10 and 20 percent in each row's view", "[measured]") {
    // The goal: memplan within 10 % of at least 90 % of the held-out peaks and within 20 % of all
    // of them, each in the view its source logs: allocated (details.phases.peak_bytes), reserved
    // (details.phases.reserved_typical_bytes) or nvidia-smi. memplan has no nvidia-smi figure of its own; an
    // nvidia-smi row is compared with reserved_typical_bytes + overhead.misc_bytes (the CUDA context) +
    // details.paged_optimizer_resident_bytes (bitsandbytes' unified memory, which nvidia-smi counts).
    // The floors and the ceiling below are what memplan reached when the set was written (2026-12, before
    // any change made for it): a change that loses a row, or makes the worst row worse, fails here. The gap
    // to the goal is printed and is in docs/validation.md (scripts/measured-table.py).
    struct tally {
        int peaks = 0, within10 = 0, within20 = 0;
        std::vector<double> errors;
    };
    std::map<std::string, tally> by_group;  // "framework / view"
    tally all;
    double worst = 0;
    std::string worst_id;
    std::printf("%-30s %-40s %-10s %14s %14s %8s\n", "source", "row", "view", "published", "memplan", "error");
    for (const auto& [name, doc] : sources()) {
        if (!held_out(doc)) continue;
        CHECK(doc["held_out_set"].get<std::string>() == "2026-12");
        for (const auto& row : doc["rows"]) {
            const std::string id = row["id"];
            INFO(name << " " << id);
            const estimate_result r = estimate_row(row);
            const step_phases& ph = r.details.phases;
            const std::string view = view_of(doc, row);
            std::uint64_t figure = ph.peak_bytes;
            if (view == "reserved") figure = ph.reserved_typical_bytes;
            if (view == "nvidia_smi")
                figure = ph.reserved_typical_bytes + r.per_gpu.misc + r.details.paged_optimizer_resident_bytes;
            const std::uint64_t published = row["published_bytes"];
            const double error = signed_error(figure, published);
            std::printf("%-30s %-40s %-10s %14llu %14llu %+7.1f%%\n", name.c_str(), id.c_str(), view.c_str(),
                        static_cast<unsigned long long>(published), static_cast<unsigned long long>(figure), 100 * error);
            const std::string framework = row["config"]["train"].value("framework", std::string("none"));
            for (tally* t : {&by_group[framework + " / " + view], &all}) {
                ++t->peaks;
                if (std::fabs(error) <= 0.10) ++t->within10;
                if (std::fabs(error) <= 0.20) ++t->within20;
                t->errors.push_back(error);
            }
            if (std::fabs(error) > std::fabs(worst)) worst = error, worst_id = id;
        }
    }
    const auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        const std::size_t n = v.size();
        return n == 0 ? 0.0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    };
    std::printf("\n%-28s %6s %10s %10s %14s\n", "framework / view", "peaks", "within 10%", "within 20%", "median error");
    for (const auto& [group, t] : by_group)
        std::printf("%-28s %6d %10d %10d %+13.1f%%\n", group.c_str(), t.peaks, t.within10, t.within20, 100 * median(t.errors));
    std::printf("%-28s %6d %10d %10d %+13.1f%%\n", "all", all.peaks, all.within10, all.within20, 100 * median(all.errors));
    std::printf("worst: %s %+.1f%%; goal: within 10 %% on %d of %d (90 %%), within 20 %% on all %d\n", worst_id.c_str(),
                100 * worst, (9 * all.peaks + 9) / 10, all.peaks, all.peaks);
    // Measured when the set was written (the floors) and the worst |error| then (the ceiling): 39 peaks in 7
    // files, 18 within 10 % and 26 within 20 % (the goal: 36 and 39), median signed error -9.3 %, the worst
    // +176.7 % (torchtune's 2-GPU LoRA row without checkpointing). The gap: 18 rows short of the 10 % goal,
    // 13 outside 20 %. With LitGPT's eager RMSNorm as its framework default: 22 within 10 % (LitGPT's 12
    // one-GPU rows all within +1.0 … +4.8 %), 26 within 20 %, median -3.9 %.
    constexpr int held_out_peaks = 39, held_out_within10 = 22, held_out_within20 = 26;
    constexpr double held_out_worst = 1.768;
    CHECK(all.peaks == held_out_peaks);
    CHECK(all.within10 >= held_out_within10);
    CHECK(all.within20 >= held_out_within20);
    CHECK(std::fabs(worst) <= held_out_worst);
}
