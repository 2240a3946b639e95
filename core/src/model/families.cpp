// The model families: one row each (memplan/model/families.hpp). Each row's structure follows the
// modules Hugging Face transformers instantiates for the family (the modelling file is named at each
// row), and its key reader the family's configuration class and modelling file.
#include "memplan/model/families.hpp"

#include <algorithm>
#include <utility>

namespace memplan {

namespace {
using A = attention_kind;
using F = layer_mlp_kind;

/// memplan's explicit per-layer lists (a resolved model) take precedence over the HF patterns.
bool own_attention(const hf_config_keys& keys, const model_config& m) {
    return keys.contains("layer_types") && !m.layer_attention.empty();
}
bool own_mlp(const hf_config_keys& keys) { return keys.contains("mlp_layer_types"); }

// ---------------------------------------------------------------------------------------------
// Key readers that several rows share

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
/// num_hash_layers routed by tid2eid. arch.cpp counts the layers.
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

// ---------------------------------------------------------------------------------------------
// Keys that several rows list

const family_key moe_step_keys[] = {
    {"decoder_sparse_step", "MoE on layer i when (i + 1) % decoder_sparse_step == 0"},
    {"mlp_only_layers", "layers kept dense"}};
const family_key vision_key = {"vision_config", "the vision tower, counted with its projector"};
const family_key mtp_key = {"num_nextn_predict_layers", "multi-token-prediction modules (loaded with model.mtp)"};

const family_key n_routed_experts = {"n_routed_experts", "routed experts per MoE layer"};
const family_key n_shared_experts = {"n_shared_experts",
                                     "shared experts: one MLP of n_shared_experts · moe_intermediate_size"};
const family_key first_k_dense_replace = {"first_k_dense_replace", "the first k layers are dense, the others MoE"};

std::vector<family_key> deepseek_keys() {
    return {n_routed_experts,
            n_shared_experts,
            first_k_dense_replace,
            {"moe_layer_freq", "MoE on every moe_layer_freq-th layer from first_k_dense_replace on"},
            {"kv_lora_rank", "multi-head latent attention on every layer: the latent cached per token"},
            {"q_lora_rank", "MLA query compression rank (null: queries projected directly)"},
            {"qk_nope_head_dim", "MLA query and key width without rotary embedding"},
            {"qk_rope_head_dim", "MLA decoupled rotary key width, cached beside the latent"},
            {"v_head_dim", "MLA value head width"},
            mtp_key};
}

/// DeepSeek's keys and the lightning indexer's (DeepSeek-V3.2, GLM-5).
std::vector<family_key> deepseek_sparse_keys() {
    auto keys = deepseek_keys();
    keys.push_back({"index_n_heads", "sparse-attention indexer query heads (wq_b, weights_proj)"});
    keys.push_back({"index_head_dim", "sparse-attention indexer head width, its key cached per token"});
    keys.push_back({"index_topk", "tokens each query attends to: compute only, no weights and no cache"});
    return keys;
}

/// modeling_granite.py: scalars that scale activations and add no weights.
const family_key granite_keys[] = {{"embedding_multiplier", "scales the embeddings (no weights)"},
                                   {"residual_multiplier", "scales each residual branch (no weights)"},
                                   {"attention_multiplier", "the attention's softmax scale (no weights)"},
                                   {"logits_scaling", "divides the logits (no weights)"}};

/// A row of the table, built field by field.
class row {
public:
    row(const char* model_type, const char* label) {
        f_.model_type = model_type;
        f_.label = label;
    }
    row& aliases(std::vector<const char*> names) { return set(f_.aliases, std::move(names)); }
    /// The model classes of its checkpoints and their model_type (the row's own or an alias).
    row& architectures(std::vector<family_architecture> classes) { return set(f_.architectures, std::move(classes)); }
    /// The one model class of its checkpoints, registered under the row's model_type.
    row& architecture(const char* class_name) { return architectures({{class_name, f_.model_type}}); }
    /// Llama-style block: RMSNorm, gated MLP, no biases, no dropout, untied embeddings
    /// (Touvron et al. 2023, §2.2; modeling_llama.py).
    row& llama_style() {
        model_config& m = f_.defaults;
        m.norm = norm_kind::rmsnorm;
        m.mlp = mlp_kind::gated;
        m.qkv_bias = m.attention_out_bias = m.mlp_bias = false;
        m.dropout = false;
        m.tie_word_embeddings = false;
        return *this;
    }
    /// One structural default set to `value`.
    template <class T, class V>
    row& with(T model_config::*field, V value) {
        f_.defaults.*field = static_cast<T>(value);
        return *this;
    }
    row& keys(std::vector<family_key> list) { return set(f_.keys, std::move(list)); }
    row& size_key(const memplan::size_alias& alias) {
        f_.size_aliases.push_back(alias);
        return *this;
    }
    row& reads(void (*fn)(hf_config_keys&, model_config&)) { return set(f_.read_keys, fn); }
    row& text_config_defaults(void (*fn)(const hf_config_keys&, model_config&)) {
        return set(f_.text_config_defaults, fn);
    }
    row& window_period(std::uint64_t period) { return set(f_.window_period, period); }
    row& context_from_positions() { return set(f_.context_from_positions, true); }
    row& attention_bias_without_output() { return set(f_.attention_bias_on_output, false); }
    row& mxfp4_checkpoint() { return set(f_.mxfp4_checkpoint, true); }
    row& multimodal(const char* text_type, vision_tower kind) {
        f_.text_config_type = text_type;
        return set(f_.tower, kind);
    }
    row& tower(vision_tower kind) { return set(f_.tower, kind); }
    row& layers(std::vector<attention_kind> attention, std::vector<layer_mlp_kind> mlp) {
        f_.attention_kinds = std::move(attention);
        return set(f_.mlp_kinds, std::move(mlp));
    }
    row& fused_qkv(const char* module) { return set(f_.fused_qkv, module); }
    row& sglang_swa_pool() { return set(f_.sglang_swa_pool, true); }
    operator model_family() const { return f_; }

private:
    template <class T, class V>
    row& set(T& field, V&& value) {
        field = std::forward<V>(value);
        return *this;
    }
    model_family f_;
};

/// modeling_gemma3.py: Gemma 2's block (four norms per layer, tied) plus q_norm/k_norm over head_dim.
/// The multimodal gemma3 and its language model gemma3_text.
row gemma3_row(const char* model_type) {
    return row(model_type, "Gemma 3")
        .llama_style()
        .with(&model_config::tie_word_embeddings, true)
        .with(&model_config::norms_per_layer, 4)
        .with(&model_config::qk_norm, true)
        .keys({{"sliding_window_pattern", "every sliding_window_pattern-th layer global, the others sliding (default 6)"},
               vision_key})
        .reads(read_gemma3)
        .layers({A::full, A::sliding}, {F::dense});
}

/// Gemma 4 (read_gemma4): Gemma 3's block (four RMSNorms, tied embeddings, q_norm/k_norm) with the layer scalar; the
/// multimodal gemma4 and its language model gemma4_text. Keys that change no weight: final_logit_softcapping (caps the
/// logits), rope_parameters (per layer kind, partial rotary on full layers), hidden_activation (GELU of the gated MLP),
/// attention_dropout, the token ids; the outer config's audio_token_id, boa/boi/eoa/eoi_token_id, eoa_token_index,
/// image_token_id, video_token_id and vision_soft_tokens_per_image (the processor's). audio_config null builds no tower.
row gemma4_row(const char* model_type) {
    return row(model_type, "Gemma 4")
        .llama_style()
        .with(&model_config::tie_word_embeddings, true)
        .with(&model_config::norms_per_layer, 4)
        .with(&model_config::qk_norm, true)
        .with(&model_config::layer_scalar, true)
        .with(&model_config::shared_expert_gate, false)
        .size_key({"top_k_experts", &model_config::experts_per_token, 0, 65536, "experts each token is routed to"})
        .keys({{"global_head_dim", "head width of the full-attention layers (default 512)"},
               {"attention_k_eq_v", "full layers without v_proj: the key projection is also the values"},
               {"num_global_key_value_heads", "KV heads of the full layers with attention_k_eq_v"},
               {"num_kv_shared_layers", "the last N layers reuse earlier layers' KV (must be 0: not counted yet)"},
               {"use_double_wide_mlp", "twice the MLP width on KV-shared layers (none with num_kv_shared_layers 0)"},
               {"hidden_size_per_layer_input", "per-layer input embeddings' width (must be 0: not counted yet)"},
               {"vocab_size_per_layer_input", "per-layer input embeddings' vocabulary (unused with width 0)"},
               {"enable_moe_block", "every layer adds a router and experts beside its MLP"},
               {"num_experts", "experts of each MoE block (with enable_moe_block; unused without)"},
               {"top_k_experts", "experts each token is routed to"},
               {"expert_intermediate_size", "vLLM's fallback name of moe_intermediate_size (null, or equal)"},
               {"use_bidirectional_attention", "\"all\" halves the sliding window (+1); \"vision\" changes masks only"},
               vision_key})
        .reads(read_gemma4)
        .layers({A::full, A::sliding}, {F::dense, F::moe});
}

/// modeling_qwen3_next.py: Qwen3NextAttention (q_proj emits queries and a sigmoid gate; q_norm, k_norm), a
/// Qwen2-MoE-style sparse block with a gated shared expert, Gated DeltaNet on the linear layers. The rows
/// of Qwen3-Next and of Qwen3.5, whose modelling file reuses these modules.
row qwen3_next_row(const char* model_type, const char* label) {
    return row(model_type, label)
        .llama_style()
        .with(&model_config::qk_norm, true)
        .with(&model_config::attention_output_gate, true)
        .layers({A::full, A::linear}, {F::dense, F::moe});
}

/// The hybrid layout keys of Qwen3-Next and Qwen3.5, after `extra`.
std::vector<family_key> qwen3_next_keys(std::vector<family_key> extra) {
    for (const family_key& k : std::initializer_list<family_key>{
             {"full_attention_interval", "every interval-th layer full attention, the others linear (default 4)"},
             {"linear_num_key_heads", "Gated DeltaNet key heads"},
             {"linear_num_value_heads", "Gated DeltaNet value heads"},
             {"linear_key_head_dim", "Gated DeltaNet key head width"},
             {"linear_value_head_dim", "Gated DeltaNet value head width"},
             {"linear_conv_kernel_dim", "Gated DeltaNet causal convolution kernel"}})
        extra.push_back(k);
    return extra;
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

/// Qwen3.5's keys beside Qwen3-Next's layout: the output gate every Qwen3NextAttention builds, the MTP
/// module's embedding and the recurrent state's precision.
std::vector<family_key> qwen3_5_keys(std::vector<family_key> extra) {
    extra.push_back({"mtp_num_hidden_layers", "multi-token-prediction layers (loaded with model.mtp)"});
    extra.push_back(mtp_key);  // memplan's name of the same count (the resolved model writes it)
    extra.push_back({"attn_output_gate", "the sigmoid output gate of q_proj (always built: must be true)"});
    extra.push_back({"mtp_use_dedicated_embeddings", "the MTP module's own embedding table (false: the model's)"});
    extra.push_back({"mamba_ssm_dtype", "the Gated DeltaNet state's precision, which vLLM serves it in"});
    return qwen3_next_keys(std::move(extra));
}

/// vLLM model_executor/models/qwen3_5_mtp.py (commit 01d99805d1ef3d21d30e21a0ae387643fe0cd45a)
/// Qwen3_5MultiTokenPredictor: mtp_num_hidden_layers full-attention decoder layers, fc 2h → h without bias,
/// norm, pre_fc_norm_hidden and pre_fc_norm_embedding: DeepSeek's MTP layout (arch.cpp).
const size_alias qwen3_5_mtp_layers = {"mtp_num_hidden_layers", &model_config::num_nextn_predict_layers, 0, 64,
                                       "multi-token-prediction layers (loaded with model.mtp)"};

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

/// modeling_llama4.py: Llama4TextMoe = router (no bias) + experts + an ungated shared expert; the L2
/// QK-norm has no weights. The multimodal llama4 and its language model llama4_text.
row llama4_row(const char* model_type) {
    return row(model_type, "Llama 4")
        .llama_style()
        .with(&model_config::shared_expert_gate, false)
        .keys({{"interleave_moe_layer_step", "MoE on every step-th layer when moe_layers is not given"},
               {"moe_layers", "the MoE layers"},
               {"intermediate_size_mlp", "width of the dense layers (intermediate_size is the experts')"},
               {"attention_chunk_size", "tokens per chunk of the chunked-attention (RoPE) layers"},
               {"no_rope_layers", "one 0/1 per layer: 1 a chunked RoPE layer, 0 a global NoPE layer"},
               {"use_qk_norm", "an L2 norm of queries and keys without weights (no parameters)"},
               vision_key})
        .reads(read_llama4)
        .layers({A::full, A::chunked}, {F::dense, F::moe});
}
}  // namespace

const std::vector<model_family>& model_families() {
    // Built once; immutable afterwards.
    static const std::vector<model_family> table = {
        // modeling_gpt2.py: Conv1D layers with biases, LayerNorm, learned positions, tied lm_head, dropout 0.1.
        row("gpt2", "GPT-2")
            .architecture("GPT2LMHeadModel")
            .size_key({"n_positions", &model_config::learned_positions, 0, 16777216,
                         "learned position table, also the context limit"})
            .context_from_positions()
            .fused_qkv("c_attn")
            .layers({A::full}, {F::dense}),
        // modeling_gpt_neox.py: biases everywhere, LayerNorm, rotary, untied embed_out; Pythia trains without dropout.
        row("gpt_neox", "GPT-NeoX")
            .architecture("GPTNeoXForCausalLM")
            .with(&model_config::tie_word_embeddings, false)
            .with(&model_config::dropout, false)
            .layers({A::full}, {F::dense}),
        row("llama", "Llama")
            .aliases({"mistral", "mixtral", "phi3", "phi4", "ministral"})
            .architectures({{"LlamaForCausalLM", "llama"}, {"MistralForCausalLM", "mistral"},
                            {"MixtralForCausalLM", "mixtral"}, {"Phi3ForCausalLM", "phi3"},
                            {"MinistralForCausalLM", "ministral"}})
            .llama_style()
            .layers({A::full, A::sliding}, {F::dense, F::moe}),
        // modeling_smollm3.py: Llama's block (RMSNorm, SwiGLU, no biases), tied embeddings by default
        // (configuration_smollm3.py); no_rope_layers leaves RoPE out of some layers, which has no weights.
        row("smollm3", "SmolLM3")
            .architecture("SmolLM3ForCausalLM")
            .llama_style()
            .with(&model_config::tie_word_embeddings, true)
            .keys({{"no_rope_layers", "one 0/1 per layer: 0 a layer without RoPE (no weights, the same cache)"},
                   {"no_rope_layer_interval", "every interval-th layer without RoPE when no_rope_layers is absent"}})
            .reads([](hf_config_keys& keys, model_config& m) {
                keys.integer("no_rope_layer_interval", 4, 1, 65536);
                std::vector<char> rope;
                if (keys.flag_list("no_rope_layers", rope) && m.num_hidden_layers != 0 && rope.size() != m.num_hidden_layers)
                    keys.fail("no_rope_layers", "must list one 0/1 entry per layer (" + std::to_string(m.num_hidden_layers) + ")");
            })
            .layers({A::full, A::sliding}, {F::dense}),
        // transformers src/transformers/models/olmo2/modeling_olmo2.py (commit 7264638d7b0ab5841670813ebed806189b8f7b71)
        // Olmo2Attention: q/k/v/o (bias = attention_bias), then q_norm RMSNorm(num_attention_heads · head_dim)
        // and k_norm RMSNorm(num_key_value_heads · head_dim) over the whole projection, not per head as
        // Qwen3; Olmo2DecoderLayer: post_attention_layernorm and post_feedforward_layernorm, no input norm.
        row("olmo2", "OLMo 2")
            .architecture("Olmo2ForCausalLM")
            .llama_style()
            .with(&model_config::qk_norm, true)
            .with(&model_config::qk_norm_full_width, true)
            .layers({A::full}, {F::dense}),
        // transformers src/transformers/models/olmo3/modeling_olmo3.py (commit a0699c971daff96403489086fcfd07469d20b17f):
        // OLMo 2's block (Olmo3Attention's q_norm/k_norm over the whole projection, two post-norms);
        // layer_types names each layer sliding_attention (sliding_window) or full_attention.
        row("olmo3", "OLMo 3")
            .architecture("Olmo3ForCausalLM")
            .llama_style()
            .with(&model_config::qk_norm, true)
            .with(&model_config::qk_norm_full_width, true)
            .layers({A::full, A::sliding}, {F::dense}),
        // modeling_granite.py: Llama's block; embedding_multiplier, residual_multiplier, attention_multiplier
        // and logits_scaling scale activations and add no weights.
        row("granite", "Granite")
            .architecture("GraniteForCausalLM")
            .llama_style()
            .keys({granite_keys[0], granite_keys[1], granite_keys[2], granite_keys[3]})
            .layers({A::full, A::sliding}, {F::dense}),
        // modeling_granitemoehybrid.py: per layer input_layernorm, a Mamba-2 mixer (BambaMixer's: in_proj
        // h → 2I + 2GN + H, conv1d, dt_bias, A_log, D, gated norm, out_proj) or attention (layer_types
        // "mamba" / "attention"), post_attention_layernorm, then experts of intermediate_size with a router
        // without bias when num_local_experts > 0, and always a shared MLP of shared_intermediate_size
        // (input_linear h → 2·shared, output_linear) without a gate.
        row("granitemoehybrid", "Granite 4")
            .architecture("GraniteMoeHybridForCausalLM")
            .llama_style()
            .with(&model_config::mamba_version, 2)
            .with(&model_config::shared_expert_gate, false)
            .keys({granite_keys[0], granite_keys[1], granite_keys[2], granite_keys[3],
                   {"shared_intermediate_size", "the shared MLP's width (every layer's MLP when there are no experts)"},
                   {"mamba_n_heads", "Mamba-2 heads H (default 128)"},
                   {"mamba_d_head", "Mamba-2 head width, or \"auto\" = I / H"},
                   {"mamba_d_state", "SSM state size N (default 256)"},
                   {"mamba_n_groups", "Mamba-2 B/C groups G (default 1)"},
                   {"mamba_d_conv", "causal convolution kernel K (default 4)"},
                   {"mamba_expand", "inner width I = mamba_expand · hidden_size (default 2)"},
                   {"mamba_conv_bias", "a bias on the Mamba convolution (default true)"},
                   {"mamba_proj_bias", "biases on the Mamba projections (default false)"}})
            .reads([](hf_config_keys& keys, model_config& m) {
                const std::uint64_t L = m.num_hidden_layers, h = m.hidden_size;
                if (!keys.contains("layer_types"))
                    keys.fail("layer_types", "is required for a Granite 4 config (one \"mamba\" or \"attention\" per layer)");
                const std::uint64_t shared = keys.integer("shared_intermediate_size", 0, 0, 1048576);
                if (shared == 0) keys.fail("shared_intermediate_size", "is required for a Granite 4 config (the shared MLP's width)");
                if (m.num_experts != 0) {
                    m.moe_intermediate_size = m.intermediate_size;
                    m.shared_expert_intermediate_size = shared;
                    if (L != 0) m.layer_mlp.assign(L, F::moe);
                } else {
                    m.intermediate_size = shared;
                }
                // configuration_granitemoehybrid.py: I = mamba_expand · hidden_size, d_head "auto" = I / H.
                m.mamba_num_heads = keys.integer("mamba_n_heads", 128, 1, 65536);
                m.mamba_d_inner = keys.integer("mamba_expand", 2, 1, 1024) * h;
                std::uint64_t d_head = m.mamba_num_heads != 0 ? m.mamba_d_inner / m.mamba_num_heads : 0;
                if (!keys.integer_or_word("mamba_d_head", "auto", d_head))
                    keys.fail("mamba_d_head", "must be a positive integer or \"auto\"");
                else if (d_head * m.mamba_num_heads != m.mamba_d_inner)
                    keys.fail("mamba_d_head", "times mamba_n_heads must equal mamba_expand · hidden_size (" +
                                                  std::to_string(m.mamba_d_inner) + ")");
                m.mamba_d_state = keys.integer("mamba_d_state", 256, 1, 65536);
                m.mamba_n_groups = keys.integer("mamba_n_groups", 1, 1, 65536);
                m.mamba_d_conv = keys.integer("mamba_d_conv", 4, 1, 1024);
            })
            .layers({A::full, A::mamba}, {F::dense, F::moe}),
        row("mistral3", "Mistral 3")
            .architecture("Mistral3ForConditionalGeneration")
            .llama_style()
            .keys({vision_key})
            .multimodal("mistral", vision_tower::pixtral)
            .layers({A::full, A::sliding}, {F::dense}),
        // modeling_qwen2.py: q_proj, k_proj, v_proj with bias=True, o_proj without.
        row("qwen2", "Qwen2")
            .architecture("Qwen2ForCausalLM")
            .aliases({"qwen2_5_vl_text"})
            .llama_style()
            .with(&model_config::qkv_bias, true)
            .layers({A::full, A::sliding}, {F::dense}),
        row("qwen2_moe", "Qwen2-MoE")
            .architecture("Qwen2MoeForCausalLM")
            .llama_style()
            .with(&model_config::qkv_bias, true)
            .keys({moe_step_keys[0], moe_step_keys[1]})
            .reads(read_qwen_moe)
            .layers({A::full, A::sliding}, {F::dense, F::moe}),
        // Gemma ties lm_head to embed_tokens (Gemma Team 2024, §2).
        row("gemma", "Gemma")
            .architecture("GemmaForCausalLM")
            .llama_style()
            .with(&model_config::tie_word_embeddings, true)
            .layers({A::full}, {F::dense}),
        // modeling_gemma2.py: pre- and post-norm around attention and MLP; even layers (0, 2, …) slide,
        // odd ones attend globally.
        row("gemma2", "Gemma 2")
            .architecture("Gemma2ForCausalLM")
            .llama_style()
            .with(&model_config::tie_word_embeddings, true)
            .with(&model_config::norms_per_layer, 4)
            .window_period(2)
            .layers({A::full, A::sliding}, {F::dense}),
        gemma3_row("gemma3")
            .architecture("Gemma3ForConditionalGeneration")
            .multimodal("gemma3_text", vision_tower::siglip),
        gemma3_row("gemma3_text")
            .architecture("Gemma3ForCausalLM")
            // configuration_gemma3.py Gemma3TextConfig defaults, which the released text_config objects rely on.
            .text_config_defaults([](const hf_config_keys& keys, model_config& m) {
                if (m.vocab_size == 0) m.vocab_size = 262208;
                if (m.num_attention_heads == 0) m.num_attention_heads = 8;
                if (m.num_key_value_heads == 0) m.num_key_value_heads = 4;
                if (m.head_dim == 0) m.head_dim = 256;
                if (m.sliding_window == 0 && !keys.contains("sliding_window")) m.sliding_window = 4096;
            }),
        gemma4_row("gemma4")
            .architecture("Gemma4ForConditionalGeneration")
            .multimodal("gemma4_text", vision_tower::gemma4),
        gemma4_row("gemma4_text")
            .architecture("Gemma4ForCausalLM")
            // configuration_gemma4.py Gemma4TextConfig defaults (351f643a), which a text_config may rely on.
            .text_config_defaults([](const hf_config_keys& keys, model_config& m) {
                if (m.vocab_size == 0) m.vocab_size = 262144;
                if (m.num_attention_heads == 0) m.num_attention_heads = 8;
                if (m.num_key_value_heads == 0) m.num_key_value_heads = 4;
                if (m.head_dim == 0) m.head_dim = 256;
                if (m.sliding_window == 0 && !keys.contains("sliding_window")) m.sliding_window = 512;
            }),
        // modeling_qwen3.py / modeling_qwen3_moe.py: no biases, q_norm and k_norm (RMSNorm over head_dim).
        row("qwen3", "Qwen3")
            .architecture("Qwen3ForCausalLM")
            // transformers src/transformers/models/qwen3_vl/modeling_qwen3_vl.py (commit
            // 68a7b7e272a36928120316249af3ee3cac595818) Qwen3VLTextAttention: Qwen3's block, q_norm/k_norm over
            // head_dim; M-RoPE and the deepstack inputs add no weights.
            .aliases({"qwen3_vl_text"})
            .llama_style()
            .with(&model_config::qk_norm, true)
            .layers({A::full, A::sliding}, {F::dense}),
        // modeling_qwen3_vl.py Qwen3VLForConditionalGeneration: the language model under text_config
        // (qwen3_vl_text, Qwen3's row) and its vision tower (Qwen3VLVisionModel with the deepstack mergers,
        // model_json.cpp qwen3_vl_vision_params).
        row("qwen3_vl", "Qwen3-VL")
            .architecture("Qwen3VLForConditionalGeneration")
            .llama_style()
            .with(&model_config::qk_norm, true)
            .keys({vision_key})
            .multimodal("qwen3_vl_text", vision_tower::qwen3_vl)
            .layers({A::full}, {F::dense}),
        row("qwen3_moe", "Qwen3-MoE")
            .architecture("Qwen3MoeForCausalLM")
            .llama_style()
            .with(&model_config::qk_norm, true)
            .keys({moe_step_keys[0], moe_step_keys[1],
                   {"use_qk_norm", "true in some released files (Qwen3-Coder); q_norm and k_norm are always built"}})
            .reads([](hf_config_keys& keys, model_config& m) {
                read_qwen_moe(keys, m);
                // transformers src/transformers/models/qwen3_moe/modeling_qwen3_moe.py (commit
                // 16b6c53c8ec3a720bd45c1c377bf94e1d01249c5) Qwen3MoeAttention builds q_norm and k_norm whatever
                // use_qk_norm says, so a false one describes weights the modelling file does not build.
                bool qk_norm = true;
                keys.boolean("use_qk_norm", qk_norm);
                if (!qk_norm)
                    keys.fail("use_qk_norm", "is false, but Qwen3-MoE (modeling_qwen3_moe.py) always has q_norm and k_norm");
            })
            .layers({A::full, A::sliding}, {F::dense, F::moe}),
        // modeling_qwen3_next.py (Qwen3NextAttention): q_proj emits queries and a sigmoid gate, QK-norm;
        // Qwen2-MoE-style sparse block with a gated shared expert; Gated DeltaNet linear-attention layers.
        qwen3_next_row("qwen3_next", "Qwen3-Next")
            .architecture("Qwen3NextForCausalLM")
            .keys(qwen3_next_keys({moe_step_keys[0], moe_step_keys[1], mtp_key}))
            .reads(read_qwen3_next),
        // transformers src/transformers/models/qwen3_5/modular_qwen3_5.py (commit
        // 009e78d6e89fd6f3e68cf81ba95ccc682c8cdda9): Qwen3_5TextModel is Qwen3NextModel with Qwen3_5DecoderLayer
        // (Qwen3NextAttention, or Qwen3_5GatedDeltaNet whose in_proj_qkv h×(2·nk·dk + nv·dv), in_proj_z
        // h×(nv·dv), in_proj_b and in_proj_a h×nv hold the same weights as Qwen3-Next's in_proj_qkvz and
        // in_proj_ba) and a dense Qwen3_5MLP of intermediate_size on every layer; Qwen3_5TextConfig deletes
        // the MoE keys. Qwen3_5ForConditionalGeneration adds Qwen3-VL's tower without the deepstack mergers.
        qwen3_next_row("qwen3_5_text", "Qwen3.5")
            .architecture("Qwen3_5ForCausalLM")
            .keys(qwen3_5_keys({{"mlp_only_layers", "written empty by the released files; no layer is MoE"}}))
            .size_key(qwen3_5_mtp_layers)
            .reads(read_qwen3_5),
        qwen3_next_row("qwen3_5", "Qwen3.5")
            .architecture("Qwen3_5ForConditionalGeneration")
            .keys({vision_key})
            .multimodal("qwen3_5_text", vision_tower::qwen3_vl),
        // transformers src/transformers/models/qwen3_5_moe/modular_qwen3_5_moe.py: Qwen3.5's layers with
        // Qwen3-Next's sparse block (experts of moe_intermediate_size, a gated shared expert of
        // shared_expert_intermediate_size) on every layer not in mlp_only_layers.
        qwen3_next_row("qwen3_5_moe_text", "Qwen3.5-MoE")
            .architecture("Qwen3_5MoeForCausalLM")
            .keys(qwen3_5_keys({moe_step_keys[0], moe_step_keys[1]}))
            .size_key(qwen3_5_mtp_layers)
            .reads(read_qwen3_5),
        qwen3_next_row("qwen3_5_moe", "Qwen3.5-MoE")
            .architecture("Qwen3_5MoeForConditionalGeneration")
            .keys({vision_key})
            .multimodal("qwen3_5_moe_text", vision_tower::qwen3_vl),
        // modeling_deepseek_v3.py: MLA, shared experts without a gate; V3 routers carry
        // e_score_correction_bias, V2's none.
        row("deepseek_v2", "DeepSeek-V2")
            .architecture("DeepseekV2ForCausalLM")
            .llama_style()
            .with(&model_config::shared_expert_gate, false)
            .keys(deepseek_keys())
            .reads(read_deepseek)
            .layers({A::mla}, {F::dense, F::moe}),
        row("deepseek_v3", "DeepSeek-V3")
            .architecture("DeepseekV3ForCausalLM")
            .aliases({"kimi_k2"})
            .llama_style()
            .with(&model_config::shared_expert_gate, false)
            .with(&model_config::router_bias, true)
            .keys(deepseek_keys())
            .reads(read_deepseek)
            .layers({A::mla}, {F::dense, F::moe}),
        // Kimi K2.5 (vLLM vllm/model_executor/models/kimi_k25.py at 009dff45, configs/kimi_k25.py at 61a45f5a):
        // KimiK25ForConditionalGeneration, DeepSeek-V3's language model (DeepseekV2Model) under text_config
        // (kimi_k2 or deepseek_v3, DeepSeek-V3's row) and the MoonViT tower with its patch-merger projector
        // (model_json.cpp moonvit_params).
        row("kimi_k25", "Kimi K2.5")
            .architecture("KimiK25ForConditionalGeneration")
            .llama_style()
            .with(&model_config::shared_expert_gate, false)
            .with(&model_config::router_bias, true)
            .keys({vision_key})
            .multimodal("kimi_k2", vision_tower::moonvit)
            .layers({A::mla}, {F::dense, F::moe}),
        // Kimi Linear (read_kimi_linear above): Kimi Delta Attention and MLA layers, DeepSeek-style MoE; no MTP
        // module (kimi_linear.py builds none), so a non-zero num_nextn_predict_layers is refused.
        row("kimi_linear", "Kimi Linear")
            .architecture("KimiLinearForCausalLM")
            .llama_style()
            .with(&model_config::shared_expert_gate, false)
            .with(&model_config::router_bias, true)
            .with(&model_config::linear_kda, true)
            .keys({{"num_shared_experts", "one shared MLP of num_shared_experts · moe_intermediate_size"},
                   first_k_dense_replace,
                   {"moe_layer_freq", "MoE on every moe_layer_freq-th layer from first_k_dense_replace on"},
                   {"linear_attn_config", "kda_layers (1-based) are Kimi Delta Attention of num_heads × head_dim "
                                          "with short_conv_kernel_size; the other layers MLA"},
                   {"kv_lora_rank", "multi-head latent attention: the latent cached per token"},
                   {"q_lora_rank", "null: MLA queries projected directly"},
                   {"qk_nope_head_dim", "MLA query and key width without rotary embedding"},
                   {"qk_rope_head_dim", "MLA decoupled key width, cached beside the latent"},
                   {"v_head_dim", "MLA value head width"},
                   {"mla_use_nope", "true: no rotary embedding (no weights)"}})
            .size_key({"num_experts_per_token", &model_config::experts_per_token, 0, 65536, "routed experts per token"})
            .reads(read_kimi_linear)
            .layers({A::mla, A::linear}, {F::dense, F::moe}),
        // Kimi K3 (vLLM configs/kimi_k3.py at 42321622): a kimi_linear language model under text_config and
        // MoonViT (KimiK3VisionConfig, the tower of vLLM kimi_k25_vit.py with RMSNorms, no biases, its own q/k/v
        // width and the patchmergerv2 projector).
        row("kimi_k3", "Kimi K3")
            .architecture("KimiK3ForConditionalGeneration")
            .llama_style()
            .keys({vision_key})
            .multimodal("kimi_linear", vision_tower::moonvit)
            .layers({A::mla, A::linear}, {F::dense, F::moe}),
        // DeepSeek-V3.2 (DeepSeek-V3.2-Exp inference/model.py; vLLM deepseek_v2.py at 002d6073): DeepSeek-V3's
        // layers and MTP module, each MLA layer with DeepSeek Sparse Attention's lightning indexer (arch.cpp).
        row("deepseek_v32", "DeepSeek-V3.2")
            .architecture("DeepseekV32ForCausalLM")
            .llama_style()
            .with(&model_config::shared_expert_gate, false)
            .with(&model_config::router_bias, true)
            .keys(deepseek_sparse_keys())
            .reads([](hf_config_keys& keys, model_config& m) {
                read_deepseek(keys, m);
                keys.integer("index_topk", 0, 1, 16777216);  // checked, and read for nothing: compute only
            })
            .layers({A::mla}, {F::dense, F::moe}),
        // DeepSeek-V4 (read_deepseek_v4; arch.cpp counts its layers, hyper-connections, hc_head and MTP module).
        // deepseek_ref is the model_type of sgl-project's DeepSeek-V4-Flash-FP8 file (DeepseekV4ForCausalLM).
        // Keys that change no weight: sliding_window (the window, no weights), index_topk, hc_sinkhorn_iters, hc_eps,
        // swiglu_limit (a clamp), compress_rope_theta (RoPE), scoring_func, topk_method, norm_topk_prob,
        // routed_scaling_factor (routing); num_key_value_heads 1 (the shared-KV head, kv_proj h×head_dim).
        row("deepseek_v4", "DeepSeek-V4")
            .architecture("DeepseekV4ForCausalLM")
            .aliases({"deepseek_ref"})
            .llama_style()
            .with(&model_config::shared_expert_gate, false)
            .with(&model_config::router_bias, true)
            .keys({n_routed_experts, n_shared_experts, mtp_key,
                   {"q_lora_rank", "query compression rank (q_a_proj, q_norm, q_b_proj; the indexer's q_b_proj reads it)"},
                   {"qk_rope_head_dim", "rotated width of each head (RoPE only, no weights)"},
                   {"index_n_heads", "the CSA layers' lightning indexer query heads (q_b_proj, weights_proj)"},
                   {"index_head_dim", "the indexer's head width (its compressor kv_proj, gate_proj, position_bias)"},
                   {"index_topk", "compressed entries each query attends to: compute only, no weights"},
                   {"compress_ratios", "per layer then per MTP module: 0 window only, 4 CSA, 128 HCA compressor"},
                   {"o_groups", "grouped output projection: o_a_proj per head group, then o_b_proj"},
                   {"o_lora_rank", "o_a_proj's output width per group"},
                   {"hc_mult", "hyper-connection streams: attn_hc, ffn_hc per layer and hc_head"},
                   {"hc_sinkhorn_iters", "Sinkhorn iterations of the hyper-connections (no weights)"},
                   {"hc_eps", "hyper-connection epsilon (no weights)"},
                   {"num_hash_layers", "the first layers route by tid2eid (vocab_size × top-k), without router bias"},
                   {"expert_dtype", "routed experts' storage: \"fp8\" as quantization_config; \"fp4\" refused"},
                   {"swiglu_limit", "clamp of the experts' SwiGLU (no weights)"},
                   {"compress_rope_theta", "RoPE base of the compressed entries (no weights)"}})
            .reads(read_deepseek_v4)
            .layers({A::sliding}, {F::moe}),
        // GLM-5 (read_glm_moe_dsa): DeepSeek-V3.2's MLA with the lightning indexer on every layer (GlmMoeDsaIndexer:
        // wq_b, wk, k_norm LayerNorm, weights_proj, as arch.cpp counts it), DeepSeek's MoE with one shared expert and
        // e_score_correction_bias, and the MTP layer 78 that transformers skips on load. Keys that change no weight:
        // rope_interleave and indexer_rope_interleave (RoPE layout), n_group, topk_group, norm_topk_prob,
        // routed_scaling_factor, scoring_func and topk_method (routing), ep_size (a parallel hint); num_key_value_heads
        // (MLA projects every head from the latent).
        row("glm_moe_dsa", "GLM-5")
            .architecture("GlmMoeDsaForCausalLM")
            .llama_style()
            .with(&model_config::shared_expert_gate, false)
            .with(&model_config::router_bias, true)
            .keys([] {
                auto keys = deepseek_sparse_keys();
                keys.push_back({"qk_head_dim", "qk_nope_head_dim + qk_rope_head_dim, checked"});
                keys.push_back({"indexer_types", "per layer \"full\" (its own indexer) or \"shared\" (none; refused)"});
                keys.push_back({"index_topk_pattern", "indexer_types as \"F\"/\"S\" per layer, when indexer_types is absent"});
                keys.push_back({"index_topk_freq", "indexer_types' default: every freq-th layer after the offset runs one"});
                keys.push_back({"index_skip_topk_offset", "indexer_types' default: layers before it all run one (default 2)"});
                keys.push_back({"index_share_for_mtp_iteration", "the MTP layer reuses an indexer (true refused)"});
                keys.push_back({"moe_router_dtype", "the router's storage type (\"bfloat16\" only)"});
                return keys;
            }())
            .reads(read_glm_moe_dsa)
            .layers({A::mla}, {F::dense, F::moe}),
        // modeling_glm4_moe.py: q/k/v biases (attention_bias; o_proj has none); router with
        // e_score_correction_bias; DeepSeek's MoE layout; q_norm/k_norm with use_qk_norm.
        row("glm4_moe", "GLM-4-MoE")
            .architecture("Glm4MoeForCausalLM")
            .llama_style()
            .with(&model_config::shared_expert_gate, false)
            .with(&model_config::router_bias, true)
            .keys({n_routed_experts, n_shared_experts, first_k_dense_replace,
                   {"use_qk_norm", "RMSNorm of queries and keys over head_dim (q_norm, k_norm)"}, mtp_key})
            .reads([](hf_config_keys& keys, model_config& m) {
                read_deepseek_moe(keys, m);
                keys.boolean("use_qk_norm", m.qk_norm);
            })
            .attention_bias_without_output()
            .layers({A::full}, {F::dense, F::moe}),
        // transformers src/transformers/models/minimax_m2/modular_minimax_m2.py (commit
        // 001f85b38fb432858ace93f18622f07cec46d874): MiniMaxM2Attention is FlexOlmoAttention with q/k/v/o without
        // bias and q_norm over a·d, k_norm over kv·d (the whole projection, as OLMo 2); MiniMaxM2SparseMoeBlock is
        // Mixtral's (router E × h without bias, experts w1/w3/w2 of intermediate_size) with the e_score_correction_bias
        // of E that the checkpoint stores; two RMSNorms per layer; untied. rotary_dim (64 of 128) is memplan's own key.
        // vLLM model_executor/models/minimax_m2.py (commit 01d99586) keeps the router and its bias in fp32 (not
        // modelled: 62 · 256 · 3072 · 2 B, 0.1 GB more than memplan's bf16 router) and skips the checkpoint's MTP
        // modules (get_spec_layer_idx_from_weight_name): they are not counted, as vLLM serves the model.
        // Keys that change no weight: scoring_func (sigmoid routing).
        row("minimax_m2", "MiniMax-M2")
            .architecture("MiniMaxM2ForCausalLM")
            .llama_style()
            .with(&model_config::qk_norm, true)
            .with(&model_config::qk_norm_full_width, true)
            .with(&model_config::router_bias, true)
            .keys({{"use_qk_norm", "q_norm and k_norm over the whole projection (always built: must be true)"},
                   {"qk_norm_type", "\"per_layer\": one norm over all heads (the only kind FlexOlmoAttention builds)"},
                   {"use_routing_bias", "the router's e_score_correction_bias of E (stored in the checkpoint)"},
                   {"shared_intermediate_size", "a shared expert's width: 0 (MiniMaxM2SparseMoeBlock has none)"},
                   {"use_mtp", "MTP modules stored in the checkpoint, which vLLM does not load: not counted"},
                   {"num_mtp_modules", "MTP modules stored in the checkpoint (not counted)"},
                   {"mtp_transformer_layers", "layers per MTP module (not counted)"},
                   {"attn_type_list", "one entry per layer, 1 softmax attention (the only kind MiniMax-M2 builds)"}})
            .reads([](hf_config_keys& keys, model_config& m) {
                bool qk_norm = true;
                keys.boolean("use_qk_norm", qk_norm);
                if (!qk_norm) keys.fail("use_qk_norm", "is false, but MiniMax-M2's attention (FlexOlmoAttention) always has q_norm and k_norm");
                std::string kind;
                keys.text("qk_norm_type", kind);
                if (!kind.empty() && kind != "per_layer")
                    keys.fail("qk_norm_type", "must be \"per_layer\" (one norm over all heads, as modular_minimax_m2.py builds it)");
                keys.boolean("use_routing_bias", m.router_bias);
                if (keys.integer("shared_intermediate_size", 0, 0, 1048576) != 0)
                    keys.fail("shared_intermediate_size", "must be 0: MiniMax-M2's MoE block has no shared expert");
                // The MTP modules: checked, and not counted (vLLM's minimax_m2.py skips them when it loads the
                // checkpoint, so the served weights are the count without them).
                bool mtp = false;
                keys.boolean("use_mtp", mtp);
                keys.integer("num_mtp_modules", 0, 0, 64);
                keys.integer("mtp_transformer_layers", 0, 0, 64);
                // MiniMax-Text-01's attn_type_list marks its lightning-attention layers 0; MiniMax-M2's are all
                // softmax attention (1), the only kind modular_minimax_m2.py builds.
                std::vector<char> types;
                if (keys.flag_list("attn_type_list", types) &&
                    (types.size() != m.num_hidden_layers || std::find(types.begin(), types.end(), 0) != types.end()))
                    keys.fail("attn_type_list", "must list 1 (softmax attention) for each of the " +
                                                    std::to_string(m.num_hidden_layers) + " layers");
            })
            .layers({A::full}, {F::moe}),
        // MiMo-V2-Flash (read_mimo_v2_flash): q h×(a·head_dim), k h×(kv·head_dim), v h×(kv·v_head_dim), o (a·v_head_dim)×h
        // without bias (vLLM mimo_v2_flash.py MiMoV2Attention at 01ed47b4: qkv bias attention_bias, o_proj none); two
        // RMSNorms per layer; untied lm_head. Keys that change no weight: rope_theta, swa_rope_theta and
        // partial_rotary_factor (RoPE), attention_value_scale (scales V), layernorm_epsilon, n_group, topk_group,
        // topk_method, scoring_func, norm_topk_prob and routed_scaling_factor (routing). The checkpoint's MTP layers
        // (model.mtp.*, which transformers skips) have no count in config.json and are not counted.
        row("mimo_v2_flash", "MiMo-V2-Flash")
            .architecture("MiMoV2FlashForCausalLM")
            .llama_style()
            .with(&model_config::shared_expert_gate, false)
            .with(&model_config::router_bias, true)
            .keys({n_routed_experts,
                   {"n_shared_experts", "null: no shared expert (another value refused)"},
                   {"moe_layer_freq", "one 0/1 per layer: 1 an MoE layer, 0 a dense MLP"},
                   {"hybrid_layer_pattern", "one 0/1 per layer: 1 sliding-window attention, 0 full attention"},
                   {"v_head_dim", "value head width of every attention layer (queries and keys use head_dim)"},
                   {"sliding_window_size", "the sliding layers' window (equal to sliding_window)"},
                   {"attention_chunk_size", "read by neither modelling file: no chunked layers"},
                   {"swa_num_key_value_heads", "KV heads of the sliding layers"},
                   {"swa_num_attention_heads", "query heads of the sliding layers (equal to num_attention_heads)"},
                   {"swa_head_dim", "query/key width of the sliding layers (equal to head_dim)"},
                   {"swa_v_head_dim", "value width of the sliding layers (equal to v_head_dim)"},
                   {"add_swa_attention_sink_bias", "a sink logit per query head on the sliding layers"},
                   {"add_full_attention_sink_bias", "sinks on the full layers (true refused: not built)"}})
            .reads(read_mimo_v2_flash)
            .attention_bias_without_output()
            .layers({A::full, A::sliding}, {F::dense, F::moe}),
        llama4_row("llama4")
            .architecture("Llama4ForConditionalGeneration")
            .multimodal("llama4_text", vision_tower::llama4)
            // SGLang's is_hybrid_swa_model lists Llama4ForConditionalGeneration (its chunked layers).
            .sglang_swa_pool(),
        llama4_row("llama4_text")
            .architecture("Llama4ForCausalLM")
            .tower(vision_tower::llama4),  // a flattened config's vision_config is Llama 4's
        // modeling_gpt_oss.py: biases on q/k/v/o (attention_bias), sinks per head, router and expert biases.
        row("gpt_oss", "gpt-oss")
            .architecture("GptOssForCausalLM")
            .llama_style()
            .with(&model_config::qkv_bias, true)
            .with(&model_config::attention_out_bias, true)
            .with(&model_config::mlp_bias, true)
            .with(&model_config::attention_sinks, true)
            .with(&model_config::router_bias, true)
            .size_key({"experts_per_token", &model_config::experts_per_token, 0, 65536,
                         "experts each token is routed to (num_experts_per_tok)"})
            // transformers quantizer_mxfp4.py: only the MoE experts are MXFP4; gpt-oss lists attention,
            // router, embeddings and lm_head in modules_to_not_convert.
            .mxfp4_checkpoint()
            // SGLang's is_hybrid_swa_model lists GptOssForCausalLM.
            .sglang_swa_pool()
            .layers({A::full, A::sliding}, {F::moe}),
        // modeling_jamba.py: attention or Mamba-1 mixer, then a dense MLP or MoE, two RMSNorms per layer.
        row("jamba", "Jamba")
            .architecture("JambaForCausalLM")
            .llama_style()
            .with(&model_config::mamba_version, 1)
            .keys({{"attn_layer_period", "attention where i % attn_layer_period == attn_layer_offset (default 8)"},
                   {"attn_layer_offset", "see attn_layer_period (default 4); Mamba elsewhere"},
                   {"expert_layer_period", "MoE where i % expert_layer_period == expert_layer_offset (default 2)"},
                   {"expert_layer_offset", "see expert_layer_period (default 1); dense elsewhere"},
                   {"mamba_d_state", "SSM state size N (default 16)"},
                   {"mamba_d_conv", "causal convolution kernel K (default 4)"},
                   {"mamba_expand", "inner width I = mamba_expand · hidden_size (default 2)"},
                   {"mamba_dt_rank", "Δ projection rank, or \"auto\" = ⌈hidden_size / 16⌉"}})
            .reads([](hf_config_keys& keys, model_config& m) {
                // modeling_jamba.py: attention where i % attn_layer_period == attn_layer_offset, Mamba
                // elsewhere; MoE where i % expert_layer_period == expert_layer_offset. Mamba-1: I =
                // mamba_expand · h, dt_rank "auto" = ceil(h / 16).
                const std::uint64_t L = m.num_hidden_layers;
                if (L == 0 || own_attention(keys, m)) return;
                const std::uint64_t ap = keys.integer("attn_layer_period", 8, 1, 65536);
                const std::uint64_t ao = keys.integer("attn_layer_offset", 4, 0, 65536);
                const std::uint64_t ep = keys.integer("expert_layer_period", 2, 1, 65536);
                const std::uint64_t eo = keys.integer("expert_layer_offset", 1, 0, 65536);
                m.layer_attention.assign(L, A::mamba);
                m.layer_mlp.assign(L, F::dense);
                for (std::uint64_t i = 0; i < L; ++i) {
                    if (i % ap == ao) m.layer_attention[i] = A::full;
                    if (i % ep == eo && m.num_experts != 0) m.layer_mlp[i] = F::moe;
                }
                m.mamba_d_state = keys.integer("mamba_d_state", 16, 1, 65536);
                m.mamba_d_conv = keys.integer("mamba_d_conv", 4, 1, 1024);
                m.mamba_d_inner = keys.integer("mamba_expand", 2, 1, 1024) * m.hidden_size;
                m.mamba_dt_rank = (m.hidden_size + 15) / 16;
                if (!keys.integer_or_word("mamba_dt_rank", "auto", m.mamba_dt_rank))
                    keys.fail("mamba_dt_rank", "must be a positive integer or \"auto\"");
                // mamba_conv_bias / mamba_proj_bias are read as memplan keys of the same name (defaults true / false).
            })
            .layers({A::full, A::mamba}, {F::dense, F::moe}),
        // modeling_nemotron_h.py: each layer is one RMSNorm and one mixer (Mamba-2, attention, a
        // squared-ReLU MLP up/down, or an MoE of squared-ReLU experts, Nemotron 3).
        row("nemotron_h", "Nemotron-H")
            .architecture("NemotronHForCausalLM")
            .llama_style()
            .with(&model_config::mlp, mlp_kind::plain)
            .with(&model_config::norms_per_layer, 1)
            .with(&model_config::mamba_version, 2)
            .with(&model_config::shared_expert_gate, false)
            .with(&model_config::router_bias, true)
            .keys({{"hybrid_override_pattern", "one character per layer: M Mamba-2, * attention, - MLP, E MoE"},
                   {"layers_block_type", "one name per layer (mamba or linear_attention, attention or "
                                         "full_attention, mlp, moe); its length is the layer count"},
                   {"mamba_num_heads", "Mamba-2 heads"},
                   {"mamba_head_dim", "Mamba-2 head width: I = mamba_num_heads · mamba_head_dim (default 64)"},
                   {"ssm_state_size", "SSM state size N (default 128)"},
                   {"n_groups", "Mamba-2 B/C groups G (default 8)"},
                   {"conv_kernel", "causal convolution kernel K (default 4)"},
                   {"mamba_d_state", "memplan's SSM state size, when given"},
                   {"mamba_d_conv", "memplan's convolution kernel, when given"},
                   {"use_conv_bias", "a bias on the Mamba convolution"},
                   {"use_bias", "biases on the Mamba projections"},
                   {"attention_head_dim", "head_dim of the attention layers"},
                   {"n_routed_experts", "routed experts of each MoE (E) layer, and the router's width"},
                   {"n_shared_experts", "1: NemotronHMoE builds one shared MLP of moe_shared_expert_intermediate_size"},
                   {"moe_shared_expert_intermediate_size", "width of the MoE layers' shared MLP (up, down)"},
                   {"moe_latent_size", "the routed experts' width, between projections h×latent and latent×h"},
                   mtp_key,
                   {"mtp_hybrid_override_pattern", "the MTP block's layers (with model.mtp: refused, not counted yet)"},
                   {"mtp_layers_block_type", "the MTP block's layers, as names (as mtp_hybrid_override_pattern)"}})
            .reads([](hf_config_keys& keys, model_config& m) {
                // configuration_nemotron_h.py (transformers 13923c63): the layers are layers_block_type, or the
                // older hybrid_override_pattern's characters (M linear_attention, E moe, * full_attention, - mlp);
                // legacy names mamba and attention are remapped; the layer count is the list's length.
                std::string pattern;
                std::vector<std::string> names;
                keys.text("hybrid_override_pattern", pattern);
                if (!keys.name_list("layers_block_type", names)) return;
                if (!names.empty()) {
                    std::string from_names;
                    for (const std::string& n : names) {
                        if (n == "mamba" || n == "linear_attention") from_names += 'M';
                        else if (n == "attention" || n == "full_attention") from_names += '*';
                        else if (n == "mlp") from_names += '-';
                        else if (n == "moe") from_names += 'E';
                        else {
                            keys.fail("layers_block_type", "has a layer type \"" + n + "\" (known: mamba, "
                                                           "linear_attention, attention, full_attention, mlp, moe)");
                            return;
                        }
                    }
                    if (!pattern.empty() && pattern != from_names) {
                        keys.fail("hybrid_override_pattern", "must describe the same layers as layers_block_type");
                        return;
                    }
                    pattern = from_names;
                    if (m.num_hidden_layers != 0 && m.num_hidden_layers != pattern.size()) {
                        keys.fail("num_hidden_layers", "must equal the length of layers_block_type (" +
                                                           std::to_string(pattern.size()) + ")");
                        return;
                    }
                    if (pattern.size() > 65536) {
                        keys.fail("layers_block_type", "must list from 1 to 65536 layers");
                        return;
                    }
                    m.num_hidden_layers = pattern.size();
                }
                if (m.num_hidden_layers == 0 && !pattern.empty() && pattern.size() <= 65536)
                    m.num_hidden_layers = pattern.size();  // the pattern's length, as layers_block_type's
                const std::uint64_t L = m.num_hidden_layers;
                if (L == 0 || pattern.empty()) return;
                if (pattern.size() != L) {
                    keys.fail("hybrid_override_pattern", "must have one character per layer (" + std::to_string(L) + ")");
                    return;
                }
                // modeling_nemotron_h.py (transformers 008d9e95) NemotronHBlock: one mixer per layer.
                m.layer_attention.assign(L, A::none);
                m.layer_mlp.assign(L, F::none);
                bool moe = false;
                for (std::uint64_t i = 0; i < L; ++i) {
                    const char c = pattern[i];
                    if (c == 'M') m.layer_attention[i] = A::mamba;
                    else if (c == '*') m.layer_attention[i] = A::full;
                    else if (c == '-') m.layer_mlp[i] = F::dense;
                    else if (c == 'E') {
                        m.layer_mlp[i] = F::moe;
                        moe = true;
                    }
                    else {
                        keys.fail("hybrid_override_pattern", std::string("has a layer kind '") + c +
                                                                 "' that is not supported yet (M, *, -, E are)");
                        return;
                    }
                }
                m.mamba_num_heads = keys.integer("mamba_num_heads", 0, 0, 65536);
                m.mamba_d_inner = m.mamba_num_heads * keys.integer("mamba_head_dim", 64, 1, 65536);
                m.mamba_d_state = keys.integer("ssm_state_size", 128, 1, 65536);
                m.mamba_n_groups = keys.integer("n_groups", 8, 1, 65536);
                m.mamba_d_conv = keys.integer("conv_kernel", 4, 1, 1024);
                keys.boolean("use_conv_bias", m.mamba_conv_bias);
                keys.boolean("use_bias", m.mamba_proj_bias);
                if (keys.contains("attention_head_dim")) m.head_dim = keys.integer("attention_head_dim", m.head_dim, 1, 65536);
                // modeling_nemotron_h.py (008d9e95) NemotronHMoE: router weight E×h and the e_score_correction_bias
                // buffer E (router_bias); NemotronHExperts up E×f×w and down E×w×f without biases (w = moe_latent_size
                // or h); shared_experts NemotronHMLP(moe_shared_expert_intermediate_size), n_shared_experts unread;
                // fc1/fc2_latent_proj with moe_latent_size. The configuration class's defaults (8 experts of 7688)
                // would be guesses for a checkpoint: each size is required.
                keys.integer("n_shared_experts", 1, 1, 1);
                m.moe_latent_size = keys.integer("moe_latent_size", 0, 1, 1048576);
                if (!moe) return;
                for (const char* key : {"n_routed_experts", "moe_intermediate_size", "moe_shared_expert_intermediate_size",
                                        "num_experts_per_tok"})
                    if (!keys.given(key)) {
                        keys.fail(key, "is required for the MoE layers (E) of a Nemotron-H config (a positive integer)");
                        return;
                    }
                m.num_experts = keys.integer("n_routed_experts", 0, 1, 65536);
                m.shared_expert_intermediate_size = keys.integer("moe_shared_expert_intermediate_size", 0, 1, 1048576);
                if (m.mlp_bias) keys.fail("mlp_bias", "must be false for a Nemotron-H config with MoE layers (E): the "
                                                    "experts have no biases while the shared MLP would (not modelled yet)");
            })
            .layers({A::full, A::mamba, A::none}, {F::dense, F::moe, F::none}),
    };
    return table;
}

const model_family* find_family(const std::string& model_type) {
    for (const model_family& f : model_families()) {
        if (model_type == f.model_type) return &f;
        for (const char* alias : f.aliases)
            if (model_type == alias) return &f;
    }
    return nullptr;
}

const std::vector<const char*>& family_only_keys() {
    // The keys some row lists, and others that no family memplan knows defines; built once.
    static const std::vector<const char*> keys = {
        "n_routed_experts", "n_shared_experts", "num_shared_experts", "first_k_dense_replace", "moe_layer_freq",
        "interleave_moe_layer_step", "moe_layers", "decoder_sparse_step", "mlp_only_layers", "expert_layer_period",
        "expert_layer_offset", "attn_layer_period", "attn_layer_offset", "hybrid_override_pattern",
        "layers_block_type", "sliding_window_pattern", "attention_chunk_size", "no_rope_layers",
        "full_attention_interval", "linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
        "linear_value_head_dim", "linear_conv_kernel_dim", "mamba_d_state", "mamba_d_conv", "mamba_expand",
        "mamba_dt_rank", "mamba_num_heads", "mamba_head_dim", "ssm_state_size", "n_groups", "conv_kernel",
        "num_nextn_predict_layers", "mtp_num_hidden_layers", "kv_lora_rank", "q_lora_rank", "qk_nope_head_dim",
        "qk_rope_head_dim", "v_head_dim", "intermediate_size_mlp", "use_qk_norm", "vision_config", "audio_config",
        "attn_type_list", "moe_shared_expert_intermediate_size", "shared_intermediate_size", "index_n_heads",
        "index_head_dim", "index_topk", "moe_latent_size", "indexer_types", "index_topk_pattern", "index_topk_freq",
        "index_skip_topk_offset", "index_share_for_mtp_iteration", "moe_router_dtype",
        "moe_intermediate_size_mlp", "num_experts_per_layer", "moe_every_n_layers", "dense_intermediate_size",
        "hybrid_layer_pattern", "swa_num_key_value_heads", "swa_num_attention_heads", "swa_head_dim", "swa_v_head_dim",
        "add_swa_attention_sink_bias", "add_full_attention_sink_bias", "global_head_dim", "attention_k_eq_v",
        "num_global_key_value_heads", "num_kv_shared_layers", "use_double_wide_mlp", "hidden_size_per_layer_input",
        "vocab_size_per_layer_input", "enable_moe_block", "top_k_experts", "expert_intermediate_size",
        "linear_attn_config", "attn_res_block_size",
        "routed_expert_hidden_size", "latent_moe_use_norm", "mla_use_output_gate", "activation_situ_beta",
        "activation_situ_linear_beta", "compress_ratios", "o_groups", "o_lora_rank", "hc_mult", "num_hash_layers",
        "expert_dtype"};
    return keys;
}

std::string model_type_of_architecture(const std::string& class_name) {
    for (const model_family& f : model_families())
        for (const family_architecture& a : f.architectures)
            if (class_name == a.class_name) return a.model_type;
    return "";
}

const std::vector<const char*>& standard_hf_keys() {
    // transformers configuration_utils.py PretrainedConfig.__init__ (v4.57.0): its generic attributes;
    // then keys of decoder configs that change no weight and no cache (RoPE has no weights, token ids,
    // initialisation, caching, tensor-parallel hints); then the norm epsilons and the activation, which
    // choose the defaults of an unknown family (model_json.cpp).
    static const std::vector<const char*> keys = {
        "architectures", "model_type", "transformers_version", "_name_or_path", "torch_dtype", "dtype",
        "use_bfloat16", "return_dict", "output_hidden_states", "output_attentions", "torchscript",
        "tf_legacy_loss", "pruned_heads", "tie_encoder_decoder", "is_decoder", "add_cross_attention",
        "chunk_size_feed_forward", "is_encoder_decoder", "finetuning_task", "id2label", "label2id",
        "tokenizer_class", "prefix", "bos_token_id", "pad_token_id", "eos_token_id", "sep_token_id",
        "decoder_start_token_id", "task_specific_params", "problem_type", "max_length", "min_length",
        "do_sample", "early_stopping", "num_beams", "temperature", "top_k", "top_p", "repetition_penalty",
        "initializer_range", "use_cache", "rope_theta", "rope_scaling", "rope_parameters", "rope_type",
        "partial_rotary_factor", "rotary_pct", "rotary_emb_base", "pretraining_tp", "base_model_tp_plan",
        "base_model_pp_plan", "_attn_implementation", "attn_implementation", "generation_config",
        "rms_norm_eps", "layer_norm_eps", "layer_norm_epsilon", "norm_eps", "hidden_act", "activation_function"};
    return keys;
}

bool family_reads(const model_family& family, const char* key) {
    return std::any_of(family.keys.begin(), family.keys.end(),
                       [key](const family_key& k) { return std::string(k.name) == key; });
}

model_config family_defaults(const std::string& model_type) {
    // Without a row, GPT-style: LayerNorm, plain MLP, biases, dropout, tied embeddings.
    const model_family* f = find_family(model_type);
    model_config m = f != nullptr ? f->defaults : model_config{};
    m.model_type = model_type;
    return m;
}

bool is_known_family(const std::string& model_type) { return find_family(model_type) != nullptr; }

}  // namespace memplan
