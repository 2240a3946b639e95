// Property test: random valid configurations (preset models and random architectures, dense and
// MoE, under random layouts) through memplan::estimate, asserting invariants that hold for every
// input (docs/reliability.md):
//   - every reported number is at most 2^53 and per_gpu.total is the sum of the parts;
//   - the fit verdict agrees with the total and the capacity;
//   - more data-parallel replicas (same tp, pp, cp) never raise per-GPU weights + gradients +
//     optimizer states, nor the total;
//   - a higher ZeRO stage never raises weights + gradients + optimizer states;
//   - a larger micro-batch never lowers activations, nor the total;
//   - inference: a longer context or a larger batch never lowers the KV cache, nor the total;
//   - the configuration written as JSON (schema v1) gives the same result text through estimate_json.
// Each part is per GPU for the most loaded pipeline stage; a change can make another stage the most
// loaded one, and then a single part may move either way while the total (a maximum of monotone
// functions) keeps its direction. The per-part properties are therefore asserted when the reported
// stage stays the same (always with pp = 1); the total always.
//
// MEMPLAN_PROPERTY_SEED (default 20261130) and MEMPLAN_PROPERTY_CASES (default 100000; 20000
// under AddressSanitizer) change the run; the seed is printed so that a failure can be replayed.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "memplan/api/estimate.hpp"
#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"
#include "memplan/io/presets.hpp"

using namespace memplan;

#if defined(__SANITIZE_ADDRESS__)
#define MEMPLAN_PROPERTY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEMPLAN_PROPERTY_ASAN 1
#endif
#endif
#ifndef MEMPLAN_PROPERTY_ASAN
#define MEMPLAN_PROPERTY_ASAN 0
#endif

namespace {

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') return fallback;
    return std::strtoull(text, nullptr, 10);
}

/// A small deterministic generator (the same sequence with every standard library).
class rng {
public:
    explicit rng(std::uint64_t seed) : engine_(seed) {}
    std::uint64_t below(std::uint64_t n) { return engine_() % n; }            // 0 … n−1
    std::uint64_t range(std::uint64_t lo, std::uint64_t hi) { return lo + below(hi - lo + 1); }
    bool chance(unsigned percent) { return below(100) < percent; }
    template <class T>
    T pick(const std::vector<T>& items) { return items[below(items.size())]; }

private:
    std::mt19937_64 engine_;
};

std::vector<std::uint64_t> divisors(std::uint64_t n) {
    std::vector<std::uint64_t> out;
    for (std::uint64_t d = 1; d <= n; ++d)
        if (n % d == 0) out.push_back(d);
    return out;
}

/// The stored preset models, parsed once.
const std::vector<model_config>& preset_models() {
    static const std::vector<model_config> models = [] {
        std::vector<model_config> out;
        std::size_t count = 0;
        const model_preset* table = model_presets(count);
        for (std::size_t i = 0; i < count; ++i) {
            const auto parsed = parse_config(std::string(R"({"model":{"preset":")") + table[i].id + "\"}}");
            if (parsed.ok()) out.push_back(parsed.value.model);
        }
        return out;
    }();
    return models;
}

model_config random_architecture(rng& g) {
    model_config m;
    m.num_hidden_layers = g.chance(20) ? g.range(1, 8) : g.range(1, 128);
    m.num_attention_heads = g.pick<std::uint64_t>({1, 2, 4, 6, 8, 12, 16, 20, 24, 32, 40, 48, 56, 64, 96, 128});
    const std::uint64_t head = g.pick<std::uint64_t>({16, 32, 64, 80, 96, 128, 192, 256});
    m.hidden_size = m.num_attention_heads * head;  // hidden a multiple of the heads
    if (g.chance(10)) m.head_dim = g.pick<std::uint64_t>({64, 128, 256});  // Gemma-style explicit head size
    if (g.chance(70)) m.num_key_value_heads = g.pick(divisors(m.num_attention_heads));  // GQA / MQA
    if (g.chance(70)) m.intermediate_size = m.hidden_size * g.range(1, 16) / 4 + 64 * g.below(4);
    if (g.chance(85)) m.vocab_size = g.chance(50) ? g.range(1000, 262144) : g.pick<std::uint64_t>({32000, 50257, 128256, 151936});
    m.tie_word_embeddings = g.chance(40);
    if (g.chance(10)) m.learned_positions = g.pick<std::uint64_t>({1024, 2048, 8192});
    m.norm = g.chance(50) ? norm_kind::rmsnorm : norm_kind::layernorm;
    m.norms_per_layer = g.chance(85) ? 2 : g.range(0, 4);
    m.mlp = g.chance(60) ? mlp_kind::gated : mlp_kind::plain;
    m.qkv_bias = g.chance(40);
    m.attention_out_bias = g.chance(40);
    m.mlp_bias = g.chance(40);
    m.dropout = g.chance(30);
    if (g.chance(25)) {  // mixture of experts
        m.num_experts = g.pick<std::uint64_t>({2, 4, 8, 16, 32, 60, 64, 128});
        m.experts_per_token = g.range(1, std::min<std::uint64_t>(8, m.num_experts));
        if (g.chance(60)) m.moe_intermediate_size = 64 * g.range(4, 64);
        if (g.chance(30)) m.shared_expert_intermediate_size = 64 * g.range(4, 128);
    }
    if (g.chance(15)) {  // sliding-window attention
        m.sliding_window = g.pick<std::uint64_t>({512, 1024, 4096, 8192});
        m.sliding_window_layers = g.range(0, m.num_hidden_layers);
    }
    if (g.chance(10)) m.params = g.range(1000000, 2000000000000ULL);  // an explicit count as well
    return m;
}

std::uint64_t resolved_kv(const model_config& m) {
    return m.num_key_value_heads != 0 ? m.num_key_value_heads : m.num_attention_heads;
}

estimate_config random_config(rng& g) {
    estimate_config c;
    const auto& presets = preset_models();
    c.model = (g.chance(25) && !presets.empty()) ? g.pick(presets) : random_architecture(g);
    const model_config& m = c.model;
    c.mode = g.chance(65) ? run_mode::train : run_mode::infer;

    parallel_config& p = c.parallel;
    std::vector<std::uint64_t> tps;  // Megatron: tp divides the heads; KV heads split or are replicated
    for (std::uint64_t t : {1, 2, 4, 8, 16})
        if (m.num_attention_heads % t == 0 && (resolved_kv(m) % t == 0 || t % resolved_kv(m) == 0)) tps.push_back(t);
    p.tp = g.chance(40) ? 1 : g.pick(tps);
    p.pp = g.chance(50) ? 1 : g.range(1, std::min<std::uint64_t>(16, m.num_hidden_layers));
    if (p.pp > 1 && g.chance(20) && 2 * p.pp <= m.num_hidden_layers) p.virtual_stages = 2;
    p.cp = g.chance(80) ? 1 : g.pick<std::uint64_t>({2, 4});
    const std::uint64_t dp = g.chance(50) ? g.pick<std::uint64_t>({1, 2, 4, 8, 16, 32, 64, 128}) : g.range(1, 96);
    p.gpus = dp * p.tp * p.pp * p.cp;
    const std::uint64_t replicas = dp * p.cp;
    if (m.num_experts != 0 && g.chance(50)) {
        std::vector<std::uint64_t> eps;
        for (std::uint64_t e : divisors(replicas))
            if (m.num_experts % e == 0 && e <= 1024) eps.push_back(e);
        p.ep = g.pick(eps);
    }
    p.zero_stage = static_cast<std::int64_t>(g.below(4));
    if (g.chance(15)) p.zero_shard_size = g.pick(divisors(replicas));
    p.sequence_parallel = p.tp > 1 && g.chance(50);
    p.partition_activations = g.chance(20);
    if (g.chance(30)) p.zero_bucket_params = g.pick<std::uint64_t>({0, 200000000, 500000000});
    if (g.chance(30)) p.zero3_max_live_params = g.pick<std::uint64_t>({0, 100000000, 1000000000});
    if (g.chance(20)) p.offload_optimizer = g.chance(50) ? offload_target::cpu : offload_target::nvme;
    if (p.zero_stage == 3 && g.chance(20)) p.offload_params = g.chance(50) ? offload_target::cpu : offload_target::nvme;
    p.gpus_per_node = g.pick<std::uint64_t>({1, 4, 8, 16});

    train_config& t = c.train;
    t.micro_batch = g.chance(50) ? g.range(1, 8) : g.range(1, 64);
    t.seq_len = p.cp * (g.chance(60) ? g.pick<std::uint64_t>({512, 1024, 2048, 4096, 8192}) : g.range(1, 16384));
    t.recompute = g.pick<recompute_mode>({recompute_mode::none, recompute_mode::selective, recompute_mode::full});
    t.flash_attention = g.chance(60);
    const std::vector<dtype> train_types = {dtype::fp32, dtype::bf16, dtype::bf16, dtype::fp16, dtype::fp8};
    t.weight_dtype = g.pick(train_types);
    t.grad_dtype = g.pick<dtype>({dtype::fp32, dtype::bf16, dtype::fp16});
    t.master_weights = g.chance(85);
    t.optimizer = g.pick<optimizer_kind>({optimizer_kind::adam, optimizer_kind::adam, optimizer_kind::adam_8bit,
                                          optimizer_kind::sgd, optimizer_kind::sgd_momentum, optimizer_kind::lion,
                                          optimizer_kind::adafactor, optimizer_kind::none});
    if (g.chance(20)) t.microbatches_in_flight = g.range(1, 2 * p.pp);

    infer_config& i = c.infer;
    i.batch = g.chance(50) ? g.range(1, 16) : g.range(1, 512);
    i.context_len = g.chance(50) ? g.pick<std::uint64_t>({2048, 4096, 8192, 32768, 131072}) : g.range(1, 200000);
    i.weight_dtype = g.pick<dtype>({dtype::fp32, dtype::bf16, dtype::fp16, dtype::fp8, dtype::int8, dtype::int4});
    i.kv_dtype = g.pick<dtype>({dtype::fp32, dtype::bf16, dtype::fp16, dtype::fp8, dtype::int8, dtype::int4});
    if ((i.weight_dtype == dtype::int4 || i.weight_dtype == dtype::int8) && g.chance(60))
        i.quant_group_size = g.pick<std::uint64_t>({32, 64, 128});
    i.flash_attention = g.chance(70);
    if (g.chance(20)) i.prefill_tokens = g.range(1, i.context_len);
    i.chunked_prefill = g.chance(70);

    if (g.chance(5)) {  // the edges of the accepted ranges: results beyond 2^53 bytes must be refused
        t.micro_batch = g.range(1, 1048576);
        t.seq_len = p.cp * g.range(1, 16777216 / p.cp);
        i.batch = g.range(1, 1048576);
        i.context_len = g.range(1, 16777216);
        i.prefill_tokens = 0;
    }
    if (g.chance(40)) c.misc_bytes = g.range(0, 4000000000ULL);
    if (g.chance(70)) c.gpu_memory_bytes = g.pick<std::uint64_t>({16000000000ULL, 24000000000ULL, 40000000000ULL,
                                                                  80000000000ULL, 141000000000ULL, 192000000000ULL});
    return c;
}

/// The configuration as schema-v1 JSON: for failure messages and the JSON-path property.
std::string describe(const estimate_config& c) {
    using json = nlohmann::ordered_json;
    const model_config& m = c.model;
    json model;
    const auto positive = [&model](const char* key, std::uint64_t value) {
        if (value != 0) model[key] = value;
    };
    positive("params", m.params);
    positive("num_hidden_layers", m.num_hidden_layers);
    positive("hidden_size", m.hidden_size);
    positive("num_attention_heads", m.num_attention_heads);
    positive("num_key_value_heads", m.num_key_value_heads);
    positive("head_dim", m.head_dim);
    positive("intermediate_size", m.intermediate_size);
    positive("vocab_size", m.vocab_size);
    model["tie_word_embeddings"] = m.tie_word_embeddings;
    model["learned_positions"] = m.learned_positions;
    model["norm"] = to_string(m.norm);
    model["norms_per_layer"] = m.norms_per_layer;
    model["mlp"] = to_string(m.mlp);
    model["qkv_bias"] = m.qkv_bias;
    model["attention_out_bias"] = m.attention_out_bias;
    model["mlp_bias"] = m.mlp_bias;
    model["dropout"] = m.dropout;
    model["num_local_experts"] = m.num_experts;
    model["num_experts_per_tok"] = m.experts_per_token;
    positive("moe_intermediate_size", m.moe_intermediate_size);
    model["shared_expert_intermediate_size"] = m.shared_expert_intermediate_size;
    model["sliding_window"] = m.sliding_window;
    model["sliding_window_layers"] = m.sliding_window_layers;
    const parallel_config& p = c.parallel;
    json parallel = {{"gpus", p.gpus},
                     {"tp", p.tp},
                     {"pp", p.pp},
                     {"cp", p.cp},
                     {"ep", p.ep},
                     {"virtual_stages", p.virtual_stages},
                     {"zero_stage", p.zero_stage},
                     {"sequence_parallel", p.sequence_parallel},
                     {"partition_activations", p.partition_activations},
                     {"zero_bucket_params", p.zero_bucket_params},
                     {"zero3_max_live_params", p.zero3_max_live_params},
                     {"offload_optimizer", to_string(p.offload_optimizer)},
                     {"offload_params", to_string(p.offload_params)},
                     {"gpus_per_node", p.gpus_per_node}};
    if (p.zero_shard_size != 0) parallel["zero_shard_size"] = p.zero_shard_size;
    const train_config& t = c.train;
    json train = {{"micro_batch", t.micro_batch},         {"seq_len", t.seq_len},
                  {"recompute", to_string(t.recompute)},  {"flash_attention", t.flash_attention},
                  {"weight_dtype", to_string(t.weight_dtype)}, {"grad_dtype", to_string(t.grad_dtype)},
                  {"master_weights", t.master_weights},  {"optimizer", to_string(t.optimizer)}};
    if (t.microbatches_in_flight != 0) train["microbatches_in_flight"] = t.microbatches_in_flight;
    const infer_config& i = c.infer;
    json infer = {{"batch", i.batch},
                  {"context_len", i.context_len},
                  {"weight_dtype", to_string(i.weight_dtype)},
                  {"kv_dtype", to_string(i.kv_dtype)},
                  {"flash_attention", i.flash_attention}};
    if (i.quant_group_size != 0) infer["quant_group_size"] = i.quant_group_size;
    if (i.prefill_tokens != 0) infer["prefill_tokens"] = i.prefill_tokens;
    infer["chunked_prefill"] = i.chunked_prefill;
    json out = {{"version", 1}, {"mode", to_string(c.mode)}, {"model", model}, {"parallel", parallel},
                {"train", train}, {"infer", infer}, {"overhead", {{"misc_bytes", c.misc_bytes}}}};
    if (c.gpu_memory_bytes != 0) out["gpu"] = {{"memory_bytes", c.gpu_memory_bytes}};
    return out.dump();
}

std::uint64_t states(const estimate_result& r) {
    return r.per_gpu.weights + r.per_gpu.gradients + r.per_gpu.optimizer_states;
}

/// Counts of the checks made, for the summary line (a property never checked cannot fail).
struct tally {
    std::uint64_t valid = 0, rejected = 0, json_checked = 0;
    std::uint64_t dp_part = 0, dp_total = 0, zero_part = 0, batch_part = 0, batch_total = 0;
    std::uint64_t kv_part = 0, kv_total = 0, skipped_out_of_range = 0;
};

/// Bounds, sum and verdict of one result; `what` names the configuration in the failure message.
void check_result(const estimate_result& r, const estimate_config& c, const char* what) {
    const std::uint64_t cap = max_exact_integer;
    const memory_breakdown& b = r.per_gpu;
    const estimate_details& d = r.details;
    for (std::uint64_t value : {r.params, r.data_parallel, b.weights, b.gradients, b.optimizer_states, b.activations,
                                b.logits, b.communication, b.kv_cache, b.misc, b.total, d.params_active,
                                d.params_on_gpu, d.layer_activation_bytes, d.quantization_overhead_bytes,
                                d.kv_cache_bytes_per_token, d.host_bytes_per_node, d.nvme_bytes_per_node,
                                r.headroom_bytes, r.shortfall_bytes})
        if (value > cap) FAIL(what << ": a number above 2^53: " << value << "\n" << describe(c));
    for (const auto& tensor : d.layer_activations)
        if (tensor.bytes > cap) FAIL(what << ": tensor " << tensor.name << " above 2^53\n" << describe(c));
    const std::uint64_t sum = b.weights + b.gradients + b.optimizer_states + b.activations + b.logits +
                              b.communication + b.kv_cache + b.misc;
    if (b.total != sum) FAIL(what << ": total " << b.total << " != sum of parts " << sum << "\n" << describe(c));
    if (b.misc != c.misc_bytes) FAIL(what << ": misc is not overhead.misc_bytes\n" << describe(c));
    if (r.data_parallel * c.parallel.tp * c.parallel.pp * c.parallel.cp != c.parallel.gpus)
        FAIL(what << ": data_parallel × tp × pp × cp != gpus\n" << describe(c));
    if (c.mode == run_mode::infer && (b.gradients != 0 || b.optimizer_states != 0))
        FAIL(what << ": inference with gradients or optimizer states\n" << describe(c));
    if (c.mode == run_mode::train && b.kv_cache != 0) FAIL(what << ": training with a KV cache\n" << describe(c));
    if (r.has_capacity != (c.gpu_memory_bytes != 0)) FAIL(what << ": has_capacity is wrong\n" << describe(c));
    if (r.has_capacity) {
        // The verdict's figure: the total, or in training the larger of it and the step's peak.
        const std::uint64_t needed = c.mode == run_mode::train ? std::max(b.total, r.details.phases.peak_bytes) : b.total;
        const bool fits = needed <= c.gpu_memory_bytes;
        if (r.needed_bytes != needed || r.fits != fits || r.headroom_bytes != (fits ? c.gpu_memory_bytes - needed : 0) ||
            r.shortfall_bytes != (fits ? 0 : needed - c.gpu_memory_bytes))
            FAIL(what << ": fits/headroom/shortfall disagree with the total and the step's peak\n" << describe(c));
    }
}

/// estimate() of a changed configuration; false (and counted) when the change left the ranges.
bool variant(const estimate_config& c, estimate_result& out, tally& t) {
    out = estimate(c);
    if (!out.errors.empty()) {
        ++t.skipped_out_of_range;
        return false;
    }
    check_result(out, c, "changed configuration");
    return true;
}

void check_properties(const estimate_config& c, const estimate_result& r, tally& t, rng& g) {
    const bool same_stage_always = c.parallel.pp == 1;
    estimate_result v;
    if (c.mode == run_mode::train) {
        // More data-parallel replicas: double dp (keeps ep and zero_shard_size dividing dp × cp).
        if (c.parallel.gpus * 2 <= max_gpu_count) {
            estimate_config more = c;
            more.parallel.gpus *= 2;
            if (variant(more, v, t)) {
                if (same_stage_always || v.details.stage == r.details.stage) {
                    ++t.dp_part;
                    if (states(v) > states(r))
                        FAIL("twice the GPUs raised weights + gradients + optimizer states from "
                             << states(r) << " to " << states(v) << "\n" << describe(c));
                }
                ++t.dp_total;
                if (v.per_gpu.total > r.per_gpu.total)
                    FAIL("twice the GPUs raised the total from " << r.per_gpu.total << " to " << v.per_gpu.total
                                                                << "\n" << describe(c));
            }
        }
        // A higher ZeRO stage.
        if (c.parallel.zero_stage < 3) {
            estimate_config higher = c;
            higher.parallel.zero_stage = c.parallel.zero_stage + 1 + static_cast<std::int64_t>(g.below(
                                             static_cast<std::uint64_t>(2 - c.parallel.zero_stage + 1)));
            if (variant(higher, v, t) && (same_stage_always || v.details.stage == r.details.stage)) {
                ++t.zero_part;
                if (states(v) > states(r))
                    FAIL("ZeRO stage " << higher.parallel.zero_stage << " raised weights + gradients + optimizer "
                                       << "states from " << states(r) << " to " << states(v) << "\n" << describe(c));
            }
        }
        // A larger micro-batch.
        estimate_config larger = c;
        larger.train.micro_batch = c.train.micro_batch + g.range(1, c.train.micro_batch);
        if (variant(larger, v, t)) {
            if (same_stage_always || v.details.stage == r.details.stage) {
                ++t.batch_part;
                if (v.per_gpu.activations < r.per_gpu.activations)
                    FAIL("micro-batch " << larger.train.micro_batch << " lowered activations from "
                                        << r.per_gpu.activations << " to " << v.per_gpu.activations << "\n"
                                        << describe(c));
            }
            ++t.batch_total;
            if (v.per_gpu.total < r.per_gpu.total)
                FAIL("micro-batch " << larger.train.micro_batch << " lowered the total\n" << describe(c));
        }
    } else {
        // A longer context, then a larger batch.
        for (int which = 0; which < 2; ++which) {
            estimate_config longer = c;
            if (which == 0) longer.infer.context_len = std::min<std::uint64_t>(16777216, c.infer.context_len + g.range(1, c.infer.context_len));
            else longer.infer.batch = std::min<std::uint64_t>(1048576, c.infer.batch + g.range(1, c.infer.batch));
            if (!variant(longer, v, t)) continue;
            if (same_stage_always || v.details.stage == r.details.stage) {
                ++t.kv_part;
                if (v.per_gpu.kv_cache < r.per_gpu.kv_cache)
                    FAIL((which == 0 ? "a longer context" : "a larger batch")
                         << " lowered the KV cache from " << r.per_gpu.kv_cache << " to " << v.per_gpu.kv_cache
                         << "\n" << describe(c));
            }
            ++t.kv_total;
            if (v.per_gpu.total < r.per_gpu.total)
                FAIL((which == 0 ? "a longer context" : "a larger batch") << " lowered the total\n" << describe(c));
        }
    }
}
}  // namespace

TEST_CASE("property: random valid configurations keep the estimate's invariants", "[property]") {
    const std::uint64_t seed = env_number("MEMPLAN_PROPERTY_SEED", 20261130);
    const std::uint64_t cases = env_number("MEMPLAN_PROPERTY_CASES", MEMPLAN_PROPERTY_ASAN ? 20000 : 100000);
    std::printf("property: seed %llu (MEMPLAN_PROPERTY_SEED), %llu valid configurations (MEMPLAN_PROPERTY_CASES)\n",
                static_cast<unsigned long long>(seed), static_cast<unsigned long long>(cases));
    std::fflush(stdout);
    INFO("MEMPLAN_PROPERTY_SEED=" << seed);
    REQUIRE(preset_models().size() >= 10);  // the presets parse, so they are part of the draw
    rng g(seed);
    tally t;
    const auto start = std::chrono::steady_clock::now();
    while (t.valid < cases) {
        const estimate_config c = random_config(g);
        const estimate_result r = estimate(c);
        if (!r.errors.empty()) {
            // Valid by construction except results beyond 2^53 bytes: those are refused with a message.
            ++t.rejected;
            const std::string& message = r.errors[0].message;
            const std::string& field = r.errors[0].field;
            const bool overflow = message.find("2^53") != std::string::npos ||
                                  message.find("562949953421312") != std::string::npos ||
                                  field.rfind("per_gpu.", 0) == 0 || field.rfind("details.", 0) == 0;
            if (!overflow)
                FAIL("a configuration valid by construction was refused: " << r.errors[0].field << " "
                                                                           << r.errors[0].message << "\n"
                                                                           << describe(c));
            continue;
        }
        ++t.valid;
        check_result(r, c, "configuration");
        check_properties(c, r, t, g);
        // The JSON path gives the same result as the C++ structs. describe() writes memplan's plain
        // model keys, so only random architectures (no family: model_type "") can be written out;
        // preset families carry per-layer structure that the JSON path names by the preset instead.
        if (t.valid % 64 == 0 && c.model.model_type.empty()) {
            ++t.json_checked;
            const std::string text = describe(c);
            const auto parsed = parse_config(text);  // the echo is of the configuration as read back
            if (!parsed.ok() || estimate_json(text) != to_json(r, &parsed.value))
                FAIL("estimate_json differs from estimate()\n" << text);
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("property: %llu valid, %llu refused beyond 2^53/2^49, %llu changed configurations out of range; "
                "checked: dp %llu parts / %llu totals, zero %llu, micro-batch %llu / %llu, kv %llu / %llu, "
                "json %llu; %.1f s\n",
                static_cast<unsigned long long>(t.valid), static_cast<unsigned long long>(t.rejected),
                static_cast<unsigned long long>(t.skipped_out_of_range), static_cast<unsigned long long>(t.dp_part),
                static_cast<unsigned long long>(t.dp_total), static_cast<unsigned long long>(t.zero_part),
                static_cast<unsigned long long>(t.batch_part), static_cast<unsigned long long>(t.batch_total),
                static_cast<unsigned long long>(t.kv_part), static_cast<unsigned long long>(t.kv_total),
                static_cast<unsigned long long>(t.json_checked), seconds);
    // Every property was exercised many times (a property never checked cannot fail).
    CHECK(t.valid == cases);
    CHECK(t.dp_part > cases / 10);
    CHECK(t.zero_part > cases / 10);
    CHECK(t.batch_part > cases / 10);
    CHECK(t.kv_part > cases / 10);
    CHECK(t.json_checked >= cases / 128);  // every 64th valid one with a random architecture (about 3 in 4)
}
