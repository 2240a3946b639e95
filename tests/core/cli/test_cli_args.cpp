// The CLI's argument parser (cli/args.cpp): argparse's rules as transformer_mem.py's command lines use
// them (Python docs, argparse, "Argument abbreviations (prefix matching)"), and quantities with units.
#include <catch2/catch.hpp>

#include "args.hpp"

using namespace memplan;
using namespace memplan::cli;

namespace {
const std::vector<option_spec> specs = {{"params", {"p"}, true},
                                        {"num-gpus", {}, true},
                                        {"num-layers", {"l"}, true},
                                        {"checkpoint-activations", {"ca"}, false},
                                        {"json", {}, false}};
}  // namespace

TEST_CASE("options take their value after = or as the next argument", "[cli][args]") {
    const auto a = parse_args({"--params=7e9", "--num-gpus", "8", "--json"}, specs);
    REQUIRE(a.error.empty());
    CHECK(a.values.at("params") == "7e9");
    CHECK(a.values.at("num-gpus") == "8");
    CHECK(a.has("json"));
    CHECK(!a.has("checkpoint-activations"));
    CHECK(a.value("num-layers") == std::nullopt);
    CHECK(a.value("params") == std::optional<std::string>("7e9"));
    // A value that starts with a dash is still the value of the option before it.
    CHECK(parse_args({"--params", "-7"}, specs).values.at("params") == "-7");
    // An empty value after = is given (and later refused by the quantity parser), not absent.
    CHECK(parse_args({"--params="}, specs).value("params") == std::optional<std::string>(""));
    // The last occurrence wins, as in argparse.
    CHECK(parse_args({"--params=1", "--params=2"}, specs).values.at("params") == "2");
}

TEST_CASE("single-dash aliases, with or without =", "[cli][args]") {
    const auto a = parse_args({"-p", "6.9B", "-l=32", "-ca"}, specs);
    REQUIRE(a.error.empty());
    CHECK(a.values.at("params") == "6.9B");
    CHECK(a.values.at("num-layers") == "32");
    CHECK(a.has("checkpoint-activations"));
    CHECK(parse_args({"-x"}, specs).error == "unrecognized argument -x");
    CHECK(parse_args({"-"}, specs).error == "unrecognized argument -");
    CHECK(parse_args({"7e9"}, specs).error == "unrecognized argument 7e9");
    // Long names are not single-dash aliases.
    CHECK(parse_args({"-params", "1"}, specs).error == "unrecognized argument -params");
}

TEST_CASE("unambiguous prefixes of long names, exact names first", "[cli][args]") {
    const auto a = parse_args({"--param=1", "--num-g=8", "--num-l", "4", "--check"}, specs);
    REQUIRE(a.error.empty());
    CHECK(a.values.at("params") == "1");
    CHECK(a.values.at("num-gpus") == "8");
    CHECK(a.values.at("num-layers") == "4");
    CHECK(a.has("checkpoint-activations"));
    CHECK(parse_args({"--num=1"}, specs).error == "ambiguous option --num");
    CHECK(parse_args({"--nu"}, specs).error == "ambiguous option --nu");
    CHECK(parse_args({"--"}, specs).error == "unrecognized argument --");
    CHECK(parse_args({"--paramsx=1"}, specs).error == "unrecognized argument --paramsx=1");
    // An exact name is taken even where it is also the prefix of another name.
    const std::vector<option_spec> overlapping = {{"stage", {}, true}, {"stage-count", {}, true}};
    CHECK(parse_args({"--stage=1"}, overlapping).values.at("stage") == "1");
    CHECK(parse_args({"--stage-c=2"}, overlapping).values.at("stage-count") == "2");
    CHECK(parse_args({"--sta=1"}, overlapping).error == "ambiguous option --sta");
}

TEST_CASE("switches take no value, options need one", "[cli][args]") {
    CHECK(parse_args({"--json=yes"}, specs).error == "--json takes no value");
    CHECK(parse_args({"--params"}, specs).error == "--params needs a value");
    CHECK(parse_args({"-p"}, specs).error == "--params needs a value");
    // Parsing stops at the first error.
    const auto a = parse_args({"--json", "--bogus", "--params=1"}, specs);
    CHECK(a.error == "unrecognized argument --bogus");
    CHECK(!a.has("params"));
}

TEST_CASE("quantities read the core's units and name the option on error", "[cli][args]") {
    const auto a = parse_args({"--params=14.5B", "--num-gpus=8", "--num-layers=80GiB"}, specs);
    diagnostics errors;
    CHECK(quantity(a, "params", 0, errors) == 14500000000ULL);
    CHECK(quantity(a, "num-gpus", 1, errors, max_gpu_count) == 8);
    CHECK(quantity(a, "num-layers", 0, errors) == 85899345920ULL);  // 80 · 2^30
    CHECK(quantity(a, "json", 42, errors) == 42);                   // not given: the fallback
    CHECK(errors.empty());
    const auto bad = parse_args({"--params=7.5", "--num-gpus=2000000"}, specs);
    CHECK(quantity(bad, "params", 1, errors) == 0);
    CHECK(quantity(bad, "num-gpus", 1, errors, max_gpu_count) == 0);
    REQUIRE(errors.size() == 2);
    CHECK(errors[0].field == "params");
    CHECK(errors[1].field == "num-gpus");
    CHECK(errors[1].message.rfind("must be a whole number from 0 to 1048576", 0) == 0);
}
