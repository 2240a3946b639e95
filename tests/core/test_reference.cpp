// DeepSpeed's and Megatron-LM's estimators reproduced on their published outputs, and memplan's own
// model compared with them term by term.
#include <catch2/catch.hpp>

#include <cstdio>

#include "memplan/estimate.hpp"
#include "memplan/reference.hpp"

using namespace memplan;

namespace {
/// DeepSpeed prints bytes / 2^30 with two decimals and calls it "GB".
std::string gib2(std::uint64_t bytes) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2f", static_cast<double>(bytes) / 1073741824.0);
    return buffer;
}
std::string fixed(double value, int digits) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}
}  // namespace

TEST_CASE("DeepSpeed estimate_zero2 reproduces its documented output", "[reference][deepspeed]") {
    // DeepSpeed docs, code-docs/source/memory.rst, "estimate_zero2_model_states_mem_needs_all_cold(
    // total_params=2851e6, num_gpus_per_node=8, num_nodes=1)":
    //   127.45GB |   5.31GB | offload_optimizer=cpu
    //   127.45GB |  15.93GB | offload_optimizer=none
    const auto rows = deepspeed_zero2_estimate(2851000000ULL, 8, 1);
    REQUIRE(rows.ok());
    REQUIRE(rows.value.size() == 2);
    CHECK(rows.value[0].options == "offload_optimizer=cpu");
    CHECK(gib2(rows.value[0].cpu_bytes) == "127.45");
    CHECK(gib2(rows.value[0].gpu_bytes) == "5.31");
    CHECK(gib2(rows.value[1].cpu_bytes) == "127.45");
    CHECK(gib2(rows.value[1].gpu_bytes) == "15.93");
}

TEST_CASE("DeepSpeed estimate_zero3 reproduces its documented output", "[reference][deepspeed]") {
    // DeepSpeed docs, memory.rst, "estimate_zero3_model_states_mem_needs_all_cold(total_params=2851e6,
    // largest_layer_params=32e6, num_gpus_per_node=8, num_nodes=1)".
    const auto rows = deepspeed_zero3_estimate(2851000000ULL, 32000000ULL, 8, 1);
    REQUIRE(rows.ok());
    REQUIRE(rows.value.size() == 6);
    const char* expected[6][3] = {
        {"71.69", "0.12", "offload_param=cpu , offload_optimizer=cpu , zero_init=1"},
        {"127.45", "0.12", "offload_param=cpu , offload_optimizer=cpu , zero_init=0"},
        {"63.72", "0.78", "offload_param=none, offload_optimizer=cpu , zero_init=1"},
        {"127.45", "0.78", "offload_param=none, offload_optimizer=cpu , zero_init=0"},
        {"1.43", "6.09", "offload_param=none, offload_optimizer=none, zero_init=1"},
        {"127.45", "6.09", "offload_param=none, offload_optimizer=none, zero_init=0"},
    };
    for (std::size_t i = 0; i < 6; ++i) {
        CAPTURE(i);
        CHECK(rows.value[i].options == expected[i][2]);
        CHECK(gib2(rows.value[i].cpu_bytes) == expected[i][0]);
        CHECK(gib2(rows.value[i].gpu_bytes) == expected[i][1]);
    }
}

TEST_CASE("memplan's ZeRO-3 model states equal DeepSpeed's GPU figure under DeepSpeed's conventions", "[reference][deepspeed]") {
    // DeepSpeed counts 18 B/param at stage 3 (fp16 param + fp32 param, grad, momentum, variance) and
    // 4 × the largest layer gathered (fp16 params + fp16 grads). In memplan that is fp32 gradients and
    // a live-parameter buffer of 2 × the largest layer with no allgather bucket.
    estimate_config c;
    c.model.params = 2851000000ULL;
    c.model.num_hidden_layers = 24;
    c.model.hidden_size = 1024;
    c.model.num_attention_heads = 16;
    c.parallel.gpus = 8;
    c.parallel.zero_stage = 3;
    c.parallel.zero_bucket_params = 0;
    c.parallel.zero3_max_live_params = 2 * 32000000ULL;
    c.train.grad_dtype = dtype::fp32;
    const auto r = estimate(c);
    REQUIRE(r.errors.empty());
    const auto ds = deepspeed_zero3_estimate(2851000000ULL, 32000000ULL, 8, 1).value;
    const auto& b = r.per_gpu;
    CHECK(b.weights + b.gradients + b.optimizer_states + b.communication == ds[4].gpu_bytes);  // 6,542,750,000
    // Optimizer offloaded to the CPU: the GPU keeps the fp16 shard and the live buffer (DeepSpeed case 3);
    // the node's RAM holds 16 B/param (fp32 master, momentum, variance, gradient) — DeepSpeed adds its
    // 1.5 "additional buffer factor" on top, memplan does not hide a factor.
    c.parallel.offload_optimizer = offload_target::cpu;
    const auto off = estimate(c);
    REQUIRE(off.errors.empty());
    CHECK(off.per_gpu.weights + off.per_gpu.gradients + off.per_gpu.optimizer_states + off.per_gpu.communication ==
          ds[2].gpu_bytes);
    CHECK(static_cast<double>(off.details.host_bytes_per_node) * 1.5 == Approx(static_cast<double>(ds[2].cpu_bytes)));
}

TEST_CASE("Megatron-LM's theoretical memory reproduces a published Llama-2-7B log", "[reference][megatron]") {
    // Megatron-LM log lines for Llama-2-7B, TP 1, PP 4, distributed optimizer over DP 2 (published in
    // Infinigence's Megatron 4090 best-practice notes, 2025-08-01):
    //   Number of parameters in transformer layers in billions:  6.48
    //   Number of parameters in embedding layers in billions: 0.26
    //   Number of parameters in most loaded shard in billions: 1.7502
    //   Theoretical memory footprints: weight and optimizer=20029.52 MB
    megatron_args a;
    a.num_layers = 32;
    a.hidden_size = 4096;
    a.num_attention_heads = 32;
    a.ffn_hidden_size = 11008;
    a.padded_vocab_size = 32000;
    a.seq_length = 4096;
    a.swiglu = true;
    a.untie_embeddings_and_output_weights = true;
    a.use_distributed_optimizer = true;
    a.pipeline_model_parallel_size = 4;
    a.data_parallel_size = 2;
    const auto r = megatron_theoretical_memory(a);
    REQUIRE(r.errors.empty());
    CHECK(fixed(r.params_in_layers / 1e9, 2) == "6.48");
    CHECK(fixed(r.params_in_embeddings / 1e9, 2) == "0.26");
    CHECK(fixed(r.params_on_most_loaded_shard / 1e9, 4) == "1.7502");
    CHECK(fixed(r.weight_and_optimizer_mib, 2) == "20029.52");
}

TEST_CASE("memplan agrees with Megatron-LM's formula on GPT-3 175B, term by term", "[reference][megatron]") {
    // The GPT-3 175B configuration of Megatron-LM's examples/gpt3/train_gpt3_175b_distributed.sh:
    // 96 layers, hidden 12288, 96 heads, sequence 2048, micro-batch 1, TP 8, PP 16; vocabulary 50257
    // padded to 51200; here with the distributed optimizer over DP 8, sequence parallelism and
    // selective recompute (the conditions of Megatron's activation formula).
    megatron_args a;
    a.num_layers = 96;
    a.hidden_size = 12288;
    a.num_attention_heads = 96;
    a.ffn_hidden_size = 4 * 12288;
    a.padded_vocab_size = 51200;
    a.seq_length = 2048;
    a.use_distributed_optimizer = true;
    a.tensor_model_parallel_size = 8;
    a.pipeline_model_parallel_size = 16;
    a.data_parallel_size = 8;
    const auto mg = megatron_theoretical_memory(a);
    REQUIRE(mg.errors.empty());

    // The same run in memplan: Megatron's parameter formula has no linear biases and no learned
    // positions; its optimizer keeps fp32 gradients (18 B/param, or 6 + 12/DP distributed).
    estimate_config c;
    c.model.num_hidden_layers = 96;
    c.model.hidden_size = 12288;
    c.model.num_attention_heads = 96;
    c.model.vocab_size = 51200;
    c.model.qkv_bias = c.model.attention_out_bias = c.model.mlp_bias = false;
    c.parallel.tp = 8;
    c.parallel.pp = 16;
    c.parallel.gpus = 8 * 16 * 8;
    c.parallel.zero_stage = 1;
    c.parallel.zero_bucket_params = 0;
    c.parallel.sequence_parallel = true;
    c.train.grad_dtype = dtype::fp32;
    c.train.recompute = recompute_mode::selective;
    c.train.seq_len = 2048;
    const auto r = estimate(c);
    REQUIRE(r.errors.empty());
    const double mib = 1048576.0;

    // Model states of the first stage: equal up to Megatron spreading the final LayerNorm (2h) over
    // all stages and memplan rounding each shard up to whole parameters.
    estimate_config first = c;
    const double states = static_cast<double>(r.per_gpu.weights + r.per_gpu.gradients + r.per_gpu.optimizer_states);
    CHECK(r.details.stage == 0);
    CHECK(states / mib == Approx(mg.weight_and_optimizer_mib).epsilon(1e-6));

    // Activations of the first stage: Megatron's sbh(18 + 4f/h)·L/t (Korthikanti selective + SP),
    // the int64 token ids and the embedding dropout mask, all divided by t. memplan counts in addition
    // the fp32 LayerNorm statistics (2 · 8 B per token per layer, split by t under SP) and keeps the
    // token ids whole on each tensor-parallel rank.
    const double s = 2048, L = 96, pp = 16, t = 8;
    const double stats = 16 * s / t * (L / pp) * pp;
    const double ids_difference = 8 * s * pp - 8 * s * pp / t;
    CHECK((static_cast<double>(r.per_gpu.activations) - stats - ids_difference) / mib ==
          Approx(mg.activation_mib).epsilon(1e-9));
}

TEST_CASE("the reproductions refuse impossible inputs", "[reference][errors]") {
    CHECK(deepspeed_zero2_estimate(1000, 0, 1).errors.at(0).field == "num_gpus_per_node");
    CHECK(deepspeed_zero3_estimate(1000, 2000, 1, 1).errors.at(0).field == "largest_layer_params");
    megatron_args a;
    CHECK(megatron_theoretical_memory(a).errors.at(0).field == "num_layers");
}
