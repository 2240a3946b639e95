// Activations counted tensor by tensor: Korthikanti et al. 2022 Table 2 on their Table 3
// configurations, recompute modes, hand-derived Llama blocks, FlashAttention, sequence parallelism,
// MoE, and invariants. (Measured agreement with PyTorch: tests/validation, docs/validation.md.)
#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <tuple>

#include "memplan/memory/activations.hpp"
#include "memplan/model/arch.hpp"

using namespace memplan;

namespace {

using u64 = std::uint64_t;

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Korthikanti's tensors: everything except the norm statistics, which the paper ignores.
u64 korthikanti_sum(const std::vector<activation_tensor>& tensors) {
    u64 sum = 0;
    for (const auto& t : tensors)
        if (!ends_with(t.name, ".stats")) sum += t.bytes;
    return sum;
}

u64 stats_sum(const std::vector<activation_tensor>& tensors) { return total_bytes(tensors) - korthikanti_sum(tensors); }

u64 bytes_of(const std::vector<activation_tensor>& tensors, const std::string& name) {
    for (const auto& t : tensors)
        if (t.name == name) return t.bytes;
    FAIL("no tensor " << name);
    return 0;
}

bool has(const std::vector<activation_tensor>& tensors, const std::string& name) {
    for (const auto& t : tensors)
        if (t.name == name) return true;
    return false;
}

/// GPT-3-style block (Korthikanti's assumptions): LayerNorm, plain MLP 4h, dropout, a = kv heads.
layer_activation_input gpt(u64 h, u64 a, u64 s, u64 b, u64 t, bool sp) {
    layer_activation_input in;
    in.model = family_defaults("");
    in.model.hidden_size = h;
    in.model.num_attention_heads = a;
    in.model.num_hidden_layers = 1;
    in.seq_len = s;
    in.micro_batch = b;
    in.tp = t;
    in.sequence_parallel = sp;
    return in;
}

layer_activation_input llama(u64 h, u64 a, u64 kv, u64 f, u64 s, u64 b) {
    layer_activation_input in;
    in.model = family_defaults("llama");
    in.model.hidden_size = h;
    in.model.num_attention_heads = a;
    in.model.num_key_value_heads = kv;
    in.model.intermediate_size = f;
    in.model.num_hidden_layers = 1;
    in.seq_len = s;
    in.micro_batch = b;
    return in;
}

}  // namespace

// Korthikanti et al. 2022, Table 3 (configurations; s = 2048, t = 8): 22B h 6144 a 64 L 48; 175B h 12288
// a 96 L 96; 530B h 20480 a 128 L 105; 1T h 25600 a 160 L 128. Per-layer formulas from Table 2.
TEST_CASE("a GPT-3-style layer reduces to Korthikanti Table 2 on the paper's configurations", "[activations][paper]") {
    u64 h = 0, a = 0, L = 0, b = 0;
    std::tie(h, a, L, b) = GENERATE(table<u64, u64, u64, u64>({
        {6144, 64, 48, 1},    // 22B
        {12288, 96, 96, 1},   // 175B
        {20480, 128, 105, 1}, // 530B
        {25600, 160, 128, 1}, // 1T
        {6144, 64, 48, 4},    // 22B, micro-batch 4
    }));
    const u64 s = 2048, t = 8;
    CAPTURE(h, a, L, s, b, t);
    const u64 sbh = s * b * h, scores = 5 * a * s * s * b;

    SECTION("no parallelism: sbh(34 + 5as/h)") {
        const auto tensors = layer_activation_tensors(gpt(h, a, s, b, 1, false));
        CHECK(korthikanti_sum(tensors) == 34 * sbh + scores);
        CHECK(stats_sum(tensors) == 2 * 2 * s * b * 4);  // two LayerNorms, fp32 mean and rstd per token
        CHECK(L * korthikanti_sum(tensors) == L * (34 * sbh + scores));
    }
    SECTION("tensor parallelism: sbh(10 + 24/t + 5as/(ht))") {
        CHECK(korthikanti_sum(layer_activation_tensors(gpt(h, a, s, b, t, false))) ==
              10 * sbh + 24 * sbh / t + scores / t);
    }
    SECTION("tensor + sequence parallelism: sbh(34/t + 5as/(ht))") {
        const auto tensors = layer_activation_tensors(gpt(h, a, s, b, t, true));
        CHECK(korthikanti_sum(tensors) == 34 * sbh / t + scores / t);
        CHECK(stats_sum(tensors) == 2 * 2 * s * b * 4 / t);
    }
    SECTION("selective recompute with sequence parallelism: 34sbh/t") {
        CHECK(korthikanti_sum(stored_activation_tensors(gpt(h, a, s, b, t, true), recompute_mode::selective)) ==
              34 * sbh / t);
    }
    SECTION("selective recompute with tensor parallelism only: sbh(10 + 24/t)") {
        CHECK(korthikanti_sum(stored_activation_tensors(gpt(h, a, s, b, t, false), recompute_mode::selective)) ==
              10 * sbh + 24 * sbh / t);
    }
    SECTION("full recompute keeps the layer input: 2sbh, 2sbh/t with sequence parallelism") {
        const auto full = stored_activation_tensors(gpt(h, a, s, b, t, false), recompute_mode::full);
        REQUIRE(full.size() == 1);
        CHECK(full[0].name == "layer.input");
        CHECK(total_bytes(full) == 2 * sbh);
        CHECK(total_bytes(stored_activation_tensors(gpt(h, a, s, b, t, true), recompute_mode::full)) == 2 * sbh / t);
    }
    SECTION("recompute none equals the full working set") {
        const auto in = gpt(h, a, s, b, t, true);
        CHECK(total_bytes(stored_activation_tensors(in, recompute_mode::none)) == total_bytes(layer_activation_tensors(in)));
    }
}

TEST_CASE("the GPT-style tensors are Korthikanti's §4.1 list, term by term", "[activations][paper]") {
    const u64 h = 6144, a = 64, s = 2048, b = 1;
    const u64 sbh = s * b * h, as2b = a * s * s * b;
    const auto x = layer_activation_tensors(gpt(h, a, s, b, 1, false));
    CHECK(bytes_of(x, "attn.norm.input") == 2 * sbh);
    CHECK(bytes_of(x, "attn.qkv_input") == 2 * sbh);
    CHECK(bytes_of(x, "attn.q") + bytes_of(x, "attn.k") == 4 * sbh);
    CHECK(bytes_of(x, "attn.core.softmax_output") == 2 * as2b);
    CHECK(bytes_of(x, "attn.core.dropout_mask") == as2b);
    CHECK(bytes_of(x, "attn.core.dropout_output") + bytes_of(x, "attn.v") == 2 * as2b + 2 * sbh);
    CHECK(bytes_of(x, "attn.proj_input") == 2 * sbh);
    CHECK(bytes_of(x, "attn.dropout_mask") == sbh);
    CHECK(bytes_of(x, "mlp.norm.input") == 2 * sbh);
    CHECK(bytes_of(x, "mlp.fc_input") == 2 * sbh);
    CHECK(bytes_of(x, "mlp.act_input") == 8 * sbh);
    CHECK(bytes_of(x, "mlp.act_output") == 8 * sbh);
    CHECK(bytes_of(x, "mlp.dropout_mask") == sbh);
    CHECK(bytes_of(x, "attn.norm.stats") == 2 * s * b * 4);
}

TEST_CASE("without dropout a GPT-style layer keeps sbh(32 + 2as/h)", "[activations]") {
    auto in = gpt(4096, 32, 2048, 2, 1, false);
    in.model.dropout = false;
    const u64 sbh = 2048ULL * 2 * 4096, as2b = 32ULL * 2048 * 2048 * 2;
    const auto x = layer_activation_tensors(in);
    CHECK(korthikanti_sum(x) == 32 * sbh + 2 * as2b);
    for (const auto& t : x) CHECK(t.name.find("dropout") == std::string::npos);
}

TEST_CASE("Llama-2-7B: one layer at 4096 tokens, hand-derived", "[activations][llama]") {
    // h 4096, a = kv 32, d 128, f 11008, s 4096, b 1, RMSNorm, SwiGLU, no dropout, bf16.
    auto in = llama(4096, 32, 32, 11008, 4096, 1);
    const u64 Th2 = 4096ULL * 4096 * 2;  // 33,554,432
    SECTION("eager attention") {
        const auto x = layer_activation_tensors(in);
        CHECK(bytes_of(x, "attn.norm.stats") == 4096 * 4);          // fp32 rstd per token
        CHECK(bytes_of(x, "attn.k") == Th2);                         // kv = a: no repeat
        CHECK(bytes_of(x, "attn.core.softmax_output") == 1073741824); // 32 · 4096² · 2
        CHECK(bytes_of(x, "mlp.up_output") == 90177536);            // 4096 · 11008 · 2
        CHECK_FALSE(has(x, "attn.core.dropout_mask"));
        // 8 h-wide tensors + 2 rstd + softmax + 4 f-wide tensors
        CHECK(total_bytes(x) == 8 * Th2 + 2 * 16384 + 1073741824ULL + 4 * 90177536ULL);
        CHECK(total_bytes(x) == 1702920192ULL);
    }
    SECTION("FlashAttention keeps a fp32 log-sum-exp instead of the softmax") {
        in.flash_attention = true;
        const auto x = layer_activation_tensors(in);
        CHECK(bytes_of(x, "attn.core.logsumexp") == 32 * 4096 * 4);
        CHECK_FALSE(has(x, "attn.core.softmax_output"));
        CHECK(total_bytes(x) == 629702656ULL);
    }
}

TEST_CASE("Llama-3-8B: GQA keeps K and V kv_heads wide with FlashAttention, hand-derived", "[activations][llama]") {
    // h 4096, a 32, kv 8, d 128, f 14336, s 8192, b 1, FlashAttention.
    auto in = llama(4096, 32, 8, 14336, 8192, 1);
    in.flash_attention = true;
    const auto x = layer_activation_tensors(in);
    CHECK(bytes_of(x, "attn.q") == 8192ULL * 4096 * 2);
    CHECK(bytes_of(x, "attn.k") == 8192ULL * 8 * 128 * 2);  // 16,777,216
    CHECK(bytes_of(x, "attn.v") == 8192ULL * 8 * 128 * 2);
    CHECK(bytes_of(x, "attn.core.logsumexp") == 32ULL * 8192 * 4);
    CHECK(bytes_of(x, "mlp.act_output") == 8192ULL * 14336 * 2);
    // 6 h-wide (67,108,864 each) + K + V + lse + 2 rstd + 4 f-wide (234,881,024 each)
    CHECK(total_bytes(x) == 1376845824ULL);

    SECTION("tensor + sequence parallelism over 8 GPUs divides every tensor by 8") {
        in.tp = 8;
        in.sequence_parallel = true;
        const auto y = layer_activation_tensors(in);
        REQUIRE(y.size() == x.size());
        for (std::size_t i = 0; i < y.size(); ++i) {
            CAPTURE(y[i].name);
            CHECK(y[i].bytes * 8 == x[i].bytes);
        }
        CHECK(total_bytes(y) == 172105728ULL);
    }
    SECTION("tensor parallelism without SP keeps norm regions whole") {
        in.tp = 8;
        const auto y = layer_activation_tensors(in);
        CHECK(bytes_of(y, "attn.norm.input") == bytes_of(x, "attn.norm.input"));
        CHECK(bytes_of(y, "mlp.fc_input") == bytes_of(x, "mlp.fc_input"));
        CHECK(bytes_of(y, "attn.norm.stats") == bytes_of(x, "attn.norm.stats"));
        CHECK(bytes_of(y, "attn.q") * 8 == bytes_of(x, "attn.q"));
        CHECK(bytes_of(y, "mlp.down_input") * 8 == bytes_of(x, "mlp.down_input"));
    }
}

TEST_CASE("eager GQA keeps K and V repeated to every query head — selective recompute keeps them kv wide",
          "[activations][llama]") {
    const auto in = llama(4096, 32, 8, 14336, 1024, 2);
    const u64 T = 1024 * 2;
    const auto eager = layer_activation_tensors(in);
    CHECK(bytes_of(eager, "attn.k") == T * 32 * 128 * 2);
    CHECK(bytes_of(eager, "attn.v") == T * 32 * 128 * 2);
    const auto selective = stored_activation_tensors(in, recompute_mode::selective);
    CHECK(bytes_of(selective, "attn.k") == T * 8 * 128 * 2);
    CHECK(bytes_of(selective, "attn.v") == T * 8 * 128 * 2);
    for (const auto& t : selective) CHECK(t.name.rfind("attn.core.", 0) == std::string::npos);
    CHECK(total_bytes(stored_activation_tensors(in, recompute_mode::full)) == T * 4096 * 2);
}

TEST_CASE("an explicit head_dim sizes Q, K, V and the attention output", "[activations]") {
    auto in = llama(3072, 24, 8, 8192, 512, 1);  // Gemma-like: a · d = 24 · 256 ≠ h
    in.model.head_dim = 256;
    in.flash_attention = true;
    const auto x = layer_activation_tensors(in);
    CHECK(bytes_of(x, "attn.q") == 512ULL * 24 * 256 * 2);
    CHECK(bytes_of(x, "attn.k") == 512ULL * 8 * 256 * 2);
    CHECK(bytes_of(x, "attn.proj_input") == 512ULL * 24 * 256 * 2);
    CHECK(bytes_of(x, "attn.qkv_input") == 512ULL * 3072 * 2);
}

TEST_CASE("four norms per layer (Gemma 2) add post-norm inputs and statistics", "[activations]") {
    auto in = llama(2304, 8, 4, 9216, 256, 1);
    in.model.head_dim = 256;
    const auto two = layer_activation_tensors(in);
    in.model.norms_per_layer = 4;
    const auto four = layer_activation_tensors(in);
    CHECK(total_bytes(four) - total_bytes(two) == 2 * (256ULL * 2304 * 2 + 256 * 4));
    CHECK(has(four, "attn.post_norm.stats"));
    CHECK(has(four, "mlp.post_norm.input"));
}

TEST_CASE("MoE layers keep router probabilities and k routed copies per token", "[activations][moe]") {
    // Mixtral-8x7B shape: h 4096, a 32, kv 8, 8 experts, top-2, expert FFN 14336; s 4096, b 1.
    auto in = llama(4096, 32, 8, 14336, 4096, 1);
    in.model.num_experts = 8;
    in.model.experts_per_token = 2;
    in.flash_attention = true;
    const u64 T = 4096;
    const auto x = layer_activation_tensors(in);
    CHECK(bytes_of(x, "moe.router_probs") == T * 8 * 4);
    CHECK(bytes_of(x, "moe.routing_indices") == T * 2 * 8);
    CHECK(bytes_of(x, "moe.routing_weights") == T * 2 * 2);
    CHECK(bytes_of(x, "moe.expert_input") == T * 2 * 4096 * 2);
    CHECK(bytes_of(x, "moe.expert_output") == T * 2 * 4096 * 2);
    CHECK(bytes_of(x, "moe.act_input") == T * 2 * 14336 * 2);
    CHECK(bytes_of(x, "moe.down_input") == T * 2 * 14336 * 2);
    CHECK_FALSE(has(x, "mlp.act_input"));

    SECTION("the routed FFN tensors are k times a dense FFN of the expert width") {
        auto dense = in;
        dense.model.num_experts = 0;
        dense.model.experts_per_token = 0;
        const auto d = layer_activation_tensors(dense);
        for (const char* n : {"act_input", "up_output", "act_output", "down_input"})
            CHECK(bytes_of(x, std::string("moe.") + n) == 2 * bytes_of(d, std::string("mlp.") + n));
    }
    SECTION("a shared expert adds its FFN on every token") {
        in.model.moe_intermediate_size = 1408;
        in.model.shared_expert_intermediate_size = 5632;
        const auto y = layer_activation_tensors(in);
        CHECK(bytes_of(y, "moe.act_input") == T * 2 * 1408 * 2);
        CHECK(bytes_of(y, "moe.shared.down_input") == T * 5632 * 2);
    }
    SECTION("tensor parallelism splits the expert FFN width, not the routed copies") {
        in.tp = 4;
        in.sequence_parallel = true;
        const auto y = layer_activation_tensors(in);
        CHECK(bytes_of(y, "moe.act_input") * 4 == bytes_of(x, "moe.act_input"));
        CHECK(bytes_of(y, "moe.expert_input") == bytes_of(x, "moe.expert_input"));
        CHECK(bytes_of(y, "moe.router_probs") * 4 == bytes_of(x, "moe.router_probs"));
    }
}

TEST_CASE("activation invariants hold across shapes and settings", "[activations][invariants]") {
    u64 h = 0, a = 0, kv = 0, s = 0, b = 0, t = 0;
    std::tie(h, a, kv, s, b, t) = GENERATE(table<u64, u64, u64, u64, u64, u64>({
        {768, 12, 12, 1024, 4, 1}, {4096, 32, 8, 4096, 1, 2}, {8192, 64, 8, 2048, 2, 8}, {2048, 16, 1, 512, 3, 4}}));
    const bool flash = GENERATE(false, true);
    const bool gated = GENERATE(false, true);
    CAPTURE(h, a, kv, s, b, t, flash, gated);
    layer_activation_input in = gated ? llama(h, a, kv, 3 * h, s, b) : gpt(h, a, s, b, 1, false);
    in.model.num_key_value_heads = kv;
    in.tp = t;
    in.flash_attention = flash;

    const auto none = layer_activation_tensors(in);
    const auto selective = stored_activation_tensors(in, recompute_mode::selective);
    const auto full = stored_activation_tensors(in, recompute_mode::full);
    std::set<std::string> names;
    for (const auto& x : none) {
        CAPTURE(x.name);
        CHECK(x.bytes > 0);
        CHECK_FALSE(x.note.empty());
        CHECK(names.insert(x.name).second);  // names are unique
    }
    CHECK(total_bytes(full) <= total_bytes(selective));
    CHECK(total_bytes(selective) <= total_bytes(none));
    for (const auto& x : selective)
        if (x.name != "attn.k" && x.name != "attn.v") CHECK(bytes_of(none, x.name) == x.bytes);

    auto sp = in;
    sp.sequence_parallel = true;
    CHECK(total_bytes(layer_activation_tensors(sp)) <= total_bytes(none));

    if (t == 1) {  // without sharding every tensor is linear in the micro-batch
        auto twice = in;
        twice.micro_batch = 2 * b;
        const auto doubled = layer_activation_tensors(twice);
        REQUIRE(doubled.size() == none.size());
        for (std::size_t i = 0; i < none.size(); ++i) CHECK(doubled[i].bytes == 2 * none[i].bytes);
    }
}
