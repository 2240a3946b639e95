// The training memory model for modern layouts: context and expert parallelism, FSDP names and
// hybrid sharding, offload, precisions, optimizers, and the most loaded pipeline stage.
#include <catch2/catch.hpp>

#include "memplan/api/estimate.hpp"
#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"
#include "estimate_runner.hpp"

using namespace memplan;

namespace {
using memplan_test::run;
std::uint64_t states(const estimate_result& r) {
    return r.per_gpu.weights + r.per_gpu.gradients + r.per_gpu.optimizer_states;
}
std::string first_error(const std::string& config) {
    const auto parsed = parse_config(config);
    REQUIRE(parsed.ok());
    const auto r = estimate(parsed.value);
    REQUIRE_FALSE(r.errors.empty());
    return r.errors[0].field;
}
}  // namespace

TEST_CASE("context parallelism splits the sequence and joins the ZeRO group", "[training][cp]") {
    // Megatron context parallelism: each of cp GPUs holds s/cp tokens of every sequence; its
    // distributed optimizer shards over dp × cp.
    const auto whole = run(R"({"model": {"preset": "llama-3-8b"}, "parallel": {"zero_stage": 1},
        "train": {"seq_len": 4096, "flash_attention": true}})");
    const auto split = run(R"({"model": {"preset": "llama-3-8b"}, "parallel": {"gpus": 2, "cp": 2, "zero_stage": 1},
        "train": {"seq_len": 8192, "flash_attention": true}})");
    CHECK(split.details.layer_activation_bytes == whole.details.layer_activation_bytes);
    CHECK(split.data_parallel == 1);
    CHECK(split.per_gpu.optimizer_states == (whole.per_gpu.optimizer_states + 1) / 2);
    CHECK(split.per_gpu.weights == whole.per_gpu.weights);
    CHECK(first_error(R"({"model": {"preset": "llama-3-8b"}, "parallel": {"gpus": 2, "cp": 2}, "train": {"seq_len": 4097}})") ==
          "train.seq_len");
    CHECK(first_error(R"({"model": {"preset": "llama-3-8b"}, "parallel": {"gpus": 3, "cp": 2}})") == "parallel.gpus");
}

TEST_CASE("expert parallelism splits the experts, not the rest", "[training][ep]") {
    // Mixtral 8x7B: 32 layers × 8 experts × 3 · 4096 · 14336 = 45,097,156,608 expert parameters;
    // the other 1,605,636,096 (attention, router, norms, embeddings) stay whole on each GPU.
    const auto r = run(R"({"model": {"preset": "mixtral-8x7b"}, "parallel": {"gpus": 8, "ep": 8}})");
    CHECK(r.details.params_on_gpu == 1605636096ULL + 45097156608ULL / 8);
    CHECK(r.details.params_active == 12879925248ULL);
    CHECK(first_error(R"({"model": {"preset": "mixtral-8x7b"}, "parallel": {"gpus": 8, "ep": 3}})") == "parallel.ep");
    CHECK(first_error(R"({"model": {"preset": "llama-3-8b"}, "parallel": {"gpus": 2, "ep": 2}})") == "parallel.ep");
}

TEST_CASE("FSDP strategies are ZeRO stages — hybrid sharding shards within a node", "[training][fsdp]") {
    const std::string model = R"("model": {"preset": "llama-3-8b"}, "train": {"recompute": "full"})";
    const auto full = run("{" + model + R"(, "parallel": {"gpus": 16, "fsdp": "full_shard"}})");
    const auto zero3 = run("{" + model + R"(, "parallel": {"gpus": 16, "zero_stage": 3}})");
    CHECK(states(full) == states(zero3));
    const auto hybrid = run("{" + model + R"(, "parallel": {"gpus": 16, "fsdp": "hybrid_shard"}})");
    const auto eight = run("{" + model + R"(, "parallel": {"gpus": 8, "zero_stage": 3}})");
    CHECK(states(hybrid) == states(eight));  // shards over the 8 GPUs of a node, replicated across nodes
    const auto zero2 = run("{" + model + R"(, "parallel": {"gpus": 16, "fsdp": "shard_grad_op"}})");
    CHECK(zero2.per_gpu.weights == 2 * 8030261248ULL);
    const auto parsed = parse_config(R"({"parallel": {"fsdp": "shard_everything"}})");
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.errors[0].field == "parallel.fsdp");
}

TEST_CASE("offloading moves optimizer states and parameters to the host, per node", "[training][offload]") {
    const std::string base = R"("model": {"preset": "llama-3-8b"}, "train": {"recompute": "full"})";
    const auto gpu_only = run("{" + base + R"(, "parallel": {"gpus": 8, "zero_stage": 3}})");
    const auto opt = run("{" + base + R"(, "parallel": {"gpus": 8, "zero_stage": 3, "offload_optimizer": "cpu"}})");
    CHECK(opt.per_gpu.optimizer_states == 0);
    CHECK(opt.per_gpu.gradients == 0);
    CHECK(opt.per_gpu.weights == gpu_only.per_gpu.weights);
    // Per node: 8 GPUs × (12 B optimizer + 4 B fp32 gradient) per sharded parameter.
    const std::uint64_t shard = (8030261248ULL + 7) / 8;
    CHECK(opt.details.host_bytes_per_node == 8 * 16 * shard);
    const auto both = run("{" + base + R"(, "parallel": {"gpus": 8, "zero_stage": 3, "offload_optimizer": "nvme", "offload_params": "cpu"}})");
    CHECK(both.per_gpu.weights == 0);
    CHECK(both.details.nvme_bytes_per_node == 8 * 16 * shard);
    CHECK(both.details.host_bytes_per_node == 8 * 2 * shard);
    CHECK(first_error("{" + base + R"(, "parallel": {"zero_stage": 2, "offload_params": "cpu"}})") == "parallel.offload_params");
}

TEST_CASE("precisions: fp8 weights, fp32 gradients, pure bf16", "[training][precision]") {
    const std::string base = R"("model": {"preset": "llama-3-8b"})";
    const std::uint64_t p = 8030261248ULL;
    CHECK(run("{" + base + R"(, "train": {"weight_dtype": "fp8"}})").per_gpu.weights == 3 * p);  // bf16 + fp8 cache
    CHECK(run("{" + base + R"(, "train": {"grad_dtype": "fp32"}})").per_gpu.gradients == 4 * p);
    CHECK(run("{" + base + R"(, "train": {"master_weights": false}})").per_gpu.optimizer_states == 8 * p);
    CHECK(run("{" + base + R"(, "train": {"weight_dtype": "fp32", "grad_dtype": "fp32"}})").per_gpu.optimizer_states == 8 * p);
}

TEST_CASE("optimizers order as their states do", "[training][optimizer]") {
    auto opt = [](const char* name) {
        return run(std::string(R"({"model": {"preset": "llama-3-8b"}, "train": {"optimizer": ")") + name + R"("}})")
            .per_gpu.optimizer_states;
    };
    const std::uint64_t p = 8030261248ULL;
    CHECK(opt("adam") == 12 * p);
    CHECK(opt("sgd") == 4 * p);
    CHECK(opt("lion") == 8 * p);
    // Adafactor's factored second moment is a row and a column per matrix: far below one value per
    // parameter, above the master copy alone.
    CHECK(opt("adafactor") > 4 * p);
    CHECK(opt("adafactor") < 4 * p + p / 100);
    CHECK(opt("adam_8bit") < opt("lion"));
    CHECK(opt("none") == 0);
}

TEST_CASE("the most loaded pipeline stage is reported, first or last", "[training][pipeline]") {
    // Llama-3-8B on 4 stages: without recompute the first stage's 4 micro-batches of activations
    // dominate; with full recompute the last stage's 128256-wide logits do.
    const auto plain = run(R"({"model": {"preset": "llama-3-8b"}, "parallel": {"gpus": 4, "pp": 4},
        "train": {"seq_len": 4096, "flash_attention": true}})");
    CHECK(plain.details.stage == 0);
    CHECK(plain.details.microbatches_in_flight == 4);
    CHECK(plain.per_gpu.logits == 0);
    const auto full = run(R"({"model": {"preset": "llama-3-8b"}, "parallel": {"gpus": 4, "pp": 4},
        "train": {"seq_len": 4096, "flash_attention": true, "recompute": "full"}})");
    CHECK(full.details.stage == 3);
    CHECK(full.details.microbatches_in_flight == 1);
    CHECK(full.per_gpu.logits == 4096ULL * 128256 * 6);
}

TEST_CASE("PyTorch FSDP named: one wrapped block gathered and one prefetched, not DeepSpeed's buckets", "[training][fsdp]") {
    // Mistral 7B (a block is 218,112,000 parameters: q, k, v, o 41,943,040, the MLP 176,160,768, two norms
    // 8,192), full fine-tuning under FSDP full_shard on 2 GPUs: the block's bf16 all-gather buffer and the
    // next block's prefetched one (2 × 2 B), its unsharded bf16 gradients and their fp32 reduce-scatter input
    // (2 + 4 B): 10 × 218,112,000 = 2,181,120,000 bytes. DeepSpeed's allgather bucket and live parameters
    // (5e8 and 1e9 elements in bf16) were 3,000,000,000.
    const std::string fsdp = R"({"mode": "train", "model": {"preset": "mistral-7b-v0.1"}, "parallel": {"gpus": 2, "fsdp": "full_shard"},
        "train": {"framework": "hf_trainer", "micro_batch": 1, "seq_len": 2048}})";
    CHECK(run(fsdp).per_gpu.communication == 2181120000ULL);
    // DeepSpeed's ZeRO-3 on the same run keeps its own buffers.
    const std::string zero3 = R"({"mode": "train", "model": {"preset": "mistral-7b-v0.1"}, "parallel": {"gpus": 2, "zero_stage": 3},
        "train": {"framework": "deepspeed", "micro_batch": 1, "seq_len": 2048}})";
    CHECK(run(zero3).per_gpu.communication != 2181120000ULL);
}
