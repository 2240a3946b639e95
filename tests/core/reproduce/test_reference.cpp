// DeepSpeed's and Megatron-LM's estimators reproduced on their published outputs, and memplan's own
// model compared with them term by term.
#include <catch2/catch.hpp>

#include <cstdio>

#include "memplan/api/estimate.hpp"
#include "memplan/reproduce/reference.hpp"

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

// ---------------------------------------------------------------------------------------------
// Exact formatting, both DeepSpeed formulas, communication buffers, the newer Megatron paths, the
// cookbook's calc_transformer_mem.py and accelerate's estimate-memory.

#include <random>

#include "cli_runner.hpp"

TEST_CASE("fixed_text prints what printf prints, with integers only", "[reference][format]") {
    CHECK(fixed_text(0.125, 2) == "0.12");    // exact tie: to even
    CHECK(fixed_text(0.375, 2) == "0.38");    // exact tie: to even
    CHECK(fixed_text(2.675, 2) == "2.67");    // the double is below 2.675
    CHECK(fixed_text(20029.52, 2) == "20029.52");
    CHECK(fixed_text(-0.001, 2) == "-0.00");
    CHECK(fixed_text(0, 0) == "0");
    CHECK(fixed_text(9007199254740993.0, 2) == "9007199254740992.00");
    CHECK(fixed_text(std::nan(""), 2) == "?");
    CHECK(fixed_text(1e30, 2) == "?");
    CHECK(ratio_text(12116750000ULL, bytes_per_gib, 2) == "11.28");
    CHECK(ratio_text(1, 8, 2) == "0.12");
    CHECK(ratio_text(3, 8, 2) == "0.38");
    std::mt19937_64 random(12345);
    for (int i = 0; i < 2000; ++i) {
        const double value = std::ldexp(static_cast<double>(random() >> 11), static_cast<int>(random() % 80) - 70);
        const unsigned digits = static_cast<unsigned>(random() % 5);
        CAPTURE(value, digits);
        CHECK(fixed_text(value, digits) == fixed(value, static_cast<int>(digits)));
    }
}

TEST_CASE("DeepSpeed's current ZeRO-2 code gives 2P + 18P/N where the docs show 4P + 16P/N", "[reference][deepspeed]") {
    // estimate_zero2_model_states_mem_needs at microsoft/DeepSpeed 38327e07f6cd (after commit
    // f4cb866c2eba, v0.14.3), run on the documented inputs total_params=2851e6, 8 GPUs, 1 node:
    //   127.45GB |   5.31GB | offload_optimizer=cpu
    //   127.45GB |  11.28GB | offload_optimizer=none        (int values 136848000000, 12116750000)
    const auto rows = deepspeed_zero2_estimate(2851000000ULL, 8, 1, deepspeed_zero2_formula::current);
    REQUIRE(rows.ok());
    CHECK(rows.value[0].gpu_bytes == 5702000000ULL);
    CHECK(rows.value[1].cpu_bytes == 136848000000ULL);
    CHECK(rows.value[1].gpu_bytes == 12116750000ULL);
    CHECK(gib2(rows.value[1].gpu_bytes) == "11.28");
    // The same function on 70e9 parameters, 8 GPUs per node, 4 nodes: 3129.24GB | 167.06GB.
    const auto big = deepspeed_zero2_estimate(70000000000ULL, 8, 4, deepspeed_zero2_formula::current);
    REQUIRE(big.ok());
    CHECK(big.value[1].cpu_bytes == 3360000000000ULL);
    CHECK(big.value[1].gpu_bytes == 179375000000ULL);
    // The documented formula on the same inputs: 4P + int(16P/N) = 11,200,000,000 + 35,000,000,000.
    CHECK(deepspeed_zero2_estimate(70000000000ULL, 8, 4).value[1].gpu_bytes == 315000000000ULL);
}

TEST_CASE("DeepSpeed's table is printed as DeepSpeed prints it", "[reference][deepspeed]") {
    // docs/code-docs/source/memory.rst, estimate_zero3_model_states_mem_needs_all_cold(total_params=2851e6,
    // largest_layer_params=32e6, num_gpus_per_node=8, num_nodes=1), line for line.
    const auto rows = deepspeed_zero3_estimate(2851000000ULL, 32000000ULL, 8, 1);
    REQUIRE(rows.ok());
    CHECK(deepspeed_table_text(rows.value, 2851000000ULL, 32000000ULL, 8, 1, true) ==
          "Estimated memory needed for params, optim states and gradients for a:\n"
          "HW: Setup with 1 node, 8 GPUs per node.\n"
          "SW: Model with 2851M total params, 32M largest layer params.\n"
          "  per CPU  |  per GPU |   Options\n"
          "   71.69GB |   0.12GB | offload_param=cpu , offload_optimizer=cpu , zero_init=1\n"
          "  127.45GB |   0.12GB | offload_param=cpu , offload_optimizer=cpu , zero_init=0\n"
          "   63.72GB |   0.78GB | offload_param=none, offload_optimizer=cpu , zero_init=1\n"
          "  127.45GB |   0.78GB | offload_param=none, offload_optimizer=cpu , zero_init=0\n"
          "    1.43GB |   6.09GB | offload_param=none, offload_optimizer=none, zero_init=1\n"
          "  127.45GB |   6.09GB | offload_param=none, offload_optimizer=none, zero_init=0\n");
    const auto two = deepspeed_zero2_estimate(2851000000ULL, 8, 1);
    CHECK(deepspeed_table_text(two.value, 2851000000ULL, 0, 8, 1, false) ==
          "Estimated memory needed for params, optim states and gradients for a:\n"
          "HW: Setup with 1 node, 8 GPUs per node.\n"
          "SW: Model with 2851M total params.\n"
          "  per CPU  |  per GPU |   Options\n"
          "  127.45GB |   5.31GB | offload_optimizer=cpu\n"
          "  127.45GB |  15.93GB | offload_optimizer=none\n");
}

TEST_CASE("DeepSpeed's ZeRO-3 cases reproduce the t5-large example of memory.rst", "[reference][deepspeed]") {
    // memory.rst "Discussion": t5-large, total params 737.67M (737,668,096), largest layer 32.90M (the
    // shared 32128 x 1024 embedding, 32,899,072), total_gpus = 4:
    //   largest layer memory: 125MB, case1 gpu memory: 3291MB, case2: 125MB, case3: 477MB (>> 20).
    const auto rows = deepspeed_zero3_estimate(737668096ULL, 32899072ULL, 4, 1);
    REQUIRE(rows.ok());
    CHECK((rows.value[4].gpu_bytes >> 20) == 3291);  // case 1: nothing offloaded
    CHECK((rows.value[0].gpu_bytes >> 20) == 125);   // case 2: both offloaded
    CHECK((rows.value[2].gpu_bytes >> 20) == 477);   // case 3: optimizer offloaded
}

TEST_CASE("DeepSpeed figures above 2^53 are refused, never wrapped", "[reference][deepspeed][errors]") {
    // 500T parameters on 1024 nodes of 8 GPUs: the offload row's CPU figure is 2.4576e19 bytes, which
    // the old code converted to an unsigned integer out of range (printing 0).
    const auto rows = deepspeed_zero2_estimate(500000000000000ULL, 8, 1024);
    REQUIRE_FALSE(rows.ok());
    CHECK(rows.value.empty());
    CHECK(rows.errors.at(0).field == "total_params");
    CHECK(rows.errors.at(0).message.find("exceed 2^53 bytes") != std::string::npos);
    // Every accepted row of a sweep stays within 2^53.
    for (const std::uint64_t params : {std::uint64_t{1}, std::uint64_t{1000000000}, std::uint64_t{100000000000000}, max_param_count})
        for (const std::uint64_t per_node : {1ULL, 8ULL, 1024ULL})
            for (const std::uint64_t nodes : {1ULL, 64ULL, 65536ULL}) {
                CAPTURE(params, per_node, nodes);
                for (const auto& result : {deepspeed_zero2_estimate(params, per_node, nodes),
                                           deepspeed_zero2_estimate(params, per_node, nodes, deepspeed_zero2_formula::current),
                                           deepspeed_zero3_estimate(params, params / 2, per_node, nodes)}) {
                    CHECK((result.ok() || result.value.empty()));
                    for (const auto& row : result.value) {
                        CHECK(row.cpu_bytes <= max_exact_integer);
                        CHECK(row.gpu_bytes <= max_exact_integer);
                    }
                }
            }
}

TEST_CASE("the CLI refuses DeepSpeed's 500T case instead of printing a wrapped 0", "[reference][deepspeed][cli]") {
    const auto r = run_cli({"deepspeed-estimate", "--stage", "2", "--params", "500T", "--gpus-per-node", "8",
                            "--nodes", "1024", "--json"});
    CHECK(r.status != 0);
    CHECK(r.out.find("\"cpu_bytes\":0") == std::string::npos);
    CHECK(r.out.find("\"field\":\"params\"") != std::string::npos);  // the flag the user typed (--params)
}

TEST_CASE("Megatron figures above 2^53 bytes are refused and the line is never truncated", "[reference][megatron][errors]") {
    megatron_args a;
    a.num_layers = a.hidden_size = a.num_attention_heads = a.ffn_hidden_size = a.padded_vocab_size = a.seq_length =
        max_param_count;
    const auto r = megatron_theoretical_memory(a);
    REQUIRE(r.errors.size() == 2);
    CHECK(r.errors[0].field == "weight_and_optimizer");
    CHECK(r.errors[1].field == "activation");
    // The CLI at 2^49: the old fixed 256-character line lost " MB" and the newline.
    const std::string big = "562949953421312";
    const auto out = run_cli({"megatron-memory", "--num-layers", big, "--hidden-size", big, "--num-attention-heads", big,
                              "--seq-length", big, "--padded-vocab-size", big, "--ffn-hidden-size", big}, true);
    CHECK(out.status != 0);
    CHECK(out.out.find("Theoretical memory footprints") == std::string::npos);
    CHECK(out.out.find("weight-and-optimizer") != std::string::npos);  // named as the CLI names fields
    // The line for the largest accepted figures is whole.
    megatron_report report;
    report.weight_and_optimizer_mib = report.activation_mib = 4294967296.0;
    report.total_mib = 8589934592.0;
    CHECK(megatron_report_line(report) ==
          "Theoretical memory footprints: weight and optimizer=4294967296.00 MB, activation=4294967296.00 MB, "
          "total=8589934592.00 MB\n");
}

namespace {
megatron_args gpt3_175b() {
    // examples/gpt3/train_gpt3_175b_distributed.sh: 96 layers, hidden 12288, 96 heads, sequence 2048,
    // TP 8, PP 16; vocabulary padded to 51200; distributed optimizer over DP 8.
    megatron_args a;
    a.num_layers = 96;
    a.hidden_size = 12288;
    a.num_attention_heads = 96;
    a.ffn_hidden_size = 49152;
    a.padded_vocab_size = 51200;
    a.seq_length = 2048;
    a.use_distributed_optimizer = true;
    a.tensor_model_parallel_size = 8;
    a.pipeline_model_parallel_size = 16;
    a.data_parallel_size = 8;
    return a;
}
}  // namespace

TEST_CASE("Megatron-LM's report reproduces its code on documented configurations", "[reference][megatron]") {
    // Expected lines: report_theoretical_memory(verbose=True) of megatron/training/theoretical_memory_usage.py
    // at NVIDIA/Megatron-LM a6c6250f9cfd, run on these arguments.
    SECTION("GPT-3 175B with sequence parallelism and selective recompute") {
        const auto r = megatron_theoretical_memory(gpt3_175b());
        REQUIRE(r.errors.empty());
        CHECK(r.sequence_parallel_path);
        CHECK(fixed_text(r.params_in_layers / 1e9, 2) == "173.95");
        CHECK(fixed_text(r.params_in_embeddings / 1e9, 2) == "0.63");
        CHECK(fixed_text(r.total_params / 1e9, 2) == "174.58");
        CHECK(fixed_text(r.params_on_most_loaded_shard / 1e9, 4) == "1.4376");
        CHECK(fixed_text(r.params_on_other_shards / 1e9, 4) == "1.3590");
        CHECK(megatron_report_line(r) ==
              "Theoretical memory footprints: weight and optimizer=10282.77 MB, activation=9840.03 MB, total=20122.80 MB\n");
    }
    SECTION("GPT-3 175B without sequence parallelism: sbh(10 + 24/t) per layer, x1.05") {
        auto a = gpt3_175b();
        a.sequence_parallel = a.selective_recompute = false;
        const auto r = megatron_theoretical_memory(a);
        REQUIRE(r.errors.empty());
        CHECK_FALSE(r.sequence_parallel_path);
        CHECK(megatron_report_line(r) ==
              "Theoretical memory footprints: weight and optimizer=10282.77 MB, activation=31853.06 MB, total=42135.83 MB\n");
    }
    SECTION("GPT-2 1.5B without pipelining: logits divided by tp, the final LayerNorm output not") {
        megatron_args a;
        a.num_layers = 48;
        a.hidden_size = 1600;
        a.num_attention_heads = 25;
        a.ffn_hidden_size = 6400;
        a.padded_vocab_size = 50304;
        a.seq_length = 1024;
        a.micro_batch_size = 4;
        a.tensor_model_parallel_size = 2;
        a.data_parallel_size = 4;
        a.sequence_parallel = false;
        const auto r = megatron_theoretical_memory(a);
        REQUIRE(r.errors.empty());
        CHECK(fixed_text(r.params_on_most_loaded_shard / 1e9, 4) == "0.7777");
        CHECK(megatron_report_line(r) ==
              "Theoretical memory footprints: weight and optimizer=13349.73 MB, activation=7156.05 MB, total=20505.78 MB\n");
    }
    SECTION("Mixtral-style MoE: 8 experts, GQA, SwiGLU, TP 2, PP 4, distributed optimizer over DP 8") {
        megatron_args a;
        a.num_layers = 32;
        a.hidden_size = 4096;
        a.num_attention_heads = 32;
        a.num_query_groups = 8;
        a.ffn_hidden_size = 14336;
        a.padded_vocab_size = 32000;
        a.seq_length = 4096;
        a.swiglu = true;
        a.untie_embeddings_and_output_weights = true;
        a.num_experts = 8;
        a.use_distributed_optimizer = true;
        a.tensor_model_parallel_size = 2;
        a.pipeline_model_parallel_size = 4;
        a.data_parallel_size = 8;
        const auto r = megatron_theoretical_memory(a);
        REQUIRE(r.errors.empty());
        CHECK(fixed_text(r.params_in_layers / 1e9, 2) == "46.44");
        CHECK(fixed_text(r.params_on_most_loaded_shard / 1e9, 4) == "5.8705");
        CHECK(fixed_text(r.params_on_other_shards / 1e9, 4) == "5.8050");
        CHECK(megatron_report_line(r) ==
              "Theoretical memory footprints: weight and optimizer=41989.23 MB, activation=8224.06 MB, total=50213.29 MB\n");
    }
    SECTION("MoE every second layer with a shared expert") {
        megatron_args a;
        a.num_layers = 6;
        a.hidden_size = 1024;
        a.num_attention_heads = 16;
        a.ffn_hidden_size = 4096;
        a.padded_vocab_size = 32768;
        a.seq_length = 1024;
        a.num_experts = 4;
        a.moe_layer_freq = 2;
        a.moe_ffn_hidden_size = 1024;
        a.moe_shared_expert_intermediate_size = 2048;
        a.swiglu = true;
        a.sequence_parallel = false;
        const auto r = megatron_theoretical_memory(a);
        REQUIRE(r.errors.empty());
        CHECK(fixed_text(r.params_on_most_loaded_shard / 1e9, 4) == "0.1531");
        CHECK(megatron_report_line(r) ==
              "Theoretical memory footprints: weight and optimizer=2628.46 MB, activation=284.56 MB, total=2913.02 MB\n");
    }
}

TEST_CASE("the cookbook's calc_transformer_mem.py is reproduced line for line", "[reference][eleuther]") {
    // Expected lines: calc/calc_transformer_mem.py at EleutherAI/cookbook 827ee3b293a6, run on the
    // example commands it prints itself (and two more), without the args dump and blank lines.
    SECTION("pythia 6.9B example: -ca is 34·sbhL, fp32 gradients not divided by tp") {
        eleuther_calc_args a;
        a.num_layers = 32;
        a.sequence_length = 2048;
        a.num_attention_heads = 32;
        a.hidden_size = 4096;
        a.batch_size_per_gpu = 8;
        a.checkpoint_activations = true;
        a.zero_stage = 1;
        a.partition_activations = true;
        a.tensor_parallel_size = 2;
        a.num_gpus = 128;
        const auto r = eleuther_calc_transformer_mem(a);
        REQUIRE(r.errors.empty());
        CHECK(r.lines == std::vector<std::string>{
                             "Number of Parameters: 6.87 B", "*** Per-GPU Memory",
                             "Per-GPU Activation Memory: 34.00 GiB", "Per-GPU Model Memory: 6.40 GiB",
                             "Per-GPU Gradient Memory: 25.60 GiB", "Per-GPU Optimizer Memory (adamw): 0.60 GiB",
                             "Per-GPU Communication Memory: 0.93 GiB", "Per-GPU Miscellaneous Memory: 0.00 GiB",
                             "Per-GPU Memory Required for Training: 67.53 GiB",
                             "*** Total GPU Memory for a Single Model Replica", "Total Activation Memory: 68.00 GiB",
                             "Total Model Memory: 12.80 GiB", "Total Gradient Memory: 25.60 GiB",
                             "Total Optimizer Memory (adamw): 76.79 GiB", "Total Miscellaneous Memory: 0.00 GiB",
                             "Total GPU Memory Required to Store a Complete Model Replica for Training: 183.19 GiB"});
    }
    SECTION("default 20B example") {
        eleuther_calc_args a;
        a.checkpoint_activations = true;
        a.partition_activations = true;
        const auto r = eleuther_calc_transformer_mem(a);
        REQUIRE(r.errors.empty());
        CHECK(r.lines.at(0) == "Number of Parameters: 20.58 B");
        CHECK(r.lines.at(2) == "Per-GPU Activation Memory: 17.53 GiB");
        CHECK(r.lines.at(3) == "Per-GPU Model Memory: 38.32 GiB");
        CHECK(r.lines.at(4) == "Per-GPU Gradient Memory: 76.65 GiB");
        CHECK(r.lines.at(5) == "Per-GPU Optimizer Memory (adamw): 229.95 GiB");
        CHECK(r.lines.at(8) == "Per-GPU Memory Required for Training: 362.45 GiB");
        CHECK(r.lines.back() == "Total GPU Memory Required to Store a Complete Model Replica for Training: 362.45 GiB");
    }
    SECTION("llama 7B example: --ffn-expansion-factor 3.5, no recompute") {
        eleuther_calc_args a;
        a.num_layers = 32;
        a.sequence_length = 4096;
        a.num_attention_heads = 32;
        a.hidden_size = 4096;
        a.ffn_expansion_factor = 3.5;
        const auto r = eleuther_calc_transformer_mem(a);
        REQUIRE(r.errors.empty());
        CHECK(r.lines.at(0) == "Number of Parameters: 6.34 B");
        CHECK(r.lines.at(2) == "Per-GPU Activation Memory: 97.00 GiB");
        CHECK(r.lines.at(3) == "Per-GPU Model Memory: 11.81 GiB");
        CHECK(r.lines.at(4) == "Per-GPU Gradient Memory: 23.63 GiB");
        CHECK(r.lines.at(5) == "Per-GPU Optimizer Memory (adamw): 70.89 GiB");
        CHECK(r.lines.at(8) == "Per-GPU Memory Required for Training: 203.33 GiB");
    }
    SECTION("MoE with expert parallelism under ZeRO-3") {
        eleuther_calc_args a;
        a.num_layers = 32;
        a.sequence_length = 2048;
        a.num_attention_heads = 32;
        a.hidden_size = 4096;
        a.zero_stage = 3;
        a.num_gpus = 8;
        a.num_experts = 8;
        a.expert_parallelism = 2;
        a.num_mlp_linears = 3;
        a.ffn_expansion_factor = 3.5;
        const auto r = eleuther_calc_transformer_mem(a);
        REQUIRE(r.errors.empty());
        CHECK(r.lines == std::vector<std::string>{
                             "Number of Parameters: 8.21 B", "Total Number of MoE Parameters: 47.67 B",
                             "*** Per-GPU Memory", "Per-GPU Activation Memory: 28.50 GiB",
                             "Per-GPU Model Memory: 5.85 GiB", "Per-GPU Gradient Memory: 11.70 GiB",
                             "Per-GPU Optimizer Memory (adamw): 35.10 GiB", "Per-GPU Communication Memory: 2.79 GiB",
                             "Per-GPU Miscellaneous Memory: 0.00 GiB", "Per-GPU Memory Required for Training: 83.94 GiB",
                             "*** Total GPU Memory for a Single Model Replica", "Total Activation Memory: 28.50 GiB",
                             "Total Model Memory: 15.30 GiB", "Total Gradient Memory: 93.60 GiB",
                             "Total Optimizer Memory (adamw): 280.79 GiB", "Total Miscellaneous Memory: 0.00 GiB",
                             "Total GPU Memory Required to Store a Complete Model Replica for Training: 418.19 GiB"});
    }
    SECTION("inference with a KV-size ratio and generated tokens") {
        eleuther_calc_args a;
        a.num_layers = 32;
        a.sequence_length = 2048;
        a.num_attention_heads = 32;
        a.hidden_size = 4096;
        a.infer = true;
        a.kv_size_ratio = 0.25;
        a.output_tokens = 100;
        a.batch_size_per_gpu = 4;
        a.num_gpus = 2;
        const auto r = eleuther_calc_transformer_mem(a);
        REQUIRE(r.errors.empty());
        CHECK(r.lines == std::vector<std::string>{
                             "Number of Parameters: 6.07 B", "*** Per-GPU Memory",
                             "Per-GPU Activation Memory: 1.06 GiB", "Per-GPU Model Memory: 11.30 GiB",
                             "Per-GPU KV Cache Memory: 2.10 GiB", "Per-GPU Memory Required for Inference: 14.46 GiB",
                             "*** Total GPU Memory for a Single Model Replica", "Total Activation Memory: 1.06 GiB",
                             "Total Model Memory: 11.30 GiB", "Total KV Cache Memory: 4.20 GiB",
                             "Total GPU Memory Required to Store a Complete Model Replica for Inference: 16.56 GiB"});
    }
    SECTION("out-of-range inputs are refused by name") {
        eleuther_calc_args a;
        a.num_gpus = 0;
        a.ffn_expansion_factor = std::nan("");
        a.hidden_size = max_param_count;
        const auto r = eleuther_calc_transformer_mem(a);
        REQUIRE(r.errors.size() == 2);
        CHECK(r.errors[0].field == "num_gpus");
        CHECK(r.errors[1].field == "ffn_expansion_factor");
        a.num_gpus = 1;
        a.ffn_expansion_factor = 4;
        CHECK(eleuther_calc_transformer_mem(a).errors.at(0).field == "model_memory");
    }
}

TEST_CASE("accelerate's estimate-memory table reproduces its documented bert-base-cased output", "[reference][accelerate]") {
    // docs/source/usage_guides/model_size_estimator.md (huggingface/accelerate): bert-base-cased,
    //   float32 | 84.95 MB | 413.18 MB | 1.61 GB
    //   float16 | 42.47 MB | 206.59 MB | 826.36 MB
    //   int8    | 21.24 MB | 103.29 MB | 413.18 MB   (the current code prints N/A here)
    //   int4    | 10.62 MB | 51.65 MB  | 206.59 MB   (likewise N/A)
    // bert-base-cased: 108,310,272 fp32 parameters + two int64 buffers of 512 (position_ids,
    // token_type_ids) = 433,249,280 bytes; the largest layer is the 28996 x 768 word embedding.
    const auto rows = accelerate_estimate_memory(433249280ULL, 28996ULL * 768 * 4);
    REQUIRE(rows.ok());
    REQUIRE(rows.value.size() == 4);
    const char* expected[4][4] = {{"float32", "84.95 MB", "413.18 MB", "1.61 GB"},
                                  {"float16", "42.47 MB", "206.59 MB", "826.36 MB"},
                                  {"int8", "21.24 MB", "103.29 MB", "N/A"},
                                  {"int4", "10.62 MB", "51.65 MB", "N/A"}};
    for (std::size_t i = 0; i < 4; ++i) {
        CAPTURE(i);
        CHECK(rows.value[i].dtype == expected[i][0]);
        CHECK(rows.value[i].largest_layer_text == expected[i][1]);
        CHECK(rows.value[i].total_text == expected[i][2]);
        CHECK(rows.value[i].training_text == expected[i][3]);
    }
    CHECK(rows.value[0].training_bytes == 4 * 433249280ULL);
    CHECK(rows.value[1].training_bytes == 2 * 433249280ULL);
    // convert_bytes: Python's round(x, 2) printed with repr ("9.0 MB" in the resnet50 example).
    CHECK(accelerate_convert_bytes(9437184) == "9.0 MB");
    CHECK(accelerate_convert_bytes(1023) == "1023 bytes");
    CHECK(accelerate_convert_bytes(1024) == "1.0 KB");
    CHECK(accelerate_estimate_memory(max_exact_integer, 1).errors.at(0).field == "total_size_bytes");
}

TEST_CASE("DeepSpeed's communication buffers as it allocates them", "[reference][deepspeed][buffers]") {
    // Hugging Face DeepSpeed integration guide (huggingface/transformers docs/source/en/main_classes/
    // deepspeed.md): "overlap_comm uses 4.5x the allgather_bucket_size and reduce_bucket_size values.
    // So if they are set to 5e8, this requires a 9GB footprint (5e8 x 2Bytes x 2 x 4.5) ... about 2e8,
    // which would require 3.6GB."
    deepspeed_comm_config c;
    c.stage = 2;
    c.overlap_comm = 1;
    auto b = deepspeed_comm_buffer_bytes(c);
    REQUIRE(b.errors.empty());
    CHECK(b.guide_bytes == 9000000000ULL);
    // What stage_1_and_2.py allocates: two reduce buckets (ipg_buffer double buffer) of 5e8 fp16 elements.
    CHECK(b.allocated_bytes == 2000000000ULL);
    CHECK(b.allocated.at(0).name == "reduce_buckets");
    c.reduce_bucket_size = c.allgather_bucket_size = 200000000;
    CHECK(deepspeed_comm_buffer_bytes(c).guide_bytes == 3600000000ULL);
    // overlap_comm defaults off at stage 2: one reduce bucket.
    c.overlap_comm = -1;
    b = deepspeed_comm_buffer_bytes(c);
    CHECK_FALSE(b.overlap_comm);
    CHECK(b.allocated_bytes == 400000000ULL);
    // Stage 3 with DeepSpeed's defaults (reduce 5e8, prefetch 5e7), 1,000,000 persistent parameters and
    // a 131,072,000-parameter largest layer: 1e9 + 1e8 + 2e6 + 524,288,000 bytes.
    deepspeed_comm_config s3;
    s3.stage = 3;
    s3.persistent_params = 1000000;
    s3.largest_layer_params = 131072000;
    b = deepspeed_comm_buffer_bytes(s3);
    REQUIRE(b.errors.empty());
    CHECK(b.overlap_comm);
    CHECK(b.guide_bytes == 0);
    CHECK(b.allocated_bytes == 1000000000ULL + 100000000ULL + 2000000ULL + 524288000ULL);
    // The prefetch is capped by stage3_max_live_parameters.
    s3.max_live_parameters = 1000;
    CHECK(deepspeed_comm_buffer_bytes(s3).allocated.at(1).bytes == 2000);
    s3.stage = 4;
    CHECK(deepspeed_comm_buffer_bytes(s3).errors.at(0).field == "stage");
}

TEST_CASE("DeepSpeed's additional_buffer_factor scales the CPU column only", "[reference][deepspeed]") {
    // estimate_zero2_model_states_mem_needs(2851e6, 8, 1, cpu_offload=True, additional_buffer_factor=1.0):
    // cpu_mem = 2851e6 x max(4 x 8, 16) x 1.0 = 91,232,000,000; the GPU column is unchanged.
    const auto rows = deepspeed_zero2_estimate(2851000000ULL, 8, 1, deepspeed_zero2_formula::current, 1.0);
    REQUIRE(rows.ok());
    CHECK(rows.value[0].cpu_bytes == 91232000000ULL);
    CHECK(rows.value[0].gpu_bytes == 5702000000ULL);
    CHECK(deepspeed_zero3_estimate(2851000000ULL, 32000000ULL, 8, 1, 1.0).value[0].cpu_bytes == 51318000000ULL);
    CHECK(deepspeed_zero2_estimate(1, 1, 1, deepspeed_zero2_formula::current, std::nan("")).errors.at(0).field ==
          "additional_buffer_factor");
}
