// The model families: one row each (memplan/model/families.hpp). Each row's structure follows the
// modules Hugging Face transformers instantiates for the family (the modelling file is named at each
// row), and its key reader (family_readers.cpp) the family's configuration class and modelling file.
#include "memplan/model/families.hpp"

#include <algorithm>
#include <utility>

#include "model/families.hpp"  // the rows' key readers (family_readers.cpp)

namespace memplan {

using detail::own_attention;
using detail::read_deepseek;
using detail::read_deepseek_moe;
using detail::read_deepseek_v4;
using detail::read_gemma3;
using detail::read_gemma4;
using detail::read_glm_moe_dsa;
using detail::read_kimi_linear;
using detail::read_llama4;
using detail::read_mimo_v2_flash;
using detail::read_qwen3_5;
using detail::read_qwen3_next;
using detail::read_qwen_moe;

namespace {
using A = attention_kind;
using F = layer_mlp_kind;

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
/// norm, pre_fc_norm_hidden and pre_fc_norm_embedding: DeepSeek's MTP layout (params.cpp).
const size_alias qwen3_5_mtp_layers = {"mtp_num_hidden_layers", &model_config::num_nextn_predict_layers, 0, 64,
                                       "multi-token-prediction layers (loaded with model.mtp)"};

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
        // vision_tower.cpp qwen3_vl_vision_params).
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
        // (vision_tower.cpp moonvit_params).
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
        // layers and MTP module, each MLA layer with DeepSeek Sparse Attention's lightning indexer (params.cpp).
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
        // DeepSeek-V4 (read_deepseek_v4; params.cpp counts its layers, hyper-connections, hc_head and MTP module).
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
        // wq_b, wk, k_norm LayerNorm, weights_proj, as params.cpp counts it), DeepSeek's MoE with one shared expert and
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
