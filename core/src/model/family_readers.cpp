// The key readers of the model families (declared in model/families.hpp): what a family's Hugging Face
// configuration says beyond its row's declared keys (families.cpp), each following the family's
// configuration class and modelling file, named at each reader.
#include "model/families.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace memplan::detail {

namespace {
using A = attention_kind;
using F = layer_mlp_kind;
}  // namespace


/// modeling_deepseek_v3.py / modeling_glm4_moe.py: layers ≥ first_k_dense_replace (and a multiple of
/// moe_layer_freq, DeepSeek-V2's modeling_deepseek.py) are MoE with n_routed_experts of
/// moe_intermediate_size and one shared MLP of n_shared_experts · moe_intermediate_size.
void read_deepseek_moe(hf_config_keys& keys, model_config& m) {
    const std::uint64_t L = m.num_hidden_layers;
    m.num_experts = keys.integer("n_routed_experts", m.num_experts, 0, 65536);
    const std::uint64_t shared = keys.integer("n_shared_experts", 0, 0, 1024);
    const std::uint64_t first_dense = keys.integer("first_k_dense_replace", 0, 0, 65536);
    const std::uint64_t freq = keys.integer("moe_layer_freq", 1, 1, 65536);
    if (shared != 0 && m.moe_intermediate_size != 0) m.shared_expert_intermediate_size = shared * m.moe_intermediate_size;
    // The experts' sizes have no default memplan may assume: without moe_intermediate_size the experts would
    // silently take intermediate_size (the dense layers' width, 8× wider in DeepSeek-V2-Lite), and the
    // configuration classes' defaults (DeepseekV2Config: 1407 wide, 6 of 64 experts) are another model's.
    if (m.num_experts != 0 || keys.given("n_routed_experts") || keys.given("moe_intermediate_size") ||
        keys.given("num_experts_per_tok")) {
        // memplan's own resolved model names the count num_local_experts (report/json.cpp).
        if (!keys.given("n_routed_experts") && !keys.given("num_local_experts") && !keys.given("num_experts"))
            keys.fail("n_routed_experts", "is required for this MoE config (memplan does not assume a default)");
        for (const char* key : {"num_experts_per_tok", "moe_intermediate_size"})
            if (!keys.given(key)) keys.fail(key, "is required for this MoE config (memplan does not assume a default)");
    }
    if (!own_mlp(keys) && m.num_experts != 0 && L != 0 &&
        (keys.contains("first_k_dense_replace") || keys.contains("moe_layer_freq"))) {
        m.layer_mlp.assign(L, F::dense);
        for (std::uint64_t i = first_dense; i < L; ++i)
            if (i % freq == 0) m.layer_mlp[i] = F::moe;
    }
}

/// DeepSeek's MoE layout, then MLA on every layer when kv_lora_rank is given. Nulls read as absent:
/// q_lora_rank null means queries are projected directly (DeepSeek-V2-Lite).
void read_deepseek(hf_config_keys& keys, model_config& m) {
    read_deepseek_moe(keys, m);
    // Multi-head latent attention's widths: an absent kv_lora_rank would make every layer plain attention with
    // a KV cache 10-30× larger; DeepseekV2Config's defaults (512, 64, 128, 128) are one model's, not a rule.
    if (!own_attention(keys, m))
        for (const char* key : {"kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"})
            if (!keys.given(key)) keys.fail(key, "is required for a DeepSeek MLA config (memplan does not assume a default)");
    if (!own_attention(keys, m) && keys.given("kv_lora_rank")) {
        m.layer_attention.assign(m.num_hidden_layers, A::mla);
        m.sliding_window_layers = 0;
    }
}

/// Kimi Linear (vLLM vllm/model_executor/models/kimi_linear.py at 8744bb0924a53c0d16867426b8b17428d41e4002,
/// configs/kimi_linear.py at 6b06599499a6f9d6f140ae26ff95b3cbd2e7e75c): linear_attn_config's kda_layers (1-based)
/// are Kimi Delta Attention of num_heads × head_dim with short_conv_kernel_size, the other layers MLA with
/// queries projected directly (KimiMLAAttention asserts q_lora_rank None and mla_use_nope); layers from
/// first_k_dense_replace on (and a multiple of moe_layer_freq) are KimiMoE: a router with e_score_correction_bias,
/// num_experts of moe_intermediate_size and one shared MLP of num_shared_experts · moe_intermediate_size.
void read_kimi_linear(hf_config_keys& keys, model_config& m) {
    const std::uint64_t L = m.num_hidden_layers;
    const std::uint64_t shared = keys.integer("num_shared_experts", 0, 0, 1024);
    const std::uint64_t first_dense = keys.integer("first_k_dense_replace", 0, 0, 65536);
    const std::uint64_t freq = keys.integer("moe_layer_freq", 1, 1, 65536);
    if (shared != 0 && m.moe_intermediate_size != 0) m.shared_expert_intermediate_size = shared * m.moe_intermediate_size;
    if (!own_mlp(keys) && m.num_experts != 0 && L != 0) {
        m.layer_mlp.assign(L, F::dense);
        for (std::uint64_t i = first_dense; i < L; ++i)
            if (i % freq == 0) m.layer_mlp[i] = F::moe;
    }
    // KimiMLP and KimiMoE raise on any activation but silu (Kimi K3's situ is another MLP).
    std::string act = "silu";
    keys.text("hidden_act", act);
    if (act != "silu")
        keys.fail("hidden_act", "is '" + act + "': Kimi Linear's MLPs (vLLM kimi_linear.py) are SwiGLU, hidden_act \"silu\"");
    if (keys.given("q_lora_rank"))
        keys.fail("q_lora_rank", "must be null: Kimi Linear's MLA projects queries directly (vLLM KimiMLAAttention "
                                 "asserts q_lora_rank None)");
    const auto kda = keys.object("linear_attn_config");
    if (kda == nullptr) {
        if (keys.given("linear_attn_config")) keys.fail("linear_attn_config", "must be an object");
        if (!own_attention(keys, m) && L != 0) m.layer_attention.assign(L, A::mla);
    } else {
        const std::uint64_t heads = kda->integer("num_heads", 0, 1, 65536), d = kda->integer("head_dim", 0, 1, 65536),
                            K = kda->integer("short_conv_kernel_size", 0, 1, 1024);
        for (const char* key : {"num_heads", "head_dim", "short_conv_kernel_size"})
            if (!kda->given(key)) kda->fail(key, "is required for Kimi Delta Attention (a positive integer)");
        bool full_rank = false;
        kda->boolean("use_full_rank_gate", full_rank);
        if (full_rank)
            kda->fail("use_full_rank_gate", "is not supported yet: vLLM's KimiDeltaAttention (kda.py) builds the "
                                            "low-rank decay gate f_a_proj h×head_dim, f_b_proj head_dim×heads·head_dim");
        m.linear_num_key_heads = m.linear_num_value_heads = heads;
        m.linear_key_head_dim = m.linear_value_head_dim = d;
        m.linear_conv_kernel_dim = K;
        // configs/kimi_linear.py is_kda_layer: (layer_idx + 1) in kda_layers.
        std::vector<char> listed;
        if (!own_attention(keys, m) && L != 0 && kda->index_list("kda_layers", L + 1, listed)) {
            if (listed[0] != 0) kda->fail("kda_layers", "must list layer numbers from 1 to " + std::to_string(L) + " (1-based)");
            m.layer_attention.assign(L, A::mla);
            for (std::uint64_t i = 0; i < L; ++i)
                if (listed[i + 1] != 0) m.layer_attention[i] = A::linear;
            m.sliding_window_layers = 0;
        }
    }
    bool nope = false;
    keys.boolean("mla_use_nope", nope);
    if (!nope && std::find(m.layer_attention.begin(), m.layer_attention.end(), A::mla) != m.layer_attention.end())
        keys.fail("mla_use_nope", "must be true: Kimi Linear's MLA layers have no rotary embedding (vLLM "
                                  "KimiMLAAttention asserts use_nope)");
}

/// DeepSeek-V4 (transformers src/transformers/models/deepseek_v4/modular_deepseek_v4.py at 02356fec; vLLM
/// vllm/model_executor/models/deepseek_v4.py at 023da1fc and deepseek_v4_mtp.py): every layer a sliding-window
/// shared-KV attention (sliding_window) whose compress_ratios entry adds a CSA (4) or HCA (128) compressor, and a MoE
/// of n_routed_experts with one shared MLP of n_shared_experts · moe_intermediate_size on every layer, the first
/// num_hash_layers routed by tid2eid. params.cpp counts the layers.
void read_deepseek_v4(hf_config_keys& keys, model_config& m) {
    const std::uint64_t L = m.num_hidden_layers;
    m.num_experts = keys.integer("n_routed_experts", m.num_experts, 1, 65536);
    const std::uint64_t shared = keys.integer("n_shared_experts", 0, 0, 1024);
    if (shared != 0 && m.moe_intermediate_size != 0) m.shared_expert_intermediate_size = shared * m.moe_intermediate_size;
    for (const char* key : {"n_routed_experts", "num_experts_per_tok", "moe_intermediate_size", "head_dim", "q_lora_rank",
                            "o_groups", "o_lora_rank", "hc_mult", "compress_ratios"})
        if (!keys.given(key)) keys.fail(key, "is required for a DeepSeek-V4 config (memplan does not assume a default)");
    // DeepseekV4Attention: one shared-KV head (kv_proj h×head_dim) and no biases, whatever these keys say.
    if (keys.integer("num_key_value_heads", 1, 1, 65536) != 1)
        keys.fail("num_key_value_heads", "must be 1: DeepSeek-V4's attention has one shared-KV head (kv_proj h×head_dim)");
    bool bias = false;
    keys.boolean("attention_bias", bias);
    if (bias) keys.fail("attention_bias", "must be false: DeepSeek-V4's projections have no biases");
    m.o_groups = keys.integer("o_groups", 0, 1, 65536);
    m.o_lora_rank = keys.integer("o_lora_rank", 0, 1, 1048576);
    m.hc_mult = keys.integer("hc_mult", 0, 1, 64);
    m.num_hash_layers = keys.integer("num_hash_layers", 0, 0, L);
    keys.integer("hc_sinkhorn_iters", 0, 0, 1024);  // checked, and read for nothing: iterations, no weights
    keys.integer("index_topk", 0, 1, 16777216);     // checked, and read for nothing: compute only
    // vLLM deepseek_v4.py DeepseekV4MLP raises on any activation but silu.
    std::string act = "silu";
    keys.text("hidden_act", act);
    if (act != "silu") keys.fail("hidden_act", "is '" + act + "': DeepSeek-V4's MLPs (vLLM deepseek_v4.py) are SwiGLU, \"silu\"");
    // One compression ratio per layer and per MTP module (the MTP block is layer num_hidden_layers); 0, 4 (CSA) and
    // 128 (HCA) are the compressors modular_deepseek_v4.py builds.
    if (keys.integer_list("compress_ratios", 1048576, m.compress_ratios)) {
        const std::uint64_t needed = L + keys.integer("num_nextn_predict_layers", 0, 0, 1024);
        if (m.compress_ratios.size() < needed)
            keys.fail("compress_ratios", "must list " + std::to_string(needed) + " ratios (num_hidden_layers, then one "
                                         "per MTP module), not " + std::to_string(m.compress_ratios.size()));
        for (std::uint64_t r : m.compress_ratios)
            if (r != 0 && r != 4 && r != 128)
                keys.fail("compress_ratios", "lists " + std::to_string(r) + ": each ratio must be 0 (sliding window "
                                             "only), 4 (CSA) or 128 (HCA)");
    }
    if (!own_attention(keys, m) && L != 0) {
        m.layer_attention.assign(L, A::sliding);
        m.sliding_window_layers = 0;
    }
    // The routed experts' storage: vLLM DeepseekV4FP8Config takes "fp4" (MXFP4 experts, ue8m0 scales) or "fp8"
    // (128×128 blocks like the other linears). memplan's checkpoint formats hold one format for every packed matrix
    // (or the experts alone), not FP8 blocks beside MXFP4 experts: "fp4" is refused rather than stored wrong.
    std::string experts = "fp8";
    keys.text("expert_dtype", experts);
    if (experts == "fp4")
        keys.fail("expert_dtype", "is \"fp4\": MXFP4 routed experts beside FP8 128×128 blocks elsewhere is a mix "
                                  "memplan's checkpoint formats cannot store yet; remove expert_dtype (with "
                                  "quantization_config) to count the parameters");
    else if (experts != "fp8")
        keys.fail("expert_dtype", "is '" + experts + "': must be \"fp4\" or \"fp8\" (vLLM deepseek_v4.py)");
    // NVIDIA's mixed export (quant_method fp8 with ModelOpt NVFP4 experts) names its expert format here; memplan's fp8
    // reader would store those experts as FP8 blocks.
    if (const auto q = keys.object("quantization_config"); q != nullptr && q->given("moe_quant_algo"))
        q->fail("moe_quant_algo", "is given: NVFP4 (or other) experts beside FP8 128×128 blocks elsewhere is a mix "
                                  "memplan's checkpoint formats cannot store yet");
}

/// GLM-5 (transformers src/transformers/models/glm_moe_dsa/configuration_glm_moe_dsa.py at 008e574391258935f3ecc3035c882e73bbcac419,
/// modeling from modular_glm_moe_dsa.py at 01f8fa55d98fbd77fb6461c47ae14fc6206f2f87): DeepSeek-V3.2's layers.
/// GlmMoeDsaConfig has no moe_layer_freq: mlp_layer_types, else the first first_k_dense_replace (default 3)
/// layers dense and the rest MoE. A "shared" entry of indexer_types builds no indexer (it reuses the previous
/// layer's top-k), which memplan does not model per layer: refused by name.
void read_glm_moe_dsa(hf_config_keys& keys, model_config& m) {
    const std::uint64_t L = m.num_hidden_layers;
    if (keys.integer("moe_layer_freq", 1, 1, 65536) != 1)
        keys.fail("moe_layer_freq", "must be 1 for GLM-5: GlmMoeDsaConfig has no such key, every layer from "
                                    "first_k_dense_replace on is MoE");
    read_deepseek(keys, m);
    // configuration_glm_moe_dsa.py: first_k_dense_replace defaults to 3 when mlp_layer_types is not given.
    if (!own_mlp(keys) && !keys.contains("first_k_dense_replace") && m.num_experts != 0 && L != 0) {
        m.layer_mlp.assign(L, F::moe);
        for (std::uint64_t i = 0; i < std::min<std::uint64_t>(3, L); ++i) m.layer_mlp[i] = F::dense;
    }
    for (const char* key : {"kv_lora_rank", "q_lora_rank", "index_n_heads", "index_head_dim"})
        if (!keys.given(key))
            keys.fail(key, "is required for a GLM-5 config (memplan does not assume GlmMoeDsaConfig's default)");
    keys.integer("index_topk", 0, 1, 16777216);  // checked, and read for nothing: compute only
    // __post_init__: qk_head_dim = qk_nope_head_dim + qk_rope_head_dim; another value describes other weights.
    const std::uint64_t qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    if (keys.integer("qk_head_dim", qk, 1, 131072) != qk)
        keys.fail("qk_head_dim", "must equal qk_nope_head_dim + qk_rope_head_dim (" + std::to_string(qk) + ")");
    // __post_init__: head_dim = qk_rope_head_dim (the rotary width only; no weight reads head_dim).
    if (m.qk_rope_head_dim != 0) m.head_dim = m.qk_rope_head_dim;
    // __post_init__: indexer_types, else index_topk_pattern ("F"/"S" per layer, or a list), else layer i runs the
    // indexer when max(i - index_skip_topk_offset + 1, 0) % max(index_topk_freq, 1) == 0 (defaults 2 and 1).
    std::vector<std::string> types;
    std::string pattern;
    const char* source = "indexer_types";
    if (keys.given("indexer_types")) {
        if (!keys.text_list("indexer_types", types) && types.empty())
            keys.fail("indexer_types", "must be a list of \"full\" or \"shared\", one per layer");
    } else if (keys.given("index_topk_pattern")) {
        source = "index_topk_pattern";
        if (!keys.text_list("index_topk_pattern", types)) {
            keys.text("index_topk_pattern", pattern);
            for (char c : pattern) types.push_back(c == 'F' ? "full" : c == 'S' ? "shared" : std::string(1, c));
        }
    }
    const std::uint64_t freq = keys.integer("index_topk_freq", 1, 0, 65536);
    const std::uint64_t offset = keys.integer("index_skip_topk_offset", 2, 0, 65536);
    if (types.empty() && !keys.given("indexer_types") && !keys.given("index_topk_pattern")) {
        source = freq > 1 ? "index_topk_freq" : "index_skip_topk_offset";
        for (std::uint64_t i = 0; i < L; ++i)
            types.push_back((i + 1 > offset ? i + 1 - offset : 0) % std::max<std::uint64_t>(freq, 1) == 0 ? "full" : "shared");
    }
    if (types.size() != L) {
        keys.fail(source, "must give one indexer type per layer (" + std::to_string(L) + ")");
    } else {
        for (const std::string& t : types) {
            if (t == "full") continue;
            keys.fail(source, t == "shared" ? std::string("has \"shared\" layers, which build no indexer and reuse the previous "
                                                          "layer's top-k; memplan models every layer \"full\" only")
                                            : "has an indexer type \"" + t + "\" (\"full\" or \"shared\")");
            break;
        }
    }
    bool share_for_mtp = false;
    keys.boolean("index_share_for_mtp_iteration", share_for_mtp);
    if (share_for_mtp)
        keys.fail("index_share_for_mtp_iteration", "is true; how the MTP layer's indexer and its cache are shared is "
                                                   "not modelled yet (false is)");
    std::string router_dtype = "bfloat16";
    keys.text("moe_router_dtype", router_dtype);
    if (router_dtype != "bfloat16")
        keys.fail("moe_router_dtype", "is \"" + router_dtype + "\"; memplan stores the router in bf16 (\"bfloat16\" only)");
}

/// MiMo-V2-Flash's released config.json, as vLLM vllm/model_executor/models/mimo_v2_flash.py (commit
/// 01ed47b4166b26251895a9c298352fcdb2385149) reads it: hybrid_layer_pattern 1 = a sliding-window layer (MiMoV2Attention
/// with the swa_* sizes, sliding_window_size, attention_sink_bias when add_swa_attention_sink_bias), 0 = full
/// attention; moe_layer_freq one 0/1 per layer (MiMoV2MoE: router h×E in its gate with e_score_correction_bias, no
/// shared expert), else the dense MiMoV2MLP of intermediate_size.
void read_mimo_v2_flash(hf_config_keys& keys, model_config& m) {
    const std::uint64_t L = m.num_hidden_layers;
    m.num_experts = keys.integer("n_routed_experts", m.num_experts, 0, 65536);
    if (keys.integer("n_shared_experts", 0, 0, 1024) != 0)
        keys.fail("n_shared_experts", "must be null or 0 for MiMo-V2-Flash (MiMoV2MoE builds no shared expert)");
    std::vector<char> flags;
    if (keys.flag_list("moe_layer_freq", flags)) {
        if (flags.size() != L) keys.fail("moe_layer_freq", "must list one 0/1 entry per layer (" + std::to_string(L) + ")");
        else if (!own_mlp(keys)) {
            m.layer_mlp.assign(L, F::dense);
            for (std::uint64_t i = 0; i < L; ++i)
                if (flags[i] != 0 && m.num_experts != 0) m.layer_mlp[i] = F::moe;
        }
    } else if (keys.given("moe_layer_freq")) {
        keys.fail("moe_layer_freq", "must list one 0/1 entry per layer (vLLM's is_moe_layer)");
    }
    if (keys.flag_list("hybrid_layer_pattern", flags)) {
        if (flags.size() != L) keys.fail("hybrid_layer_pattern", "must list one 0/1 entry per layer (" + std::to_string(L) + ")");
        else if (!own_attention(keys, m)) {
            m.layer_attention.assign(L, A::full);
            for (std::uint64_t i = 0; i < L; ++i)
                if (flags[i] != 0) m.layer_attention[i] = A::sliding;
        }
    } else if (!keys.contains("layer_types")) {
        keys.fail("hybrid_layer_pattern", "is required for a MiMo-V2-Flash config (one 0/1 per layer, 1 sliding)");
    }
    // The sliding layers' window is sliding_window_size (vLLM); sliding_window, which memplan reads, must agree.
    const std::uint64_t window = keys.integer("sliding_window_size", m.sliding_window, 1, 16777216);
    if (window != m.sliding_window)
        keys.fail("sliding_window_size", "must equal sliding_window (" + std::to_string(m.sliding_window) + ")");
    // attention_chunk_size is read by neither modelling file: no chunked layers.
    keys.integer("attention_chunk_size", 0, 0, 16777216);
    m.attention_chunk_size = 0;
    m.sliding_num_key_value_heads = keys.integer("swa_num_key_value_heads", m.sliding_num_key_value_heads, 1, 65536);
    // Per-kind query heads and widths other than the KV heads are not modelled: they must be the full layers'.
    const std::uint64_t d = m.head_dim != 0 ? m.head_dim : (m.num_attention_heads != 0 ? m.hidden_size / m.num_attention_heads : 0);
    const std::uint64_t dv = m.v_head_dim != 0 ? m.v_head_dim : d;
    const std::pair<const char*, std::uint64_t> same[] = {
        {"swa_num_attention_heads", m.num_attention_heads}, {"swa_head_dim", d}, {"swa_v_head_dim", dv}};
    for (const auto& [key, full] : same)
        if (keys.integer(key, full, 1, 65536) != full)
            keys.fail(key, "must equal the full-attention layers' value (" + std::to_string(full) +
                               "); sliding layers of other query heads or widths are not modelled yet");
    keys.boolean("add_swa_attention_sink_bias", m.sliding_attention_sinks);
    bool full_sinks = false;
    keys.boolean("add_full_attention_sink_bias", full_sinks);
    if (full_sinks)
        keys.fail("add_full_attention_sink_bias", "is true, but vLLM's mimo_v2_flash.py builds sinks on the sliding layers only");
}

/// modeling_qwen3_moe.py: layer i is sparse when not in mlp_only_layers and (i + 1) % decoder_sparse_step == 0.
void read_qwen_moe(hf_config_keys& keys, model_config& m) {
    const std::uint64_t L = m.num_hidden_layers;
    const std::uint64_t step = keys.integer("decoder_sparse_step", 1, 1, 65536);
    std::vector<char> dense_only;
    if (keys.index_list("mlp_only_layers", L, dense_only) && !own_mlp(keys) && m.num_experts != 0 && L != 0 &&
        (keys.contains("decoder_sparse_step") || keys.contains("mlp_only_layers"))) {
        m.layer_mlp.assign(L, F::dense);
        for (std::uint64_t i = 0; i < L; ++i)
            if (!dense_only[i] && (i + 1) % step == 0) m.layer_mlp[i] = F::moe;
    }
}

/// configuration_gemma3.py: layer i slides unless (i + 1) % sliding_window_pattern == 0 (default 6).
void read_gemma3(hf_config_keys& keys, model_config& m) {
    const std::uint64_t L = m.num_hidden_layers;
    if (L == 0 || keys.contains("layer_types") || m.sliding_window == 0) return;
    const std::uint64_t pattern = keys.integer("sliding_window_pattern", 6, 1, 65536);
    m.layer_attention.assign(L, A::sliding);
    for (std::uint64_t i = 0; i < L; ++i)
        if ((i + 1) % pattern == 0) m.layer_attention[i] = A::full;
}

/// Gemma 4's text model as transformers src/transformers/models/gemma4/configuration_gemma4.py (commit
/// 351f643ab9f582c01026b6d75aab3e2c5a8338cd) configures it and modeling_gemma4.py (commit
/// c308a309e651a7e033f683353f3f75aa66d29502) builds it (vLLM vllm/model_executor/models/gemma4.py at 001cabc1 the same):
/// - layer_types (default: every 6th layer full, the others sliding; the last layer is forced to full attention);
/// - full layers: global_head_dim wide (default 512), with attention_k_eq_v num_global_key_value_heads KV heads
///   (default num_key_value_heads) and no v_proj; q_norm and k_norm over the layer's head width, v_norm without weight;
/// - every layer a gated MLP of intermediate_size (GELU); with enable_moe_block also a router (proj h×E, scale h,
///   per_expert_scale E; its norm has no weight), num_experts experts of moe_intermediate_size and three more norms
///   (post_feedforward_layernorm_1/_2, pre_feedforward_layernorm_2), top_k_experts routed per token;
/// - layer_scalar, one element per layer.
/// Per-layer input embeddings (hidden_size_per_layer_input, default 256) and KV-shared layers (num_kv_shared_layers:
/// no k/v projections and no cache of their own, the MLP twice as wide with use_double_wide_mlp) are not counted
/// yet: refused by name when set.
void read_gemma4(hf_config_keys& keys, model_config& m) {
    // memplan's resolved form of a Gemma 4 model (resolve_model_json) states every structure in memplan's own keys,
    // full_head_dim among them, which no Hugging Face config has: the configuration class's defaults do not apply.
    if (keys.contains("full_head_dim")) return;
    const std::uint64_t L = m.num_hidden_layers;
    // __post_init__: layer_types defaults to sliding_window_pattern 6, and a last layer other than full is made full.
    if (L != 0 && !keys.contains("layer_types")) {
        m.layer_attention.assign(L, A::sliding);
        for (std::uint64_t i = 0; i < L; ++i)
            if ((i + 1) % 6 == 0) m.layer_attention[i] = A::full;
    }
    if (m.layer_attention.size() == L && L != 0 && m.layer_attention.back() != A::full) m.layer_attention.back() = A::full;
    std::uint64_t sliding = 0;
    for (const attention_kind k : m.layer_attention) {
        if (k != A::full && k != A::sliding) {
            keys.fail("layer_types", "must list \"sliding_attention\" or \"full_attention\" per layer (Gemma 4)");
            return;
        }
        sliding += k == A::sliding ? 1 : 0;
    }
    m.sliding_window_layers = sliding;
    // __post_init__: use_bidirectional_attention "all" sets sliding_window to sliding_window // 2 + 1; "vision" (image
    // tokens attend both ways) and null change only the masks.
    std::string bidirectional;
    keys.text("use_bidirectional_attention", bidirectional);
    if (bidirectional == "all") m.sliding_window = m.sliding_window / 2 + 1;
    else if (!bidirectional.empty() && bidirectional != "vision")
        keys.fail("use_bidirectional_attention", "must be null, \"vision\" or \"all\"");
    m.full_head_dim = keys.integer("global_head_dim", 512, 1, 65536);
    keys.boolean("attention_k_eq_v", m.full_value_from_key);
    const std::uint64_t global_kv = keys.integer("num_global_key_value_heads", m.num_key_value_heads, 1, 65536);
    // Gemma4TextAttention: num_global_key_value_heads is the full layers' KV heads only with attention_k_eq_v.
    m.full_num_key_value_heads = m.full_value_from_key ? global_kv : 0;
    if (keys.integer("num_kv_shared_layers", 0, 0, 65536) != 0)
        keys.fail("num_kv_shared_layers", "must be 0: layers that reuse earlier layers' KV (no k/v projections, no "
                                          "cache of their own) are not counted yet");
    // use_double_wide_mlp widens the MLP of KV-shared layers only: with none, it builds nothing else.
    bool double_wide = false;
    keys.boolean("use_double_wide_mlp", double_wide);
    if (keys.integer("hidden_size_per_layer_input", 256, 0, 1048576) != 0)
        keys.fail("hidden_size_per_layer_input", "must be 0: per-layer input embeddings (embed_tokens_per_layer, "
                                                 "per_layer_model_projection and each layer's gate and projection) are "
                                                 "not counted yet; absent, Gemma4TextConfig's default is 256");
    // vocab_size_per_layer_input sizes embed_tokens_per_layer only, which hidden_size_per_layer_input 0 does not build.
    keys.integer("vocab_size_per_layer_input", 262144, 1, 16777216);
    bool moe = false;
    keys.boolean("enable_moe_block", moe);
    // vLLM's Gemma4MoE reads expert_intermediate_size when moe_intermediate_size is absent; transformers never does.
    const std::uint64_t vllm_width = keys.integer("expert_intermediate_size", 0, 1, 1048576);
    if (vllm_width != 0 && vllm_width != m.moe_intermediate_size)
        keys.fail("expert_intermediate_size", "must be null or equal moe_intermediate_size (" +
                                                  std::to_string(m.moe_intermediate_size) +
                                                  "): transformers reads only moe_intermediate_size");
    if (!moe) {
        m.num_experts = 0;  // no router and no experts are built, whatever num_experts says
        m.experts_per_token = 0;
        m.moe_intermediate_size = 0;
        if (!own_mlp(keys) && L != 0) m.layer_mlp.assign(L, F::dense);
        return;
    }
    for (const char* key : {"num_experts", "top_k_experts", "moe_intermediate_size"})
        if (!keys.given(key)) {
            keys.fail(key, "is required with enable_moe_block (a positive integer)");
            return;
        }
    m.shared_expert_intermediate_size = m.intermediate_size;  // the dense MLP beside the experts, ungated
    m.shared_expert_gate = false;
    m.router_scales = true;
    m.norms_per_layer = 7;
    if (!own_mlp(keys) && L != 0) m.layer_mlp.assign(L, F::moe);
}

/// configuration_llama4.py / modeling_llama4.py: experts and the shared expert are intermediate_size
/// wide, dense layers intermediate_size_mlp; moe_layers default every interleave_moe_layer_step-th
/// layer; no_rope_layers (1 = RoPE layer, chunked attention; 0 = NoPE, global) default every 4th NoPE.
/// Both widths are required: Llama4TextConfig's defaults (8192, 16384) would be silent guesses.
void read_llama4(hf_config_keys& keys, model_config& m) {
    if (keys.contains("moe_intermediate_size")) return;
    const std::uint64_t L = m.num_hidden_layers;
    const std::uint64_t expert_ffn = m.intermediate_size;
    if (expert_ffn == 0) keys.fail("intermediate_size", "is required for a Llama 4 config (the experts' width)");
    m.moe_intermediate_size = expert_ffn;
    m.shared_expert_intermediate_size = expert_ffn;
    m.intermediate_size = keys.integer("intermediate_size_mlp", 0, 0, 1048576);
    const std::uint64_t step = keys.integer("interleave_moe_layer_step", 1, 1, 65536);
    bool use_qk_norm = false;
    keys.boolean("use_qk_norm", use_qk_norm);  // L2 norm without weights: no parameters
    if (L == 0) return;
    std::vector<char> moe;
    if (keys.given("moe_layers")) keys.index_list("moe_layers", L, moe);
    else {
        moe.assign(L, false);
        for (std::uint64_t i = step - 1; i < L; i += step) moe[i] = true;
    }
    m.layer_mlp.assign(L, F::dense);
    for (std::uint64_t i = 0; i < L; ++i)
        if (moe[i] && m.num_experts != 0) m.layer_mlp[i] = F::moe;
    if (m.intermediate_size == 0) {
        if (std::find(m.layer_mlp.begin(), m.layer_mlp.end(), F::dense) != m.layer_mlp.end())
            keys.fail("intermediate_size_mlp", "is required for a Llama 4 config with dense layers (their width)");
        m.intermediate_size = expert_ffn;  // no dense layer uses it
    }
    m.attention_chunk_size = keys.integer("attention_chunk_size", 0, 0, 16777216);
    std::vector<char> rope(L);
    for (std::uint64_t i = 0; i < L; ++i) rope[i] = (i + 1) % 4 != 0 ? 1 : 0;
    std::vector<char> given;
    if (keys.flag_list("no_rope_layers", given)) {
        if (given.size() != L) keys.fail("no_rope_layers", "must list one 0/1 entry per layer (" + std::to_string(L) + ")");
        else rope = given;
    }
    m.layer_attention.assign(L, A::full);
    if (m.attention_chunk_size != 0)
        for (std::uint64_t i = 0; i < L; ++i)
            if (rope[i] != 0) m.layer_attention[i] = A::chunked;
}

/// configuration_qwen3_next.py: layer_types default, every full_attention_interval-th layer full; the
/// MoE layout of Qwen2-MoE.
void read_qwen3_next(hf_config_keys& keys, model_config& m) {
    read_qwen_moe(keys, m);
    const std::uint64_t L = m.num_hidden_layers;
    const std::uint64_t interval = keys.integer("full_attention_interval", 4, 1, 65536);
    if (L != 0 && !keys.contains("layer_types")) {
        m.layer_attention.assign(L, A::linear);
        for (std::uint64_t i = 0; i < L; ++i)
            if ((i + 1) % interval == 0) m.layer_attention[i] = A::full;
    }
}

void read_qwen3_5(hf_config_keys& keys, model_config& m) {
    read_qwen3_next(keys, m);
    // Qwen3NextAttention's q_proj always emits the gate (modeling_qwen3_next.py): a false flag describes
    // weights the modelling file does not build.
    bool gate = true;
    keys.boolean("attn_output_gate", gate);
    if (!gate) keys.fail("attn_output_gate", "is false, but Qwen3.5's attention (Qwen3NextAttention) always has the gate");
    // qwen3_5_mtp.py builds the MTP module's embed_tokens beside the model's; the released checkpoints share
    // the model's table (false). A dedicated table is not counted yet, so it is refused by name.
    bool dedicated = false;
    keys.boolean("mtp_use_dedicated_embeddings", dedicated);
    if (dedicated)
        keys.fail("mtp_use_dedicated_embeddings", "true is not supported yet (the MTP module's own embedding table)");
    std::string ssm;
    keys.text("mamba_ssm_dtype", ssm);
    if (ssm == "float32") m.ssm_state_dtype = dtype::fp32;
    else if (ssm == "bfloat16") m.ssm_state_dtype = dtype::bf16;
    else if (ssm == "float16") m.ssm_state_dtype = dtype::fp16;
    else if (!ssm.empty()) keys.fail("mamba_ssm_dtype", "must be \"float32\", \"bfloat16\" or \"float16\"");
}

}  // namespace memplan::detail
