// memplan — named fine-tuning recipes (full fine-tuning, LoRA, QLoRA, DoRA), stored once in
// core/data/recipes.json and compiled in: each sets configuration fields to fixed values. The page's
// fine-tuning panel offers them (mp.recipes()); the CLI applies one with --recipe ID
// (memplan/api/front_end.hpp json_request::recipe) and lists them with `memplan recipes`.
#pragma once

#include <string>
#include <vector>

namespace memplan {

/// One field a recipe sets.
struct recipe_value {
    std::string path;  ///< a schema path (memplan/config/schema.hpp find_field): "train.adapter_rank"
    std::string json;  ///< the value as JSON text, as a configuration would give it: 16, "lora", true
};

/// One recipe: what it is called, where it comes from, and the fields it sets.
struct recipe {
    std::string id;      ///< "qlora"
    std::string label;   ///< "QLoRA r16 all-linear, checkpointing, paged 8-bit AdamW"
    std::string source;  ///< the paper the recipe follows
    std::vector<recipe_value> values;  ///< in the order of core/data/recipes.json
};

/// Every recipe, in the order of core/data/recipes.json.
const std::vector<recipe>& recipes();

/// The recipe with exactly this id, or nullptr.
const recipe* find_recipe(const std::string& id);

/// The ids of recipes(), comma-separated: "full, lora, qlora, dora".
std::string recipe_ids();

/// core/data/recipes.json as compiled in: {"version": 1, "description", "recipes": [{"id", "label",
/// "source", "values": {path: value, …}}, …]} (`memplan recipes --json`, mp.recipes()).
std::string recipes_json();

}  // namespace memplan
