// Fine-tuning as people run it: LoRA/DoRA trainable parameters (PEFT), frozen bases in bf16, int8,
// NF4 with and without double quantization (QLoRA), trainable-only gradients and optimizer states,
// the dequantization workspace, and the recipes (paged and low-precision optimizer states, optimizer
// in backward, activation offload, chunked loss, eager kernels). Every figure is a hand derivation
// or a published count (source in the comment).
#include <catch2/catch.hpp>

#include <map>

#include <nlohmann/json.hpp>

#include "memplan/api/estimate.hpp"
#include "memplan/model/adapters.hpp"
#include "memplan/search/analyze.hpp"
#include "memplan/report/json.hpp"
#include "memplan/model/arch.hpp"
#include "memplan/io/json.hpp"
#include "memplan/config/schema.hpp"
#include "estimate_runner.hpp"

using namespace memplan;
using json = nlohmann::json;

namespace {
// meta-llama/Llama-3.2-3B config.json: hidden 3072, 28 layers, 24 heads, 8 KV heads, head_dim 128,
// intermediate 8192, vocab 128256, tied embeddings (3,212,749,824 parameters).
const std::string llama32_3b =
    R"("model": {"model_type": "llama", "num_hidden_layers": 28, "hidden_size": 3072, "num_attention_heads": 24,
       "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 8192, "vocab_size": 128256,
       "tie_word_embeddings": true})";
// Qwen/Qwen2.5-0.5B config.json: hidden 896, 24 layers, 14 heads, 2 KV heads, intermediate 4864,
// vocab 151936, tied, q/k/v biases (494,032,768 parameters).
const std::string qwen25_05b =
    R"("model": {"model_type": "qwen2", "num_hidden_layers": 24, "hidden_size": 896, "num_attention_heads": 14,
       "num_key_value_heads": 2, "intermediate_size": 4864, "vocab_size": 151936, "tie_word_embeddings": true})";
// mistralai/Mixtral-8x7B-v0.1 config.json: hidden 4096, 32 layers, 32 heads, 8 KV heads, intermediate
// 14336, 8 experts, top-2, vocab 32000, untied.
const std::string mixtral =
    R"("model": {"model_type": "mixtral", "num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32,
       "num_key_value_heads": 8, "intermediate_size": 14336, "num_local_experts": 8, "num_experts_per_tok": 2,
       "vocab_size": 32000})";

std::string config(const std::string& model, const std::string& train) {
    return "{\"mode\": \"train\", " + model + ", \"train\": {" + train + "}}";
}

using memplan_test::run;

/// Field of the first error (parse or estimate).
std::string first_error(const std::string& text) {
    const auto parsed = parse_config(text);
    if (!parsed.ok()) return parsed.errors[0].field;
    const auto r = estimate(parsed.value);
    REQUIRE_FALSE(r.errors.empty());
    return r.errors[0].field;
}

std::uint64_t trainable(const std::string& model, const std::string& adapter) {
    return run(config(model, adapter)).details.params_trainable;
}

bool has_tensor(const estimate_result& r, const std::string& name) {
    for (const auto& t : r.details.layer_activations)
        if (t.name == name) return true;
    return false;
}
std::uint64_t tensor(const estimate_result& r, const std::string& name) {
    for (const auto& t : r.details.layer_activations)
        if (t.name == name) return t.bytes;
    FAIL("no tensor " << name);
    return 0;
}
}  // namespace

TEST_CASE("LoRA on Llama-3.2-3B q_proj, v_proj at r = 8: 2,293,760 trainable parameters", "[finetune][lora]") {
    // 28 · 8 · ((3072 + 3072) + (3072 + 1024)) = 28 · 8 · 10240 = 2,293,760 (GQA: v_proj is 8·128 wide);
    // published print_trainable_parameters() outputs of PEFT for this model and LoraConfig show the same count.
    const auto r = run(config(llama32_3b, R"("adapter_type": "lora", "adapter_rank": 8, "adapter_targets": "q_proj,v_proj")"));
    CHECK(r.details.params_trainable == 2293760);
    CHECK(r.details.adapter_params == 2293760);
    CHECK(r.params == 3212749824ULL);
    // fp32 adapters (PEFT autocast_adapter_dtype), fp32 gradients, Adam 8 B: 4 + 4 + 8 bytes per trainable parameter.
    CHECK(r.details.adapter_bytes == 4 * 2293760ULL);
    CHECK(r.per_gpu.gradients == 4 * 2293760ULL);
    CHECK(r.per_gpu.optimizer_states == 8 * 2293760ULL);
    // The bf16 base: 2 bytes for each of the 3,212,749,824 parameters.
    CHECK(r.details.base_weight_bytes == 2 * 3212749824ULL);
    CHECK(r.per_gpu.weights == 2 * 3212749824ULL + 4 * 2293760ULL);
    CHECK(r.per_gpu.dequant_workspace == 0);  // a bf16 base needs no dequantization
}

TEST_CASE("LoRA counts for every target set of Llama-3.2-3B, and DoRA's magnitude vectors", "[finetune][lora]") {
    // Per layer at r = 8: q 8·(3072+3072) = 49152, k and v 8·(3072+1024) = 32768, o 49152,
    // gate and up 8·(3072+8192) = 90112, down 90112.
    const auto r8 = [&](const std::string& targets) {
        return trainable(llama32_3b, R"("adapter_type": "lora", "adapter_targets": ")" + targets + "\"");
    };
    CHECK(r8("q_proj") == 28 * 49152ULL);
    CHECK(r8("k_proj") == 28 * 32768ULL);
    CHECK(r8("v_proj") == 28 * 32768ULL);
    CHECK(r8("o_proj") == 28 * 49152ULL);
    CHECK(r8("gate_proj") == 28 * 90112ULL);
    CHECK(r8("up_proj") == 28 * 90112ULL);
    CHECK(r8("down_proj") == 28 * 90112ULL);
    CHECK(r8("q_proj,k_proj,v_proj,o_proj") == 28 * 163840ULL);
    // all-linear = the seven block linears, lm_head excluded (PEFT): 28 · 434176 = 12,156,928.
    CHECK(r8("all-linear") == 12156928ULL);
    CHECK(r8("q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj") == 12156928ULL);
    // lm_head as an explicit target: 8 · (3072 + 128256) more.
    CHECK(r8("all-linear,lm_head") == 12156928ULL + 8 * (3072 + 128256ULL));
    // DoRA adds d_out per adapted linear: q 3072, v 1024 per layer.
    CHECK(trainable(llama32_3b, R"("adapter_type": "dora", "adapter_targets": "q_proj,v_proj")") ==
          2293760ULL + 28 * (3072 + 1024ULL));
    // The rank scales the adapters linearly.
    CHECK(trainable(llama32_3b, R"("adapter_type": "lora", "adapter_rank": 64, "adapter_targets": "q_proj,v_proj")") ==
          8 * 2293760ULL);
}

TEST_CASE("Qwen2.5-0.5B all seven projections at r = 16: 8,798,208, biases irrelevant", "[finetune][lora]") {
    // 24 · 16 · ((896+896) + 2·(896+128) + (896+896) + 2·(896+4864) + (4864+896)) = 8,798,208, the
    // count PEFT prints for Qwen2.5-0.5B with r = 16 on q/k/v/o/gate/up/down (all params 502,830,976 =
    // 494,032,768 + 8,798,208).
    const auto r = run(config(qwen25_05b, R"("adapter_type": "lora", "adapter_rank": 16, "adapter_targets": "all-linear")"));
    CHECK(r.params == 494032768ULL);
    CHECK(r.details.params_trainable == 8798208ULL);
    // The q/k/v biases are not adapted: the same count without them.
    model_config m = family_defaults("qwen2");
    m.num_hidden_layers = 24, m.hidden_size = 896, m.num_attention_heads = 14, m.num_key_value_heads = 2;
    m.intermediate_size = 4864, m.vocab_size = 151936;
    train_config t;
    t.adapter_type = adapter_kind::lora;
    t.adapter_rank = 16;
    const auto with_bias = count_finetune_params(m, t);
    m.qkv_bias = false;
    const auto without_bias = count_finetune_params(m, t);
    REQUIRE(with_bias.ok());
    REQUIRE(without_bias.ok());
    CHECK(with_bias.value.trainable == 8798208ULL);
    CHECK(without_bias.value.trainable == 8798208ULL);
}

TEST_CASE("MoE: every expert is its own adapted linear and the router is one of all-linear", "[finetune][lora][moe]") {
    // Mixtral-8x7B at r = 8, per layer: q 8·8192 = 65536, k and v 8·5120 = 40960, o 65536,
    // router (gate, 4096 → 8) 8·4104 = 32832, experts 8 × 3 × 8·(4096 + 14336) = 3,538,944.
    const auto r8 = [&](const std::string& targets) {
        return trainable(mixtral, R"("adapter_type": "lora", "adapter_targets": ")" + targets + "\"");
    };
    CHECK(r8("q_proj,v_proj") == 32 * (65536ULL + 40960));
    CHECK(r8("router") == 32 * 32832ULL);
    CHECK(r8("gate_proj,up_proj,down_proj") == 32 * 3538944ULL);
    CHECK(r8("all-linear") == 32 * (65536ULL + 40960 + 40960 + 65536 + 32832 + 3538944));
    // Expert adapters are split by expert parallelism, like the experts.
    const auto one = run(config(mixtral, R"("adapter_type": "lora", "adapter_targets": "gate_proj,up_proj,down_proj")"));
    const auto parsed = parse_config(R"({"mode": "train", "parallel": {"gpus": 8, "ep": 8}, )" + mixtral.substr(0) +
                                     R"(, "train": {"adapter_type": "lora", "adapter_targets": "gate_proj,up_proj,down_proj"}})");
    REQUIRE(parsed.ok());
    const auto split = estimate(parsed.value);
    REQUIRE(split.errors.empty());
    CHECK(split.details.adapter_bytes == one.details.adapter_bytes / 8);
    // linear_modules (arch.hpp) lists the blocks' weight matrices: q k v o and the experts' three,
    // 32 · 8 instances each (the router stays outside: adapters add it themselves).
    const auto parsed_model = parse_config(config(mixtral, ""));
    REQUIRE(parsed_model.ok());
    const auto modules = linear_modules(parsed_model.value.model);
    REQUIRE(modules.size() == 7);
    CHECK(modules[4].name == "experts.gate_proj");
    CHECK(modules[4].expert);
    CHECK(modules[4].count == 256);
    CHECK(modules[6].d_in == 14336);
}

TEST_CASE("NF4 storage exact to the byte, with and without double quantization", "[finetune][qlora]") {
    // q_proj of Llama-3.2-3B: n = 3072 · 3072 = 9,437,184 weights, 147,456 blocks of 64.
    // Without DQ: n/2 + 4 · 147,456 = 4,718,592 + 589,824 = 5,308,416 bytes (4.5 bits each).
    CHECK(frozen_linear_bytes(3072, 3072, base_precision::nf4, false) == 5308416ULL);
    CHECK(frozen_linear_bytes(3072, 3072, base_precision::nf4, false) * 8 == 9437184ULL * 45 / 10);
    // With DQ: n/2 + 147,456 int8 absmax + 4 · ⌈147,456 / 256⌉ + 4 = 4,718,592 + 147,456 + 2,304 + 4.
    CHECK(frozen_linear_bytes(3072, 3072, base_precision::nf4, true) == 4868356ULL);
    // 4 + 8/64 + 32/(64·256) = 4.127 bits per weight (QLoRA §3), within rounding of the whole blocks.
    const double bits = 8.0 * 4868356 / 9437184;
    CHECK(bits == Approx(4.0 + 8.0 / 64 + 32.0 / (64 * 256)).epsilon(1e-5));
    CHECK(frozen_linear_bytes(3072, 3072, base_precision::fp4, true) == 4868356ULL);
    // A ragged size rounds every level up: 100 weights = 50 packed bytes, 2 blocks.
    CHECK(frozen_linear_bytes(10, 10, base_precision::nf4, false) == 50 + 8);
    CHECK(frozen_linear_bytes(10, 10, base_precision::nf4, true) == 50 + 2 + 4 + 4);
    // LLM.int8: one int8 per weight and an fp32 absmax per output row.
    CHECK(frozen_linear_bytes(3072, 1024, base_precision::int8, false) == 3072ULL * 1024 + 4 * 1024);
    CHECK(frozen_linear_bytes(3072, 1024, base_precision::bf16, false) == 2ULL * 3072 * 1024);
    CHECK(frozen_linear_bytes(3072, 1024, base_precision::fp8, false) == 3072ULL * 1024 + 4);
}

TEST_CASE("QLoRA on Llama-3.2-3B: the whole 4-bit base, its bf16 remainder, and the dequantization buffer", "[finetune][qlora]") {
    // Block linears per layer (q, k, v, o, gate, up, down) in NF4; two RMSNorm weights, the tied
    // embedding (128256 · 3072) and the final norm in bf16.
    // Linears per layer: no DQ 56,623,104 bytes; DQ 51,929,116 bytes.
    // No DQ: 28 · (56,623,104 + 2 · 2 · 3072) + 2 · 128256 · 3072 + 2 · 3072 = 2,373,801,984.
    // DQ:    28 · (51,929,116 + 12,288) + 787,998,720 + 6,144 = 2,242,370,320.
    const std::string qv = R"("adapter_type": "lora", "adapter_targets": "q_proj,v_proj", "base_dtype": "nf4")";
    const auto plain = run(config(llama32_3b, qv));
    const auto dq = run(config(llama32_3b, qv + R"(, "double_quant": true)"));
    CHECK(plain.details.base_weight_bytes == 2373801984ULL);
    CHECK(dq.details.base_weight_bytes == 2242370320ULL);
    CHECK(dq.per_gpu.weights == 2242370320ULL + 4 * 2293760ULL);
    // The largest layer weight (gate/up 3072 × 8192) dequantized to bf16: 2 · 25,165,824 bytes.
    CHECK(dq.per_gpu.dequant_workspace == 50331648ULL);
    // int8 (LLM.int8): 28 · (Σ n + 4 · Σ d_out + 12,288) + bf16 embedding and final norm = 3,610,023,936.
    const auto int8 = run(config(llama32_3b, R"("adapter_type": "lora", "base_dtype": "int8")"));
    CHECK(int8.details.base_weight_bytes == 3610023936ULL);
    CHECK(int8.per_gpu.dequant_workspace == 50331648ULL);
    // Gradients and optimizer states only for the adapters, whatever the base.
    CHECK(dq.per_gpu.gradients == plain.per_gpu.gradients);
    CHECK(dq.per_gpu.optimizer_states == 8 * 2293760ULL);
    // The total is the sum of its parts, the workspace included.
    const auto& b = dq.per_gpu;
    CHECK(b.total == b.weights + b.gradients + b.optimizer_states + b.activations + b.logits + b.communication +
                         b.kv_cache + b.dequant_workspace + b.misc);
}

TEST_CASE("PEFT's prepare_model_for_kbit_training: the unquantized base in fp32, stated when not given", "[finetune][qlora]") {
    // peft src/peft/utils/other.py (012c0d5a): every fp16/bf16 parameter of a k-bit model cast to fp32. On
    // Llama-3.2-3B with a double-quantized NF4 base the unquantized part is the two RMSNorms of 28 layers,
    // the tied embedding (128,256 · 3,072) and the final norm: 28 · 12,288 + 788,004,864 + 6,144 =
    // 788,355,072 bytes in bf16, twice that in fp32: the base grows from 2,242,370,320 to 3,030,725,392 bytes.
    const std::string dq = R"("adapter_type": "lora", "adapter_targets": "q_proj,v_proj", "base_dtype": "nf4", "double_quant": true)";
    const auto as_is = run(config(llama32_3b, dq + R"(, "kbit_prepare": false)"));
    const auto prepared = run(config(llama32_3b, dq + R"(, "kbit_prepare": true)"));
    CHECK(as_is.details.base_weight_bytes == 2242370320ULL);
    CHECK(prepared.details.base_weight_bytes == 3030725392ULL);
    CHECK(prepared.per_gpu.weights - as_is.per_gpu.weights == 788355072ULL);
    // Given either way, nothing is assumed; not given, the assumption is a warning with the bytes at stake.
    const auto said = [](const estimate_result& r) {
        for (const auto& w : r.warnings)
            if (w.field == "train.kbit_prepare") return w.message;
        return std::string();
    };
    CHECK(said(as_is).empty());
    // Given true, what is not followed is said: the fp32 residual stream.
    CHECK(said(prepared).find("residual stream fp32") != std::string::npos);
    const auto unstated = run(config(llama32_3b, dq));
    CHECK(unstated.details.base_weight_bytes == 2242370320ULL);
    CHECK(said(unstated).find("+788355072 bytes") != std::string::npos);
    // A framework that does not call it (LitGPT, torchtune, Unsloth, Axolotl casts back) is not warned.
    CHECK(said(run(config(llama32_3b, dq + R"(, "framework": "litgpt")"))).empty());
    // A bf16 base has nothing to prepare: refused, naming the key, rather than accepted and ignored.
    CHECK(first_error(config(llama32_3b, R"("adapter_type": "lora", "kbit_prepare": true)")) == "train.kbit_prepare");
    CHECK(first_error(config(llama32_3b, R"("base_dtype": "nf4", "kbit_prepare": true)")) == "train.base_dtype");
}

TEST_CASE("modules_to_save trains full copies, adapter precision and master weights", "[finetune][lora]") {
    // lm_head copy: 128256 · 3072 = 394,002,432 trainable parameters on top of the adapters.
    const auto r = run(config(llama32_3b, R"("adapter_type": "lora", "adapter_targets": "q_proj,v_proj", "modules_to_save": "lm_head")"));
    CHECK(r.details.params_trainable == 2293760ULL + 394002432ULL);
    CHECK(r.details.adapter_params == 2293760ULL);
    CHECK(r.details.adapter_bytes == 4 * (2293760ULL + 394002432ULL));
    // bf16 adapters: 2 B weights and gradients, fp32 master 4 B + Adam 8 B.
    const auto bf16 = run(config(llama32_3b, R"("adapter_type": "lora", "adapter_targets": "q_proj,v_proj", "adapter_dtype": "bf16")"));
    CHECK(bf16.details.adapter_bytes == 2 * 2293760ULL);
    CHECK(bf16.per_gpu.gradients == 2 * 2293760ULL);
    CHECK(bf16.per_gpu.optimizer_states == 12 * 2293760ULL);
}

TEST_CASE("optimizer recipes: state precision, paged states, optimizer in backward", "[finetune][optimizer]") {
    const std::string qv = R"("adapter_type": "lora", "adapter_targets": "q_proj,v_proj")";
    // bf16 Adam moments: 2 · 2 bytes per trainable parameter.
    CHECK(run(config(llama32_3b, qv + R"(, "optimizer_state_dtype": "bf16")")).per_gpu.optimizer_states == 4 * 2293760ULL);
    // 8-bit Adam: 2 bytes + two fp32 absmax per 2048-block.
    CHECK(run(config(llama32_3b, qv + R"(, "optimizer": "adam_8bit")")).per_gpu.optimizer_states ==
          2 * 2293760ULL + 8 * ((2293760ULL + 2047) / 2048));
    // Paged: the int8 moments are bitsandbytes' unified memory, outside PyTorch's allocator and so outside
    // per_gpu, where the fp32 absmax stays; with no GPU size all of them are counted in host memory
    // (one GPU per node here).
    const auto paged = run(config(llama32_3b, qv + R"(, "optimizer": "adam_8bit", "paged_optimizer": true)"));
    CHECK(paged.details.paged_optimizer_bytes == 2 * 2293760ULL);
    CHECK(paged.per_gpu.optimizer_states == 8 * ((2293760ULL + 2047) / 2048));
    CHECK(paged.details.host_bytes_per_node == paged.details.paged_optimizer_bytes);
    // Full fine-tuning with the optimizer in backward: one layer's bf16 gradients, the largest part
    // being the tied embedding 128256 · 3072 (larger than a layer's 100,669,440 parameters).
    const auto full = run(config(llama32_3b, R"("optimizer_in_backward": true)"));
    CHECK(full.per_gpu.gradients == 2 * 128256ULL * 3072);
    const auto lora_bwd = run(config(llama32_3b, qv + R"(, "optimizer_in_backward": true)"));
    CHECK(lora_bwd.per_gpu.gradients == 4 * 81920ULL);  // one layer's adapters: 8 · 10240
    // Full fine-tuning state precision: bf16 weights and gradients, fp32 master, bf16 moments = 12 B/param.
    const auto low = run(config(llama32_3b, R"("optimizer_state_dtype": "bf16")"));
    CHECK(low.per_gpu.weights + low.per_gpu.gradients + low.per_gpu.optimizer_states == 12 * 3212749824ULL);
}

TEST_CASE("activation offload, chunked loss and eager RMSNorm", "[finetune][activations]") {
    const std::string qv = R"("adapter_type": "lora", "adapter_targets": "q_proj,v_proj", "flash_attention": true)";
    // Full checkpointing keeps one 2·s·h layer input per layer: 28 · 2048 · 3072 · 2 bytes; offloaded,
    // two stay on the GPU and 26 go to the host.
    const auto kept = run(config(llama32_3b, qv + R"(, "recompute": "full")"));
    const auto off = run(config(llama32_3b, qv + R"(, "recompute": "full", "activation_offload": true)"));
    const std::uint64_t input = 2048ULL * 3072 * 2;
    CHECK(off.details.offloaded_activation_bytes == 26 * input);
    CHECK(kept.per_gpu.activations - off.per_gpu.activations == 26 * input);
    CHECK(off.details.host_bytes_per_node == 26 * input);
    CHECK(first_error(config(llama32_3b, qv + R"(, "activation_offload": true)")) == "train.activation_offload");
    // Logits: bf16 2·s·V plus the fp32 copy, chunked 8 ways: 4·s·V/8.
    const auto chunked = run(config(llama32_3b, qv + R"(, "loss_chunks": 8)"));
    CHECK(chunked.per_gpu.logits == 2048ULL * 128256 * 2 + 2048ULL * 128256 * 4 / 8);
    CHECK(kept.per_gpu.logits == 2048ULL * 128256 * 6);
    // Eager LlamaRMSNorm: the fp32 upcast and its square (4 + 4 bytes per element), fp32 rstd, and with
    // a trained weight the bf16 normalized input; under an adapter the norm weight is frozen.
    const auto eager_full = run(config(llama32_3b, R"("kernels": "eager")"));
    CHECK(tensor(eager_full, "attn.norm.input_fp32") == 2048ULL * 3072 * 4);
    CHECK(tensor(eager_full, "attn.norm.squared_fp32") == 2048ULL * 3072 * 4);
    CHECK(tensor(eager_full, "attn.norm.normalized") == 2048ULL * 3072 * 2);
    CHECK(tensor(eager_full, "attn.norm.stats") == 2048ULL * 4);
    CHECK_FALSE(has_tensor(eager_full, "attn.norm.input"));
    const auto eager_lora = run(config(llama32_3b, qv + R"(, "kernels": "eager")"));
    CHECK_FALSE(has_tensor(eager_lora, "attn.norm.normalized"));
}

TEST_CASE("a frozen base keeps only the inputs of adapted linears", "[finetune][activations]") {
    const std::uint64_t T = 2048, h = 3072, f = 8192;
    // q, v adapted, eager attention: o_proj and down_proj are frozen and keep nothing.
    const auto qv = run(config(llama32_3b, R"("adapter_type": "lora", "adapter_targets": "q_proj,v_proj", "flash_attention": false)"));
    CHECK(tensor(qv, "attn.qkv_input") == T * h * 2);
    CHECK(tensor(qv, "lora.attn.q_proj.a_output") == T * 8 * 2);
    CHECK(tensor(qv, "lora.attn.v_proj.a_output") == T * 8 * 2);
    CHECK_FALSE(has_tensor(qv, "lora.attn.k_proj.a_output"));
    CHECK_FALSE(has_tensor(qv, "attn.proj_input"));
    CHECK_FALSE(has_tensor(qv, "mlp.fc_input"));
    CHECK_FALSE(has_tensor(qv, "mlp.down_input"));
    CHECK(tensor(qv, "mlp.up_output") == T * f * 2);  // the gating product still keeps both factors
    // With FlashAttention its output is kept by the attention backward anyway.
    const auto flash = run(config(llama32_3b, R"("adapter_type": "lora", "adapter_targets": "q_proj,v_proj", "flash_attention": true)"));
    CHECK(tensor(flash, "attn.proj_input") == T * 24 * 128 * 2);
    // all-linear: every input is back, plus seven r-wide outputs.
    const auto all = run(config(llama32_3b, R"("adapter_type": "lora")"));
    CHECK(tensor(all, "mlp.down_input") == T * f * 2);
    CHECK(tensor(all, "lora.mlp.down_proj.a_output") == T * 8 * 2);
    // lora_dropout: each adapted linear keeps its own dropped-out input and 1-byte mask, not the shared input.
    const auto drop = run(config(llama32_3b, R"("adapter_type": "lora", "adapter_targets": "q_proj,v_proj", "adapter_dropout": true)"));
    CHECK_FALSE(has_tensor(drop, "attn.qkv_input"));
    CHECK(tensor(drop, "lora.attn.q_proj.dropout_input") == T * h * 2);
    CHECK(tensor(drop, "lora.attn.q_proj.dropout_mask") == T * h);
    // DoRA keeps the base and adapter outputs (d_out wide) for the magnitude gradient.
    const auto dora = run(config(llama32_3b, R"("adapter_type": "dora", "adapter_targets": "v_proj")"));
    CHECK(tensor(dora, "dora.attn.v_proj.base_output") == T * 1024 * 2);
    CHECK(tensor(dora, "dora.attn.v_proj.lora_output") == T * 1024 * 2);
    // Full fine-tuning is unchanged by the adapter keys' defaults.
    const auto full = run(config(llama32_3b, ""));
    CHECK(full.details.params_trainable == 3212749824ULL);
    CHECK(full.details.base_weight_bytes == 0);
    CHECK(tensor(full, "attn.proj_input") == T * 24 * 128 * 2);
}

TEST_CASE("the nested adapter object maps onto the flat keys", "[finetune][json]") {
    const auto nested = parse_config(config(llama32_3b, R"("adapter": {"type": "dora", "r": 16, "target_modules": ["q_proj", "v_proj"],
        "modules_to_save": ["lm_head"], "lora_dropout": 0.05})"));
    REQUIRE(nested.ok());
    const train_config& t = nested.value.train;
    CHECK(t.adapter_type == adapter_kind::dora);
    CHECK(t.adapter_rank == 16);
    CHECK(t.adapter_targets == "q_proj,v_proj");
    CHECK(t.modules_to_save == "lm_head");
    CHECK(t.adapter_dropout);
    const auto peft = parse_config(config(llama32_3b, R"("adapter": {"r": 4, "use_dora": false, "target_modules": "all-linear"})"));
    REQUIRE(peft.ok());
    CHECK(peft.value.train.adapter_type == adapter_kind::lora);
    CHECK(peft.value.train.adapter_targets == "all-linear");
    // Both forms of one field, unknown keys and wrong types are errors naming the field.
    CHECK(first_error(config(llama32_3b, R"("adapter_rank": 8, "adapter": {"rank": 8})")) == "train.adapter.rank");
    CHECK(first_error(config(llama32_3b, R"("adapter": {"rank": 8, "alpha": 16})")) == "train.adapter.alpha");
    CHECK(first_error(config(llama32_3b, R"("adapter": {"targets": [1, 2]})")) == "train.adapter.targets");
    CHECK(first_error(config(llama32_3b, R"("adapter": {"rank": 0})")) == "train.adapter_rank");
    CHECK(first_error(config(llama32_3b, R"("adapter": 3)")) == "train.adapter");
    // The echo shows the flat keys.
    const json out = json::parse(estimate_json(config(llama32_3b, R"("adapter": {"type": "lora", "target_modules": ["q_proj"]})")));
    CHECK(out["config"]["train"]["adapter_type"] == "lora");
    CHECK(out["config"]["train"]["adapter_targets"] == "q_proj");
    CHECK(out["details"]["params_trainable"] == 28 * 49152);
    CHECK(out["details"]["adapter_bytes"] == 4 * 28 * 49152);
}

TEST_CASE("QLoRA under bitsandbytes before 0.44: every frozen 4-bit linear keeps its input", "[finetune][qlora]") {
    // bitsandbytes 0.42/0.43 MatMul4Bit keeps its input A for backward (ctx.tensors = (A, B)), 0.44 only
    // the packed weight. Llama-3.2-3B, LoRA on q and v with lora_dropout (so the adapters keep their own
    // dropped-out inputs, not x), FlashAttention (which already keeps the attention output, the o_proj
    // input): the old versions add, per layer and token, the Q/K/V input (the norm output, 3072), the
    // gate/up input (3072, one tensor for both) and the down projection's input (8192), in bf16:
    // 2 B · (3072 + 3072 + 8192) · 28 layers · (2 · 512 tokens) = 822,083,584 bytes.
    const std::string qv = R"("adapter_type": "lora", "adapter_targets": "q_proj,v_proj", "adapter_dropout": true,
                              "base_dtype": "nf4", "micro_batch": 2, "seq_len": 512)";
    const auto now = run(config(llama32_3b, qv));
    const auto old = run(config(llama32_3b, qv + R"(, "base_keeps_inputs": true)"));
    CHECK(old.per_gpu.activations - now.per_gpu.activations == 822083584ULL);
    CHECK(old.per_gpu.weights == now.per_gpu.weights);
    CHECK(old.per_gpu.total - now.per_gpu.total == 822083584ULL);
    // Full fine-tuning already keeps every linear's input: the key would mean nothing there, nor on a bf16 base.
    CHECK(first_error(config(llama32_3b, R"("base_keeps_inputs": true)")) == "train.base_keeps_inputs");
    CHECK(first_error(config(llama32_3b, R"("adapter_type": "lora", "base_keeps_inputs": true)")) == "train.base_keeps_inputs");
}

TEST_CASE("fine-tuning keys refuse what they cannot mean, naming the key", "[finetune][errors]") {
    CHECK(first_error(config(llama32_3b, R"("base_dtype": "nf4")")) == "train.base_dtype");
    CHECK(first_error(config(llama32_3b, R"("adapter_type": "lora", "double_quant": true)")) == "train.double_quant");
    CHECK(first_error(config(llama32_3b, R"("adapter_type": "lora", "adapter_targets": "qkv")")) == "train.adapter_targets");
    CHECK(first_error(config(llama32_3b, R"("adapter_type": "lora", "adapter_targets": " , ")")) == "train.adapter_targets");
    CHECK(first_error(config(llama32_3b, R"("adapter_type": "lora", "adapter_targets": "router")")) == "train.adapter_targets");
    CHECK(first_error(config(llama32_3b, R"("adapter_type": "lora", "modules_to_save": "norm")")) == "train.modules_to_save");
    CHECK(first_error(config(llama32_3b, R"("modules_to_save": "lm_head")")) == "train.modules_to_save");
    CHECK(first_error(config(llama32_3b, R"("paged_optimizer": true, "optimizer": "sgd")")) == "train.paged_optimizer");
    CHECK(first_error(config(llama32_3b, R"("optimizer": "adam_8bit", "optimizer_state_dtype": "bf16")")) ==
          "train.optimizer_state_dtype");
    CHECK(first_error(config(llama32_3b, R"("adapter_type": "qlora")")) == "train.adapter_type");
    CHECK(first_error(config(llama32_3b, R"("adapter_type": "lora", "adapter_rank": 0)")) == "train.adapter_rank");
    CHECK(first_error(config(llama32_3b, R"("loss_chunks": 0)")) == "train.loss_chunks");
    CHECK(first_error(config(llama32_3b, R"("kernels": "triton")")) == "train.kernels");
}

TEST_CASE("analyze: the largest adapter rank that fits, and the fine-tuning suggestions", "[finetune][analyze]") {
    // Llama-3.2-3B, QLoRA on all-linear, on a 12 GB card.
    const std::string qlora = config(llama32_3b, R"("adapter_type": "lora", "base_dtype": "nf4", "double_quant": true,
        "recompute": "full", "flash_attention": true)");
    const std::string text = qlora.substr(0, qlora.size() - 1) + R"(, "gpu": {"memory_bytes": 12000000000}})";
    const auto parsed = parse_config(text);
    REQUIRE(parsed.ok());
    const analysis a = analyze(parsed.value);
    REQUIRE(a.errors.empty());
    const std::uint64_t r = a.limits.max_adapter_rank;
    REQUIRE(r > 8);
    REQUIRE(r < 65536);
    // The rank found fits and one more does not.
    estimate_config probe = parsed.value;
    probe.train.adapter_rank = r;
    CHECK(estimate(probe).fits);
    probe.train.adapter_rank = r + 1;
    CHECK_FALSE(estimate(probe).fits);
    const json doc = json::parse(analyze_json(text));
    CHECK(doc["limits"]["max_adapter_rank"] == r);
    // No adapter: the key is absent (the limits object keeps its four keys and the two of the context limit).
    const std::string full = config(llama32_3b, "");
    const json plain = json::parse(analyze_json(full.substr(0, full.size() - 1) + R"(, "gpu": {"memory_bytes": 80000000000}})"));
    CHECK(plain["limits"].size() == 6);
    CHECK_FALSE(plain["limits"].contains("max_adapter_rank"));
    // Full fine-tuning of an architecture-counted model: LoRA and 8-bit Adam are suggested, each with
    // the estimate of the changed configuration.
    bool lora = false, adam8 = false;
    for (const auto& s : plain["suggestions"]) {
        if (s["field"] == "train.adapter_type") lora = s["to"] == "lora";
        if (s["field"] == "train.optimizer") adam8 = s["to"] == "adam_8bit";
    }
    CHECK(lora);
    CHECK(adam8);
    // With a bf16 LoRA base, QLoRA (base_dtype nf4) is suggested.
    const std::string bf16_lora = config(llama32_3b, R"("adapter_type": "lora")");
    const json lora_doc = json::parse(analyze_json(bf16_lora));
    bool qlora_suggested = false;
    for (const auto& s : lora_doc["suggestions"])
        if (s["field"] == "train.base_dtype" && s["to"] == "nf4") qlora_suggested = true;
    CHECK(qlora_suggested);
}

TEST_CASE("adapters under tensor and pipeline parallelism and ZeRO-3", "[finetune][parallel]") {
    const std::string qv = R"("adapter_type": "lora", "adapter_targets": "q_proj,v_proj", "base_dtype": "nf4")";
    const auto one = run(config(llama32_3b, qv));
    // FSDP full_shard over 4 GPUs shards the frozen base and the adapters like any parameter.
    const auto parsed = parse_config(R"({"mode": "train", "parallel": {"gpus": 4, "fsdp": "full_shard"}, )" + llama32_3b +
                                     ", \"train\": {" + qv + "}}");
    REQUIRE(parsed.ok());
    const auto sharded = estimate(parsed.value);
    REQUIRE(sharded.errors.empty());
    CHECK(sharded.details.base_weight_bytes == (one.details.base_weight_bytes + 3) / 4);
    CHECK(sharded.details.adapter_bytes == 4 * ((2293760ULL + 3) / 4));
    // Tensor parallelism: a visible warning about the adapters' split.
    const auto tp = parse_config(R"({"mode": "train", "parallel": {"gpus": 2, "tp": 2}, )" + llama32_3b + ", \"train\": {" + qv + "}}");
    REQUIRE(tp.ok());
    const auto r = estimate(tp.value);
    REQUIRE(r.errors.empty());
    bool warned = false;
    for (const auto& w : r.warnings) warned = warned || w.field == "train.adapter_type";
    CHECK(warned);
    // Pipeline parallelism: every stage's base and adapters add up to the whole model (tied embeddings
    // get a second copy on the last stage).
    const auto pp = parse_config(R"({"mode": "train", "parallel": {"gpus": 2, "pp": 2}, )" + llama32_3b + ", \"train\": {" + qv + "}}");
    REQUIRE(pp.ok());
    const auto staged = estimate(pp.value);
    REQUIRE(staged.errors.empty());
    CHECK(staged.details.adapter_bytes == 4 * 14 * 81920ULL);
}

TEST_CASE("DoRA's dense update of the largest adapted linear is a workspace", "[finetune][dora]") {
    // v_proj 3072 → 1024: B·A and W + s·B·A in fp32, 2 · 4 · 3072 · 1024 bytes; LoRA has none.
    const auto dora = run(config(llama32_3b, R"("adapter_type": "dora", "adapter_targets": "v_proj")"));
    CHECK(dora.per_gpu.dequant_workspace == 2ULL * 4 * 3072 * 1024);
    // On a 4-bit base the dequantized gate/up weight (bf16) comes on top.
    const auto qdora = run(config(llama32_3b, R"("adapter_type": "dora", "adapter_targets": "v_proj", "base_dtype": "nf4")"));
    CHECK(qdora.per_gpu.dequant_workspace == 2ULL * 4 * 3072 * 1024 + 2ULL * 3072 * 8192);
    CHECK(run(config(llama32_3b, R"("adapter_type": "lora", "adapter_targets": "v_proj")")).per_gpu.dequant_workspace == 0);
}

TEST_CASE("Qwen2.5-0.5B target by target, and GPT-2's plain MLP", "[finetune][lora]") {
    // Qwen2.5-0.5B at r = 16, per layer: q and o 16 · 1792 = 28672, k and v 16 · 1024 = 16384,
    // gate, up and down 16 · 5760 = 92160; 24 layers.
    const auto r16 = [&](const std::string& targets) {
        return trainable(qwen25_05b, R"("adapter_type": "lora", "adapter_rank": 16, "adapter_targets": ")" + targets + "\"");
    };
    CHECK(r16("q_proj") == 24 * 28672ULL);
    CHECK(r16("k_proj") == 24 * 16384ULL);
    CHECK(r16("v_proj") == 24 * 16384ULL);
    CHECK(r16("o_proj") == 24 * 28672ULL);
    CHECK(r16("gate_proj,up_proj,down_proj") == 24 * 3 * 92160ULL);
    CHECK(r16("q_proj,v_proj") == 24 * 45056ULL);
    // GPT-2 (h 768, 12 layers, plain MLP 3072): up and down only, r = 8: 12 · 2 · 8 · (768 + 3072).
    const std::string gpt2 = R"("model": {"model_type": "gpt2", "n_layer": 12, "n_embd": 768, "n_head": 12, "n_inner": null,
        "vocab_size": 50257, "n_positions": 1024})";
    CHECK(trainable(gpt2, R"("adapter_type": "lora", "adapter_targets": "up_proj,down_proj")") == 12ULL * 2 * 8 * 3840);
    // gate_proj does not exist in a plain MLP: alone it matches nothing.
    CHECK(first_error(config(gpt2, R"("adapter_type": "lora", "adapter_targets": "gate_proj")")) == "train.adapter_targets");
    // q/k/v on GPT-2 carry a warning about the fused c_attn.
    const auto r = run(config(gpt2, R"("adapter_type": "lora", "adapter_targets": "q_proj,v_proj")"));
    bool warned = false;
    for (const auto& w : r.warnings) warned = warned || w.field == "train.adapter_targets";
    CHECK(warned);
}

TEST_CASE("the schema lists the fine-tuning keys with their choices and defaults", "[finetune][schema]") {
    const json schema = json::parse(schema_json());
    std::map<std::string, json> rows;
    for (const auto& f : schema["fields"]) rows[f["path"].get<std::string>()] = f;
    REQUIRE(rows.count("train.adapter_type") == 1);
    CHECK(rows["train.adapter_type"]["choices"] == json::array({"none", "lora", "dora"}));
    CHECK(rows["train.adapter_type"]["default"] == "none");
    CHECK(rows["train.adapter_rank"]["default"] == 8);
    CHECK(rows["train.adapter_targets"]["type"] == "text");
    CHECK(rows["train.adapter_targets"]["default"] == "all-linear");
    CHECK(rows["train.base_dtype"]["choices"] == json::array({"bf16", "fp16", "fp32", "fp8", "int8", "nf4", "fp4"}));
    CHECK(rows["train.optimizer_state_dtype"]["choices"] == json::array({"fp32", "bf16", "fp16"}));
    CHECK(rows["train.kernels"]["choices"] == json::array({"fused", "eager"}));
    CHECK(rows["train.loss_chunks"]["min"] == 1);
    for (const char* key : {"train.double_quant", "train.paged_optimizer", "train.optimizer_in_backward",
                            "train.activation_offload", "train.adapter_dropout"}) {
        CAPTURE(key);
        CHECK(rows[key]["type"] == "boolean");
        CHECK(rows[key]["default"] == false);
        CHECK(rows[key]["modes"] == json::array({"train"}));
    }
}

TEST_CASE("paged optimizer states that only fit when paged out carry a warning", "[finetune][optimizer]") {
    // Llama 3.1 8B full fine-tuning as torchtune's single-device recipe runs it, on a 24 GB card: the
    // 8-bit states (2 B per parameter) do not fit next to the bf16 weights; bitsandbytes pages them out of
    // unified memory, so the run fits and the warning gives the bytes paged out.
    const std::string text = R"({"mode": "train", "model": {"preset": "llama-3.1-8b"}, "train": {"micro_batch": 2,
        "seq_len": 2048, "recompute": "full", "flash_attention": true, "loss_chunks": 8, "master_weights": false,
        "optimizer": "adam_8bit", "paged_optimizer": true, "optimizer_in_backward": true},
        "gpu": {"memory_bytes": 24000000000}})";
    const auto parsed = parse_config(text);
    REQUIRE(parsed.ok());
    const auto r = estimate(parsed.value);
    REQUIRE(r.errors.empty());
    CHECK(r.fits);
    CHECK(r.per_gpu.total <= 24000000000ULL);
    CHECK(r.details.paged_optimizer_host_bytes > 0);
    bool warned = false;
    for (const auto& w : r.warnings) warned = warned || w.field == "train.paged_optimizer";
    CHECK(warned);
}

TEST_CASE("Qwen3: LoRA counts follow the explicit head_dim and every routed expert", "[finetune][lora][qwen3]") {
    const auto trainable_of = [](const std::string& preset, const std::string& targets) {
        const auto parsed = parse_config(R"({"model": {"preset": ")" + preset + R"("}, "train": {"adapter_type": "lora",
            "adapter_rank": 8, "adapter_targets": ")" + targets + "\"}}");
        REQUIRE(parsed.ok());
        const auto r = estimate(parsed.value);
        REQUIRE(r.errors.empty());
        return r.details.params_trainable;
    };
    // Qwen3-8B (its count 8,190,735,360 is pinned in test_arch_2026.cpp): hidden 4096, 36 layers,
    // 32 query heads and 8 KV heads of head_dim 128. q_proj 4096→4096: 8·(4096 + 4096) = 65,536;
    // v_proj 4096→1024: 8·(4096 + 1024) = 40,960; × 36 layers = 3,833,856.
    CHECK(trainable_of("qwen3-8b", "q_proj,v_proj") == 36ULL * (65536 + 40960));
    // Qwen3-30B-A3B: 48 layers × 128 experts, each gate_proj 2048→768: 8·(2048 + 768) = 22,528.
    CHECK(trainable_of("qwen3-30b-a3b", "gate_proj") == 48ULL * 128 * 22528);
}
