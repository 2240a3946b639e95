// --eleuther reproduces EleutherAI's transformer_mem.py exactly. The expected figures were recorded
// by running EleutherAI's transformer_mem.py (EleutherAI cookbook, calc/) with Python 3.11.7 on 48
// configurations; see tests/data/eleuther_transformer_mem_figures.json.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "memplan/reproduce/eleuther.hpp"

using namespace memplan;

namespace {
nlohmann::json recorded_cases() {
    std::ifstream in(MEMPLAN_DATA_DIR "/eleuther_transformer_mem_figures.json");
    REQUIRE(in.good());
    nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    REQUIRE(doc.is_object());
    return doc["cases"];
}
}  // namespace

TEST_CASE("the eleuther mode prints every figure transformer_mem.py printed, on 48 recorded configurations", "[eleuther][cli]") {
    const auto cases = recorded_cases();
    REQUIRE(cases.size() >= 40);
    for (const auto& c : cases) {
        std::vector<std::string> args = {"transformer-mem", "--eleuther"};
        for (const auto& a : c["argv"]) args.push_back(a.get<std::string>());
        const auto run = run_cli(args);
        CAPTURE(c["name"].get<std::string>());
        REQUIRE(run.status == 0);
        auto lines = lines_of(run.out);
        REQUIRE(!lines.empty());
        lines.pop_back();  // memplan's note on units, which the script does not print
        std::vector<std::string> expected;
        for (const auto& l : c["stdout_report"]) expected.push_back(l.get<std::string>());
        CHECK(lines == expected);
    }
}

TEST_CASE("transformer_mem.py's defaults reproduce its 20B report", "[eleuther]") {
    // Recorded case "all defaults (20B, zero 1, 1 GPU)": the script run with no arguments.
    const auto report = eleuther_transformer_mem(eleuther_args{});
    REQUIRE(report.errors.empty());
    CHECK(report.params_text == "20.0 B");
    REQUIRE(report.rows.size() == 7);
    CHECK(report.rows[0].label == "Model Memory");
    CHECK(report.rows[0].gib == Approx(20e9 * 2 / 1073741824.0));  // 37.25 as printed
    const auto recorded = recorded_cases()[3];
    REQUIRE(recorded["argv"].empty());
    std::vector<std::string> expected;
    for (const auto& l : recorded["stdout_report"]) expected.push_back(l.get<std::string>());
    CHECK(report.lines == expected);
}

TEST_CASE("transformer_mem.py's crashes become errors", "[eleuther][errors]") {
    eleuther_args a;
    a.num_gpus = 0;
    a.tensor_parallel_size = 0;
    const auto report = eleuther_transformer_mem(a);
    REQUIRE(report.errors.size() == 2);
    CHECK(report.errors[0].field == "num_gpus");
    CHECK(report.errors[1].field == "tensor_parallel_size");
    CHECK(report.lines.empty());
}
