// Quantities with suffixes, read exactly.
#include <catch2/catch.hpp>

#include "memplan/base/units.hpp"

using namespace memplan;

TEST_CASE("quantities with suffixes are read exactly", "[units]") {
    auto r = GENERATE(table<std::string, std::uint64_t>({
        {"7000000000", 7000000000ULL},
        {"7e9", 7000000000ULL},
        {"7E9", 7000000000ULL},
        {"7B", 7000000000ULL},
        {"14.5B", 14500000000ULL},
        {"80GB", 80000000000ULL},
        {"80GiB", 85899345920ULL},
        {"1.5GiB", 1610612736ULL},
        {"512MiB", 536870912ULL},
        {"2TB", 2000000000000ULL},
        {"1T", 1000000000000ULL},
        {"5e8", 500000000ULL},
        {"0", 0ULL},
        {"1.0", 1ULL},
        {"12e-1K", 1200ULL},
    }));
    CAPTURE(std::get<0>(r));
    const auto q = parse_quantity(std::get<0>(r), "x");
    REQUIRE(q.ok());
    CHECK(q.value == std::get<1>(r));
}

TEST_CASE("malformed or fractional quantities are errors naming the field", "[units][errors]") {
    // "7 B" used to be here; one space before a suffix is now accepted ("80 GiB" as people write it),
    // so it moved to the accepted cases below. "7  B" (two spaces) and "7 " (trailing) stay refused.
    auto text = GENERATE(as<std::string>{}, "", "-1", "abc", "1.5", "7  B", "7b", "1e", "e9", "80Gb", "0.1KiB", "1e99",
                         "99999999999999999999999999999999999999");
    CAPTURE(text);
    const auto q = parse_quantity(text, "params");
    REQUIRE(q.errors.size() == 1);
    CHECK(q.errors[0].field == "params");
    CHECK(q.errors[0].message.rfind("must be a whole number from 0 to 9007199254740992", 0) == 0);
}

TEST_CASE("quantities above the field's maximum are refused", "[units][errors]") {
    CHECK(parse_quantity("2049", "gpus", 2048).errors.size() == 1);
    CHECK(parse_quantity("2048", "gpus", 2048).value == 2048);
}

TEST_CASE("quantities as people write them: spaces, commas, lowercase k", "[units]") {
    auto r = GENERATE(table<std::string, std::uint64_t>({
        {"8B", 8000000000ULL},
        {"8k", 8000ULL},                 // SI kilo is a lowercase k
        {"32K", 32000ULL},
        {"1.5M", 1500000ULL},
        {"80GB", 80000000000ULL},
        {"80 GiB", 85899345920ULL},      // 80 × 2^30
        {"80 GB", 80000000000ULL},
        {"7 B", 7000000000ULL},
        {"4 kB", 4000ULL},
        {"8,000,000,000", 8000000000ULL},
        {"1,000", 1000ULL},
        {"999", 999ULL},
        {"12,345,678", 12345678ULL},
        {"1,500.0 M", 1500000000ULL},
        {"131,072", 131072ULL},
    }));
    CAPTURE(std::get<0>(r));
    const auto q = parse_quantity(std::get<0>(r), "x");
    REQUIRE(q.ok());
    CHECK(q.value == std::get<1>(r));
}

TEST_CASE("ambiguous or malformed spellings stay refused", "[units][errors]") {
    auto text = GENERATE(as<std::string>{}, "7b", "80Gb", "80 Gb", "8kb", "1.5", "0.0005k",  // bits or fractions
                         "80 ", " 80", "80  GiB", "80\tGiB",                            // spaces
                         "8,00", "80,0000", ",800", "800,", "8,,000", "1,000,00", "1,0000,000",  // commas
                         "1.000,5", "8 000 000", "1e 9", "7 e9");
    CAPTURE(text);
    const auto q = parse_quantity(text, "model.params");
    REQUIRE(q.errors.size() == 1);
    CHECK(q.errors[0].field == "model.params");
    CHECK(q.errors[0].message.find("lowercase b means bits") != std::string::npos);
}
