// Activation memory of one transformer layer, counted tensor by tensor.
//
// Every tensor below is one that the forward pass of a block keeps for its backward pass on a GPU
// (CUDA kernels as Megatron-LM and PyTorch run them), for one micro-batch, on one GPU. Sizes:
// T = s·b tokens, h hidden, a query heads, g KV heads, d head_dim, f FFN width, t = tp,
// e = bytes per activation element (2 for bf16). The GPT-style case reproduces the tensor list of
// Korthikanti et al. 2022, §4.1 (2-byte activations, 1-byte dropout masks), whose sum is Table 2.
// tests/validation/validate_activations.py checks each tensor against PyTorch's saved tensors.
#include "memplan/activations.hpp"

#include <limits>

#include "checks.hpp"
#include "memplan/arch.hpp"

namespace memplan {

using detail::ceil_div;
using detail::u128;

namespace {

constexpr u128 fp32_bytes = 4;  // norm statistics, logsumexp, router probabilities
constexpr u128 mask_bytes = 1;  // CUDA native_dropout keeps a torch.bool mask (Korthikanti §4.1: "sbh")
constexpr u128 index_bytes = 8; // torch.topk returns int64 indices

/// Collects tensors; every size is an exact element count times bits, divided by a sharding degree
/// and rounded up to a whole byte once.
class tensor_list {
public:
    explicit tensor_list(std::uint64_t act_bits) : act_bits_(act_bits) {}

    /// `elements` activation-dtype values, divided over `shards` GPUs.
    void act(const char* name, u128 elements, u128 shards, const char* note) {
        add(name, ceil_div(elements * act_bits_, 8 * shards), note);
    }
    /// `elements` values of `bytes_each` bytes, divided over `shards` GPUs.
    void fixed(const char* name, u128 elements, u128 bytes_each, u128 shards, const char* note) {
        add(name, ceil_div(elements * bytes_each, shards), note);
    }
    std::vector<activation_tensor> take() { return std::move(out_); }

private:
    void add(const char* name, u128 bytes, const char* note) {
        constexpr u128 top = std::numeric_limits<std::uint64_t>::max();
        out_.push_back({name, static_cast<std::uint64_t>(bytes > top ? top : bytes), note});
    }
    std::uint64_t act_bits_;
    std::vector<activation_tensor> out_;
};

/// Sizes of one layer as one GPU sees them.
struct shape {
    u128 tokens;      // T = s·b
    u128 h;           // hidden
    u128 a;           // query heads
    u128 g;           // KV heads
    u128 d;           // head_dim
    u128 tp;          // tensor-parallel degree (column/row-parallel regions)
    u128 sp;          // tp with sequence parallelism, else 1 (norm/dropout regions)
    bool dropout;
    bool flash;
};

/// A norm: its input and its fp32 per-token statistics.
void add_norm(tensor_list& l, const shape& x, norm_kind kind, const char* input_name, const char* stats_name) {
    // Korthikanti §4.1: "each layer norm stores its input with size 2sbh"; sharded by SP (§4.2.2).
    l.act(input_name, x.tokens * x.h, x.sp, "input of the norm, kept to compute its gradient");
    if (kind == norm_kind::layernorm)
        // CUDA layer_norm (aten native_layer_norm, apex/TE fused) saves fp32 mean and rstd per token.
        l.fixed(stats_name, 2 * x.tokens, fp32_bytes, x.sp,
                "fp32 mean and rstd per token, as CUDA LayerNorm kernels save them (not in Korthikanti)");
    else
        // Fused CUDA RMSNorm (apex FusedRMSNorm, Transformer Engine, Megatron) saves fp32 rstd per token.
        l.fixed(stats_name, x.tokens, fp32_bytes, x.sp,
                "fp32 rstd per token, as fused CUDA RMSNorm kernels save it (not in Korthikanti)");
}

/// One feed-forward network of width `f` applied to `tokens` tokens (its input counted by the caller).
void add_ffn(tensor_list& l, const shape& x, mlp_kind kind, u128 tokens, u128 f, const char* act_input,
             const char* up_output, const char* act_output, const char* down_input) {
    if (kind == mlp_kind::plain) {
        // Korthikanti §4.1: GeLU input 8sbh with f = 4h (output of the column-parallel fc, divided by t).
        l.act(act_input, tokens * f, x.tp, "output of the up projection, input of the activation function");
        // Korthikanti §4.1: second linear input 8sbh (GeLU output, divided by t).
        l.act(act_output, tokens * f, x.tp, "output of the activation function, input of the down projection");
        return;
    }
    // Gated MLP, down(act(gate(x)) · up(x)) (Shazeer 2020), as eager PyTorch runs it: SiLU/GELU
    // backward saves its input; the product saves both factors; the down projection saves its input.
    l.act(act_input, tokens * f, x.tp, "output of the gate projection, input of the activation function");
    l.act(up_output, tokens * f, x.tp, "output of the up projection, kept by the gating product");
    l.act(act_output, tokens * f, x.tp, "output of the activation function, kept by the gating product");
    l.act(down_input, tokens * f, x.tp, "gated product, input of the down projection");
}

std::vector<activation_tensor> layer_tensors(const layer_activation_input& in, bool selective) {
    const model_config& m = in.model;
    const u128 tp = in.tp == 0 ? 1 : in.tp;
    const shape x{u128{in.seq_len} * in.micro_batch,
                  m.hidden_size,
                  m.num_attention_heads,
                  resolved_kv_heads(m),
                  resolved_head_dim(m),
                  tp,
                  in.sequence_parallel ? tp : 1,
                  m.dropout,
                  in.flash_attention};
    const u128 s = in.seq_len, b = in.micro_batch;
    tensor_list l(dtype_bits(in.activation_dtype));

    // ---- attention
    add_norm(l, x, m.norm, "attn.norm.input", "attn.norm.stats");
    // Korthikanti §4.1 "QKV matrix multiplies: 2sbh" (the norm output; with SP the shard, re-gathered in backward).
    l.act("attn.qkv_input", x.tokens * x.h, x.sp, "norm output, input of the Q, K and V projections");
    // Korthikanti §4.1 "QKᵀ: 4sbh" for Q and K; Q is a·d wide, split by heads over t.
    l.act("attn.q", x.tokens * x.a * x.d, x.tp, "queries (after rotary embedding), kept by the score product");
    // Eager attention repeats K and V to all a query heads before the products (HF repeat_kv, Megatron
    // repeat_interleave) and keeps the copies; FlashAttention takes g-wide K and V (native GQA), and
    // selective recompute keeps the g-wide inputs of the recomputed core.
    const u128 kv_width = (x.flash || selective) ? x.g * x.d : x.a * x.d;
    const char* kv_note_k = (x.flash || selective) ? "keys, KV heads wide (GQA), kept for the attention backward"
                                                   : "keys repeated to every query head (eager GQA), kept by the score product";
    const char* kv_note_v = (x.flash || selective) ? "values, KV heads wide (GQA), kept for the attention backward"
                                                   : "values repeated to every query head (eager GQA), kept by the value product";
    l.act("attn.k", x.tokens * kv_width, x.tp, kv_note_k);
    // Korthikanti §4.1 "attention over values: ... + 2sbh" for V.
    l.act("attn.v", x.tokens * kv_width, x.tp, kv_note_v);
    if (!selective) {
        if (x.flash) {
            // FlashAttention-2 keeps softmax_lse, fp32 (b, a, s), instead of the score matrix (Dao 2023, Alg. 1);
            // its dropout keeps only the RNG seed and offset (not counted); its output is attn.proj_input.
            l.fixed("attn.core.logsumexp", x.a * s * b, fp32_bytes, x.tp, "fp32 log-sum-exp per head and token (FlashAttention)");
        } else {
            // Korthikanti §4.1 "softmax: 2as²b" (fused scaled-masked softmax keeps its output, activation dtype).
            l.act("attn.core.softmax_output", x.a * s * s * b, x.tp, "softmax of the scores, kept by its own backward");
            if (x.dropout) {
                // Korthikanti §4.1 "softmax dropout: as²b" (1-byte mask).
                l.fixed("attn.core.dropout_mask", x.a * s * s * b, mask_bytes, x.tp, "1-byte dropout mask of the attention probabilities");
                // Korthikanti §4.1 "attention over values: 2as²b" (without dropout that operand is the softmax output).
                l.act("attn.core.dropout_output", x.a * s * s * b, x.tp, "dropped-out probabilities, kept by the value product");
            }
        }
    }
    // Korthikanti §4.1 "output projection: 2sbh" (its input, a·d wide, split over t).
    l.act("attn.proj_input", x.tokens * x.a * x.d, x.tp, "attention output, input of the output projection");
    // Korthikanti §4.1 "dropout: sbh" after the projection (replicated over t unless SP).
    if (x.dropout) l.fixed("attn.dropout_mask", x.tokens * x.h, mask_bytes, x.sp, "1-byte mask of the dropout after attention");
    if (m.norms_per_layer >= 4)  // Gemma 2: a norm after attention as well, on the projection output
        add_norm(l, x, m.norm, "attn.post_norm.input", "attn.post_norm.stats");

    // ---- MLP
    add_norm(l, x, m.norm, "mlp.norm.input", "mlp.norm.stats");
    // Korthikanti §4.1 "first linear layer: 2sbh" (norm output; with SP the shard).
    l.act("mlp.fc_input", x.tokens * x.h, x.sp, "norm output, input of the first projection(s) and of the router");
    if (m.num_experts == 0) {
        add_ffn(l, x, m.mlp, x.tokens, resolved_ffn(m), "mlp.act_input", "mlp.up_output", "mlp.act_output", "mlp.down_input");
    } else {
        // MoE with balanced routing: each token goes to k experts; Megatron's all-gather dispatcher gives every
        // TP rank all T tokens (experts split their FFN width over t). Router in fp32 (Mixtral, Megatron).
        const u128 k = m.experts_per_token;
        const u128 fe = m.moe_intermediate_size != 0 ? m.moe_intermediate_size : resolved_ffn(m);
        l.fixed("moe.router_probs", x.tokens * m.num_experts, fp32_bytes, x.sp, "fp32 router softmax over the experts, kept by its backward");
        l.fixed("moe.routing_indices", x.tokens * k, index_bytes, x.sp, "int64 top-k expert indices, kept to scatter gradients back");
        l.act("moe.routing_weights", x.tokens * k, x.sp, "top-k routing weights, kept by the weighted combine");
        l.act("moe.expert_input", x.tokens * k * x.h, 1, "routed copies of the tokens (T·k rows), inputs of the experts");
        add_ffn(l, x, m.mlp, x.tokens * k, fe, "moe.act_input", "moe.up_output", "moe.act_output", "moe.down_input");
        l.act("moe.expert_output", x.tokens * k * x.h, 1, "expert outputs (T·k rows), kept by the weighted combine");
        if (m.shared_expert_intermediate_size != 0)  // Qwen2-MoE: an always-active expert on every token
            add_ffn(l, x, m.mlp, x.tokens, m.shared_expert_intermediate_size, "moe.shared.act_input",
                    "moe.shared.up_output", "moe.shared.act_output", "moe.shared.down_input");
    }
    // Korthikanti §4.1 "dropout: sbh" after the MLP.
    if (x.dropout) l.fixed("mlp.dropout_mask", x.tokens * x.h, mask_bytes, x.sp, "1-byte mask of the dropout after the MLP");
    if (m.norms_per_layer >= 4)
        add_norm(l, x, m.norm, "mlp.post_norm.input", "mlp.post_norm.stats");
    return l.take();
}

}  // namespace

std::vector<activation_tensor> layer_activation_tensors(const layer_activation_input& input) {
    return layer_tensors(input, false);
}

std::vector<activation_tensor> stored_activation_tensors(const layer_activation_input& input, recompute_mode mode) {
    switch (mode) {
        case recompute_mode::none: return layer_tensors(input, false);
        case recompute_mode::selective: return layer_tensors(input, true);
        case recompute_mode::full: {
            // Korthikanti §5 / Table 2 "full recompute: 2sbh": only the layer input (the checkpoint), sharded
            // over t with sequence parallelism.
            const u128 tp = input.tp == 0 ? 1 : input.tp;
            tensor_list l(dtype_bits(input.activation_dtype));
            l.act("layer.input", u128{input.seq_len} * input.micro_batch * input.model.hidden_size,
                  input.sequence_parallel ? tp : 1, "input of the layer, the checkpoint from which it is recomputed");
            return l.take();
        }
    }
    return {};
}

std::uint64_t total_bytes(const std::vector<activation_tensor>& tensors) {
    u128 sum = 0;
    for (const auto& t : tensors) sum += t.bytes;
    constexpr u128 top = std::numeric_limits<std::uint64_t>::max();
    return static_cast<std::uint64_t>(sum > top ? top : sum);
}

}  // namespace memplan
