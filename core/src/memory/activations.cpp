// Activation memory of one transformer layer, counted tensor by tensor.
//
// Every tensor below is one that the forward pass of a block keeps for its backward pass on a GPU
// (CUDA kernels as Megatron-LM and PyTorch run them), for one micro-batch, on one GPU. Sizes:
// T = s·b tokens, h hidden, a query heads, g KV heads, d head_dim, f FFN width, t = tp,
// e = bytes per activation element (2 for bf16). The GPT-style case reproduces the tensor list of
// Korthikanti et al. 2022, §4.1 (2-byte activations, 1-byte dropout masks), whose sum is Table 2.
// tests/validation/validate_activations.py checks each tensor against PyTorch's saved tensors.
#include "memplan/memory/activations.hpp"

#include <limits>

#include "base/checks.hpp"
#include "memplan/model/arch.hpp"

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
    /// `collect`: keep each tensor with its name and note; otherwise only the byte sum is kept (the
    /// totals-only path of searches: no name is built, nothing is allocated).
    tensor_list(std::uint64_t act_bits, bool collect) : act_bits_(act_bits), collect_(collect) {}

    bool collecting() const { return collect_; }
    /// `elements` activation-dtype values, divided over `shards` GPUs.
    void act(const char* name, u128 elements, u128 shards, const char* note) {
        add(name, ceil_div(elements * act_bits_, 8 * shards), note);
    }
    /// `elements` values of `bytes_each` bytes, divided over `shards` GPUs.
    void fixed(const char* name, u128 elements, u128 bytes_each, u128 shards, const char* note) {
        add(name, ceil_div(elements * bytes_each, shards), note);
    }
    /// As act/fixed with a built name (built by the caller only when collecting()).
    void act_named(const std::string& name, u128 elements, u128 shards, const char* note) {
        add_name(name, ceil_div(elements * act_bits_, 8 * shards), note);
    }
    void fixed_named(const std::string& name, u128 elements, u128 bytes_each, u128 shards, const char* note) {
        add_name(name, ceil_div(elements * bytes_each, shards), note);
    }
    std::vector<activation_tensor> take() { return std::move(out_); }
    /// Sum of the tensors' bytes, each capped at 2^64 − 1 as activation_tensor::bytes is, the sum in
    /// 128 bits (exactly what total_bytes() of the collected list gives before its own cap).
    u128 sum() const { return sum_; }

private:
    void add(const char* name, u128 bytes, const char* note) {
        if (collect_) {
            add_name(name, bytes, note);
            return;
        }
        sum_ += capped(bytes);
    }
    void add_name(const std::string& name, u128 bytes, const char* note) {
        sum_ += capped(bytes);
        if (collect_) out_.push_back({name, static_cast<std::uint64_t>(capped(bytes)), note});
    }
    static u128 capped(u128 bytes) {
        constexpr u128 top = std::numeric_limits<std::uint64_t>::max();
        return bytes > top ? top : bytes;
    }
    std::uint64_t act_bits_;
    bool collect_;
    u128 sum_ = 0;
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
    bool eager;       // eager PyTorch norms (train.kernels eager)
    bool frozen;      // base frozen under an adapter: norm weights and non-adapted linears keep nothing
};

/// Which linears an adapter trains, and the tensors each adapted linear adds.
struct adapter_view {
    const adapter_activation_input& in;
    bool adapted(const char* name) const {
        if (!in.enabled) return true;  // full fine-tuning: every linear trains
        for (const auto& t : in.targets)
            if (t == name) return true;
        return false;
    }
    /// A linear input that only the named linears keep (the same tensor, without adapter dropout).
    bool keeps(std::initializer_list<const char*> names) const {
        if (!in.enabled) return true;
        // bitsandbytes 0.42/0.43 MatMul4Bit.forward keeps its input whenever an input needs a gradient,
        // `ctx.tensors = (A, B)`; 0.44 keeps only the packed weight, `ctx.tensors = (None, B)`
        // (bitsandbytes/autograd/_functions.py at tags 0.43.3 and 0.44.0). Counted in every layer, though
        // the first layer's Q/K/V input needs no gradient under a frozen embedding: one layer's norm output high.
        if (in.base_keeps_inputs) return true;
        if (in.dropout) return false;
        for (const char* n : names)
            if (adapted(n)) return true;
        return false;
    }
    /// Tensors of an adapted linear `name` on `tokens` tokens, d_in → d_out as split over tp.
    void add(tensor_list& l, const char* scope, const char* name, u128 tokens, u128 d_in, u128 d_out) const {
        if (!in.enabled || !adapted(name)) return;
        const bool named = l.collecting();  // totals only: no name is built
        const std::string base = named ? std::string("lora.") + scope + "." + name : std::string();
        const auto n = [named](const std::string& prefix, const char* suffix) {
            return named ? prefix + suffix : std::string();
        };
        if (in.dropout) {
            // PEFT lora_dropout (nn.Dropout per adapted module): lora_A keeps the dropped-out input, dropout its mask.
            l.act_named(n(base, ".dropout_input"), tokens * d_in, 1, "dropped-out input of lora_A (lora_dropout > 0)");
            l.fixed_named(n(base, ".dropout_mask"), tokens * d_in, mask_bytes, 1, "1-byte mask of lora_dropout");
        }
        // lora_B keeps its input, lora_A's r-wide output (PEFT LoraLayer: lora_B(lora_A(dropout(x)))).
        l.act_named(n(base, ".a_output"), tokens * in.rank, 1, "r-wide output of lora_A, input of lora_B");
        if (in.dora) {
            // DoRA: result = (m/‖W+BA‖ − 1)·base + m/‖W+BA‖·lora·scale; the trainable magnitude keeps both factors.
            const std::string d = named ? std::string("dora.") + scope + "." + name : std::string();
            l.act_named(n(d, ".base_output"), tokens * d_out, 1, "base layer output, kept by the magnitude product");
            l.act_named(n(d, ".lora_output"), tokens * d_out, 1, "adapter output, kept by the magnitude product");
        }
    }
};

/// A norm: its input and its fp32 per-token statistics.
void add_norm(tensor_list& l, const shape& x, norm_kind kind, const char* input_name, const char* stats_name) {
    if (kind == norm_kind::rmsnorm && x.eager) {
        // Hugging Face LlamaRMSNorm.forward in eager PyTorch: hidden_states.to(torch.float32) is kept by
        // pow, its square by mean (torch 1.13 autograd), rsqrt's fp32 output per token, and the bf16
        // normalized x by the product with the weight when the weight is trained.
        const std::string base =
            l.collecting() ? std::string(input_name).substr(0, std::string(input_name).rfind('.')) : std::string();
        const auto n = [&l](const std::string& prefix, const char* suffix) {
            return l.collecting() ? prefix + suffix : std::string();
        };
        l.fixed_named(n(base, ".input_fp32"), x.tokens * x.h, fp32_bytes, x.sp,
                      "fp32 upcast of the norm input (eager LlamaRMSNorm), kept by pow");
        l.fixed_named(n(base, ".squared_fp32"), x.tokens * x.h, fp32_bytes, x.sp,
                      "fp32 square of the input (eager LlamaRMSNorm), kept by mean");
        l.fixed(stats_name, x.tokens, fp32_bytes, x.sp, "fp32 rsqrt of the mean square per token, kept by the product");
        if (!x.frozen)
            l.act_named(n(base, ".normalized"), x.tokens * x.h, x.sp,
                        "normalized input cast back to the activation dtype, kept by the weight product");
        return;
    }
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
void add_ffn(tensor_list& l, const shape& x, const adapter_view& ad, const char* scope, mlp_kind kind, u128 tokens, u128 f,
             const char* act_input, const char* up_output, const char* act_output, const char* down_input) {
    const u128 f_local = ceil_div(f, x.tp);
    if (kind == mlp_kind::gated) ad.add(l, scope, "gate_proj", tokens, x.h, f_local);
    ad.add(l, scope, "up_proj", tokens, x.h, f_local);
    ad.add(l, scope, "down_proj", tokens, f_local, x.h);
    if (kind == mlp_kind::plain) {
        // Korthikanti §4.1: GeLU input 8sbh with f = 4h (output of the column-parallel fc, divided by t).
        l.act(act_input, tokens * f, x.tp, "output of the up projection, input of the activation function");
        // Korthikanti §4.1: second linear input 8sbh (GeLU output, divided by t); a frozen down projection keeps nothing.
        if (ad.keeps({"down_proj"}))
            l.act(act_output, tokens * f, x.tp, "output of the activation function, input of the down projection");
        return;
    }
    // Gated MLP, down(act(gate(x)) · up(x)) (Shazeer 2020), as eager PyTorch runs it: SiLU/GELU
    // backward saves its input; the product saves both factors; the down projection saves its input.
    l.act(act_input, tokens * f, x.tp, "output of the gate projection, input of the activation function");
    l.act(up_output, tokens * f, x.tp, "output of the up projection, kept by the gating product");
    l.act(act_output, tokens * f, x.tp, "output of the activation function, kept by the gating product");
    if (ad.keeps({"down_proj"})) l.act(down_input, tokens * f, x.tp, "gated product, input of the down projection");
}

/// The tensors of one layer of `m` (in.model is not read) into `l`.
void layer_tensors(const model_config& m, const layer_activation_input& in, bool selective, tensor_list& l) {
    const u128 tp = in.tp == 0 ? 1 : in.tp;
    const shape x{u128{in.seq_len} * in.micro_batch,
                  m.hidden_size,
                  m.num_attention_heads,
                  resolved_kv_heads(m),
                  resolved_head_dim(m),
                  tp,
                  in.sequence_parallel ? tp : 1,
                  m.dropout,
                  in.flash_attention,
                  in.kernels == kernel_kind::eager,
                  in.adapter.enabled};
    const adapter_view ad{in.adapter};
    const u128 s = in.seq_len, b = in.micro_batch;

    // ---- attention
    add_norm(l, x, m.norm, "attn.norm.input", "attn.norm.stats");
    // Korthikanti §4.1 "QKV matrix multiplies: 2sbh" (the norm output; with SP the shard, re-gathered in backward).
    if (ad.keeps({"q_proj", "k_proj", "v_proj"}))
        l.act("attn.qkv_input", x.tokens * x.h, x.sp, "norm output, input of the Q, K and V projections");
    ad.add(l, "attn", "q_proj", x.tokens, x.h, ceil_div(x.a * x.d, x.tp));
    ad.add(l, "attn", "k_proj", x.tokens, x.h, ceil_div(x.g * x.d, x.tp));
    ad.add(l, "attn", "v_proj", x.tokens, x.h, ceil_div(x.g * x.d, x.tp));
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
    // A frozen output projection keeps nothing; FlashAttention keeps its output for its own backward.
    if (ad.keeps({"o_proj"}) || (x.flash && !selective))
        l.act("attn.proj_input", x.tokens * x.a * x.d, x.tp, "attention output, input of the output projection");
    ad.add(l, "attn", "o_proj", x.tokens, ceil_div(x.a * x.d, x.tp), x.h);
    // Korthikanti §4.1 "dropout: sbh" after the projection (replicated over t unless SP).
    if (x.dropout) l.fixed("attn.dropout_mask", x.tokens * x.h, mask_bytes, x.sp, "1-byte mask of the dropout after attention");
    if (m.norms_per_layer >= 4)  // Gemma 2: a norm after attention as well, on the projection output
        add_norm(l, x, m.norm, "attn.post_norm.input", "attn.post_norm.stats");

    // ---- MLP
    add_norm(l, x, m.norm, "mlp.norm.input", "mlp.norm.stats");
    // Korthikanti §4.1 "first linear layer: 2sbh" (norm output; with SP the shard).
    const bool shared = m.num_experts != 0 && m.shared_expert_intermediate_size != 0;
    const bool fc_kept = m.num_experts == 0 ? ad.keeps({"gate_proj", "up_proj"})
                                            : ad.keeps({"router"}) || (shared && ad.keeps({"gate_proj", "up_proj", "shared_expert_gate"}));
    if (fc_kept)
        l.act("mlp.fc_input", x.tokens * x.h, x.sp, "norm output, input of the first projection(s) and of the router");
    if (m.num_experts == 0) {
        add_ffn(l, x, ad, "mlp", m.mlp, x.tokens, resolved_ffn(m), "mlp.act_input", "mlp.up_output", "mlp.act_output", "mlp.down_input");
    } else {
        // MoE with balanced routing: each token goes to k experts; Megatron's all-gather dispatcher gives every
        // TP rank all T tokens (experts split their FFN width over t). Router in fp32 (Mixtral, Megatron).
        const u128 k = m.experts_per_token;
        const u128 fe = m.moe_intermediate_size != 0 ? m.moe_intermediate_size : resolved_ffn(m);
        l.fixed("moe.router_probs", x.tokens * m.num_experts, fp32_bytes, x.sp, "fp32 router softmax over the experts, kept by its backward");
        l.fixed("moe.routing_indices", x.tokens * k, index_bytes, x.sp, "int64 top-k expert indices, kept to scatter gradients back");
        l.act("moe.routing_weights", x.tokens * k, x.sp, "top-k routing weights, kept by the weighted combine");
        ad.add(l, "moe", "router", x.tokens, x.h, m.num_experts);
        if (ad.keeps({"gate_proj", "up_proj"}))
            l.act("moe.expert_input", x.tokens * k * x.h, 1, "routed copies of the tokens (T·k rows), inputs of the experts");
        add_ffn(l, x, ad, "moe", m.mlp, x.tokens * k, fe, "moe.act_input", "moe.up_output", "moe.act_output", "moe.down_input");
        l.act("moe.expert_output", x.tokens * k * x.h, 1, "expert outputs (T·k rows), kept by the weighted combine");
        if (m.shared_expert_intermediate_size != 0)  // Qwen2-MoE: an always-active expert on every token
        {
            add_ffn(l, x, ad, "moe.shared", m.mlp, x.tokens, m.shared_expert_intermediate_size, "moe.shared.act_input",
                    "moe.shared.up_output", "moe.shared.act_output", "moe.shared.down_input");
            ad.add(l, "moe.shared", "shared_expert_gate", x.tokens, x.h, 1);
        }
    }
    // Korthikanti §4.1 "dropout: sbh" after the MLP.
    if (x.dropout) l.fixed("mlp.dropout_mask", x.tokens * x.h, mask_bytes, x.sp, "1-byte mask of the dropout after the MLP");
    if (m.norms_per_layer >= 4)
        add_norm(l, x, m.norm, "mlp.post_norm.input", "mlp.post_norm.stats");
}


}  // namespace

bool selective_op_keeps_output(const model_config& m, const std::string& name) {
    // The block's linears in call order with their bias (see selective_op_tensors below for the source).
    const struct {
        const char* name;
        bool bias;
    } order[] = {{"q_proj", m.qkv_bias},          {"k_proj", m.qkv_bias},   {"v_proj", m.qkv_bias},
                 {"o_proj", m.attention_out_bias}, {"gate_proj", m.mlp_bias}, {"up_proj", m.mlp_bias},
                 {"down_proj", m.mlp_bias}};
    unsigned mm_count = 0;  // the policy's forward_mm_count
    for (const auto& linear : order) {
        if (m.mlp != mlp_kind::gated && std::string(linear.name) == "gate_proj") continue;  // a plain MLP: up, down
        if (linear.bias) continue;  // aten.addmm: neither counted nor kept
        ++mm_count;
        if (name == linear.name) return mm_count % 2 == 1;  // every second mm is recomputed
    }
    return false;
}

namespace {

/// The tensors a layer keeps under torchtitan's op-level selective activation checkpointing
/// (train.recompute selective_op). The block runs inside torch.utils.checkpoint with a policy from
/// create_selective_checkpoint_contexts (pytorch/torchtitan torchtitan/models/llama3/infra/parallelize.py
/// at 6204cdff9ca6bfd1fadd6c09621ea41507207dea, _apply_ac_to_transformer_block and _save_list): every op
/// outside _save_list = {aten.mm, the flash and memory-efficient SDPA kernels, _c10d_functional
/// reduce_scatter_tensor, aten.max} is recomputed in backward; the outputs of the listed ops are kept,
/// except that the n-th aten.mm of the block, counted from 1, is recomputed when n is even. Kept
/// between forward and backward are then the checkpoint's input and those outputs (the SAC cache holds
/// them; autograd's own saved tensors are dropped by the non-reentrant checkpoint).
/// The mm order is the call order of torchtitan's Llama block (torchtitan/models/llama3/model/model.py
/// at the same commit): Attention.forward calls wq, wk, wv, then the SDPA kernel, then wo; FeedForward
/// calls w2(silu(w1(x)) * w3(x)), so w1 (gate), w3 (up), w2 (down). Numbered 1–7, the kept mm outputs are
/// wq, wv, w1, w2; wk, wo, w3 are recomputed. A linear with a bias on a 3-D input runs aten.addmm
/// (at::linear's contiguous 3-D path), which the policy neither counts nor keeps. A plain MLP has two
/// linears (up, down). Each GPU keeps its own shards: under tensor parallelism column-parallel outputs are
/// split by heads or FFN width and a row-parallel mm output (wo, w2) is the full-size partial sum before
/// its reduction; torchtitan's tensor parallelism is sequence-parallel (its Llama TP plan), where the
/// checkpoint's input is the sequence shard and the two reduce-scatter outputs (after wo and after w2)
/// are kept as sequence shards; without sequence parallelism the reduction is an all-reduce, not in
/// _save_list, so it is recomputed.
/// Norms, rotary embedding, SiLU, the gating product, dropout and residual adds are recomputed.
/// fp8 training (train.weight_dtype fp8) keeps the same tensors: torchao's Float8Linear calls torch.mm on
/// its float8 tensor subclass (torchao/float8/float8_linear.py matmul_with_hp_or_float8_args, pytorch/ao
/// eab345c2), and the policy's dispatch mode sees that aten.mm before the subclass turns it into
/// torch._scaled_mm (a TorchDispatchMode runs before a subclass's __torch_dispatch__), so the count and
/// the kept bf16 outputs are bf16's; the casts are recomputed, and the amax scalars (aten.max, in the
/// save list "for low precision training") are kept, a few bytes. Measured: torchtitan's Llama 3.1 8B on
/// 8 H100s with op-level SAC peaks at 77.0 GiB compiled and 76.8 GiB compiled with Float8 (pytorch/torchtitan
/// benchmarks/llama3_h100_202412_torchtitan.md, Table 1).
void selective_op_tensors(const model_config& m, const layer_activation_input& in, tensor_list& l) {
    const u128 tp = in.tp == 0 ? 1 : in.tp;
    const u128 sp = in.sequence_parallel ? tp : 1;
    const u128 tokens = u128{in.seq_len} * in.micro_batch;
    const u128 h = m.hidden_size, a = m.num_attention_heads, g = resolved_kv_heads(m), d = resolved_head_dim(m);
    const u128 f = resolved_ffn(m);
    // The checkpoint's input, held for the recompute (torch.utils.checkpoint keeps its arguments).
    l.act("layer.input", tokens * h, sp, "input of the layer, the checkpoint from which it is recomputed");
    const auto linear = [&](const char* name, const char* module, u128 elements, u128 shards, const char* note) {
        if (selective_op_keeps_output(m, module)) l.act(name, elements, shards, note);
    };
    linear("attn.q_proj.output", "q_proj", tokens * a * d, tp, "output of the query projection (an odd-numbered mm), before rotary");
    linear("attn.k_proj.output", "k_proj", tokens * g * d, tp, "output of the key projection (an odd-numbered mm)");
    linear("attn.v_proj.output", "v_proj", tokens * g * d, tp, "output of the value projection (an odd-numbered mm), KV heads wide");
    // _scaled_dot_product_flash_attention returns the output (b, a, s, d) and the fp32 logsumexp (b, a, s),
    // both kept (its RNG seed and offset are scalars, not counted).
    l.act("attn.core.output", tokens * a * d, tp, "output of the SDPA kernel, kept by the policy");
    l.fixed("attn.core.logsumexp", a * tokens, fp32_bytes, tp, "fp32 log-sum-exp of the SDPA kernel, kept by the policy");
    // Row-parallel: the local mm output is the full-size partial sum, reduce-scattered afterwards.
    linear("attn.o_proj.output", "o_proj", tokens * h, 1, "output of the attention output projection (an odd-numbered mm; with tp the partial sum)");
    if (tp > 1 && in.sequence_parallel) l.act("attn.reduce_scatter_output", tokens * h, tp, "sequence shard of the attention output after its reduce-scatter");
    if (m.mlp == mlp_kind::gated) {
        linear("mlp.gate_proj.output", "gate_proj", tokens * f, tp, "output of the gate projection (an odd-numbered mm)");
        linear("mlp.up_proj.output", "up_proj", tokens * f, tp, "output of the up projection (an odd-numbered mm)");
    } else {
        linear("mlp.up_proj.output", "up_proj", tokens * f, tp, "output of the up projection (an odd-numbered mm)");
    }
    linear("mlp.down_proj.output", "down_proj", tokens * h, 1, "output of the down projection (an odd-numbered mm; with tp the partial sum)");
    if (tp > 1 && in.sequence_parallel) l.act("mlp.reduce_scatter_output", tokens * h, tp, "sequence shard of the MLP output after its reduce-scatter");
}

/// Tensors kept under `mode` for a layer of `m` into `l` (Korthikanti §5 / Table 2).
void stored_tensors(const model_config& m, const layer_activation_input& input, recompute_mode mode, tensor_list& l) {
    switch (mode) {
        case recompute_mode::none: layer_tensors(m, input, false, l); return;
        case recompute_mode::selective: layer_tensors(m, input, true, l); return;
        case recompute_mode::selective_op: selective_op_tensors(m, input, l); return;
        case recompute_mode::full: {
            // Korthikanti §5 / Table 2 "full recompute: 2sbh": only the layer input (the checkpoint), sharded
            // over t with sequence parallelism.
            const u128 tp = input.tp == 0 ? 1 : input.tp;
            l.act("layer.input", u128{input.seq_len} * input.micro_batch * m.hidden_size,
                  input.sequence_parallel ? tp : 1, "input of the layer, the checkpoint from which it is recomputed");
            return;
        }
    }
}

std::uint64_t capped_sum(u128 sum) {
    constexpr u128 top = std::numeric_limits<std::uint64_t>::max();
    return static_cast<std::uint64_t>(sum > top ? top : sum);
}
}  // namespace

std::vector<activation_tensor> layer_activation_tensors(const layer_activation_input& input) {
    tensor_list l(dtype_bits(input.activation_dtype), true);
    layer_tensors(input.model, input, false, l);
    return l.take();
}

std::vector<activation_tensor> stored_activation_tensors(const layer_activation_input& input, recompute_mode mode) {
    tensor_list l(dtype_bits(input.activation_dtype), true);
    stored_tensors(input.model, input, mode, l);
    return l.take();
}

std::uint64_t stored_activation_bytes(const model_config& model, const layer_activation_input& shape, recompute_mode mode,
                                      std::vector<activation_tensor>* tensors) {
    tensor_list l(dtype_bits(shape.activation_dtype), tensors != nullptr);
    stored_tensors(model, shape, mode, l);
    if (tensors != nullptr) *tensors = l.take();
    return capped_sum(l.sum());
}

std::uint64_t selective_op_recompute_bytes(const model_config& model, const layer_activation_input& shape) {
    const u128 all = stored_activation_bytes(model, shape, recompute_mode::none);
    const u128 kept = stored_activation_bytes(model, shape, recompute_mode::selective_op);
    // Derivation: at the end of a layer's recompute its whole working set (recompute none) is alive. Each
    // of its kept tensors is either part of that set (Llama: the input as the first norm's input, the V
    // projection as attn.v, the SDPA outputs as attn.proj_input and attn.core.logsumexp, the gate output
    // as mlp.act_input) or consumed and freed by then (Q before rotary, the row-parallel outputs and their
    // reduce-scatters); only the input outlives that under an eager RMSNorm, which keeps an fp32 copy
    // instead. So the layer holds none + that input instead of its kept bytes: it adds none + input − kept.
    const bool input_not_reused = model.norm == norm_kind::rmsnorm && shape.kernels == kernel_kind::eager;
    const u128 tp = shape.tp == 0 ? 1 : shape.tp;
    const u128 input = input_not_reused ? ceil_div(u128{shape.seq_len} * shape.micro_batch * model.hidden_size *
                                                       dtype_bits(shape.activation_dtype),
                                                   8 * (shape.sequence_parallel ? tp : 1))
                                        : 0;
    return capped_sum(all + input > kept ? all + input - kept : 0);
}

std::uint64_t total_bytes(const std::vector<activation_tensor>& tensors) {
    u128 sum = 0;
    for (const auto& t : tensors) sum += t.bytes;
    return capped_sum(sum);
}

}  // namespace memplan
