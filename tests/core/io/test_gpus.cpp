// The GPU catalogue (core/data/gpus.json compiled in): completeness, consistency and search.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "memplan/io/gpus.hpp"
#include "memplan/base/units.hpp"
#include "memplan/report/json.hpp"

using namespace memplan;

namespace {
std::size_t catalogue_size() {
    std::size_t n = 0;
    gpu_catalogue(n);
    return n;
}
}  // namespace

TEST_CASE("the catalogue holds every required GPU, with unique ids", "[gpus]") {
    std::size_t n = 0;
    const gpu_entry* all = gpu_catalogue(n);
    CHECK(n == 37);
    std::set<std::string> ids;
    for (std::size_t i = 0; i < n; ++i) ids.insert(all[i].id);
    CHECK(ids.size() == n);
    for (const char* id : {"rtx-3090-24gb", "rtx-4090-24gb", "rtx-5090-32gb", "rtx-4090-laptop-16gb", "rtx-a6000-48gb",
                           "rtx-6000-ada-48gb", "rtx-pro-6000-blackwell-96gb", "l4-24gb", "t4-16gb", "a10g-24gb",
                           "l40s-48gb", "v100-16gb", "v100-32gb", "a100-pcie-40gb", "a100-sxm-40gb", "a100-pcie-80gb", "a100-sxm-80gb",
                           "h100-pcie-80gb", "h100-sxm-80gb", "h100-nvl-94gb", "h800-sxm-80gb", "h200-141gb", "h20-96gb", "b200-180gb",
                           "b300-288gb", "gb200-186gb", "mi250x-gcd-64gb", "mi250x-module-128gb", "mi300x-192gb",
                           "mi325x-256gb", "mi355x-288gb", "gaudi3-128gb", "m3-max-128gb", "m4-max-128gb",
                           "m3-ultra-512gb", "m2-ultra-192gb"}) {
        CAPTURE(id);
        CHECK(find_gpu(id) != nullptr);
    }
    CHECK(find_gpu("h100") == nullptr);  // ids are exact; search_gpus reads what people type
}

TEST_CASE("every entry has a source, a kind, and nominal bytes equal to its memory text", "[gpus]") {
    std::size_t n = 0;
    const gpu_entry* all = gpu_catalogue(n);
    const std::set<std::string> kinds{"datacenter", "workstation", "consumer", "laptop", "apple"};
    for (std::size_t i = 0; i < n; ++i) {
        const gpu_entry& g = all[i];
        CAPTURE(g.id);
        CHECK(std::string(g.source).rfind("https://", 0) == 0);
        CHECK(kinds.count(g.kind) == 1);
        CHECK(std::string(g.aliases).size() > 0);
        // "80 GB HBM3" → 80 × the vendor's GB; the number is the memory text's first word.
        const std::string text = g.memory_text;
        const auto space = text.find(' ');
        REQUIRE(space != std::string::npos);
        const auto count = parse_quantity(text.substr(0, space), "memory_text");
        REQUIRE(count.ok());
        CHECK(text.compare(space, 4, " GB ") == 0);
        CHECK(g.nominal_bytes == count.value * g.memory_unit_bytes);
        const bool apple = std::string(g.vendor) == "Apple";
        CHECK(g.memory_unit_bytes == (apple ? (1ULL << 30) : 1000000000ULL));
        CHECK(g.gpu_share_percent == (apple ? 75U : 100U));
        // A usable figure always names its public source and how it was read.
        if (g.usable_bytes != 0) {
            CHECK(std::string(g.usable_source).rfind("https://", 0) == 0);
            CHECK(std::string(g.usable_text).size() > 0);
            // Drivers report within a few percent of the vendor figure (H100: 85.52e9 for "80 GB").
            CHECK(g.usable_bytes > g.nominal_bytes / 100 * 90);
            CHECK(g.usable_bytes < g.nominal_bytes / 100 * 110);
        } else {
            CHECK(std::string(g.usable_source).empty());
        }
    }
}

TEST_CASE("published driver totals are recorded exactly", "[gpus]") {
    // nvidia-smi totals in MiB (2^20 B), sources in core/data/gpus.json.
    CHECK(find_gpu("h100-sxm-80gb")->usable_bytes == 81559ULL << 20);  // 85520809984
    CHECK(find_gpu("h200-141gb")->usable_bytes == 143771ULL << 20);
    CHECK(find_gpu("b200-180gb")->usable_bytes == 183359ULL << 20);
    CHECK(find_gpu("rtx-4090-24gb")->usable_bytes == 24564ULL << 20);
    CHECK(find_gpu("mi300x-192gb")->usable_bytes == 201310208ULL * 1024);  // rocminfo KB
    CHECK(find_gpu("h100-pcie-80gb")->usable_bytes == 0);                 // no public measurement found
    CHECK(find_gpu("h100-sxm-80gb")->nominal_bytes == 80000000000ULL);
    CHECK(find_gpu("mi250x-gcd-64gb")->nominal_bytes * 2 == find_gpu("mi250x-module-128gb")->nominal_bytes);
}

TEST_CASE("the fit capacity is the driver total if known, the nominal figure else, Apple's GPU share", "[gpus]") {
    CHECK(gpu_capacity_bytes(*find_gpu("h100-sxm-80gb")) == 85520809984ULL);
    CHECK(gpu_capacity_bytes(*find_gpu("h100-pcie-80gb")) == 80000000000ULL);
    // 75 % of 128 × 2^30 = 96 × 2^30.
    CHECK(gpu_capacity_bytes(*find_gpu("m4-max-128gb")) == 96ULL << 30);
    CHECK(gpu_capacity_bytes(*find_gpu("m3-ultra-512gb")) == 384ULL << 30);
}

TEST_CASE("search reads what people type", "[gpus]") {
    auto top = [](const std::string& q) {
        const auto hits = search_gpus(q);
        return hits.empty() ? std::string("(none)") : std::string(hits.front()->id);
    };
    CHECK(top("h100") == "h100-sxm-80gb");
    CHECK(top("H100 SXM") == "h100-sxm-80gb");
    CHECK(top("h100 pcie") == "h100-pcie-80gb");
    CHECK(top("H100 80GB") == "h100-sxm-80gb");
    CHECK(top("h100 nvl") == "h100-nvl-94gb");
    CHECK(top("4090") == "rtx-4090-24gb");
    CHECK(top("RTX 4090 laptop") == "rtx-4090-laptop-16gb");
    CHECK(top("mi300") == "mi300x-192gb");
    CHECK(top("MI300X") == "mi300x-192gb");
    CHECK(top("a100") == "a100-sxm-80gb");
    CHECK(top("a100 40gb") == "a100-sxm-40gb");
    CHECK(top("A100 PCIe 40GB") == "a100-pcie-40gb");
    CHECK(top("h200") == "h200-141gb");
    CHECK(top("v100") == "v100-16gb");
    CHECK(top("V100 32GB") == "v100-32gb");
    CHECK(top("m3 ultra") == "m3-ultra-512gb");
    CHECK(top("gaudi") == "gaudi3-128gb");
    CHECK(top("h100-sxm-80gb") == "h100-sxm-80gb");
    CHECK(top("b200") == "b200-180gb");
    // The GB200 is not the B200: "b200" must not rank it first, but "gb200" finds it.
    CHECK(top("gb200") == "gb200-186gb");
    CHECK(search_gpus("4090").size() == 2);  // desktop and laptop
    CHECK(search_gpus("m3").size() == 2);    // M3 Max and M3 Ultra, not "HBM3" parts
    CHECK(search_gpus("h100").size() == 3);  // SXM, PCIe, NVL
    CHECK(search_gpus("6000").size() == 3);  // RTX 6000 Ada, RTX PRO 6000, RTX A6000 (inside "a6000")
    CHECK(search_gpus("").empty());
    CHECK(search_gpus("   ").empty());
    CHECK(search_gpus("voodoo5").empty());
    CHECK(search_gpus("h100 voodoo").empty());  // every token must match
}

TEST_CASE("the catalogue JSON is the compiled table", "[gpus]") {
    const auto doc = nlohmann::json::parse(gpu_catalogue_json());
    REQUIRE(doc.at("gpus").is_array());
    CHECK(doc.at("version") == 1);
    REQUIRE(doc.at("gpus").size() == catalogue_size());
    std::size_t n = 0;
    const gpu_entry* all = gpu_catalogue(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto& j = doc["gpus"][i];
        CAPTURE(all[i].id);
        CHECK(j.at("id") == all[i].id);
        CHECK(j.at("nominal_bytes").get<std::uint64_t>() == all[i].nominal_bytes);
        CHECK((j.at("usable_bytes").is_null() ? 0 : j.at("usable_bytes").get<std::uint64_t>()) == all[i].usable_bytes);
        CHECK(j.at("capacity_bytes").get<std::uint64_t>() == gpu_capacity_bytes(all[i]));
        CHECK(j.at("source") == all[i].source);
        CHECK(j.at("note") == all[i].note);
        std::string aliases;
        for (const auto& a : j.at("aliases")) aliases += (aliases.empty() ? "" : "|") + a.get<std::string>();
        CHECK(aliases == all[i].aliases);
    }
}

TEST_CASE("one GPU by its exact id, with the capacity a fit verdict uses", "[gpus]") {
    const auto h100 = nlohmann::json::parse(memplan::gpu_json("h100-sxm-80gb"));
    CHECK(h100["id"] == "h100-sxm-80gb");
    CHECK(h100["name"] == memplan::find_gpu("h100-sxm-80gb")->name);
    CHECK(h100["capacity_bytes"].get<std::uint64_t>() == 85520809984ULL);  // 81,559 MiB, the nvidia-smi total
    CHECK(memplan::gpu_json("h100") == "null");  // an exact id only; searching is search_gpus
    CHECK(memplan::gpu_json("") == "null");
}
