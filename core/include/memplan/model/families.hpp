// memplan — model families: one row per Hugging Face model_type family holding all that memplan
// knows of it: its names, its structural defaults, the Hugging Face config keys it reads and what
// each means (with the reader of its layer patterns), the layer kinds it builds, its vision tower and
// its traits in the serving engines. The model reader (io/model_json.cpp), the parameter count, the
// fine-tuning warnings and the engines read this table; adding a family is adding a row.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "memplan/config/config.hpp"

namespace memplan {

/// Typed reads of one Hugging Face config object, as a family's key reader makes them. The model
/// reader implements it over JSON (io/model_json.cpp); a read that fails reports an error naming the key.
class hf_config_keys {
public:
    virtual ~hf_config_keys() = default;
    /// The key is in the object, with any value (null included).
    virtual bool contains(const char* key) const = 0;
    /// The key is in the object with a value other than null.
    virtual bool given(const char* key) const = 0;
    /// An integer from lo to hi; `fallback` when the key is absent or null (an error when out of range).
    virtual std::uint64_t integer(const char* key, std::uint64_t fallback, std::uint64_t lo, std::uint64_t hi) = 0;
    /// true or false into `out` when given (an error when another type).
    virtual void boolean(const char* key, bool& out) = 0;
    /// A string into `out` when given (an error when another type).
    virtual void text(const char* key, std::string& out) = 0;
    /// A list of layer indices below `layers` as one flag per layer (all 0 when absent); false, with an
    /// error, when the value is no such list.
    virtual bool index_list(const char* key, std::uint64_t layers, std::vector<char>& out) = 0;
    /// A non-empty list as one flag per entry, set where the entry is a number other than 0; false when
    /// the key is absent, null, not a list or empty.
    virtual bool flag_list(const char* key, std::vector<char>& out) = 0;
    /// A list of strings into `out`; false when the key is absent, null or not a list (out empty, no error),
    /// and false with an error naming the key when the list holds anything but strings.
    virtual bool text_list(const char* key, std::vector<std::string>& out) = 0;
    /// An unsigned integer into `out`, or the string `word` (out unchanged); true also when absent or
    /// null, false when the value is anything else.
    virtual bool integer_or_word(const char* key, const char* word, std::uint64_t& out) = 0;
    /// A list of strings into `out` when given; true also when absent or null (`out` empty), false (with an
    /// error) when the value is anything else.
    virtual bool name_list(const char* key, std::vector<std::string>& out) = 0;
    /// A list of integers, each from 0 to hi, into `out`; false when the key is absent or null (out empty, no
    /// error), and false with an error naming the key when the value is anything else.
    virtual bool integer_list(const char* key, std::uint64_t hi, std::vector<std::uint64_t>& out) {
        (void)key;
        (void)hi;
        out.clear();
        return false;
    }
    /// An error naming `key`.
    virtual void fail(const char* key, const std::string& message) = 0;
    /// The reads of the object at `key` (its errors name key.inner); null when absent, null-valued or not an
    /// object, or when the reader has no nested objects.
    virtual std::unique_ptr<hf_config_keys> object(const char* key) {
        (void)key;
        return nullptr;
    }
};

/// A family-specific Hugging Face config key memplan reads, and what it means.
struct family_key {
    const char* name;
    const char* meaning;
};

/// A Hugging Face key read as another name of one of memplan's sizes, right after memplan's own key
/// of that field and in the same range (GPT-2's n_positions for learned_positions).
struct size_alias {
    const char* name;
    std::uint64_t model_config::*field;
    std::uint64_t lo, hi;
    const char* meaning;
};

/// The vision tower of a family's multimodal checkpoints, counted by the model reader from vision_config.
enum class vision_tower {
    none,     ///< no tower memplan can count (a vision_config is refused)
    siglip,   ///< SigLIP tower and Gemma 3's projector
    pixtral,  ///< Pixtral tower and Mistral 3's projector
    llama4,   ///< Llama 4's tower and projector
    qwen3_vl, ///< Qwen3-VL's tower, its patch merger and the deepstack mergers
    gemma4,   ///< Gemma 4's tower and its embedding projection
    moonvit   ///< Kimi K2.5's MoonViT tower and its patch-merger projector
};

/// A model class that a config.json's `architectures` names, and the model_type that transformers
/// registers it under (models/auto/modeling_auto.py, MODEL_FOR_CAUSAL_LM_MAPPING_NAMES and
/// MODEL_FOR_IMAGE_TEXT_TO_TEXT_MAPPING_NAMES).
struct family_architecture {
    const char* class_name;
    const char* model_type;
};

/// One model family.
struct model_family {
    const char* model_type = "";          ///< Hugging Face model_type
    std::vector<const char*> aliases;     ///< other model_type names with the same row
    /// The model classes of its checkpoints (config.json `architectures`), read when model_type is absent.
    std::vector<family_architecture> architectures;
    const char* label = "";               ///< its name in messages ("GPT-2")
    /// Its structural defaults: model_config's GPT-style block with the family's norm, MLP, biases,
    /// tying, dropout, norms per layer and extra weights (QK-norm, sinks, gates, router bias, Mamba
    /// version); every size 0.
    model_config defaults;
    /// Its Hugging Face keys that memplan reads, with their meanings. Those of family_only_keys() are
    /// refused in the configs of the families that do not list them.
    std::vector<family_key> keys;
    /// Its names for memplan's sizes.
    std::vector<size_alias> size_aliases;
    /// Reads its layer patterns (MoE placement, attention kinds per layer, hybrid mixers) from its keys,
    /// after memplan's own keys; null: none.
    void (*read_keys)(hf_config_keys& keys, model_config& m) = nullptr;
    /// Defaults of its configuration class that the text_config of a multimodal checkpoint relies on
    /// (applied before that text_config's keys); null: none.
    void (*text_config_defaults)(const hf_config_keys& keys, model_config& m) = nullptr;
    /// With a sliding window and no per-layer list, layer i slides when i % window_period == 0, the
    /// others attend globally; 0: the window's layer count decides (model_config::sliding_window_layers).
    std::uint64_t window_period = 0;
    /// max_position_embeddings defaults to the learned position table (learned_positions).
    bool context_from_positions = false;
    /// attention_bias also biases the attention output projection (o_proj), not only q, k and v.
    bool attention_bias_on_output = true;
    /// Its released checkpoints store the routed experts in MXFP4 (quantization_config mxfp4 is
    /// accepted even where no experts were read).
    bool mxfp4_checkpoint = false;
    /// A multimodal family: the model_type of its text_config; null: none.
    const char* text_config_type = nullptr;
    vision_tower tower = vision_tower::none;
    /// The kinds of layers it builds.
    std::vector<attention_kind> attention_kinds;
    std::vector<layer_mlp_kind> mlp_kinds;
    /// The Hugging Face module of its fused q/k/v projection, which memplan counts as three (q_proj,
    /// k_proj, v_proj); null: separate projections.
    const char* fused_qkv = nullptr;
    /// SGLang gives its sliding-window layers their own pool (SWAKVPool; is_hybrid_swa_model).
    bool sglang_swa_pool = false;
};

/// Every family memplan knows, one row each.
const std::vector<model_family>& model_families();

/// The row of `model_type` (its model_type or an alias); null when no family has that name.
const model_family* find_family(const std::string& model_type);

/// The model_type of the model class `class_name` (a config.json `architectures` entry) among the rows
/// of model_families(); "" when no row lists it.
std::string model_type_of_architecture(const std::string& class_name);

/// Hugging Face config keys whose meaning memplan knows for a family it does not know: the generic
/// attributes of transformers' PretrainedConfig and the common keys of decoder configs that change no
/// parameter count and no cache (token ids, dtype, initialisation, RoPE, generation defaults), and the
/// norm and activation keys memplan reads to choose its defaults. A config of an unknown family with any
/// other key that memplan does not read is refused.
const std::vector<const char*>& standard_hf_keys();

/// Hugging Face keys that change the parameter count or the cache and that only some families
/// define, in the order their refusals are reported: a config that sets one its family's row does
/// not list is refused, naming the key.
const std::vector<const char*>& family_only_keys();

/// True when `family` lists `key` among its keys.
bool family_reads(const model_family& family, const char* key);

/// Structural defaults of a Hugging Face `model_type` (its row's structure; sizes stay 0); any
/// other model_type (and "") gets the GPT-style defaults of model_config. model_type is set.
model_config family_defaults(const std::string& model_type);

/// True when `model_type` names a row of model_families().
bool is_known_family(const std::string& model_type);

}  // namespace memplan
