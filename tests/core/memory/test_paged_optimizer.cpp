// bitsandbytes paged optimizers (train.paged_optimizer): their states live in CUDA unified memory
// (bitsandbytes at 95f9af309d4d5793847169c39288dcd3fcbdf564: optim/optimizer.py get_state_buffer ->
// functional.py get_paged -> csrc/pythonInterface.cpp cget_managed_ptr, cudaMallocManaged), outside
// PyTorch's caching allocator: never in per_gpu nor in the step's allocated peak, resident on the GPU
// beside PyTorch's reserved peak and the rest paged out to host memory.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "memplan/report/json.hpp"
#include "estimate_runner.hpp"

using namespace memplan;
using memplan_test::run;

namespace {
std::string paged_case(const std::string& model, const std::string& train, const std::string& rest = "") {
    return R"({"mode": "train", "model": {"preset": ")" + model + R"("}, "overhead": {"misc_bytes": 0}, "train": {)" +
           train + "}" + rest + "}";
}
/// torchtune's low-memory single-device full fine-tune of Llama 2 7B, as in tests/data/measured/torchtune-pr961.json.
const std::string torchtune_7b_low_memory =
    R"("framework": "torchtune", "micro_batch": 4, "seq_len": 2048, "optimizer": "adam", "paged_optimizer": true,
       "optimizer_in_backward": true, "master_weights": false, "recompute": "full")";

bool warned(const estimate_result& r, const std::string& field) {
    for (const auto& w : r.warnings)
        if (w.field == field) return true;
    return false;
}
}  // namespace

TEST_CASE("torchtune's low-memory Llama 2 7B full fine-tune: the allocated peak without the paged states",
          "[paged][measured]") {
    // https://github.com/pytorch/torchtune/pull/961 (2024-05-10): `tune run full_finetune_single_device --config
    // recipes/configs/llama2/7B_full_low_memory.yaml batch_size=4`, inputs padded to 2048 tokens, logs "20.2 peak
    // memory allocated (and similar for reserved)"; torchtune's get_memory_stats prints
    // torch.cuda.max_memory_allocated() / 1e9 (torchtune/utils/memory.py at dc2b9911cf5a793a8b4f9cd4df321c5271745b4a).
    // The recipe's bitsandbytes PagedAdamW keeps two fp32 moments per parameter in unified memory.
    const auto r = run(paged_case("llama-2-7b", torchtune_7b_low_memory));
    const double published = 20.2e9;
    const double error = (static_cast<double>(r.details.phases.peak_bytes) - published) / published;
    CAPTURE(r.details.phases.peak_bytes, error);
    CHECK(error > -0.10);
    CHECK(error < 0.10);
    // The paged part: two fp32 moments of every parameter (6,738,415,616 for Llama 2 7B), none of it in per_gpu.
    CHECK(r.params == 6738415616ULL);
    CHECK(r.details.paged_optimizer_bytes == 2 * 4 * 6738415616ULL);
    CHECK(r.per_gpu.optimizer_states == 0);
    CHECK(r.details.phases.optimizer_temp_bytes == 0);  // bitsandbytes updates in place
    // No GPU size: where the pages are is unknown, the host must be able to hold them all.
    CHECK(r.details.paged_optimizer_resident_bytes == 0);
    CHECK(r.details.paged_optimizer_host_bytes == r.details.paged_optimizer_bytes);
    CHECK(r.details.host_bytes_per_node == r.details.paged_optimizer_bytes);
}

TEST_CASE("paged optimizer states: resident beside the reserved peak, the rest paged out, never allocated",
          "[paged]") {
    struct named {
        const char* model;
        const char* train;
    };
    const named cases[] = {
        {"llama-2-7b", R"("micro_batch": 4, "seq_len": 2048, "optimizer": "adam", "optimizer_in_backward": true,
                          "master_weights": false, "recompute": "full")"},
        {"llama-3.1-8b", R"("micro_batch": 2, "seq_len": 2048, "optimizer": "adam_8bit", "optimizer_in_backward": true,
                            "master_weights": false, "recompute": "full", "loss_chunks": 8)"},
        {"llama-3.2-3b", R"("micro_batch": 1, "seq_len": 4096, "optimizer": "lion")"},
        {"llama-3.2-3b", R"("micro_batch": 2, "seq_len": 1024, "optimizer": "adam")"},
        {"llama-3.2-3b", R"("adapter_type": "lora", "adapter_targets": "all-linear", "base_dtype": "nf4",
                            "double_quant": true, "recompute": "full", "optimizer": "adam_8bit")"},
    };
    const char* gpus[] = {"", R"(, "gpu": {"memory_bytes": 24000000000})", R"(, "gpu": {"memory_bytes": 48000000000})",
                          R"(, "gpu": {"memory_bytes": 80000000000})"};
    for (const named& c : cases) {
        for (const char* gpu : gpus) {
            const std::string train = std::string(c.train);
            CAPTURE(c.model, train, gpu);
            const auto on = run(paged_case(c.model, train + R"(, "paged_optimizer": true)", gpu));
            const auto off = run(paged_case(c.model, train, gpu));
            const estimate_details& d = on.details;
            REQUIRE(d.paged_optimizer_bytes > 0);
            // Resident + paged out == the paged states.
            CHECK(d.paged_optimizer_resident_bytes + d.paged_optimizer_host_bytes == d.paged_optimizer_bytes);
            // Never in the allocated figures: per_gpu and every phase lose the states that paging takes out.
            CHECK(on.per_gpu.total + d.paged_optimizer_bytes == off.per_gpu.total);
            CHECK(on.details.phases.peak_bytes + d.paged_optimizer_bytes <= off.details.phases.peak_bytes);
            CHECK(on.details.phases.optimizer_step_bytes + d.paged_optimizer_bytes <= off.details.phases.optimizer_step_bytes);
            // Turning paged_optimizer off never lowers what PyTorch allocates.
            CHECK(off.per_gpu.total >= on.per_gpu.total);
            CHECK(off.details.phases.peak_bytes >= on.details.phases.peak_bytes);
            CHECK(off.details.phases.reserved_typical_bytes >= on.details.phases.reserved_typical_bytes);
            CHECK(off.details.paged_optimizer_bytes == 0);
            // Host memory: the paged-out part beside whatever else is offloaded (one GPU per node here).
            CHECK(on.details.host_bytes_per_node == off.details.host_bytes_per_node + d.paged_optimizer_host_bytes);
            if (!on.has_capacity) {
                CHECK(d.paged_optimizer_resident_bytes == 0);
                continue;
            }
            // The verdict is PyTorch's: paging never turns a fitting run into one that does not fit.
            if (off.fits) CHECK(on.fits);
            CHECK(on.needed_bytes <= off.needed_bytes);
            // Resident: at most what the card has free beside the reserved peak (the CUDA context inside it).
            const std::uint64_t reserved = std::max(on.details.phases.reserved_typical_bytes, on.needed_bytes);
            const std::uint64_t free_bytes = on.capacity_bytes > reserved ? on.capacity_bytes - reserved : 0;
            CHECK(d.paged_optimizer_resident_bytes == std::min(d.paged_optimizer_bytes, free_bytes));
            // Paged out: named in a warning on train.paged_optimizer, never otherwise.
            CHECK(warned(on, "train.paged_optimizer") == (d.paged_optimizer_host_bytes != 0));
        }
    }
}

TEST_CASE("the 8-bit paged states of Llama 3.1 8B on a 24 GB card: it fits, most states paged out over PCIe",
          "[paged]") {
    // torchtune's 8B_full_single_device recipe (PagedAdamW8bit, optimizer in backward) on a 24 GB card.
    const auto r = run(paged_case("llama-3.1-8b",
                                    R"("framework": "torchtune", "micro_batch": 2, "seq_len": 2048, "optimizer": "adam_8bit",
                                       "paged_optimizer": true, "optimizer_in_backward": true, "master_weights": false,
                                       "recompute": "full", "loss_chunks": 8)",
                                    R"(, "gpu": {"memory_bytes": 24000000000})"));
    CHECK(r.fits);
    // The int8 moments are paged (2 B per parameter); their fp32 absmax (one per 2048-block and moment) is
    // torch.zeros on the device (bitsandbytes optim/optimizer.py Optimizer2State.init_state) and stays allocated.
    CHECK(r.details.paged_optimizer_bytes == 2 * r.params);
    CHECK(r.per_gpu.optimizer_states == 8 * ((r.params + 2047) / 2048));
    CHECK(r.details.paged_optimizer_host_bytes > 0);
    CHECK(r.details.paged_optimizer_resident_bytes + r.details.paged_optimizer_host_bytes == 2 * r.params);
    std::string text;
    for (const auto& w : r.warnings)
        if (w.field == "train.paged_optimizer") text = w.message;
    CHECK(text.find(std::to_string(r.details.paged_optimizer_host_bytes)) != std::string::npos);
    CHECK(text.find("PCIe") != std::string::npos);
    CHECK(text.find("slows") != std::string::npos);
    // On an 80 GB card they all stay resident: nothing paged out, no warning.
    const auto big = run(paged_case("llama-3.1-8b",
                                      R"("framework": "torchtune", "micro_batch": 2, "seq_len": 2048, "optimizer": "adam_8bit",
                                         "paged_optimizer": true, "optimizer_in_backward": true, "master_weights": false,
                                         "recompute": "full", "loss_chunks": 8)",
                                      R"(, "gpu": {"memory_bytes": 80000000000})"));
    CHECK(big.details.paged_optimizer_resident_bytes == big.details.paged_optimizer_bytes);
    CHECK(big.details.paged_optimizer_host_bytes == 0);
    CHECK(big.details.host_bytes_per_node == 0);
    CHECK_FALSE(warned(big, "train.paged_optimizer"));
}

TEST_CASE("the JSON result names the paged states, their resident part and their host part", "[paged][json]") {
    const auto out = nlohmann::json::parse(estimate_json(
        paged_case("llama-3.1-8b", R"("framework": "torchtune", "micro_batch": 2, "seq_len": 2048, "optimizer": "adam_8bit",
                                      "paged_optimizer": true, "optimizer_in_backward": true, "master_weights": false,
                                      "recompute": "full", "loss_chunks": 8)",
                     R"(, "gpu": {"memory_bytes": 24000000000})")));
    REQUIRE(out["errors"].empty());
    const auto& d = out["details"];
    const std::uint64_t paged = d["paged_optimizer_bytes"];
    CHECK(paged > 0);
    CHECK(d["paged_optimizer_resident_bytes"].get<std::uint64_t>() + d["paged_optimizer_host_bytes"].get<std::uint64_t>() == paged);
    CHECK(d["phases"]["figure"] == "allocated");
    CHECK(out["gpu"]["needed_bytes"].get<std::uint64_t>() <= 24000000000ULL);
}

TEST_CASE("paged_optimizer with an optimizer bitsandbytes does not page is refused", "[paged][errors]") {
    for (const char* optimizer : {"sgd", "sgd_momentum", "adafactor", "none"}) {
        CAPTURE(optimizer);
        const auto parsed = parse_config(paged_case("llama-3.2-3b", std::string(R"("paged_optimizer": true, "optimizer": ")") +
                                                                          optimizer + "\""));
        REQUIRE(parsed.ok());
        const auto r = estimate(parsed.value);
        bool refused = false;
        for (const auto& e : r.errors) refused = refused || e.field == "train.paged_optimizer";
        CHECK(refused);
    }
}
