// vLLM's start-up figures predicted from the user's settings alone (docs/serving.md, "Predicted from the
// settings"): the profiling run's torch peak (the dummy forward at max_num_batched_tokens, the MoE
// routing buffers, the sampler's dummy run at max_num_seqs), the non-torch memory the workers add
// (CUDA runtime and cuBLAS workspaces, NCCL communicators, custom all-reduce buffers), the CUDA-graph
// estimate of the releases that subtract it, and the vocabulary padding of the loaded weights. Each
// term is a row of serving.breakdown; a measured override (infer.activation_peak_bytes,
// infer.non_torch_bytes, infer.cuda_graph_bytes, infer.weights_bytes) replaces its rows' model.
#include <algorithm>
#include <string>
#include <utility>

#include "memplan/serving/serving.hpp"
#include "memplan/model/arch.hpp"
#include "memory/stage.hpp"
#include "serving/engine.hpp"

namespace memplan::detail {

namespace {
constexpr u128 mib = 1048576;

/// "8,192": a count with thousands separators, as vLLM prints its token counts.
std::string grouped(u128 value) {
    std::string digits = to_decimal(value);
    for (std::size_t at = digits.size(); at > 3; at -= 3) digits.insert(at - 3, ",");
    return digits;
}

bool at_least(engine_release r, engine_release since) { return static_cast<int>(r) >= static_cast<int>(since); }

/// Bytes per logit entry (sampled row × vocabulary) at the peak of the sampler's dummy run.
/// vLLM 0.11: _dummy_sampler_run (vllm/v1/worker/gpu_model_runner.py) passes top_k = vocabulary − 1 and
/// top_p = 0.9, so apply_top_k_top_p (vllm/v1/sample/ops/topk_topp_sampler.py; FlashInfer's sampler is
/// opt-in, VLLM_USE_FLASHINFER_SAMPLER) sorts the fp32 logits, and the peak is inside logits.sort: the
/// bf16 logits 2 + their fp32 copy 4 (vllm/v1/sample/sampler.py) + the sorted fp32 values 4 and int64
/// indices 8 + the radix sort's transient alternate values 4, alternate indices 8 and int64 index input 8
/// = 38 B (derivation); the llm-d-benchmark H100 logs measure 38.3 B at 1,024 rows for Llama-3.1-8B,
/// Qwen3-0.6B, Qwen3-32B and gpt-oss-20b (github.com/llm-d/llm-d-benchmark, config_explorer/
/// empirical-vllm-memory-results.md at commit 4f4d4494). vLLM 0.6 (V0) sorts the same way: profile_run
/// samples with top_p 0.99 and top_k vocabulary − 1 (vllm/worker/model_runner.py at v0.6.6.post1) and
/// vllm/model_executor/layers/sampler.py _apply_top_k_top_p sorts (the H100 log of vllm PR 10511 prints a
/// 1.26 GiB peak at 256 rows, 38 B per entry 1.22 GiB).
/// vLLM 0.19: 15 B, fitted: the llm-d-planner H100 logs of vLLM 0.19.0 print activation peaks of 14.7-14.9 B
/// per entry at 1,024 rows (Llama-3.1-8B 1.89 GiB, Qwen2.5-7B 2.21, Gemma-2-2B 3.62; github.com/llm-d-incubation/
/// llm-d-planner, accuracy/results/v0.19.0/logs at commit 56dc5b76): no sort — the bf16 and fp32 logits, the
/// fp32 probabilities and the exponential noise of random_sample (topk_topp_sampler.py) are 14 B, 1 B not located.
/// vLLM 0.9 and 0.10 run the same dummy sampler (top_k vocabulary − 1, top_p 0.9, since vllm-project/vllm
/// pull request 13594 of February 2025) through the same PyTorch sort (FlashInfer's sampler is opt-in there,
/// VLLM_USE_FLASHINFER_SAMPLER), so 38 B as 0.11.
/// Other releases: 2 + 4 + 4 + 8 = 18 B, the logits and the sort's outputs without its transient buffers,
/// which the 0.21 log of tests/data/engine-logs fits (it does not print the peak; where FlashInfer's
/// sampler or model runner V2's dummy run skips the sort, less).
u128 sampler_entry_bytes(engine_release r) {
    if (r == engine_release::v0_6 || r == engine_release::v0_9 || r == engine_release::v0_10 || r == engine_release::v0_11)
        return 38;
    return r == engine_release::v0_19 ? 15 : 18;
}

/// The CUDA runtime and cuBLAS part of the non-torch increase on one GPU. vLLM 0.11: 0.13 GiB, the
/// one-GPU H100 figure of the llm-d-benchmark logs (0.13–0.14 GiB over six runs, the file above); vLLM
/// 0.19: 0.25 GiB, the one-GPU H100 figure of the llm-d-planner 0.19.0 logs (0.24–0.27 GiB over 20 runs of
/// 14 models); other releases assumed_runtime_non_torch_bytes (0.5 GiB, fitted to the 0.21 log).
constexpr u128 runtime_non_torch_v0_11_bytes = 139586437;  // round(0.13 × 2^30)
constexpr u128 runtime_non_torch_v0_19_bytes = 268435456;  // 0.25 × 2^30
u128 runtime_non_torch_bytes(engine_release r) {
    if (r == engine_release::v0_11) return runtime_non_torch_v0_11_bytes;
    return r == engine_release::v0_19 ? runtime_non_torch_v0_19_bytes : u128{assumed_runtime_non_torch_bytes};
}

/// vLLM 0.19 under tensor parallelism: 1.55 GiB of non-torch memory beyond the runtime, NCCL and custom
/// all-reduce rows, fitted: the llm-d-planner 0.19.0 H100 logs print 2.06–2.11 GiB at tp 2 and 2.13–2.21 GiB at
/// tp 4 (11 runs), against 0.52 GiB of those rows; the allocation is not located in vLLM's or NCCL's source.
constexpr u128 tp_non_torch_v0_19_bytes = 1664299827;  // round(1.55 × 2^30)

/// VocabParallelEmbedding / ParallelLMHead pad the vocabulary to a multiple of 64
/// (DEFAULT_VOCAB_PADDING_SIZE, vllm/model_executor/layers/vocab_parallel_embedding.py pad_vocab_size)
/// before splitting it over tp; the padding rows are allocated like the others (bf16, h wide), once for
/// a tied head, twice for an untied one.
u128 vocab_padding_bytes(const model_config& m, std::uint64_t tp, bool last_stage, bool first_stage) {
    if (m.vocab_size == 0) return 0;
    const u128 padded = ceil_div(u128{m.vocab_size}, 64) * 64;
    const u128 extra_rows = padded - m.vocab_size;
    const u128 tables = u128{first_stage ? 1U : 0U} + u128{last_stage && (!m.tie_word_embeddings || !first_stage) ? 1U : 0U};
    return ceil_div(extra_rows * m.hidden_size * 2 * tables, tp);
}

/// The rotary embedding's cos/sin table, a buffer of the model built on the GPU with its weights
/// (vllm/model_executor/layers/rotary_embedding/base.py at commit 04458da0, RotaryEmbedding.__init__:
/// register_buffer("cos_sin_cache"), max_position_embeddings × rotary_dim in the model's dtype, cos and
/// sin halves side by side), whole on every rank; get_rope shares one per distinct configuration, and
/// Gemma 3 has two (its sliding layers use rope_local_base_freq, vllm/model_executor/models/gemma3.py).
/// Measured: Llama-3.1-8B loads 14.99 GiB where its weights are 14.96, the 32 MiB of a 131,072 × 128 bf16
/// table; 29.98 against 29.92 in fp32 (the llm-d-planner 0.19.0 H100 logs of tests/data/engine-logs).
/// rotary_dim is the head width (MLA: qk_rope_head_dim) or, with a partial rotary factor, the model's
/// rotary_dim (int(head_dim × partial_rotary_factor), as get_rope computes it). YaRN tables
/// (original_max_position_embeddings × factor rows) match max_position_embeddings in the configs memplan
/// reads (DeepSeek-V2: 4,096 × 40, gpt-oss: 4,096 × 32). Layers without rotary embedding (learned
/// positions, Mamba, linear attention) add none.
u128 rotary_table_bytes(const model_config& m, dtype weights) {
    if (m.learned_positions != 0 || m.max_position_embeddings == 0) return 0;
    bool rotary = false;
    for (attention_kind kind : resolved_layer_attention(m))
        rotary = rotary || kind == attention_kind::full || kind == attention_kind::sliding ||
                 kind == attention_kind::chunked || kind == attention_kind::mla;
    if (!rotary) return 0;
    const u128 width = m.kv_lora_rank != 0 && m.qk_rope_head_dim != 0 ? u128{m.qk_rope_head_dim}
                       : m.rotary_dim != 0                           ? u128{m.rotary_dim}
                                                                     : u128{resolved_head_dim(m)};
    const u128 tables = (m.model_type == "gemma3" || m.model_type == "gemma3_text") ? 2 : 1;
    const u128 element = weights == dtype::fp32 ? 4 : 2;
    return tables * m.max_position_embeddings * width * element;
}
/// MXFP4 experts as vLLM stores them: per expert and layer w13_weight (2I' × H'/2 B), its e8m0 scales
/// (2I' × H'/32), its bf16 bias (2I'), w2_weight (H' × I'/2), scales (H' × I'/32) and bias (H'), with I' the
/// expert width on the rank and H' the hidden width after the kernel's padding
/// (vllm/model_executor/layers/quantization/mxfp4.py Mxfp4MoEMethod.create_weights at vllm-project/vllm
/// 007d5005; the backend from get_mxfp4_backend): Marlin, on CUDA GPUs below compute capability 9.0 and on
/// 12.x (the Triton kernels need 9.0 ≤ capability < 11.0), rounds I' up to 128 and H' to 256 ("the moe marlin
/// kernel requires that for each linear n % 256 == 0 and k % 128 == 0"); FlashInfer's default SM100 backend
/// (capability 10.x) rounds both up to 256; the Triton backend (Hopper) rounds I' up to 64. The row is the
/// padded layout less the unpadded one (memplan's count), over the MoE layers of the busiest stage.
/// gpt-oss-120b (I = H = 2880, 128 experts, 36 layers) at tp 4 on an A100: I' 720 → 768, H' 2880 → 3072,
/// 455,904 B per expert and layer, 2.10 GB per rank.
struct mxfp4_layout {
    u128 bytes = 0;
    std::string label;
    bool unknown_gpu = false;
};
mxfp4_layout mxfp4_padding(const estimate_config& c, std::uint64_t tp, std::uint64_t pp) {
    const model_config& m = c.model;
    mxfp4_layout out;
    if (m.checkpoint != checkpoint_format::mxfp4 || m.num_experts == 0) return out;
    const unsigned capability = nvidia_compute_capability(c.gpu_name);
    if (capability == 0) {
        out.unknown_gpu = true;
        return out;
    }
    u128 align_i = 64, align_h = 1;
    const char* kernel = "Triton";
    if (capability < 90 || capability >= 110) align_i = 128, align_h = 256, kernel = "Marlin";
    else if (capability >= 100) align_i = 256, align_h = 256, kernel = "FlashInfer";
    const u128 expert_ffn = m.moe_intermediate_size != 0 ? m.moe_intermediate_size : resolved_ffn(m);
    const bool ep = c.parallel.ep > 1;
    const u128 i = ep ? expert_ffn : ceil_div(expert_ffn, tp), h = m.hidden_size;
    const u128 experts = ep ? ceil_div(u128{m.num_experts}, c.parallel.ep) : u128{m.num_experts};
    // Bytes of one expert's tensors at widths (i, h), × 32 to keep the scales' /32 exact.
    const auto layout32 = [](u128 ii, u128 hh) {
        return 2 * ii * hh * 16 + 2 * ii * hh + 2 * ii * 2 * 32 + hh * ii * 16 + hh * ii + hh * 2 * 32;
    };
    const u128 padded = layout32(ceil_div(i, align_i) * align_i, ceil_div(h, align_h) * align_h);
    const u128 plain = layout32(i, h);
    std::uint64_t moe_layers = 0;
    for (layer_mlp_kind k : resolved_layer_mlp(m)) moe_layers += k == layer_mlp_kind::moe ? 1 : 0;
    if (padded <= plain || moe_layers == 0) return out;
    out.bytes = ceil_div((padded - plain) * experts * ceil_div(u128{moe_layers}, pp), 32);
    out.label = std::string("MXFP4 experts padded for vLLM's ") + kernel + " kernel (expert width " + grouped(i) +
                " → " + grouped(ceil_div(i, align_i) * align_i) + ", hidden " + grouped(h) + " → " +
                grouped(ceil_div(h, align_h) * align_h) + ")";
    return out;
}
}  // namespace

vllm_overheads vllm_predicted_overheads(const estimate_config& c, std::uint64_t tokens, std::uint64_t seqs,
                                        bool first_stage, bool last_stage, serving_result& s, diagnostics& warnings) {
    const model_config& m = c.model;
    const infer_config& inf = c.infer;
    const std::uint64_t tp = c.parallel.tp, pp = c.parallel.pp;
    // A release line not modelled on its own takes the nearest modelled line's figures, said in a warning.
    const engine_release release = effective_vllm_line(c);
    vllm_overheads o;
    s.release = to_string(inf.engine_version);
    s.release_modelled = to_string(release);
    if (release == engine_release::v0_6 && modelled_vllm_line(inf.engine_version) != engine_release::v0_6)
        warnings.push_back({"infer.engine_version",
                            "vLLM " + s.release + " falls back to its V0 engine on a GPU below compute capability 8.0 (" +
                                c.gpu_name + "; vllm/engine/arg_utils.py _is_v1_supported_oracle): the V0 profiling run "
                                "and scheduler defaults of 0.6 are used"});
    else if (release != inf.engine_version)
        warnings.push_back({"infer.engine_version",
                            "vLLM " + s.release + " is not modelled on its own: its profiling peak, non-torch memory "
                            "and CUDA-graph rule are those of the nearest modelled line, vLLM " + s.release_modelled +
                            "; give the log's measured figures (infer.activation_peak_bytes, infer.non_torch_bytes) "
                            "for an exact pool"});

    // Weights as vLLM loads them: the padded vocabulary rows.
    if (inf.weights_bytes == 0) {
        o.weights_extra = vocab_padding_bytes(m, tp, last_stage, first_stage);
        if (o.weights_extra != 0)
            s.breakdown.push_back({"weights_bytes", "vocabulary padded to a multiple of 64 (" +
                                                        grouped(ceil_div(u128{m.vocab_size}, 64) * 64) + " rows)",
                                   to_u64(o.weights_extra),
                                   "vllm/model_executor/layers/vocab_parallel_embedding.py pad_vocab_size "
                                   "(DEFAULT_VOCAB_PADDING_SIZE 64)"});
        // Full layers whose values are the key projection (Gemma 4 attention_k_eq_v): vLLM's QKVParallelLinear
        // still has a V slot, loaded with K's weights (vllm/model_executor/models/gemma4.py Gemma4Attention at
        // 001cabc1): h × max(1, KV heads / tp) × head width more per full layer than the checkpoint holds. With
        // pipeline stages, the busiest stage's share is taken as ⌈full layers / pp⌉.
        if (m.full_value_from_key) {
            std::uint64_t full_layers = 0;
            for (attention_kind kind : resolved_layer_attention(m)) full_layers += kind == attention_kind::full ? 1 : 0;
            const u128 kv = m.full_num_key_value_heads != 0 ? m.full_num_key_value_heads : resolved_kv_heads(m);
            const u128 d = m.full_head_dim != 0 ? m.full_head_dim : resolved_head_dim(m);
            const u128 slot = ceil_div(u128{full_layers}, pp) * m.hidden_size * std::max<u128>(1, kv / tp) * d *
                              dtype_bits(inf.weight_dtype) / 8;
            if (slot != 0) {
                o.weights_extra += slot;
                s.breakdown.push_back({"weights_bytes", "V slot of the full layers' qkv_proj holding K's weights "
                                                        "(attention_k_eq_v)",
                                       to_u64(slot), "vllm/model_executor/models/gemma4.py Gemma4Attention qkv_proj"});
            }
        }
        // MXFP4 experts as vLLM's MoE kernel stores them (mxfp4_padding_bytes): padded beyond the checkpoint's
        // widths where the GPU runs them through Marlin or FlashInfer.
        const mxfp4_layout pad = mxfp4_padding(c, tp, pp);
        if (pad.bytes != 0) {
            o.weights_extra += pad.bytes;
            s.breakdown.push_back({"weights_bytes", pad.label, to_u64(pad.bytes),
                                   "vllm/model_executor/layers/quantization/mxfp4.py Mxfp4MoEMethod.create_weights "
                                   "(vllm-project/vllm 007d5005)"});
        }
        if (pad.unknown_gpu)
            warnings.push_back({"gpu.name", "not given or not a GPU memplan knows: vLLM picks its MXFP4 MoE kernel "
                                            "(Marlin below compute capability 9.0, which pads the experts' widths) by "
                                            "the GPU, so the experts are counted unpadded"});
        const u128 rotary = rotary_table_bytes(m, inf.weight_dtype);
        if (rotary != 0) {
            o.weights_extra += rotary;
            s.breakdown.push_back({"weights_bytes",
                                   "rotary cos/sin table (" + grouped(m.max_position_embeddings) + " positions)",
                                   to_u64(rotary),
                                   "vllm/model_executor/layers/rotary_embedding/base.py RotaryEmbedding "
                                   "cos_sin_cache"});
        }
    }

    // The profiling run (vllm/v1/worker/gpu_model_runner.py profile_run): _dummy_run(max_num_tokens), a
    // forward of `tokens` tokens whose peak is the widest set of bf16 tensors live in one layer
    // (residual, normed input, q/k/v or the MLP's gate, up and product; infer_memory.cpp) plus the down
    // projection's h-wide output, made while its inputs are still referenced (vllm/model_executor/models/
    // llama.py LlamaMLP.forward keeps gate_up in a local until it returns); 3h + 3·ffn/tp per token for a
    // dense gated MLP, which the V0 logs of tests/data/engine-logs match to 0.01 GiB at 20,000 and
    // 29,000 tokens.
    const u128 forward = u128{tokens} * (forward_live_bytes_per_token(m, tp) + u128{m.hidden_size} * 2);
    // One row of the profiling run's peak; a measured infer.activation_peak_bytes marks them all measured.
    const bool measured_activation = inf.activation_peak_bytes != 0;
    const auto activation_row = [&](std::string label, u128 bytes, const char* source) {
        s.breakdown.push_back({"activation_peak_bytes", std::move(label), to_u64(bytes), source, measured_activation});
    };
    activation_row("profiling peak: forward at " + grouped(tokens) + " tokens", forward,
                   "vllm/v1/worker/gpu_model_runner.py profile_run, _dummy_run(max_num_tokens); widest live "
                   "set of one layer (derivation)");
    // MoE routing buffers beside the experts' intermediates: router logits (tokens × experts, bf16) and
    // fused_topk's topk_weights (fp32), topk_ids and token_expert_indices (int32), tokens × top-k each
    // (vllm/model_executor/layers/fused_moe/fused_moe.py fused_topk).
    u128 routing = 0;
    if (m.num_experts != 0) {
        routing = u128{tokens} * (u128{m.num_experts} * 2 + u128{m.experts_per_token} * 12);
        activation_row("MoE routing at " + grouped(tokens) + " tokens", routing,
                       "vllm/model_executor/layers/fused_moe/fused_moe.py fused_topk");
    }
    // The sampler's dummy run (gpu_model_runner.py _dummy_sampler_run) on min(max_num_seqs, tokens) rows
    // of the last stage: the kept hidden states (tokens × h, bf16), and per row and vocabulary entry the
    // logits in bf16 and their fp32 copy (vllm/v1/sample/sampler.py) and the PyTorch top-k/top-p path's
    // sort of them (vllm/v1/sample/ops/topk_topp_sampler.py apply_top_k_top_p: logits.sort),
    // sampler_entry_bytes by release. FlashInfer's sampler needs no sort: this is the larger case.
    u128 sampler = 0;
    if (last_stage && m.vocab_size != 0) {
        const u128 rows = std::min<u128>(seqs, tokens);
        sampler = u128{tokens} * m.hidden_size * 2 + rows * m.vocab_size * sampler_entry_bytes(release);
        activation_row("sampler at " + grouped(rows) + " sequences", sampler,
                       "vllm/v1/worker/gpu_model_runner.py _dummy_sampler_run; "
                               "vllm/v1/sample/ops/topk_topp_sampler.py apply_top_k_top_p");
    }
    // The fused-MoE workspace: from the releases with vLLM's WorkspaceManager (vllm/v1/worker/workspace.py,
    // MoE moved onto it by vllm PR 27532, November 2025; 0.18 and later here) the experts' scratch is one
    // persistent buffer, grown to the largest request and never freed, so it is still allocated while the
    // sampler's dummy run peaks. Its size (vllm/model_executor/layers/fused_moe/modular_kernel.py
    // _allocate_buffers at commit 003d383e: get_simultaneous(max(workspace13, fused_out), workspace2), each
    // rounded to 256 B; TritonExperts.workspace_shapes: workspace1 = (M, top-k, max(N/2, K)), workspace2 =
    // (M, top-k, max(N, K)), output (M, K)) with M the profiled tokens, K = h, N = 2 × the expert's
    // intermediate width on this tp rank, in the activations' bf16. Measured against the llm-d-planner 0.19.0
    // H100 logs (peak beyond the sampler): Qwen3-30B-A3B 0.475 GiB (this term 0.500), DeepSeek-V2-Lite
    // 0.434 (0.445). MXFP4 experts (gpt-oss) run through another kernel: its 0.11 and 0.19 logs peak at the
    // sampler alone (7.38 and 2.87 GiB against 7.33 and 2.92), so none is added there.
    u128 moe_workspace = 0;
    if (m.num_experts != 0 && m.checkpoint != checkpoint_format::mxfp4 && at_least(release, engine_release::v0_18)) {
        const u128 expert_ffn = m.moe_intermediate_size != 0 ? m.moe_intermediate_size : resolved_ffn(m);
        const u128 n = 2 * (c.parallel.ep > 1 ? expert_ffn : ceil_div(expert_ffn, tp));
        const u128 k = m.hidden_size, rows = u128{tokens} * m.experts_per_token;
        const u128 workspace13 = std::max(rows * std::max(n / 2, k), u128{tokens} * k) * 2;
        const u128 workspace2 = rows * std::max(n, k) * 2;
        moe_workspace = ceil_div(workspace13, 256) * 256 + ceil_div(workspace2, 256) * 256;
        activation_row("fused-MoE workspace at " + grouped(tokens) + " tokens (kept)", moe_workspace,
                       "vllm/v1/worker/workspace.py WorkspaceManager; vllm/model_executor/layers/fused_moe/"
                               "modular_kernel.py _allocate_buffers, TritonExperts.workspace_shapes");
    }
    // A multimodal model's encoder outputs: profile_run (vllm/v1/worker/gpu_model_runner.py) first embeds a
    // batch of dummy items of the modality with the most tokens (as many as fit the encoder budget,
    // max(max_num_batched_tokens, one item's tokens): vllm/v1/core/encoder_cache_manager.py
    // compute_encoder_budget) and keeps the embeddings in encoder_cache["tmp"] through the dummy forward and
    // the sampler's run, clearing them after: at most `tokens` embeddings of the text width, bf16. The
    // encoder's own transient peak is not modelled (below the sampler's on the logs: Gemma 3 4B/12B/27B peak
    // 0.10/0.13/0.16 GiB above their sampler, this term 0.04/0.06/0.08).
    u128 encoder_outputs = 0;
    if (m.vision_params != 0 && release != engine_release::v0_6) {
        encoder_outputs = u128{tokens} * m.hidden_size * 2;
        activation_row("multimodal encoder outputs (" + grouped(tokens) + " embeddings, kept)", encoder_outputs,
                       "vllm/v1/worker/gpu_model_runner.py profile_run (encoder_cache[\"tmp\"]); "
                               "vllm/v1/core/encoder_cache_manager.py compute_encoder_budget");
    }
    // The two phases run one after the other; the forward's MoE live set is the workspace's content, so the
    // forward phase is the larger of memplan's widest layer and the workspace beside the residual, the
    // normed input and the layer's output (3h per token).
    const u128 forward_phase =
        (moe_workspace != 0 ? std::max(forward, moe_workspace + u128{tokens} * m.hidden_size * 3 * 2) : forward) + routing;
    o.activation = encoder_outputs + std::max(forward_phase, sampler + moe_workspace);

    // Non-torch memory the worker adds after its start-up snapshot (vllm/utils/mem_utils.py
    // memory_profiling: non_torch_increase).
    const bool measured_non_torch = inf.non_torch_bytes != 0;
    const u128 runtime = runtime_non_torch_bytes(release);
    s.breakdown.push_back({"non_torch_bytes", "CUDA runtime and cuBLAS workspaces", to_u64(runtime),
                           release == engine_release::v0_11
                               ? "fitted: the one-GPU H100 logs of llm-d-benchmark (vLLM 0.11, 0.13-0.14 GiB)"
                               : "assumed: fitted to the one-GPU V1 logs of tests/data/engine-logs",
                           measured_non_torch});
    o.non_torch = runtime;
    // NCCL communicators of the tensor- and pipeline-parallel groups (vLLM's PyNcclCommunicator beside
    // torch's ProcessGroupNCCL for the tp group; one more for pp): per communicator channels × 2 ring
    // peers × NCCL_BUFFSIZE (4 MiB, NCCL's default, docs.nvidia.com/deeplearning/nccl env.html), 16
    // channels assumed (an intra-node NVLink ring).
    const u128 communicator = 16 * 2 * 4 * mib;
    const u128 communicators = u128{tp > 1 ? 2U : 0U} + u128{pp > 1 ? 1U : 0U};
    if (communicators != 0) {
        const u128 nccl = communicators * communicator;
        s.breakdown.push_back({"non_torch_bytes",
                               "NCCL buffers (" + std::to_string(static_cast<unsigned>(communicators)) +
                                   (communicators == 1 ? " communicator)" : " communicators)"),
                               to_u64(nccl), "NCCL_BUFFSIZE 4 MiB × 2 peers × 16 channels per communicator",
                               measured_non_torch});
        o.non_torch += nccl;
    }
    // Custom all-reduce (vllm/distributed/device_communicators/custom_all_reduce.py, world sizes 2, 4, 6
    // and 8): create_shared_buffer(meta_size + max_size) and create_shared_buffer(max_size), max_size
    // 8 MiB, cudaMalloc'd outside torch on every rank.
    if (tp == 2 || tp == 4 || tp == 6 || tp == 8) {
        const u128 all_reduce = 2 * 8 * mib;
        s.breakdown.push_back({"non_torch_bytes", "custom all-reduce buffers", to_u64(all_reduce),
                               "vllm/distributed/device_communicators/custom_all_reduce.py (max_size 8 MiB, two "
                               "shared buffers)",
                               measured_non_torch});
        o.non_torch += all_reduce;
    }
    if (release == engine_release::v0_19 && tp > 1) {
        s.breakdown.push_back({"non_torch_bytes", "further tensor-parallel buffers (vLLM 0.19)",
                               to_u64(tp_non_torch_v0_19_bytes),
                               "fitted: the llm-d-planner vLLM 0.19.0 H100 logs at tp 2 and 4 (not located in the source)",
                               measured_non_torch});
        o.non_torch += tp_non_torch_v0_19_bytes;
    }
    if (!measured_non_torch)
        warnings.push_back({"infer.non_torch_bytes",
                            "not given: " + gib_text(to_u64(o.non_torch)) +
                                " GiB predicted (CUDA runtime and cuBLAS assumed, NCCL and custom all-reduce buffers "
                                "from tp and pp; serving.breakdown); the engine logs it as non-torch memory"});

    // CUDA graphs: from 0.21 vLLM profiles a dummy capture and subtracts its estimate before sizing the
    // KV cache (vllm/envs.py VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, "enabled by default as of v0.21.0";
    // gpu_worker.py determine_available_memory); earlier releases capture after sizing, inside the
    // 1 − gpu_memory_utilization margin. A measured infer.cuda_graph_bytes is subtracted in any release.
    if (inf.enforce_eager) return o;
    if (inf.cuda_graph_bytes != 0) {
        o.cuda_graphs = inf.cuda_graph_bytes;
        return o;
    }
    if (at_least(release, engine_release::v0_21)) {
        o.cuda_graphs = assumed_cuda_graph_bytes;
        s.breakdown.push_back({"cuda_graph_bytes", "CUDA-graph estimate (subtracted from vLLM 0.21)",
                               to_u64(o.cuda_graphs),
                               "assumed; vllm/envs.py VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS (default on from "
                               "v0.21.0)"});
        warnings.push_back({"infer.cuda_graph_bytes",
                            "not given: vLLM " + s.release + " subtracts its CUDA-graph estimate before sizing the "
                            "KV cache; " + gib_text(to_u64(o.cuda_graphs)) +
                                " GiB assumed (the log prints \"Estimated CUDA graph memory\"; "
                                "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0 or infer.engine_version below 0.21 "
                                "subtracts none)"});
    }
    return o;
}

}  // namespace memplan::detail
