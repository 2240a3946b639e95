// The phases of a training step (memplan/memory/result.hpp step_phases): the bytes allocated at the end
// of forward, at the start of backward, in the backward of the last layer and in the optimizer step,
// each against the parts of per_gpu it must be made of, and the peak as their largest.
#include <algorithm>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "memplan/api/estimate.hpp"
#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"
#include "estimate_runner.hpp"

using namespace memplan;

namespace {
using memplan_test::run;
std::uint64_t states(const estimate_result& r) {
    const memory_breakdown& b = r.per_gpu;
    return b.weights + b.gradients + b.optimizer_states + b.communication + b.misc;
}
std::string llama8b(const std::string& train, const std::string& parallel = "") {
    return R"({"model": {"preset": "llama-3-8b"}, "parallel": {)" + parallel + R"(}, "train": {"seq_len": 2048)" +
           (train.empty() ? "" : ", " + train) + "}}";
}
// Llama 3 8B: h 4096, 32 query and 8 KV heads of 128, ffn 14336 (gated), vocabulary 128256, 8,030,261,248
// parameters (meta-llama/Meta-Llama-3-8B config.json).
constexpr std::uint64_t params_8b = 8030261248ULL;
constexpr std::uint64_t vocab = 128256;
// The widest set of tensors the 8B layer's forward holds at once (per token, bf16): residual, normed
// input, gate, up and their product = 2 · 4096 + 3 · 14336 elements, 2 bytes each.
constexpr std::uint64_t layer_grads_per_token = (2 * 4096 + 3 * 14336) * 2;
}  // namespace

TEST_CASE("without recompute the end of forward is the steady-state sum, the loss adds the logits' gradient",
          "[phases]") {
    const auto r = run(llama8b(""));
    const step_phases& ph = r.details.phases;
    REQUIRE(ph.present);
    // Every part is alive at the end of forward: the sum per_gpu.total already counts them all.
    CHECK(ph.forward_end_bytes == r.per_gpu.total);
    // nll_loss's fp32 gradient of the log-probabilities and log_softmax's of its input, alive at once:
    // 2048 · 128256 · 4 · 2.
    CHECK(ph.loss_backward_bytes - ph.forward_end_bytes == 2048ULL * vocab * 8);
    // The logits are freed before the layers' backward; one layer's gradients are in flight.
    CHECK(ph.layer_backward_bytes == r.per_gpu.total - r.per_gpu.logits + 2048 * layer_grads_per_token);
    // foreach AdamW: one fp32 square root of the second moment per parameter (torch/optim/adam.py).
    CHECK(ph.optimizer_temp_bytes == 4 * params_8b);
    CHECK(ph.optimizer_step_bytes == states(r) + 4 * params_8b);
    // 16 B per parameter of model states (bf16 weight and gradient, fp32 master and two moments) + 4 B of
    // temporaries outweigh the 8B's activations at 2048 tokens: the optimizer step is the peak.
    CHECK(ph.peak == step_phase::optimizer_step);
    CHECK(ph.peak_bytes == std::max({ph.forward_end_bytes, ph.loss_backward_bytes, ph.layer_backward_bytes,
                                     ph.optimizer_step_bytes}));
    CHECK(ph.peak_bytes > r.per_gpu.total);
}

TEST_CASE("under full recompute the re-run layer is alive in backward only", "[phases][recompute]") {
    const auto plain = run(llama8b(""));
    const auto full = run(llama8b(R"("recompute": "full")"));
    const step_phases& ph = full.details.phases;
    // The re-run layer adds everything one layer keeps without recompute, less the checkpointed input
    // (what one layer keeps under full recompute) that it reads in place.
    const std::uint64_t working_set = plain.details.layer_activation_bytes - full.details.layer_activation_bytes;
    CHECK(ph.forward_end_bytes == full.per_gpu.total - working_set);
    CHECK(ph.layer_backward_bytes == full.per_gpu.total - full.per_gpu.logits + 2048 * layer_grads_per_token);
    CHECK(ph.loss_backward_bytes == ph.forward_end_bytes + 2048ULL * vocab * 8);
    // The same model states in both: the optimizer step does not depend on recompute.
    CHECK(ph.optimizer_step_bytes == plain.details.phases.optimizer_step_bytes);
}

TEST_CASE("chunked cross-entropy shrinks the fp32 part of the logits' gradient", "[phases][loss]") {
    const auto whole = run(llama8b(""));
    const auto chunked = run(llama8b(R"("loss_chunks": 8)"));
    // The fp32 pair one chunk at a time: 2 · ⌈4 · N / 8⌉.
    const std::uint64_t n = 2048ULL * vocab;
    CHECK(chunked.details.phases.loss_backward_bytes - chunked.details.phases.forward_end_bytes == n);
    CHECK(whole.details.phases.loss_backward_bytes - whole.details.phases.forward_end_bytes == 8 * n);
}

TEST_CASE("the optimizer step's temporaries follow the optimizer's implementation", "[phases][optimizer]") {
    CHECK(run(llama8b(R"("optimizer_state_dtype": "bf16")")).details.phases.optimizer_temp_bytes == 2 * params_8b);
    // bitsandbytes' 8-bit kernels, DeepSpeed's FusedAdam and an offloaded step allocate none on the GPU.
    CHECK(run(llama8b(R"("optimizer": "adam_8bit")")).details.phases.optimizer_temp_bytes == 0);
    CHECK(run(llama8b("", R"("gpus": 8, "zero_stage": 2, "comm_buffers": "deepspeed")")).details.phases.optimizer_temp_bytes == 0);
    CHECK(run(llama8b("", R"("gpus": 8, "zero_stage": 2, "offload_optimizer": "cpu")")).details.phases.optimizer_temp_bytes == 0);
    CHECK(run(llama8b(R"("optimizer": "sgd")")).details.phases.optimizer_temp_bytes == 0);
    // ZeRO shards the optimizer: the temporaries cover this GPU's shard, ⌈P / 8⌉ elements.
    const auto sharded = run(llama8b("", R"("gpus": 8, "zero_stage": 1)"));
    CHECK(sharded.details.phases.optimizer_temp_bytes == 4 * ((params_8b + 7) / 8));
    // Optimizer in backward steps one layer at a time: the largest of a layer (218,112,000 parameters)
    // and the embedding or output layer (128256 · 4096 = 525,336,576).
    const auto in_bwd = run(llama8b(R"("optimizer_in_backward": true)"));
    CHECK(in_bwd.details.phases.optimizer_temp_bytes == 4 * 525336576ULL);
    // LoRA: only the adapters are stepped.
    const auto lora = run(llama8b(R"("adapter_type": "lora", "adapter_rank": 16)"));
    CHECK(lora.details.phases.optimizer_temp_bytes == 4 * lora.details.params_trainable);
    CHECK(lora.details.phases.optimizer_step_bytes == states(lora) + 4 * lora.details.params_trainable);
}

TEST_CASE("a quantized base's dequantized layer is alive in forward and backward, not in the step",
          "[phases][qlora]") {
    const std::string qlora = R"("adapter_type": "lora", "base_dtype": "nf4")";
    const auto kept_all = run(llama8b(qlora));
    const auto q = run(llama8b(qlora + R"(, "recompute": "full")"));
    const step_phases& ph = q.details.phases;
    REQUIRE(q.per_gpu.dequant_workspace > 0);
    // The re-run layer's addition: what one LoRA layer keeps without recompute, less its checkpointed input.
    const std::uint64_t working_set = kept_all.details.layer_activation_bytes - q.details.layer_activation_bytes;
    CHECK(ph.forward_end_bytes == states(q) + q.per_gpu.dequant_workspace + q.per_gpu.activations - working_set +
                                      q.per_gpu.logits);
    CHECK(ph.layer_backward_bytes == q.per_gpu.total - q.per_gpu.logits + 2048 * layer_grads_per_token);
    CHECK(ph.optimizer_step_bytes == states(q) + ph.optimizer_temp_bytes);  // no dequantized weight in the step
}

TEST_CASE("the phases appear in training's JSON with the peak named, serving has none", "[phases][json]") {
    using json = nlohmann::json;
    const json train = json::parse(estimate_json(llama8b(R"("recompute": "full")")));
    const json& ph = train["details"]["phases"];
    REQUIRE(ph.is_object());
    CHECK(ph["figure"] == "allocated");
    CHECK(ph["peak_bytes"].get<std::uint64_t>() ==
          std::max({ph["forward_end"].get<std::uint64_t>(), ph["loss_backward"].get<std::uint64_t>(),
                    ph["layer_backward"].get<std::uint64_t>(), ph["optimizer_step"].get<std::uint64_t>()}));
    CHECK(ph[ph["peak"].get<std::string>()] == ph["peak_bytes"]);
    const json infer = json::parse(estimate_json(R"({"mode": "infer", "model": {"preset": "llama-3-8b"}})"));
    CHECK_FALSE(infer["details"].contains("phases"));
    CHECK_FALSE(run(R"({"mode": "infer", "model": {"preset": "llama-3-8b"}})").details.phases.present);
}

TEST_CASE("the verdict compares the step's peak with the GPU when it is above the steady-state total", "[phases][fits]") {
    const auto r = run(llama8b(""));
    REQUIRE(r.details.phases.peak_bytes > r.per_gpu.total);  // foreach AdamW's temporaries at the optimizer step
    REQUIRE(r.details.phases.peak == step_phase::optimizer_step);
    const std::string config = llama8b("").substr(0, llama8b("").size() - 1);
    // A GPU between the two: the parts fit side by side, the step does not.
    const std::uint64_t between = r.per_gpu.total + (r.details.phases.peak_bytes - r.per_gpu.total) / 2;
    const auto tight = run(config + R"(, "gpu": {"memory_bytes": )" + std::to_string(between) + "}}");
    CHECK_FALSE(tight.fits);
    CHECK(tight.needed_bytes == r.details.phases.peak_bytes);
    CHECK(tight.shortfall_bytes == r.details.phases.peak_bytes - between);
    CHECK(tight.headroom_bytes == 0);
    // Room for the peak exactly: it fits with no headroom.
    const auto roomy = run(config + R"(, "gpu": {"memory_bytes": )" + std::to_string(r.details.phases.peak_bytes) + "}}");
    CHECK(roomy.fits);
    CHECK(roomy.headroom_bytes == 0);
    CHECK(roomy.shortfall_bytes == 0);
    // Inference compares the total.
    const auto infer = run(R"({"mode": "infer", "model": {"preset": "llama-3-8b"}, "gpu": {"memory_bytes": 80000000000}})");
    CHECK(infer.needed_bytes == infer.per_gpu.total);
}
