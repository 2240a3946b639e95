// The training frameworks (memplan/memory/frameworks.hpp, train.framework): one entry per enumerator,
// the layouts each refuses, the conventions that change the arithmetic (torchtitan's fused AdamW and
// its loss), and the reserved-peak range taken from the public allocated/reserved pairs of
// tests/data/allocator/allocator-pairs.json.
#include <algorithm>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "estimate_runner.hpp"
#include "memplan/memory/frameworks.hpp"
#include "memplan/report/json.hpp"

using namespace memplan;
using memplan_test::run;
using nlohmann::json;

namespace {
const char* const all_frameworks[] = {"none", "torchtitan", "hf_trainer", "trl", "torchtune",
                                      "litgpt", "unsloth", "axolotl", "megatron", "deepspeed", "llama_factory"};


/// Llama 3.1 8B trained on 8 GPUs (FSDP / ZeRO-3 unless `parallel` says otherwise), 2 × 8,192 tokens.
std::string titan_config(const std::string& framework, const std::string& parallel = R"("gpus": 8, "zero_stage": 3)") {
    return R"({"mode": "train", "model": {"preset": "llama-3.1-8b"}, "parallel": {)" + parallel +
           R"(}, "train": {"micro_batch": 2, "seq_len": 8192, "framework": ")" + framework + "\"}}";
}

diagnostics errors_of(const std::string& config) {
    const auto parsed = parse_config(config);
    if (!parsed.ok()) return parsed.errors;
    return estimate(parsed.value).errors;
}

json pairs_file() {
    std::ifstream in(std::string(MEMPLAN_DATA_DIR) + "/allocator/allocator-pairs.json");
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    return json::parse(text.str());
}
}  // namespace

TEST_CASE("every framework has its own entry with a label, a pinned version and its log's figure", "[frameworks]") {
    for (const char* name : all_frameworks) {
        INFO(name);
        train_framework f{};
        REQUIRE(parse_enum(name, f));
        const framework_conventions& c = conventions_of(f);
        CHECK(c.id == f);
        CHECK(std::string(c.label).size() >= 3);
        CHECK(framework_notes_of(f).id == f);
        CHECK(std::string(framework_notes_of(f).conventions).size() > 40);
        CHECK_FALSE(std::string(framework_notes_of(f).source).empty());
        if (f != train_framework::none) {
            CHECK(std::string(framework_notes_of(f).version).find(" at ") != std::string::npos);  // "owner/repo at <commit>"
            const std::string unit = c.log_unit;
            if (c.logs != allocator_figure::none) CHECK((unit == "GiB" || unit == "GB" || unit == "MiB" || unit == "bytes"));
        }
        // Every framework runs a full fine-tune on 8 GPUs under FSDP / ZeRO-3 (tp 1, pp 1).
        CHECK(errors_of(titan_config(name)).empty());
    }
    // The table has one entry per value, in the enumeration's order; the listing names each once.
    REQUIRE(static_cast<std::size_t>(framework_entries().end() - framework_entries().begin()) == std::size(all_frameworks));
    std::size_t at = 0;
    for (const framework_conventions& f : framework_entries()) CHECK(std::string(to_string(f.id)) == all_frameworks[at++]);
    const json listing = json::parse(frameworks_json());
    REQUIRE(listing["frameworks"].size() == std::size(all_frameworks));
    for (std::size_t i = 0; i < std::size(all_frameworks); ++i) CHECK(listing["frameworks"][i]["id"] == all_frameworks[i]);
    CHECK(listing["frameworks"][1]["logs"] == "reserved");
    CHECK(listing["reserved_band"]["measurements"] == 24);
    train_framework unknown{};
    CHECK_FALSE(parse_enum("fairseq", unknown));
    const auto parsed = parse_config(R"({"model": {"preset": "llama-3.1-8b"}, "mode": "train", "train": {"framework": "fairseq"}})");
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.errors[0].field == "train.framework");
}

TEST_CASE("torchtitan refuses the layouts FSDP2 does not have, naming the field and the framework", "[frameworks]") {
    auto one = [](const std::string& config, const char* field) {
        const auto errors = errors_of(config);
        REQUIRE(errors.size() == 1);
        CHECK(errors[0].field == field);
        CHECK(errors[0].message.find("torchtitan") != std::string::npos);
    };
    one(titan_config("torchtitan", R"("gpus": 8, "zero_stage": 1)"), "parallel.zero_stage");
    one(titan_config("torchtitan", R"("gpus": 8, "zero_stage": 3, "comm_buffers": "deepspeed")"), "parallel.comm_buffers");
    one(titan_config("torchtitan", R"("gpus": 8, "zero_stage": 3, "offload_optimizer": "nvme")"), "parallel.offload_optimizer");
    // Stage 2 (reshard_after_forward "never"), stage 0 and CPU offload are torchtitan's.
    for (const char* ok : {R"("gpus": 8, "zero_stage": 2)", R"("gpus": 8, "zero_stage": 0)",
                           R"("gpus": 8, "zero_stage": 3, "offload_optimizer": "cpu")"}) {
        INFO(ok);
        CHECK(errors_of(titan_config("torchtitan", ok)).empty());
    }
    // The same layouts are memplan's without a framework named.
    CHECK(errors_of(titan_config("none", R"("gpus": 8, "zero_stage": 1)")).empty());
    CHECK(errors_of(titan_config("none", R"("gpus": 8, "zero_stage": 3, "comm_buffers": "deepspeed")")).empty());
}

TEST_CASE("torchtitan's conventions: fused AdamW without temporaries, only the fp32 log-probabilities kept", "[frameworks]") {
    const auto plain = run(titan_config("none"));
    const auto titan = run(titan_config("torchtitan"));
    // Llama 3.1 8B: 128,256 logits per token, 2 × 8,192 tokens per micro-batch, one GPU holds the whole
    // vocabulary (no tensor parallelism): the bf16 copy torchtitan deletes before backward is 2 bytes each.
    const std::uint64_t logit_elements = 2ull * 8192 * 128256;
    CHECK(plain.per_gpu.logits - titan.per_gpu.logits == 2 * logit_elements);
    CHECK(titan.per_gpu.logits == 4 * logit_elements);
    // FSDP2's buffers at the largest unit, the 128,256 × 4,096 embedding (and output layer): two units
    // all-gathered in bf16, one unit's bf16 gradients beside their fp32 reduce-scatter copy.
    CHECK(titan.per_gpu.communication == 10ull * 128256 * 4096);
    CHECK(plain.details.phases.forward_end_bytes - plain.per_gpu.communication ==
          titan.details.phases.forward_end_bytes - titan.per_gpu.communication + 2 * logit_elements);
    // foreach AdamW writes one fp32 sqrt per stepped element: this GPU's 1/8 of 8,030,261,248 parameters.
    CHECK(plain.details.phases.optimizer_temp_bytes == 4 * ((8030261248ull + 7) / 8));
    CHECK(titan.details.phases.optimizer_temp_bytes == 0);
    // Everything else is the same arithmetic.
    CHECK(plain.per_gpu.weights == titan.per_gpu.weights);
    CHECK(plain.per_gpu.activations == titan.per_gpu.activations);
    CHECK(plain.per_gpu.optimizer_states == titan.per_gpu.optimizer_states);
    // The result names the framework and the figure its log prints.
    const json out = json::parse(to_json(titan));
    CHECK(out["details"]["framework"]["id"] == "torchtitan");
    CHECK(out["details"]["framework"]["logs"] == "reserved");
    CHECK(out["details"]["framework"]["log_unit"] == "GiB");
    CHECK(json::parse(to_json(plain))["details"]["framework"]["logs"] == "allocated");
}

TEST_CASE("the reserved band is the smallest, median and largest ratio of the public allocated and reserved pairs", "[frameworks]") {
    const json doc = pairs_file();
    std::vector<double> ratios;
    std::uint64_t low = UINT64_MAX, high = 0;
    for (const auto& p : doc["pairs"]) {
        INFO(p["id"].get<std::string>());
        if (p["phase"] != "training") continue;  // a model's initialisation or an unverified loop: listed, not counted
        CHECK(p["source"].get<std::string>().rfind("https://", 0) == 0);
        CHECK_FALSE(p["quote"].get<std::string>().empty());
        const std::uint64_t a = p["max_allocated_bytes"], r = p["max_reserved_bytes"];
        REQUIRE(a > 0);
        CHECK(r >= a);  // reserved memory holds every allocated block
        low = std::min<std::uint64_t>(low, r * 1000 / a);              // rounded down
        high = std::max<std::uint64_t>(high, (r * 1000 + a - 1) / a);  // rounded up
        ratios.push_back(static_cast<double>(r) / static_cast<double>(a));
    }
    REQUIRE(ratios.size() >= 15);
    std::sort(ratios.begin(), ratios.end());
    const double median = ratios.size() % 2 ? ratios[ratios.size() / 2]
                                            : (ratios[ratios.size() / 2 - 1] + ratios[ratios.size() / 2]) / 2;
    const reserved_band band = reserved_ratio_band();
    CHECK(band.low_permille == low);
    CHECK(band.high_permille == high);
    CHECK(band.median_permille == static_cast<std::uint64_t>(median * 1000 + 0.5));
    CHECK(band.measurements == ratios.size());
}

TEST_CASE("the reserved range holds the allocated peak rounded to whole 2 MiB, within the band", "[frameworks]") {
    const reserved_band band = reserved_ratio_band();
    for (std::uint64_t allocated : {1ull, 2097152ull, 2097153ull, 47681175040ull, 9007199254740992ull / 4}) {
        INFO(allocated);
        const reserved_range r = reserved_peak_range(allocated);
        const std::uint64_t rounded = (allocated + 2097151) / 2097152 * 2097152;
        CHECK(r.low_bytes >= allocated);
        CHECK(r.low_bytes <= r.typical_bytes);
        CHECK(r.typical_bytes <= r.high_bytes);
        CHECK(r.low_bytes == (rounded * band.low_permille + 999) / 1000);
        CHECK(r.high_bytes == (rounded * band.high_permille + 999) / 1000);
    }
    // A peak whose range would pass 2^53 bytes is refused, not capped: the estimate names details.phases.
    CHECK_FALSE(reserved_peak_range(9007199254740992ull / 1000 * 999).within_limits);
    CHECK(reserved_peak_range(9007199254740992ull / 4).within_limits);
    // In a training estimate: the range of the step's allocated peak.
    const auto r = run(titan_config("torchtitan"));
    const step_phases& ph = r.details.phases;
    CHECK(ph.reserved_low_bytes == reserved_peak_range(ph.peak_bytes).low_bytes);
    CHECK(ph.reserved_high_bytes == reserved_peak_range(ph.peak_bytes).high_bytes);
    CHECK(ph.reserved_low_bytes >= ph.peak_bytes);
}

TEST_CASE("the other frameworks refuse the layouts they do not have, naming the field and the framework", "[frameworks]") {
    const auto refused = [](const char* framework, const std::string& parallel, const char* field) {
        INFO(framework << " " << parallel);
        const auto errors = errors_of(titan_config(framework, parallel));
        REQUIRE(errors.size() == 1);
        CHECK(errors[0].field == field);
        CHECK(errors[0].message.find(framework) != std::string::npos);
    };
    for (const char* f : {"torchtune", "litgpt", "axolotl"}) refused(f, R"("gpus": 8, "pp": 2)", "parallel.pp");
    refused("torchtune", R"("gpus": 8, "zero_stage": 3, "comm_buffers": "deepspeed")", "parallel.comm_buffers");
    refused("litgpt", R"("gpus": 8, "zero_stage": 3, "comm_buffers": "deepspeed")", "parallel.comm_buffers");
    refused("unsloth", R"("gpus": 8, "tp": 2)", "parallel.tp");
    refused("unsloth", R"("gpus": 8, "pp": 2)", "parallel.pp");
    refused("deepspeed", R"("gpus": 8, "fsdp": "full_shard")", "parallel.fsdp");
    // Axolotl runs DeepSpeed; Megatron-LM has pipeline parallelism.
    CHECK(errors_of(titan_config("axolotl", R"("gpus": 8, "zero_stage": 3, "comm_buffers": "deepspeed")")).empty());
    CHECK(errors_of(titan_config("megatron", R"("gpus": 8, "pp": 2)")).empty());
}
