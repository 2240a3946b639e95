// The corrected estimator: published formulas, the defects of EleutherAI's transformer_mem.py fixed, invariants, errors.
#include <catch2/catch.hpp>

#include <random>

#include "memplan/api/estimate.hpp"

using namespace memplan;

namespace {
using u64 = std::uint64_t;

/// GPT-3 175B (Brown et al. 2020, Table 2.1): 96 layers, width 12288, 96 heads, 2048 tokens.
estimate_config gpt3_175b() {
    estimate_config c;
    c.model.params = 175000000000ULL;
    c.model.num_hidden_layers = 96;
    c.model.hidden_size = 12288;
    c.model.num_attention_heads = 96;
    c.train.seq_len = 2048;
    c.train.micro_batch = 1;
    c.train.flash_attention = false;  // Korthikanti's Table 2 counts eager attention (the 5as/h score term)
    return c;
}

estimate_result run(const estimate_config& c) {
    auto r = estimate(c);
    INFO((r.errors.empty() ? std::string() : r.errors[0].field + ": " + r.errors[0].message));
    REQUIRE(r.errors.empty());
    return r;
}

u64 model_states(const estimate_result& r) {
    return r.per_gpu.weights + r.per_gpu.gradients + r.per_gpu.optimizer_states;
}

u64 sum_of_parts(const memory_breakdown& b) {
    return b.weights + b.gradients + b.optimizer_states + b.activations + b.logits + b.communication + b.kv_cache +
           b.misc;
}

estimate_config random_config(std::mt19937_64& rng) {
    auto pick = [&](std::initializer_list<u64> values) {
        std::uniform_int_distribution<std::size_t> d(0, values.size() - 1);
        return *(values.begin() + static_cast<std::ptrdiff_t>(d(rng)));
    };
    estimate_config c;
    c.mode = pick({0, 1}) == 0 ? run_mode::train : run_mode::infer;
    c.model.num_hidden_layers = pick({2, 12, 24, 32, 44, 80, 96});
    c.model.num_attention_heads = pick({8, 16, 32, 64});
    c.model.hidden_size = c.model.num_attention_heads * pick({64, 128});
    c.model.num_key_value_heads = c.model.num_attention_heads / pick({1, 2, 8});
    c.model.vocab_size = pick({0, 32000, 50257, 128256});
    c.model.params = pick({0, 125000000, 7000000000ULL, 70000000000ULL});
    c.parallel.tp = pick({1, 2, 4, 8});
    c.parallel.pp = pick({1, 2});
    c.parallel.gpus = c.parallel.tp * c.parallel.pp * pick({1, 2, 8, 64});
    c.parallel.zero_stage = static_cast<std::int64_t>(pick({0, 1, 2, 3}));
    c.parallel.sequence_parallel = pick({0, 1}) == 1;
    c.train.micro_batch = pick({1, 2, 8});
    c.train.seq_len = pick({512, 2048, 8192});
    c.train.recompute = static_cast<recompute_mode>(pick({0, 1, 2}));
    c.train.flash_attention = pick({0, 1}) == 1;
    c.train.optimizer = static_cast<optimizer_kind>(pick({0, 1, 2, 3, 4, 5}));
    c.infer.batch = pick({1, 4, 32});
    c.infer.context_len = pick({1024, 4096, 32768});
    c.misc_bytes = pick({0, 1073741824ULL});
    return c;
}
}  // namespace

TEST_CASE("activations without recompute follow Korthikanti Table 2 with tensor parallelism", "[estimate][paper]") {
    // Korthikanti et al. 2022, Table 2, "tensor parallel (baseline)": sbh(10 + 24/t + 5as/(ht)) per layer.
    estimate_config c = gpt3_175b();
    c.parallel.tp = 8;
    c.parallel.gpus = 8;
    const u64 s = 2048, b = 1, h = 12288, a = 96, t = 8, L = 96;
    // Korthikanti's terms plus the fp32 mean and rstd of the two LayerNorms, 2 · 8 bytes per token,
    // which Table 2 leaves out (activations.cpp counts them as their own tensors).
    const u64 stats = 16 * s * b;
    const u64 per_layer = s * b * h * 10 + s * b * h * 24 / t + 5 * a * s * s * b / t + stats;
    const auto r = run(c);
    CHECK(r.details.layer_activation_bytes == per_layer);
    // Plus the embedding dropout mask, 1 byte per element, not split by tp (Korthikanti §4.3), and
    // the int64 token ids the embedding keeps (8 bytes per token).
    CHECK(r.per_gpu.activations == L * per_layer + s * b * h + 8 * s * b);
}

TEST_CASE("sequence parallelism, selective and full recompute match Korthikanti Table 2", "[estimate][paper]") {
    estimate_config c = gpt3_175b();
    c.parallel.tp = 8;
    c.parallel.gpus = 8;
    const u64 s = 2048, b = 1, h = 12288, a = 96, t = 8, L = 96, sbh = s * b * h;
    // Each section's layers plus the 1-byte embedding dropout mask (Korthikanti §4.3), split by tp
    // only under sequence parallelism.
    const u64 embedding_mask = sbh;
    const u64 ids = 8 * s * b;  // int64 token ids kept by the embedding, whole on each rank
    const u64 stats = 16 * s * b;  // fp32 LayerNorm statistics, not in Table 2 (split by t under SP)
    const u64 lse = 4 * a * s * b / t;  // FlashAttention's fp32 log-sum-exp per head and token
    SECTION("tensor + sequence parallel: sbh(34/t + 5as/(ht))") {
        c.parallel.sequence_parallel = true;
        CHECK(run(c).per_gpu.activations == L * (34 * sbh / t + 5 * a * s * s * b / t + stats / t) + embedding_mask / t + ids);
    }
    SECTION("selective recompute with sequence parallel: 34·sbh/t") {
        c.parallel.sequence_parallel = true;
        c.train.recompute = recompute_mode::selective;
        CHECK(run(c).per_gpu.activations == L * (34 * sbh / t + stats / t) + embedding_mask / t + ids);
    }
    SECTION("selective recompute without sequence parallel: sbh(10 + 24/t)") {
        c.train.recompute = recompute_mode::selective;
        CHECK(run(c).per_gpu.activations == L * (10 * sbh + 24 * sbh / t + stats) + embedding_mask + ids);
    }
    SECTION("full recompute keeps 2sbh per layer plus one layer recomputed during backward") {
        c.train.recompute = recompute_mode::full;
        // The recomputed layer reads its checkpointed input (the 2sbh already kept) in place.
        const u64 one_layer = 10 * sbh + 24 * sbh / t + 5 * a * s * s * b / t + stats;
        CHECK(run(c).per_gpu.activations == L * 2 * sbh + (one_layer - 2 * sbh) + embedding_mask + ids);
    }
    SECTION("FlashAttention drops the 5as/h score term") {
        c.train.flash_attention = true;
        CHECK(run(c).per_gpu.activations == L * (10 * sbh + 24 * sbh / t + stats + lse) + embedding_mask + ids);
    }
    SECTION("without tensor parallelism the layer stores sbh(34 + 5as/h)") {
        c.parallel.tp = 1;
        c.parallel.gpus = 1;
        CHECK(run(c).per_gpu.activations == L * (34 * sbh + 5 * a * s * s * b + stats) + embedding_mask + ids);
    }
}

TEST_CASE("the first pipeline stage holds pp micro-batches of its layers (1F1B)", "[estimate][paper]") {
    // Korthikanti §4.2.3: with 1F1B the first stage stores activations of pp micro-batches of L/pp
    // layers, i.e. as much as the whole unpipelined model.
    estimate_config c = gpt3_175b();
    c.parallel.tp = 8;
    c.parallel.gpus = 64;
    const u64 sbh = 2048ULL * 12288 + 8 * 2048;  // embedding dropout mask and token ids per micro-batch
    const auto single = run(c);
    const u64 layer = single.details.layer_activation_bytes;
    CHECK(single.per_gpu.activations == 96 * layer + sbh);  // all layers, one micro-batch, embedding mask
    c.parallel.pp = 8;
    const auto piped = run(c);
    CHECK(piped.details.stage == 0);
    CHECK(piped.details.layers_on_gpu == 12);
    CHECK(piped.details.microbatches_in_flight == 8);
    CHECK(piped.per_gpu.activations == 12 * 8 * layer + 8 * sbh);  // as much as the unpipelined model
    c.train.microbatches_in_flight = 1;  // e.g. a schedule that keeps one micro-batch in flight
    CHECK(run(c).per_gpu.activations == 12 * layer + sbh);
    c.train.microbatches_in_flight = 0;
    c.parallel.virtual_stages = 2;  // interleaved: × (1 + (pp − 1)/(pp · v)) = 23/16 on the first stage
    CHECK(run(c).per_gpu.activations == (12 * 8 * layer * 23 + 15) / 16 + 8 * sbh);
}

TEST_CASE("gradients and optimizer states are split by tensor parallelism (transformer_mem.py defect fixed)", "[estimate][eleuther]") {
    estimate_config c = gpt3_175b();
    c.model.params = 7000000000ULL;
    c.parallel.tp = 2;
    c.parallel.gpus = 16;  // data parallel 8
    c.parallel.zero_stage = 1;
    const auto r = run(c);
    CHECK(r.data_parallel == 8);
    CHECK(r.per_gpu.weights == 7000000000ULL);              // 2 B × 7e9 / tp 2
    CHECK(r.per_gpu.gradients == 7000000000ULL);            // 2 B × 7e9 / tp 2 (transformer_mem.py forgets tp)
    CHECK(r.per_gpu.optimizer_states == 5250000000ULL);     // 12 B × 3.5e9 / dp 8 (transformer_mem.py divides by 16)
}

TEST_CASE("ZeRO-3 shards the tensor-parallel slice over the data-parallel group only (transformer_mem.py defect fixed)", "[estimate][eleuther]") {
    estimate_config c = gpt3_175b();
    c.model.params = 20000000000ULL;
    c.parallel.tp = 4;
    c.parallel.pp = 2;
    c.parallel.gpus = 64;  // data parallel 8
    c.parallel.zero_stage = 3;
    const auto r = run(c);
    CHECK(r.per_gpu.weights == 2 * 20000000000ULL / 8 / 8);  // transformer_mem.py divides by tp·pp and then by 64
    CHECK(r.per_gpu.gradients == 2 * 20000000000ULL / 8 / 8);
    CHECK(r.per_gpu.optimizer_states == 12 * 20000000000ULL / 8 / 8);
}

TEST_CASE("the ZeRO stage table is the model-state part of an estimate", "[estimate][zero]") {
    estimate_config c = gpt3_175b();
    c.model.params = 7000000000ULL;
    c.parallel.gpus = 8;
    const u64 expected[4] = {112000000000ULL, 38500000000ULL, 26250000000ULL, 14000000000ULL};
    for (std::int64_t s = 0; s <= 3; ++s) {
        c.parallel.zero_stage = s;
        CAPTURE(s);
        CHECK(model_states(run(c)) == expected[s]);
    }
}

TEST_CASE("optimizers keep their published state sizes", "[estimate]") {
    estimate_config c = gpt3_175b();
    c.model.params = 1000000000ULL;
    auto opt = [&](optimizer_kind k, dtype w, bool master) {
        c.train.optimizer = k;
        c.train.weight_dtype = w;
        c.train.master_weights = master;
        return run(c).per_gpu.optimizer_states;
    };
    CHECK(opt(optimizer_kind::adam, dtype::bf16, true) == 12000000000ULL);   // ZeRO §3.1, K = 12
    CHECK(opt(optimizer_kind::adam, dtype::fp32, true) == 8000000000ULL);    // no master copy of fp32 weights
    CHECK(opt(optimizer_kind::adam, dtype::bf16, false) == 8000000000ULL);   // pure bf16 training
    CHECK(opt(optimizer_kind::sgd, dtype::bf16, true) == 4000000000ULL);     // master copy only
    CHECK(opt(optimizer_kind::sgd_momentum, dtype::fp32, true) == 4000000000ULL);
    CHECK(opt(optimizer_kind::lion, dtype::bf16, true) == 8000000000ULL);
    // 8-bit Adam: 2 B states + 2 fp32 absmax per 2048-block (Dettmers et al. 2022), + 4 B master.
    CHECK(opt(optimizer_kind::adam_8bit, dtype::bf16, true) == 6000000000ULL + 8 * 488282ULL);
    c.train.optimizer = optimizer_kind::none;
    const auto frozen = run(c);
    CHECK(frozen.per_gpu.optimizer_states == 0);
    CHECK(frozen.per_gpu.gradients == 0);
}

TEST_CASE("KV cache counts batch, grouped-query attention and dtype (transformer_mem.py defect fixed)", "[estimate][kv]") {
    estimate_config c;
    c.mode = run_mode::infer;
    // Llama-2-7B (Touvron et al. 2023): 32 layers, 32 heads of 128, no GQA.
    c.model.params = 6738415616ULL;
    c.model.num_hidden_layers = 32;
    c.model.hidden_size = 4096;
    c.model.num_attention_heads = 32;
    c.infer.context_len = 4096;
    CHECK(run(c).per_gpu.kv_cache == 2ULL * 1024 * 1024 * 1024);  // exactly 2 GiB per sequence in bf16
    c.infer.batch = 8;
    CHECK(run(c).per_gpu.kv_cache == 16ULL * 1024 * 1024 * 1024);
    c.infer.kv_dtype = dtype::fp8;
    CHECK(run(c).per_gpu.kv_cache == 8ULL * 1024 * 1024 * 1024);
    // Llama-2-70B: 80 layers, 64 heads, 8 KV heads of 128 → 1.25 GiB per 4096-token sequence.
    estimate_config big;
    big.mode = run_mode::infer;
    big.model.params = 68976648192ULL;
    big.model.num_hidden_layers = 80;
    big.model.hidden_size = 8192;
    big.model.num_attention_heads = 64;
    big.model.num_key_value_heads = 8;
    big.infer.context_len = 4096;
    CHECK(run(big).per_gpu.kv_cache == 1342177280ULL);
    // Tensor parallel 8 splits the 8 KV heads; tp 16 would replicate them (each GPU keeps one).
    big.parallel.tp = 8;
    big.parallel.gpus = 8;
    CHECK(run(big).per_gpu.kv_cache == 1342177280ULL / 8);
    big.parallel.tp = 16;
    big.parallel.gpus = 16;
    CHECK(run(big).per_gpu.kv_cache == 1342177280ULL / 8);
}

TEST_CASE("inference activations: a chunked prefill of vLLM's default step, or the whole batch in one pass", "[estimate][prefill]") {
    // Llama 3.1 70B (meta-llama/Llama-3.1-70B config.json): 80 layers, width 8192, 64 heads and 8 KV heads
    // of 128, SwiGLU of 28672, on 2 H100 80GB with tensor parallel 2, 8 sequences of 32,768 tokens.
    estimate_config c;
    c.mode = run_mode::infer;
    c.model.num_hidden_layers = 80;
    c.model.hidden_size = 8192;
    c.model.num_attention_heads = 64;
    c.model.num_key_value_heads = 8;
    c.model.intermediate_size = 28672;
    c.model.mlp = mlp_kind::gated;
    c.model.vocab_size = 128256;
    c.parallel.gpus = 2;
    c.parallel.tp = 2;
    c.infer.batch = 8;
    c.infer.context_len = 32768;
    c.gpu_memory_bytes = 85520809984ULL;  // H100 SXM 80GB as the driver reports it (core/data/gpus.json)
    // Live bf16 bytes of a token inside one layer: the MLP's 2 × 8192 + 3 × 28672 / 2 = 59,392 values.
    const u64 per_token = 59392 * 2;
    // Chunked (the default): vLLM's 8,192 tokens of one step on a GPU of 70 GiB or more.
    const auto chunked = run(c);
    CHECK(chunked.details.prefill_chunk_tokens == 8192);
    CHECK(chunked.details.prefill_pass_tokens == 8192);
    CHECK(chunked.per_gpu.activations == 8192 * per_token);  // 0.906 GiB
    // A smaller GPU: vLLM's 2,048 tokens.
    c.gpu_memory_bytes = 48305799168ULL;  // L40S 48GB as the driver reports it
    CHECK(run(c).per_gpu.activations == 2048 * per_token);
    c.gpu_memory_bytes = 85520809984ULL;
    // The step given (infer.max_num_batched_tokens).
    c.infer.max_num_batched_tokens = 16384;
    CHECK(run(c).per_gpu.activations == 16384 * per_token);
    c.infer.max_num_batched_tokens = 0;
    // A batch smaller than one chunk is prefilled in one pass: 2 sequences of 1,024 tokens.
    estimate_config small = c;
    small.infer.batch = 2;
    small.infer.context_len = 1024;
    CHECK(run(small).details.prefill_pass_tokens == 2048);
    CHECK(run(small).per_gpu.activations == 2048 * per_token);
    // The whole batch in one pass (chunked prefill off): 8 × 32,768 tokens, 29 GiB.
    c.infer.chunked_prefill = false;
    const auto whole = run(c);
    CHECK(whole.details.prefill_chunk_tokens == 0);
    CHECK(whole.details.prefill_pass_tokens == 8 * 32768);
    CHECK(whole.per_gpu.activations == 29ULL * 1024 * 1024 * 1024);
    CHECK(whole.per_gpu.activations == 8ULL * 32768 * per_token);
    // Eager attention, chunked: 32 heads a GPU × the pass's 8,192 queries × 32,768 keys × (2 + 2) B.
    c.infer.chunked_prefill = true;
    c.infer.flash_attention = false;
    CHECK(run(c).per_gpu.activations == 8192 * per_token + 32ULL * 8192 * 32768 * 4);
    // With vLLM's arithmetic the chunk is the step of its profiling run: the same 8,192 tokens.
    c.infer.flash_attention = true;
    c.infer.engine = serving_engine::vllm;
    const auto served = run(c);
    REQUIRE(served.serving.present);
    CHECK(served.details.prefill_chunk_tokens == 8192);
    bool profiled = false;
    for (const auto& row : served.serving.breakdown)
        if (row.term == "activation_peak_bytes" && row.label == "profiling peak: forward at 8,192 tokens") profiled = true;
    CHECK(profiled);
}

TEST_CASE("an architecture without params is counted as a GPT model", "[estimate]") {
    // GPT-2 small-like: 12 layers, 768 wide, vocabulary 50257: 12·(12h² + 13h) + Vh + 2h (no positions).
    estimate_config c;
    c.model.num_hidden_layers = 12;
    c.model.hidden_size = 768;
    c.model.num_attention_heads = 12;
    c.model.vocab_size = 50257;
    const u64 h = 768;
    CHECK(run(c).params == 12 * (12 * h * h + 13 * h) + 50257 * h + 2 * h);
}

TEST_CASE("logits are their own row on the last stage", "[estimate]") {
    estimate_config c = gpt3_175b();
    c.model.vocab_size = 51200;
    const auto r = run(c);
    CHECK(r.per_gpu.logits == 2048ULL * 51200 * 6);  // bf16 logits + fp32 softmax
    c.parallel.tp = 8;
    c.parallel.gpus = 8;
    CHECK(run(c).per_gpu.logits == 2048ULL * 6400 * 6);
}

TEST_CASE("total is the sum of the parts, on 3000 random configurations", "[estimate][invariant]") {
    std::mt19937_64 rng(42);
    int valid = 0;
    for (int i = 0; i < 3000; ++i) {
        const auto c = random_config(rng);
        const auto r = estimate(c);
        if (!r.errors.empty()) continue;
        ++valid;
        REQUIRE(r.per_gpu.total == sum_of_parts(r.per_gpu));
        REQUIRE(r.per_gpu.total <= max_exact_integer);
    }
    CHECK(valid > 1500);
}

TEST_CASE("more GPUs never raise per-GPU model states — stage k+1 never above stage k", "[estimate][invariant]") {
    // Checked on 500 random layouts, data parallel 1 to 1024.
    std::mt19937_64 rng(99);
    for (int i = 0; i < 500; ++i) {
        auto c = random_config(rng);
        c.mode = run_mode::train;
        c.parallel.gpus = c.parallel.tp * c.parallel.pp;
        if (!estimate(c).errors.empty()) continue;
        u64 previous_states[4] = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX};
        for (u64 dp = 1; dp <= 1024; dp *= 2) {
            c.parallel.gpus = c.parallel.tp * c.parallel.pp * dp;
            // Model states only: ZeRO's communication buckets can make a higher stage's total
            // larger at small data-parallel degrees, which the page shows as it is.
            u64 previous_stage = UINT64_MAX;
            for (std::int64_t s = 0; s <= 3; ++s) {
                c.parallel.zero_stage = s;
                const auto r = run(c);
                CAPTURE(i, dp, s);
                REQUIRE(model_states(r) <= previous_states[s]);
                REQUIRE(model_states(r) <= previous_stage);
                previous_states[s] = model_states(r);
                previous_stage = model_states(r);
            }
        }
    }
}

TEST_CASE("the fit verdict compares the larger of the total and the step's peak with the GPU's capacity", "[estimate]") {
    estimate_config c = gpt3_175b();
    c.model.params = 1000000000ULL;
    const auto first = run(c);
    const auto total = std::max(first.per_gpu.total, first.details.phases.peak_bytes);
    c.gpu_memory_bytes = total;
    auto r = run(c);
    CHECK(r.fits);
    CHECK(r.headroom_bytes == 0);
    c.gpu_memory_bytes = total - 1;
    r = run(c);
    CHECK_FALSE(r.fits);
    CHECK(r.shortfall_bytes == 1);
}

TEST_CASE("invalid layouts and models are errors naming the field", "[estimate][errors]") {
    auto first_error = [](const estimate_config& c) {
        const auto r = estimate(c);
        REQUIRE_FALSE(r.errors.empty());
        CHECK(r.per_gpu.total == 0);
        return r.errors.front();
    };
    estimate_config c = gpt3_175b();
    SECTION("gpus not a multiple of tp·pp") {
        c.parallel.tp = 8;
        c.parallel.pp = 2;
        c.parallel.gpus = 24;
        const auto e = first_error(c);
        CHECK(e.field == "parallel.gpus");
        CHECK(e.message == "must be a multiple of parallel.tp × parallel.pp (16)");
    }
    SECTION("heads not divisible by tp") {
        c.parallel.tp = 5;
        c.parallel.gpus = 5;
        const auto e = first_error(c);
        CHECK(e.field == "parallel.tp");
        CHECK(e.message == "must divide model.num_attention_heads (96)");
    }
    SECTION("KV heads not dividing heads") {
        c.model.num_key_value_heads = 7;
        CHECK(first_error(c).field == "model.num_key_value_heads");
    }
    SECTION("hidden size not divisible by heads without head_dim") {
        c.model.hidden_size = 12289;
        CHECK(first_error(c).field == "model.hidden_size");
    }
    SECTION("more pipeline stages than layers") {
        c.model.num_hidden_layers = 4;
        c.parallel.pp = 8;
        c.parallel.gpus = 8;
        CHECK(first_error(c).field == "parallel.pp");
    }
    SECTION("a parameter count alone cannot give activations") {
        estimate_config bare;
        bare.model.params = 7000000000ULL;
        const auto r = estimate(bare);
        REQUIRE(r.errors.size() == 3);
        CHECK(r.errors[0].field == "model.num_hidden_layers");
        CHECK(r.errors[0].message == "is required for activation memory");
    }
    SECTION("no model at all") {
        CHECK(first_error(estimate_config{}).field == "model.params");
    }
    SECTION("zero GPUs, zero batch, zero sequence, bad stage") {
        c.parallel.gpus = 0;
        c.train.micro_batch = 0;
        c.train.seq_len = 0;
        c.parallel.zero_stage = 7;
        const auto r = estimate(c);
        REQUIRE(r.errors.size() == 4);
        CHECK(r.errors[0].field == "parallel.gpus");
        CHECK(r.errors[0].message == "must be an integer from 1 to 1048576");
        CHECK(r.errors[1].field == "parallel.zero_stage");
        CHECK(r.errors[2].field == "train.micro_batch");
        CHECK(r.errors[3].field == "train.seq_len");
    }
    SECTION("sizes beyond 2^53 bytes are refused, not wrapped") {
        c.model.num_hidden_layers = 65536;
        c.model.hidden_size = 1024;
        c.model.num_attention_heads = 8;
        c.train.seq_len = 16777216;
        c.train.micro_batch = 1048576;
        const auto e = first_error(c);
        CHECK(e.field == "per_gpu.activations");
    }
}

TEST_CASE("the CUDA context is its own row, by default PyTorch's measured context, and editable", "[estimate][overhead]") {
    // pytorch/pytorch pull request 86509: with CUDA_MODULE_LOADING=LAZY, one small tensor op leaves
    // total - free = 287,047,680 B (666,632,192 B with eager module loading).
    estimate_config c = gpt3_175b();
    c.parallel.gpus = 64;
    c.parallel.tp = 8;
    c.parallel.pp = 8;
    const estimate_result r = estimate(c);
    REQUIRE(r.errors.empty());
    CHECK(r.per_gpu.misc == 287047680ULL);
    estimate_config none = c;
    none.misc_bytes = 0;
    const estimate_result z = estimate(none);
    REQUIRE(z.errors.empty());
    CHECK(z.per_gpu.misc == 0);
    CHECK(r.per_gpu.total - z.per_gpu.total == 287047680ULL);  // added as is, nothing else moves
    CHECK(r.per_gpu.activations == z.per_gpu.activations);
}
