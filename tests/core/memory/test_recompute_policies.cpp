// torchtitan's activation-checkpointing policies: op-level selective checkpointing (train.recompute
// selective_op) counted tensor by tensor against a hand derivation, layer-level checkpointing of N layers
// per stage (train.recompute_layers, also Megatron-LM's block method), invariants and refusals.
// Source of the op-level policy: pytorch/torchtitan torchtitan/models/llama3/infra/parallelize.py at
// 6204cdff9ca6bfd1fadd6c09621ea41507207dea (_save_list, _apply_ac_to_transformer_block).
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "memplan/api/estimate.hpp"
#include "memplan/io/gpus.hpp"
#include "memplan/io/json.hpp"
#include "memplan/memory/activations.hpp"
#include "memplan/model/arch.hpp"
#include "memplan/search/plan.hpp"
#include "memplan/search/step_time.hpp"
#include "estimate_runner.hpp"

using namespace memplan;

namespace {
using u64 = std::uint64_t;
using memplan_test::run;

layer_activation_input llama3_8b_layer(u64 seq, u64 tp, bool sp) {
    layer_activation_input in;
    in.model = family_defaults("llama");
    in.model.hidden_size = 4096;
    in.model.num_attention_heads = 32;
    in.model.num_key_value_heads = 8;
    in.model.intermediate_size = 14336;
    in.model.num_hidden_layers = 32;
    in.seq_len = seq;
    in.micro_batch = 1;
    in.tp = tp;
    in.sequence_parallel = sp;
    in.flash_attention = true;
    return in;
}

std::vector<std::string> names(const std::vector<activation_tensor>& tensors) {
    std::vector<std::string> out;
    for (const auto& t : tensors) out.push_back(t.name);
    return out;
}

u64 bytes_of(const std::vector<activation_tensor>& tensors, const std::string& name) {
    for (const auto& t : tensors)
        if (t.name == name) return t.bytes;
    FAIL("no tensor " << name);
    return 0;
}

/// The field and message of the first error of a configuration that parses.
std::string first_error(const std::string& config) {
    const auto parsed = parse_config(config);
    REQUIRE(parsed.ok());
    const auto r = estimate(parsed.value);
    REQUIRE_FALSE(r.errors.empty());
    return r.errors[0].field + ": " + r.errors[0].message;
}

std::string llama_config(const std::string& parallel, const std::string& train) {
    return R"({"model": {"preset": "llama-3-8b"}, "parallel": {)" + parallel + R"(}, "train": {)" + train + "}}";
}
}  // namespace

TEST_CASE("selective_op on a Llama-3-8B layer at 8192 tokens: the hand-derived tensor list", "[activations][recompute]") {
    // T = 8192 tokens, h = 4096, a = 32 query heads, g = 8 KV heads, d = 128, f = 14336, bf16 (2 bytes).
    // torchtitan's Llama block calls its matmuls in the order wq, wk, wv, wo, w1, w3, w2 (Attention.forward,
    // FeedForward.forward: w2(silu(w1(x)) * w3(x))); the policy keeps the outputs of mm 1, 3, 5, 7 and
    // recomputes mm 2, 4, 6 (wk, wo, w3). Kept:
    //   layer.input           T·h·2    = 8192·4096·2    =  67,108,864  (the checkpoint's input)
    //   attn.q_proj.output    T·a·d·2  = 8192·4096·2    =  67,108,864  (wq, mm 1)
    //   attn.v_proj.output    T·g·d·2  = 8192·1024·2    =  16,777,216  (wv, mm 3)
    //   attn.core.output      T·a·d·2                   =  67,108,864  (SDPA flash kernel output)
    //   attn.core.logsumexp   a·T·4    = 32·8192·4      =   1,048,576  (its fp32 logsumexp)
    //   mlp.gate_proj.output  T·f·2    = 8192·14336·2   = 234,881,024  (w1, mm 5)
    //   mlp.down_proj.output  T·h·2                     =  67,108,864  (w2, mm 7)
    //   sum                                             = 521,142,272 bytes
    const auto in = llama3_8b_layer(8192, 1, false);
    const auto kept = stored_activation_tensors(in, recompute_mode::selective_op);
    CHECK(names(kept) == std::vector<std::string>{"layer.input", "attn.q_proj.output", "attn.v_proj.output",
                                                   "attn.core.output", "attn.core.logsumexp", "mlp.gate_proj.output",
                                                   "mlp.down_proj.output"});
    CHECK(bytes_of(kept, "layer.input") == 67108864);
    CHECK(bytes_of(kept, "attn.q_proj.output") == 67108864);
    CHECK(bytes_of(kept, "attn.v_proj.output") == 16777216);
    CHECK(bytes_of(kept, "attn.core.output") == 67108864);
    CHECK(bytes_of(kept, "attn.core.logsumexp") == 1048576);
    CHECK(bytes_of(kept, "mlp.gate_proj.output") == 234881024);
    CHECK(bytes_of(kept, "mlp.down_proj.output") == 67108864);
    CHECK(total_bytes(kept) == 521142272);
    CHECK(stored_activation_bytes(in.model, in, recompute_mode::selective_op) == 521142272);

    // The working set of the layer (recompute none, fused RMSNorm, FlashAttention with g-wide K and V):
    // 6 tensors of T·h·2 (two norm inputs, Q/K/V input, Q, attention output, MLP input) = 402,653,184,
    // K and V 2·16,777,216, logsumexp 1,048,576, two rstd T·4 = 65,536, four of T·f·2 = 939,524,096:
    // 1,376,845,824. The re-run layer adds that less what it keeps: 1,376,845,824 − 521,142,272.
    CHECK(stored_activation_bytes(in.model, in, recompute_mode::none) == 1376845824);
    CHECK(selective_op_recompute_bytes(in.model, in) == 855703552);
}

TEST_CASE("selective_op with tp 2 and sequence parallelism: shards, partial sums and reduce-scatter outputs",
          "[activations][recompute]") {
    // Column-parallel outputs and the attention split by heads over t = 2; the checkpoint's input is the
    // sequence shard; the row-parallel w2 output is the full partial sum T·h·2 = 67,108,864 on each rank;
    // the reduce-scatter outputs after wo and w2 are sequence shards T·h·2/2 = 33,554,432:
    //   layer.input 33,554,432 + q 33,554,432 + v 8,388,608 + SDPA output 33,554,432 + logsumexp 524,288
    //   + attn reduce-scatter 33,554,432 + gate 117,440,512 + down 67,108,864 + mlp reduce-scatter 33,554,432
    //   = 361,234,432 bytes.
    const auto in = llama3_8b_layer(8192, 2, true);
    const auto kept = stored_activation_tensors(in, recompute_mode::selective_op);
    CHECK(names(kept) == std::vector<std::string>{"layer.input", "attn.q_proj.output", "attn.v_proj.output",
                                                   "attn.core.output", "attn.core.logsumexp",
                                                   "attn.reduce_scatter_output", "mlp.gate_proj.output",
                                                   "mlp.down_proj.output", "mlp.reduce_scatter_output"});
    CHECK(bytes_of(kept, "mlp.down_proj.output") == 67108864);
    CHECK(bytes_of(kept, "attn.reduce_scatter_output") == 33554432);
    CHECK(total_bytes(kept) == 361234432);
    // Without sequence parallelism the reduction is an all-reduce, which the policy does not keep.
    const auto no_sp = stored_activation_tensors(llama3_8b_layer(8192, 2, false), recompute_mode::selective_op);
    CHECK(total_bytes(no_sp) == 361234432 - 2 * 33554432 + 33554432);  // the input unsharded, no reduce-scatters
}

TEST_CASE("selective_op counts only bias-free matmuls: biased linears run addmm", "[activations][recompute]") {
    auto in = llama3_8b_layer(1024, 1, false);
    // Qwen2-style Q, K, V biases: the mms are o (1), gate (2), up (3), down (4): o and up kept.
    in.model.qkv_bias = true;
    CHECK(selective_op_keeps_output(in.model, "o_proj"));
    CHECK(selective_op_keeps_output(in.model, "up_proj"));
    for (const char* n : {"q_proj", "k_proj", "v_proj", "gate_proj", "down_proj"})
        CHECK_FALSE(selective_op_keeps_output(in.model, n));
    CHECK(names(stored_activation_tensors(in, recompute_mode::selective_op)) ==
          std::vector<std::string>{"layer.input", "attn.core.output", "attn.core.logsumexp", "attn.o_proj.output",
                                   "mlp.up_proj.output"});
    // A bias-free plain MLP: q (1), k (2), v (3), o (4), up (5), down (6): q, v, up kept.
    in.model.qkv_bias = false;
    in.model.mlp = mlp_kind::plain;
    for (const char* n : {"q_proj", "v_proj", "up_proj"}) CHECK(selective_op_keeps_output(in.model, n));
    for (const char* n : {"k_proj", "o_proj", "down_proj", "gate_proj"}) CHECK_FALSE(selective_op_keeps_output(in.model, n));
}

TEST_CASE("kept bytes: none ≥ selective_op ≥ full on Llama shapes", "[activations][recompute][invariants]") {
    for (const u64 seq : {u64{512}, u64{4096}, u64{8192}})
        for (const u64 tp : {u64{1}, u64{2}, u64{8}})
            for (const bool sp : {false, true}) {
                const auto in = llama3_8b_layer(seq, tp, sp);
                const u64 none = stored_activation_bytes(in.model, in, recompute_mode::none);
                const u64 op = stored_activation_bytes(in.model, in, recompute_mode::selective_op);
                const u64 full = stored_activation_bytes(in.model, in, recompute_mode::full);
                INFO("seq " << seq << " tp " << tp << " sp " << sp);
                CHECK(none >= op);
                CHECK(op >= full);
                // The re-run layer and the kept tensors together never exceed keeping everything plus the input.
                CHECK(op + selective_op_recompute_bytes(in.model, in) >= none);
            }
}

TEST_CASE("selective_op in an estimate: L kept layers plus one re-run layer's working set less what it keeps",
          "[training][recompute]") {
    const auto none = run(llama_config(R"("gpus": 8)", R"("seq_len": 8192, "recompute": "none")"));
    const auto op = run(llama_config(R"("gpus": 8)", R"("seq_len": 8192, "recompute": "selective_op")"));
    const u64 ids = 8192 * 8;  // the embedding's int64 token ids on the first stage
    CHECK(op.details.layer_activation_bytes == 521142272);
    CHECK(none.details.layer_activation_bytes == 1376845824);
    CHECK(op.per_gpu.activations == 32 * u64{521142272} + (1376845824 - 521142272) + ids);
    CHECK(none.per_gpu.activations == 32 * u64{1376845824} + ids);
    CHECK(op.per_gpu.activations < none.per_gpu.activations);
}

TEST_CASE("selective_op with fp8 training keeps bf16's tensors, as torchtitan's Float8 benchmark measures", "[training][recompute][fp8]") {
    // torchao's Float8Linear calls aten.mm on its float8 subclass, which the policy counts and keeps in bf16
    // (activations.cpp selective_op_tensors); torchtitan's Table 1 (benchmarks/llama3_h100_202412_torchtitan.md)
    // measures 77.0 GiB compiled and 76.8 GiB compiled with Float8 under op-level SAC.
    const auto bf16 = run(llama_config(R"("gpus": 8)", R"("seq_len": 8192, "recompute": "selective_op")"));
    const auto fp8 = run(llama_config(R"("gpus": 8)", R"("seq_len": 8192, "recompute": "selective_op", "weight_dtype": "fp8")"));
    REQUIRE(fp8.errors.empty());
    CHECK(fp8.details.layer_activation_bytes == 521142272);
    CHECK(fp8.per_gpu.activations == bf16.per_gpu.activations);
}

TEST_CASE("recompute_layers: N layers of each stage keep their input, the others everything", "[training][recompute]") {
    const std::string par = R"("gpus": 8)";  // one stage of 32 layers, one micro-batch in flight
    const auto none = run(llama_config(par, R"("seq_len": 4096, "recompute": "none")"));
    const auto full = run(llama_config(par, R"("seq_len": 4096, "recompute": "full")"));
    const u64 input = full.details.layer_activation_bytes;  // T·h·2
    const u64 all = none.details.layer_activation_bytes;    // the layer's working set
    CHECK(input == u64{4096} * 4096 * 2);
    const u64 ids = 4096 * 8;  // the embedding's int64 token ids
    // The re-run layer reads its checkpointed input in place: it adds its working set less that input.
    CHECK(full.per_gpu.activations == 32 * input + (all - input) + ids);
    const auto at = [&](u64 n) {
        return run(llama_config(par, R"("seq_len": 4096, "recompute": "full", "recompute_layers": )" + std::to_string(n)))
            .per_gpu.activations;
    };
    // Every layer of the stage: the same as full recompute.
    CHECK(at(32) == full.per_gpu.activations);
    for (const u64 n : {u64{1}, u64{4}, u64{31}}) {
        INFO("recompute_layers " << n);
        // N·input + (L − N)·all + one re-run layer's working set beyond its kept input + the token ids.
        CHECK(at(n) == n * input + (32 - n) * all + (all - input) + ids);
        CHECK(at(n) >= full.per_gpu.activations);
    }
    // Linear in N: each layer fewer recomputed adds all − input. With N = 1 the one recomputed layer keeps its
    // input and its re-run adds the rest of its set: exactly what keeping everything costs (recompute none).
    CHECK(at(1) - at(2) == all - input);
    CHECK(at(1) == none.per_gpu.activations);
}

TEST_CASE("recompute policies refused where they are not modelled", "[training][recompute][errors]") {
    CHECK(first_error(llama_config(R"("gpus": 8)", R"("recompute": "selective", "recompute_layers": 4)")) ==
          "train.recompute_layers: needs train.recompute full (the other layers keep every activation), not selective");
    CHECK(first_error(llama_config(R"("gpus": 6, "pp": 3)", R"("recompute": "full", "recompute_layers": 11)")) ==
          "train.recompute_layers: must be from 1 to 10, the layers of the smallest pipeline stage "
          "(model.num_hidden_layers / parallel.pp, rounded down)");
    CHECK(run(llama_config(R"("gpus": 6, "pp": 3)", R"("recompute": "full", "recompute_layers": 10)")).errors.empty());
    CHECK(first_error(llama_config(R"("gpus": 8)", R"("recompute": "full", "recompute_layers": 4, "activation_offload": true)"))
              .rfind("train.recompute_layers: is not modelled with train.activation_offload", 0) == 0);
    const auto refused = [&](const std::string& config, const std::string& field) {
        const std::string e = first_error(config);
        INFO(e);
        CHECK(e.rfind(field + ": ", 0) == 0);
        CHECK(e.find("selective_op") != std::string::npos);
    };
    refused(R"({"model": {"preset": "mixtral-8x7b"}, "parallel": {"gpus": 8}, "train": {"recompute": "selective_op"}})",
            "model.num_local_experts");
    refused(llama_config(R"("gpus": 8)", R"("recompute": "selective_op", "adapter_type": "lora")"), "train.adapter_type");
    refused(llama_config(R"("gpus": 8, "cp": 2)", R"("recompute": "selective_op")"), "parallel.cp");
    refused(llama_config(R"("gpus": 8)", R"("recompute": "selective_op", "flash_attention": false)"), "train.flash_attention");
    // Tensor and sequence parallelism are modelled.
    CHECK(run(llama_config(R"("gpus": 8, "tp": 2, "sequence_parallel": true)", R"("recompute": "selective_op")")).errors.empty());
    CHECK(run(llama_config(R"("gpus": 8, "tp": 2)", R"("recompute": "selective_op")")).errors.empty());
}

TEST_CASE("step time: selective_op re-runs the linears it does not keep, recompute_layers a share of the forward",
          "[step_time][recompute]") {
    const auto parsed = parse_config(R"({"model": {"preset": "llama-3-8b"}, "parallel": {"gpus": 8, "pp": 2},
        "train": {"seq_len": 8192, "micro_batch": 1}})");
    REQUIRE(parsed.ok());
    estimate_config c = parsed.value;
    const gpu_entry* gpu = find_gpu("h100-sxm-80gb");
    REQUIRE(gpu != nullptr);
    const auto time = [&](recompute_mode mode, u64 layers) {
        c.train.recompute = mode;
        c.train.recompute_layers = layers;
        const step_time_result r = step_time(c, gpu->perf, step_options{});
        REQUIRE(r.errors.empty());
        return r;
    };
    const auto compute = [](const step_time_result& r) {
        for (const step_term& t : r.terms)
            if (t.name == "compute") return t.seconds;
        return -1.0;
    };
    const auto none = time(recompute_mode::none, 0), full = time(recompute_mode::full, 0);
    const auto op = time(recompute_mode::selective_op, 0);
    CHECK(compute(none) < compute(op));
    CHECK(compute(op) < compute(full));
    // Executed FLOPs: 3 passes plus the forward of wk, wo and w3 (the recomputed mms), per token 2·d_in·d_out each.
    // Tokens of the step: without recompute the executed FLOPs are 3 forward passes per token.
    const double tokens = none.hardware_flops_per_step / (3 * forward_flops_per_token(c.model, 8192).executed);
    const double recomputed = 2.0 * 32 * (4096.0 * 1024 + 4096.0 * 4096 + 4096.0 * 14336);
    CHECK(op.hardware_flops_per_step == Approx(none.hardware_flops_per_step + recomputed * tokens).epsilon(1e-9));
    // Every layer of the stage (16) is full recompute; N layers a share N/16 of its extra compute.
    CHECK(compute(time(recompute_mode::full, 16)) == Approx(compute(full)));
    CHECK(compute(time(recompute_mode::full, 4)) == Approx(compute(none) + (compute(full) - compute(none)) * 4 / 16));
    CHECK(time(recompute_mode::full, 4).hardware_flops_per_step ==
          Approx(none.hardware_flops_per_step + (full.hardware_flops_per_step - none.hardware_flops_per_step) * 4 / 16));
}

TEST_CASE("plan: recompute_layers of the base applies to its full-recompute layouts only", "[plan][recompute]") {
    const auto c = parse_config(R"({"model": {"preset": "llama-3-8b"}, "train": {"seq_len": 4096, "recompute": "full",
        "recompute_layers": 8}, "gpu": {"memory_bytes": 85520809984}})");
    REQUIRE(c.ok());
    plan_request r;
    r.base = c.value;
    r.gpu = find_gpu("h100-sxm-80gb")->perf;
    r.min_gpus = r.max_gpus = 8;
    r.global_batch_sequences = 64;
    r.top_n = 100;
    const plan_result p = plan(r);
    INFO((p.errors.empty() ? std::string() : p.errors[0].field + ": " + p.errors[0].message));
    REQUIRE(p.errors.empty());
    bool other_policy = false;
    for (const plan_layout& l : p.top) other_policy = other_policy || l.recompute != recompute_mode::full;
    CHECK(other_policy);  // none and selective layouts are not refused for the base's recompute_layers
}

TEST_CASE("totals-only estimates equal the full estimate under selective_op and recompute_layers", "[speed][recompute]") {
    for (const std::string& train : {std::string(R"("recompute": "selective_op")"),
                                     std::string(R"("recompute": "selective_op", "kernels": "eager")"),
                                     std::string(R"("recompute": "full", "recompute_layers": 3)")})
        for (const std::string& parallel : {std::string(R"("gpus": 8)"), std::string(R"("gpus": 8, "tp": 2, "sequence_parallel": true)"),
                                            std::string(R"("gpus": 8, "pp": 4, "virtual_stages": 2)")}) {
            const std::string text = llama_config(parallel, train + R"(, "seq_len": 2048)");
            INFO(text);
            const auto parsed = parse_config(text);
            REQUIRE(parsed.ok());
            const estimate_result full = estimate(parsed.value);
            REQUIRE(full.errors.empty());
            estimate_options totals;
            totals.want_tensors = false;
            const estimate_result quick = estimate(parsed.value, totals);
            REQUIRE(quick.errors.empty());
            CHECK(quick.per_gpu.activations == full.per_gpu.activations);
            CHECK(quick.per_gpu.total == full.per_gpu.total);
            CHECK(quick.details.layer_activation_bytes == full.details.layer_activation_bytes);
            CHECK(quick.details.phases.peak_bytes == full.details.phases.peak_bytes);
            CHECK(total_bytes(full.details.layer_activations) == full.details.layer_activation_bytes);
        }
}
