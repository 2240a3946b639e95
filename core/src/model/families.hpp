// memplan — internal: the key readers of the model families (defined in family_readers.cpp), which the
// rows of families.cpp name: each reads a family's Hugging Face keys beyond the row's declared ones. Not
// public API. Declared in the families unit, so that family_readers.cpp, which includes it, forms no
// include cycle with families.cpp.
#pragma once

#include "memplan/model/families.hpp"

namespace memplan::detail {

/// memplan's explicit per-layer lists (a resolved model) take precedence over the HF patterns.
inline bool own_attention(const hf_config_keys& keys, const model_config& m) {
    return keys.contains("layer_types") && !m.layer_attention.empty();
}
inline bool own_mlp(const hf_config_keys& keys) { return keys.contains("mlp_layer_types"); }

void read_deepseek_moe(hf_config_keys& keys, model_config& m);
void read_deepseek(hf_config_keys& keys, model_config& m);
void read_kimi_linear(hf_config_keys& keys, model_config& m);
void read_deepseek_v4(hf_config_keys& keys, model_config& m);
void read_glm_moe_dsa(hf_config_keys& keys, model_config& m);
void read_mimo_v2_flash(hf_config_keys& keys, model_config& m);
void read_qwen_moe(hf_config_keys& keys, model_config& m);
void read_gemma3(hf_config_keys& keys, model_config& m);
void read_gemma4(hf_config_keys& keys, model_config& m);
void read_llama4(hf_config_keys& keys, model_config& m);
void read_qwen3_next(hf_config_keys& keys, model_config& m);
void read_qwen3_5(hf_config_keys& keys, model_config& m);

}  // namespace memplan::detail
