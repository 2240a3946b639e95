// The vision tower and projector of a multimodal Hugging Face config.json (its vision_config), counted
// for the `model` section read in model_json.cpp: SigLIP, Pixtral, Llama 4, Qwen3-VL, Gemma 4 and MoonViT
// towers, each with the modeling file it follows.
#include "io/object_reader.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "base/checks.hpp"
#include "memplan/model/families.hpp"

namespace memplan::detail {

namespace {
using json = nlohmann::ordered_json;

/// A positive size in a vision config object `o` (1 … 2^24), or `fallback` when the key is absent or
/// null; anything else is an error naming `prefix` + key, and 0.
std::uint64_t vision_size(object_reader& r, const json& o, const char* key, std::uint64_t fallback, const std::string& prefix) {
    const auto it = o.find(key);
    if (it == o.end() || it->is_null()) return fallback;
    if (!it->is_number_unsigned() || it->get<std::uint64_t>() == 0 || it->get<std::uint64_t>() > 16777216) {
        r.fail(prefix + key, detail::integer_range_message(1, 16777216));
        return 0;
    }
    return it->get<std::uint64_t>();
}

/// A size a tower cannot be counted without: vision_size with no fallback, an absent or null key an error
/// naming it and `tower`; `complete` turns false on any failure (or a value of 0).
u128 required_vision_size(object_reader& r, const json& o, const char* key, const std::string& prefix,
                          const char* tower, bool& complete) {
    const auto it = o.find(key);
    if (it == o.end() || it->is_null()) {
        r.fail(prefix + key, std::string("is required to count ") + tower + " (a positive integer)");
        complete = false;
        return 0;
    }
    const std::uint64_t value = vision_size(r, o, key, 0, prefix);  // an invalid value fails there
    if (value == 0) complete = false;
    return value;
}

/// A ViT vision tower as SigLIP (modeling_siglip.py SiglipVisionTransformer without head): patch
/// convolution C·p²·d + d, position embeddings (image/p)²·d, per layer two LayerNorms (2·2d),
/// q/k/v/o with biases (4d² + 4d) and an MLP d×f + f + f×d + d, and a final LayerNorm 2d.
bool siglip_params(object_reader& r, const json& v, std::uint64_t& out) {
    const std::string prefix = r.field("vision_config") + ".";
    const auto get = [&](const char* key, std::uint64_t fallback) { return vision_size(r, v, key, fallback, prefix); };
    // Defaults of SiglipVisionConfig (configuration_siglip.py).
    const u128 d = get("hidden_size", 768), f = get("intermediate_size", 3072), layers = get("num_hidden_layers", 12),
               c = get("num_channels", 3), patch = get("patch_size", 16), image = get("image_size", 224);
    if (d == 0 || f == 0 || layers == 0 || c == 0 || patch == 0 || image == 0) return false;
    if (const auto it = v.find("vision_use_head"); it != v.end() && it->is_boolean() && it->get<bool>()) {
        r.fail(r.field("vision_config.vision_use_head"), "is not supported yet (SigLIP attention-pooling head)");
        return false;
    }
    const u128 grid = image / patch;
    const u128 total = c * patch * patch * d + d + grid * grid * d + layers * (4 * d + 4 * d * d + 4 * d + 2 * d * f + f + d) + 2 * d;
    out = static_cast<std::uint64_t>(std::min<u128>(total, max_param_count));
    return true;
}

/// Pixtral vision tower and Mistral 3 projector (modeling_pixtral.py PixtralVisionModel:
/// patch_conv C·p²·d without bias, ln_pre RMSNorm d, per layer attention_norm and ffn_norm (2d),
/// q/k/v/o without bias (4d²) and a gated MLP 3·d·f; modeling_mistral3.py Mistral3MultiModalProjector:
/// norm d, patch_merger d·s² × d, linear_1 d × h and linear_2 h × h, with biases when
/// multimodal_projector_bias).
bool pixtral_params(object_reader& r, const json& outer, const json& v, std::uint64_t text_hidden, std::uint64_t& out) {
    const auto get = [&](const json& o, const char* key, std::uint64_t fallback, const std::string& where) {
        return vision_size(r, o, key, fallback, r.field(where));
    };
    // Defaults of PixtralVisionConfig and Mistral3Config.
    const u128 d = get(v, "hidden_size", 1024, "vision_config."), f = get(v, "intermediate_size", 4096, "vision_config."),
               layers = get(v, "num_hidden_layers", 24, "vision_config."), c = get(v, "num_channels", 3, "vision_config."),
               patch = get(v, "patch_size", 16, "vision_config."), merge = get(outer, "spatial_merge_size", 2, "");
    if (d == 0 || f == 0 || layers == 0 || c == 0 || patch == 0 || merge == 0) return false;
    if (const auto it = outer.find("vision_feature_layer"); it != outer.end() && !(it->is_number_integer() && it->get<std::int64_t>() == -1)) {
        r.fail(r.field("vision_feature_layer"), "is supported as -1 only (one feature layer)");
        return false;
    }
    const bool bias = flag_in(r, outer, "multimodal_projector_bias", false, r.field("multimodal_projector_bias"));
    const u128 h = text_hidden;
    const u128 tower = c * patch * patch * d + d + layers * (2 * d + 4 * d * d + 3 * d * f);
    const u128 projector = d + d * merge * merge * d + d * h + h * h + (bias ? 2 * h : 0);
    out = static_cast<std::uint64_t>(std::min<u128>(tower + projector, max_param_count));
    return true;
}

/// Llama 4 vision tower and projector, as transformers' src/transformers/models/llama4/modeling_llama4.py
/// (commit 63210d0e3b74c2119b7998ff65bc6a2729283626) builds them; defaults of Llama4VisionConfig
/// (configuration_llama4.py, commit b17cfe48c5a9631dcf9f57f3865a055903800f81).
bool llama4_vision_params(object_reader& r, const json& v, std::uint64_t text_hidden, std::uint64_t& out) {
    const std::string prefix = r.field("vision_config") + ".";
    const auto get = [&](const char* key, std::uint64_t fallback) { return vision_size(r, v, key, fallback, prefix); };
    const u128 d = get("hidden_size", 768), layers = get("num_hidden_layers", 34), heads = get("num_attention_heads", 16),
               c = get("num_channels", 3), f = get("intermediate_size", 5632), out_dim = get("vision_output_dim", 7680),
               image = get("image_size", 448), patch = get("patch_size", 14), p_in = get("projector_input_dim", 4096),
               p_out = get("projector_output_dim", 4096);
    if (d == 0 || layers == 0 || heads == 0 || c == 0 || f == 0 || out_dim == 0 || image == 0 || patch == 0 || p_in == 0 || p_out == 0)
        return false;
    // Llama4VisionAttention: head_dim = hidden_size // num_attention_heads (integer division).
    if (heads > d) {
        r.fail(r.field("vision_config.num_attention_heads"), "must not exceed vision_config.hidden_size (" + std::to_string(static_cast<std::uint64_t>(d)) + ")");
        return false;
    }
    // Llama4VisionMLP2 feeds fc1's projector_input_dim outputs to fc2 (projector_output_dim inputs), and
    // Llama4MultiModalProjector reads vision_output_dim features: a checkpoint whose sizes differ does not run.
    if (p_in != p_out) {
        r.fail(r.field("vision_config.projector_output_dim"), "must equal vision_config.projector_input_dim (" + std::to_string(static_cast<std::uint64_t>(p_in)) + ")");
        return false;
    }
    if (out_dim != p_out) {
        r.fail(r.field("vision_config.vision_output_dim"), "must equal vision_config.projector_output_dim (" + std::to_string(static_cast<std::uint64_t>(p_out)) + ")");
        return false;
    }
    const u128 attn_width = heads * (d / heads);  // num_heads · head_dim: q/k/v output width, o_proj input width
    // Llama4UnfoldConvolution: linear C·p² × d, bias=False.
    const u128 patch_embedding = c * patch * patch * d;
    // Llama4VisionModel: class_embedding d; positional_embedding_vlm ((image_size // patch_size)² + 1) × d.
    const u128 grid = image / patch;
    const u128 embeddings = d + (grid * grid + 1) * d;
    // Llama4VisionModel: layernorm_pre and layernorm_post, nn.LayerNorm (weight and bias) each.
    const u128 outer_norms = 2 * 2 * d;
    // Llama4VisionEncoderLayer: q/k/v d × attn_width with bias, o_proj attn_width × d with bias (Llama4VisionAttention);
    // Llama4VisionMLP fc1 d × f and fc2 f × d with biases; input_layernorm and post_attention_layernorm (2 · 2d).
    const u128 layer = 3 * (d * attn_width + attn_width) + (attn_width * d + d) + (d * f + f) + (f * d + d) + 2 * 2 * d;
    // Llama4VisionPixelShuffleMLP → Llama4VisionMLP2: fc1 intermediate_size × projector_input_dim and
    // fc2 projector_output_dim × projector_output_dim, both bias=False.
    const u128 adapter = f * p_in + p_out * p_out;
    // Llama4MultiModalProjector: linear_1 vision_output_dim × text hidden_size, bias=False (the modelling file
    // does not read multi_modal_projector_bias).
    const u128 projector = out_dim * text_hidden;
    const u128 total = patch_embedding + embeddings + outer_norms + layers * layer + adapter + projector;
    out = static_cast<std::uint64_t>(std::min<u128>(total, max_param_count));
    return true;
}

/// Qwen3-VL's vision tower as transformers' src/transformers/models/qwen3_vl/modeling_qwen3_vl.py (commit
/// 68a7b7e272a36928120316249af3ee3cac595818) builds it; no defaults are assumed: each size is read from
/// vision_config (Qwen3VLVisionConfig's defaults differ between releases), a missing one is refused.
bool qwen3_vl_vision_params(object_reader& r, const json& v, std::uint64_t& out) {
    const std::string prefix = r.field("vision_config") + ".";
    bool complete = true;
    const auto need = [&](const char* key) { return required_vision_size(r, v, key, prefix, "Qwen3-VL's vision tower", complete); };
    const u128 d = need("hidden_size"), f = need("intermediate_size"), depth = need("depth"), c = need("in_channels"),
               patch = need("patch_size"), t = need("temporal_patch_size"), positions = need("num_position_embeddings"),
               merge = need("spatial_merge_size"), out_d = need("out_hidden_size");
    (void)need("num_heads");  // head_dim = hidden_size // num_heads shapes no weight (qkv is d × 3d)
    if (!complete || d == 0 || f == 0 || depth == 0 || c == 0 || patch == 0 || t == 0 || positions == 0 || merge == 0 || out_d == 0)
        return false;
    u128 deepstack = 0;
    if (const auto it = v.find("deepstack_visual_indexes"); it != v.end() && !it->is_null()) {
        if (!it->is_array()) {
            r.fail(prefix + "deepstack_visual_indexes", "must be a list of vision layer indexes");
            return false;
        }
        for (const auto& i : *it)
            if (!i.is_number_integer() || i.get<std::int64_t>() < 0 || static_cast<u128>(i.get<std::int64_t>()) >= depth) {
                r.fail(prefix + "deepstack_visual_indexes", "must hold layer indexes from 0 to depth − 1");
                return false;
            }
        deepstack = it->size();
    }
    // Qwen3VLVisionPatchEmbed: Conv3d(in_channels, d, kernel (temporal_patch_size, p, p), bias=True).
    const u128 patch_embed = c * t * patch * patch * d + d;
    // Qwen3VLVisionModel.pos_embed: nn.Embedding(num_position_embeddings, d); the rotary table is a buffer.
    const u128 pos_embed = positions * d;
    // Qwen3VLVisionBlock: norm1 and norm2 LayerNorm (2 · 2d); Qwen3VLVisionAttention qkv d × 3d and proj d × d,
    // both with bias; Qwen3VLVisionMLP linear_fc1 d × f and linear_fc2 f × d, both with bias.
    const u128 block = 2 * 2 * d + (3 * d * d + 3 * d) + (d * d + d) + (d * f + f) + (f * d + d);
    // Qwen3VLVisionPatchMerger over H = d · spatial_merge_size²: norm LayerNorm (of d, or of H after the
    // shuffle: the deepstack mergers), linear_fc1 H × H and linear_fc2 H × out_hidden_size, both with bias.
    const u128 h = d * merge * merge;
    const u128 merger_linears = (h * h + h) + (h * out_d + out_d);
    const u128 merger = 2 * d + merger_linears;
    const u128 deepstack_mergers = deepstack * (2 * h + merger_linears);
    const u128 total = patch_embed + pos_embed + depth * block + merger + deepstack_mergers;
    out = static_cast<std::uint64_t>(std::min<u128>(total, max_param_count));
    return true;
}

/// Gemma 4's vision tower and its embedding projection, as transformers src/transformers/models/gemma4/modeling_gemma4.py
/// (commit c308a309e651a7e033f683353f3f75aa66d29502) builds them, at Gemma4VisionConfig's defaults (configuration_gemma4.py,
/// commit 351f643ab9f582c01026b6d75aab3e2c5a8338cd) where a key is absent. Keys that shape no weight: rope_parameters,
/// pooling_kernel_size (average pooling), attention_bias and global_head_dim (Gemma4VisionAttention reads neither),
/// max_position_embeddings, rms_norm_eps, hidden_activation, the processor's sequence lengths.
bool gemma4_vision_params(object_reader& r, const json& v, std::uint64_t text_hidden, std::uint64_t& out) {
    const std::string prefix = r.field("vision_config") + ".";
    const auto get = [&](const char* key, std::uint64_t fallback) { return vision_size(r, v, key, fallback, prefix); };
    const u128 d = get("hidden_size", 768), f = get("intermediate_size", 3072), layers = get("num_hidden_layers", 16),
               heads = get("num_attention_heads", 12), kv = get("num_key_value_heads", 12), hd = get("head_dim", 64),
               patch = get("patch_size", 16), positions = get("position_embedding_size", 10240);
    if (d == 0 || f == 0 || layers == 0 || heads == 0 || kv == 0 || hd == 0 || patch == 0 || positions == 0) return false;
    const bool clipped = flag_in(r, v, "use_clipped_linears", false, prefix + "use_clipped_linears");
    const bool standardize = flag_in(r, v, "standardize", false, prefix + "standardize");
    // Gemma4VisionPatchEmbedder: input_proj 3·p² × d without bias; position_embedding_table 2 × positions × d.
    const u128 embedder = 3 * patch * patch * d + 2 * positions * d;
    // Gemma4VisionEncoderLayer: q d × heads·hd, k and v d × kv·hd, o heads·hd × d (Gemma4ClippableLinear, no bias;
    // with use_clipped_linears four scalar buffers each, input_min/max and output_min/max); q_norm and k_norm hd,
    // v_norm without weight; four RMSNorms d; Gemma4VisionMLP gate, up d × f and down f × d (clippable too).
    const u128 layer = d * heads * hd + 2 * d * kv * hd + heads * hd * d + 2 * hd + 4 * d + 3 * d * f + (clipped ? 7 * 4 : 0);
    // Gemma4VisionModel: std_bias and std_scale (d each, persistent buffers) with standardize; the pooler has no weight.
    const u128 standardizer = standardize ? 2 * d : 0;
    // Gemma4MultimodalEmbedder: embedding_projection d × text hidden_size without bias; its norm has no weight.
    const u128 projection = d * text_hidden;
    const u128 total = embedder + layers * layer + standardizer + projection;
    out = static_cast<std::uint64_t>(std::min<u128>(total, max_param_count));
    return true;
}

/// Kimi K2.5's MoonViT tower and projector, as vLLM's vllm/model_executor/models/kimi_k25_vit.py (commit
/// 055e47c28003156421365af985d676fc921cb075) builds them (MoonViT3dPretrainedModel, KimiK25MultiModalProjector):
/// biases and LayerNorms unless attn_bias, linear_bias, patch_embed_proj_bias or norm_type say otherwise. Every
/// size is read from vision_config under the checkpoint's names (vt_hidden_size, …); a missing one is refused.
bool moonvit_params(object_reader& r, const json& v, std::uint64_t text_hidden, std::uint64_t& out) {
    const std::string prefix = r.field("vision_config") + ".";
    bool complete = true;
    const auto need = [&](const char* key) { return required_vision_size(r, v, key, prefix, "the MoonViT vision tower", complete); };
    // A string key that must be one of `allowed` (the first is its default when `fallback` and the key is absent).
    const auto choice = [&](const char* key, std::initializer_list<const char*> allowed, bool fallback) {
        const auto it = v.find(key);
        std::string list;
        for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + "\"" + a + "\"";
        if ((it == v.end() || it->is_null()) && fallback) return std::string(*allowed.begin());
        const std::string value = it != v.end() && it->is_string() ? it->get<std::string>() : "";
        for (const char* a : allowed)
            if (value == a) return value;
        r.fail(prefix + key, (it == v.end() || it->is_null() ? std::string("is required") : "is " + it->dump()) +
                                 ": the MoonViT tower memplan counts has " + list);
        complete = false;
        return std::string();
    };
    const u128 d = need("vt_hidden_size"), f = need("vt_intermediate_size"), layers = need("vt_num_hidden_layers"),
               heads = need("vt_num_attention_heads"), patch = need("patch_size"), pos_h = need("init_pos_emb_height"),
               pos_w = need("init_pos_emb_width"), mm = need("mm_hidden_size"), text = need("text_hidden_size");
    (void)need("init_pos_emb_time");  // sizes time_weight, a non-persistent sin-cos buffer: no weight
    // qkv_hidden_size: q/k/v width (vLLM MoonViTEncoderLayer: the vision width when absent).
    const u128 qkv = vision_size(r, v, "qkv_hidden_size", static_cast<std::uint64_t>(d), prefix);
    u128 kh = 0, kw = 0;
    if (const auto it = v.find("merge_kernel_size"); it != v.end() && it->is_array() && it->size() == 2 &&
                                                     (*it)[0].is_number_unsigned() && (*it)[1].is_number_unsigned() &&
                                                     (*it)[0].get<std::uint64_t>() >= 1 && (*it)[0].get<std::uint64_t>() <= 64 &&
                                                     (*it)[1].get<std::uint64_t>() >= 1 && (*it)[1].get<std::uint64_t>() <= 64) {
        kh = (*it)[0].get<std::uint64_t>();
        kw = (*it)[1].get<std::uint64_t>();
    } else {
        r.fail(prefix + "merge_kernel_size", "must be a list of two integers from 1 to 64 such as [2, 2]");
        complete = false;
    }
    (void)choice("pos_emb_type", {"divided_fixed"}, false);
    (void)choice("merge_type", {"sd2_tpool"}, false);
    (void)choice("video_attn_type", {"spatial_temporal"}, true);
    (void)choice("mlp_type", {"mlp2"}, true);
    const std::string projector = choice("mm_projector_type", {"patchmerger", "patchmergerv2"}, false);
    const bool rms = choice("norm_type", {"layernorm", "rmsnorm"}, true) == "rmsnorm";
    const bool attn_bias = flag_in(r, v, "attn_bias", true, prefix + "attn_bias");
    const bool linear_bias = flag_in(r, v, "linear_bias", true, prefix + "linear_bias");
    const bool patch_bias = flag_in(r, v, "patch_embed_proj_bias", true, prefix + "patch_embed_proj_bias");
    if (!complete || d == 0 || f == 0 || layers == 0 || heads == 0 || patch == 0 || pos_h == 0 || pos_w == 0 ||
        mm == 0 || text == 0 || qkv == 0)
        return false;
    // QKVParallelLinear(head_size = qkv_hidden_size // num_heads): the heads must split the q/k/v width.
    if (qkv % heads != 0) {
        r.fail(prefix + "vt_num_attention_heads", "must divide the q/k/v width " + std::to_string(static_cast<std::uint64_t>(qkv)));
        return false;
    }
    // The checkpoint's PatchMergerMLP normalises mm_hidden_size features and vLLM's the tower's width: one tower.
    if (mm != d) {
        r.fail(prefix + "mm_hidden_size", "must equal vision_config.vt_hidden_size (" + std::to_string(static_cast<std::uint64_t>(d)) + ")");
        return false;
    }
    if (text != text_hidden) {
        r.fail(prefix + "text_hidden_size", "must equal the language model's hidden_size (" + std::to_string(text_hidden) + ")");
        return false;
    }
    const auto norm = [rms](u128 width) { return rms ? width : 2 * width; };  // nn.RMSNorm weight; nn.LayerNorm weight and bias
    // MoonVision3dPatchEmbed: proj Conv2d(3, d, kernel p × p) with bias unless patch_embed_proj_bias is false;
    // Learnable2DInterpPosEmbDivided_fixed.weight (init_pos_emb_height, init_pos_emb_width, d).
    const u128 patch_embed = 3 * patch * patch * d + (patch_bias ? d : 0) + pos_h * pos_w * d;
    // MoonViTEncoderLayer: norm0 and norm1, wqkv d × 3·qkv and wo qkv × d (biases with attn_bias), MLP2 fc0 d × f
    // and fc1 f × d (biases with linear_bias).
    const u128 block = 2 * norm(d) + (d * 3 * qkv + (attn_bias ? 3 * qkv : 0)) + (qkv * d + (attn_bias ? d : 0)) +
                       (d * f + (linear_bias ? f : 0)) + (f * d + (linear_bias ? d : 0));
    // MoonViT3dEncoder.final_layernorm (norm_type).
    const u128 encoder = layers * block + norm(d);
    // KimiK25MultiModalProjector over H = d · kh · kw: patchmerger pre_norm LayerNorm(d), linear_1 H × H and
    // linear_2 H × text hidden, both with bias; patchmergerv2 linear_1 and linear_2 without bias, post_norm RMSNorm.
    const u128 h = d * kh * kw;
    const u128 projector_params = projector == "patchmerger" ? 2 * d + (h * h + h) + (h * text + text)
                                                             : h * h + h * text + text;
    const u128 total = patch_embed + encoder + projector_params;
    out = static_cast<std::uint64_t>(std::min<u128>(total, max_param_count));
    return true;
}

}  // namespace

/// The vision tower and projector of a multimodal checkpoint (vision_config beside the language model of
/// `outer_type`, whose family's tower is `kind`) into m.vision_params; a tower memplan cannot count is
/// refused, naming vision_config, so that no total silently leaves it out (and the resolved keys, which
/// hold vision_params, say the same).
void read_vision_tower(object_reader& r, const json& outer, const json& vision, vision_tower kind,
                       const std::string& outer_type, model_config& m) {
    std::uint64_t tower = 0;
    if (kind == vision_tower::siglip) {
        // modeling_gemma3.py Gemma3MultiModalProjector: mm_input_projection_weight d_vision × h and
        // mm_soft_emb_norm (RMSNorm d_vision), after a SigLIP tower.
        if (siglip_params(r, vision, tower)) {
            // The width siglip_params read (a null hidden_size is SiglipVisionConfig's default 768).
            const std::uint64_t dv = vision_size(r, vision, "hidden_size", 768, r.field("vision_config") + ".");
            m.vision_params = tower + dv * m.hidden_size + dv;
        }
    } else if (kind == vision_tower::pixtral) {
        if (pixtral_params(r, outer, vision, m.hidden_size, tower)) m.vision_params = tower;
        for (const char* k : {"spatial_merge_size", "multimodal_projector_bias", "vision_feature_layer"}) (void)r.find(k);
    } else if (kind == vision_tower::llama4) {
        if (llama4_vision_params(r, vision, m.hidden_size, tower)) m.vision_params = tower;
    } else if (kind == vision_tower::qwen3_vl) {
        if (qwen3_vl_vision_params(r, vision, tower)) m.vision_params = tower;
    } else if (kind == vision_tower::gemma4) {
        if (gemma4_vision_params(r, vision, m.hidden_size, tower)) m.vision_params = tower;
    } else if (kind == vision_tower::moonvit) {
        if (moonvit_params(r, vision, m.hidden_size, tower)) m.vision_params = tower;
    } else {
        r.fail(r.field("vision_config"), "is not supported yet for model_type " +
                                             (outer_type.empty() ? std::string("\"\"") : outer_type) +
                                             " (its vision tower cannot be counted; leave vision_config out to size the language model alone)");
    }
}

}  // namespace memplan::detail
