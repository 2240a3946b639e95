// The schema rows of memplan's own `model` keys (Hugging Face config.json names where one exists).
// A Hugging Face config may carry other keys; model_json.cpp reads those. Ranges here are the ones
// the model reader and validation apply.
#include "memplan/schema.hpp"
#include "schema_rows.hpp"

namespace memplan {

const std::vector<field_spec>& model_fields() {
    constexpr const char* both = "train,infer";
    static const std::vector<field_spec> fields = {
        MEMPLAN_TEXT("model.model_type", model.model_type, "Model family",
                     "Hugging Face model_type (llama, qwen2, …); sets the block's structure.", both),
        MEMPLAN_INTEGER("model.params", model.params, 0, max_param_count, "Parameters",
                        "Explicit parameter count; 0: counted from the architecture.", "parameters", both),
        MEMPLAN_OPTIONAL_INTEGER("model.num_hidden_layers", model.num_hidden_layers, 1, max_layer_count, "Layers",
                                 "Transformer blocks.", "layers", both),
        MEMPLAN_OPTIONAL_INTEGER("model.hidden_size", model.hidden_size, 1, max_width, "Hidden size",
                                 "Model width h.", "", both),
        MEMPLAN_OPTIONAL_INTEGER("model.num_attention_heads", model.num_attention_heads, 1, max_layer_count,
                                 "Attention heads", "Query heads.", "heads", both),
        MEMPLAN_OPTIONAL_INTEGER("model.num_key_value_heads", model.num_key_value_heads, 1, max_layer_count,
                                 "KV heads", "Key/value heads (grouped-query attention); not set: the query heads.",
                                 "heads", both),
        MEMPLAN_OPTIONAL_INTEGER("model.head_dim", model.head_dim, 1, max_layer_count, "Head size",
                                 "Per-head size; not set: hidden size / heads.", "", both),
        MEMPLAN_OPTIONAL_INTEGER("model.intermediate_size", model.intermediate_size, 1, max_width, "FFN size",
                                 "Feed-forward width; not set: 4 × hidden size.", "", both),
        MEMPLAN_OPTIONAL_INTEGER("model.vocab_size", model.vocab_size, 1, max_vocab_size, "Vocabulary",
                                 "Tokens in the vocabulary; not set: no embeddings and no logits.", "tokens", both),
        MEMPLAN_BOOLEAN("model.tie_word_embeddings", model.tie_word_embeddings, "Tied embeddings",
                        "The output layer shares the input embedding.", both),
        MEMPLAN_INTEGER("model.learned_positions", model.learned_positions, 0, max_token_count, "Learned positions",
                        "Learned absolute position embeddings (GPT-2); 0: rotary.", "positions", both),
        MEMPLAN_CHOICE("model.norm", model.norm, "Norm", "LayerNorm (weight and bias) or RMSNorm (weight).", both),
        MEMPLAN_INTEGER("model.norms_per_layer", model.norms_per_layer, 0, max_norms_per_layer, "Norms per layer",
                        "Normalisation layers in one block (Gemma 2: 4).", "", both),
        MEMPLAN_CHOICE("model.mlp", model.mlp, "MLP", "plain (up, down) or gated (gate, up, down: SwiGLU).", both),
        MEMPLAN_BOOLEAN("model.qkv_bias", model.qkv_bias, "QKV bias", "Biases on the query, key and value projections.",
                        both),
        MEMPLAN_BOOLEAN("model.attention_out_bias", model.attention_out_bias, "Output bias",
                        "Bias on the attention output projection.", both),
        MEMPLAN_BOOLEAN("model.mlp_bias", model.mlp_bias, "MLP bias", "Biases on the MLP projections.", both),
        MEMPLAN_BOOLEAN("model.dropout", model.dropout, "Dropout", "Dropout layers active in training.", both),
        MEMPLAN_INTEGER("model.num_local_experts", model.num_experts, 0, max_layer_count, "Experts",
                        "Routed experts per MoE layer; 0: dense.", "experts", both),
        MEMPLAN_INTEGER("model.num_experts_per_tok", model.experts_per_token, 0, max_layer_count, "Experts per token",
                        "Experts each token is routed to (top-k).", "experts", both),
        MEMPLAN_OPTIONAL_INTEGER("model.moe_intermediate_size", model.moe_intermediate_size, 1, max_width,
                                 "Expert FFN size", "FFN width of one expert; not set: the FFN size.", "", both),
        MEMPLAN_INTEGER("model.shared_expert_intermediate_size", model.shared_expert_intermediate_size, 0, max_width,
                        "Shared expert FFN size", "Always-active shared expert (Qwen2-MoE); 0: none.", "", both),
        MEMPLAN_INTEGER("model.sliding_window", model.sliding_window, 0, max_token_count, "Sliding window",
                        "Tokens a sliding-window layer attends to; 0: full attention.", "tokens", both),
        MEMPLAN_INTEGER("model.sliding_window_layers", model.sliding_window_layers, 0, max_layer_count,
                        "Sliding layers", "Layers using the window; 0 with a window: all layers.", "layers", both),
    };
    return fields;
}

}  // namespace memplan
