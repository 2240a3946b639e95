// The time of one training step (memplan/search/step_time.hpp). Every formula names its source; the
// conventions: FLOPs count a multiply-add as 2; the backward pass costs twice the forward (one GEMM
// for the input gradient, one for the weight gradient: Narayanan et al. 2021, Appendix "Floating-
// point operations"); model FLOPs follow Megatron-LM's num_floating_point_operations
// (megatron/training/training.py at 86df799dc4c78e4bd7fbae972b3ee743e8b14f02: attention over the
// whole sequence, no recompute), executed FLOPs halve causal attention and add recomputation.
#include "memplan/search/step_time.hpp"

#include <algorithm>
#include <cmath>

#include "memplan/memory/activations.hpp"

namespace memplan {

namespace {

constexpr double bf16_bytes = 2;  // activations and their gradients travel in bf16

/// Average keys a causal query attends to over a sequence of `s` tokens when it sees at most `w`
/// (w = 0: unbounded): Σ_i min(i, w) / s for i = 1 … s.
double causal_keys(double s, double w) {
    if (w <= 0 || w >= s) return (s + 1) / 2;
    return w - w * (w - 1) / (2 * s);
}

/// The precision a weight GEMM runs in: the tensor-core peak it runs at and the bytes of each input
/// element (the output is written in bf16 either way).
struct gemm_precision {
    double peak_flops_per_s = 0;
    double input_bytes = bf16_bytes;
};

/// Time of a GEMM of m × k by k × n: the roofline max(FLOPs / (peak · ceiling), bytes / HBM)
/// (Williams, Waterman and Patterson 2009, "Roofline"), each operand read and the result written once.
double gemm_s(double m, double k, double n, const gpu_perf& gpu, const gemm_precision& precision) {
    if (m <= 0 || k <= 0 || n <= 0) return 0;
    const double flops = 2 * m * k * n;
    const double bytes = precision.input_bytes * (m * k + k * n) + bf16_bytes * m * n;
    return std::max(flops / (precision.peak_flops_per_s * gpu.gemm_efficiency), bytes / gpu.hbm_bytes_per_s);
}

/// The fp8 casts of one linear's GEMMs over a forward and backward pass, in bytes moved through HBM, for
/// tensorwise dynamic scaling as torchao's Float8Linear runs it (torchao/float8/float8_linear.py
/// matmul_with_hp_or_float8_args, at pytorch/ao eab345c2, the release of torchtitan's fp8 benchmark):
/// each cast is an amax pass (read 2 B per element) and the scaled cast (read 2 B, write 1 B), 5 B per
/// element; forward casts the input (m × k) and the weight (k × n), backward casts the output gradient
/// (m × n) twice (for the input-gradient and the weight-gradient GEMM, each in the layout _scaled_mm
/// reads) and the input and weight again from their saved bf16 copies: 10 B per element of each operand.
double fp8_cast_bytes(double m, double k, double n) { return 10 * (m * k + k * n + m * n); }

/// Ring all-reduce over `n` ranks of `bytes`: 2(n − 1)/n · bytes / β + 2(n − 1) α (Thakur, Rabenseifner
/// and Gropp 2005, §4.4); a reduce-scatter or an all-gather is half of it.
double all_reduce_s(double bytes, double n, double bandwidth, double latency) {
    if (n <= 1) return 0;
    return 2 * (n - 1) / n * bytes / bandwidth + 2 * (n - 1) * latency;
}

/// All-to-all over `n` ranks, each sending `bytes` in all ((n − 1)/n of them leave the GPU), of which `local` share each node (NVLink) and the rest sit on other nodes: each
/// rank sends `bytes` in all, an equal share to each peer, NCCL's send/recv pairs going over the path to
/// that peer; the two links run at once, so the slower part bounds it, plus one latency per peer.
double split_all_to_all_s(double bytes, double n, double local, double intra_bw, double inter_bw, double intra_latency,
                          double inter_latency) {
    if (n <= 1) return 0;
    local = std::min(std::max(local, 1.0), n);
    const double intra = (local - 1) / n * bytes / intra_bw, inter = (n - local) / n * bytes / inter_bw;
    return std::max(intra, inter) + (local - 1) * intra_latency + (n - local) * inter_latency;
}

}  // namespace

forward_flops forward_flops_per_token(const model_config& model, std::uint64_t seq_tokens) {
    forward_flops out;
    const auto counted = count_params(model);
    if (!counted.ok()) return out;
    const param_breakdown& p = counted.value;
    const double s = static_cast<double>(seq_tokens);
    const double heads = static_cast<double>(model.num_attention_heads);
    const bool mla = model.kv_lora_rank != 0;
    const double head_dim = static_cast<double>(resolved_head_dim(model));
    // QKᵀ and AV per query and key: 2 · heads · (d_qk + d_v) FLOPs (MLA: DeepSeek-V2 §2.1 widths).
    const double per_key = mla ? 2 * heads * static_cast<double>(model.qk_nope_head_dim + model.qk_rope_head_dim + model.v_head_dim)
                               : 4 * heads * head_dim;
    // Recurrent layers: the state is updated and read once per token, 2 FLOPs per state element each.
    double state_elements = 0;
    for (const kv_layer_group& g : kv_layer_groups(model))
        if (g.layers != 0 && g.state_elements_per_sequence != 0)
            state_elements = static_cast<double>(g.state_elements_per_sequence);
    const double experts = static_cast<double>(model.num_experts);
    const double routed = static_cast<double>(model.experts_per_token);
    for (const layer_params& layer : p.layers) {
        // Weight GEMMs: 2 FLOPs per weight the token passes through; routed experts by top-k / E
        // (shared experts are outside the routed ones and always active).
        double weights = static_cast<double>(layer.linear);
        if (experts > 0) weights += static_cast<double>(layer.expert_linear) * routed / experts;
        out.linear += 2 * weights;
        double model_keys = 0, executed_keys = 0;
        switch (layer.attention) {
            case attention_kind::full:
            case attention_kind::mla:
                model_keys = s;
                executed_keys = causal_keys(s, 0);
                break;
            case attention_kind::sliding:  // the model convention counts every key (Megatron-LM has no window)
                model_keys = s;
                executed_keys = causal_keys(s, static_cast<double>(model.sliding_window));
                break;
            case attention_kind::chunked:  // keys of the token's own chunk, causal inside it (Llama 4)
                model_keys = s;
                executed_keys = model.attention_chunk_size != 0 && model.attention_chunk_size < seq_tokens
                                    ? causal_keys(static_cast<double>(model.attention_chunk_size), 0)
                                    : causal_keys(s, 0);
                break;
            case attention_kind::linear:
            case attention_kind::mamba:
                out.attention_core += 4 * state_elements;
                out.model += 4 * state_elements;
                break;
            case attention_kind::none: break;
        }
        out.model += per_key * model_keys;
        out.attention_core += per_key * executed_keys;
    }
    // Logits: one h × V GEMM per token (tied or not).
    out.linear += 2 * static_cast<double>(model.hidden_size) * static_cast<double>(model.vocab_size);
    out.model += out.linear;
    out.executed = out.linear + out.attention_core;
    return out;
}

model_profile profile_model(const model_config& model, std::uint64_t seq_tokens) {
    model_profile out;
    const auto counted = count_params(model);
    if (!counted.ok() || model.num_hidden_layers == 0) return out;
    out.ok = true;
    out.flops = forward_flops_per_token(model, seq_tokens);
    out.linears = linear_modules(model);
    out.total_params = static_cast<double>(counted.value.total);
    for (const layer_params& layer : counted.value.layers) {
        out.expert_params += static_cast<double>(layer.experts);
        out.moe_layers += layer.mlp == layer_mlp_kind::moe ? 1 : 0;
    }
    return out;
}

step_time_result step_time(const estimate_config& c, const gpu_perf& gpu, const step_options& options) {
    step_time_result out = step_time(c, profile_model(c.model, c.train.seq_len), gpu, options);
    // The caveats once per answer: the planner calls the profiled overload for every layout it times
    // and states them once on its result (plan_result::warnings), not on each layout.
    if (out.errors.empty()) out.warnings = step_time_caveats(gpu, c);
    return out;
}

step_time_result step_time(const estimate_config& c, const model_profile& profile, const gpu_perf& gpu,
                           const step_options& options) {
    step_time_result out;
    const auto fail = [&out](const char* field, const std::string& message) {
        out.errors.push_back({field, message});
        return out;
    };
    if (c.mode != run_mode::train) return fail("mode", "the step-time model is for training; serving has its own throughput model");
    if (!gpu.ok()) return fail("gpu.perf", "needs the GPU's dense bf16 peak, HBM bandwidth and both network bandwidths");
    if (!(gpu.gemm_efficiency > 0 && gpu.gemm_efficiency <= 1) || !(gpu.attention_efficiency > 0 && gpu.attention_efficiency <= 1))
        return fail("gpu.gemm_efficiency", "efficiencies must be in (0, 1]");
    const parallel_config& p = c.parallel;
    const double tp = static_cast<double>(p.tp), pp = static_cast<double>(p.pp), cp = static_cast<double>(p.cp),
                 ep = static_cast<double>(p.ep), v = static_cast<double>(std::max<std::uint64_t>(1, p.virtual_stages));
    const std::uint64_t model_parallel = p.tp * p.pp * p.cp;
    if (model_parallel == 0 || p.gpus % model_parallel != 0) return fail("parallel.gpus", "must be a multiple of tp · pp · cp");
    const std::uint64_t dp_count = p.gpus / model_parallel;
    const double dp = static_cast<double>(dp_count);
    const std::uint64_t per_step = c.train.micro_batch * dp_count;
    const std::uint64_t global = options.global_batch_sequences != 0 ? options.global_batch_sequences : per_step;
    if (global % per_step != 0)
        return fail("global_batch", "must be a multiple of train.micro_batch · dp (" + std::to_string(per_step) + ")");
    out.microbatches = global / per_step;
    const double m = static_cast<double>(out.microbatches);
    if (!profile.ok) return fail("model", "the architecture is incomplete: the time model needs its layers");

    const model_config& model = c.model;
    const double b = static_cast<double>(c.train.micro_batch), s = static_cast<double>(c.train.seq_len);
    const double h = static_cast<double>(model.hidden_size);
    const double layers = static_cast<double>(model.num_hidden_layers);
    const double stage_layers = std::ceil(layers / pp);  // the slowest stage holds ⌈L/pp⌉ layers and the logits
    const double tokens_mb = b * s / cp;                  // tokens one GPU sees per micro-batch
    const forward_flops& f = profile.flops;

    // Compute of one micro-batch on the slowest stage: every weight GEMM at its shape on this GPU
    // (column- or row-split by tp; experts receive top-k/E of the ep group's tokens), forward once and
    // backward twice (dgrad, wgrad); full recompute runs the forward again (Korthikanti et al. 2022, §5), on
    // train.recompute_layers of the stage's layers when set; torchtitan's op-level policy (selective_op)
    // re-runs the linears whose outputs it does not keep and the elementwise kernels, not the attention
    // kernel (activations.cpp selective_op_tensors).
    const recompute_mode recompute = c.train.recompute;
    const double full_share = recompute != recompute_mode::full ? 0
                              : c.train.recompute_layers != 0 ? std::min(static_cast<double>(c.train.recompute_layers), stage_layers) / stage_layers
                                                              : 1;
    const bool op_sac = recompute == recompute_mode::selective_op;
    const double passes = 3 + full_share + (op_sac ? 1 : 0);  // elementwise passes; GEMMs: 3 + full_share
    double gemm_forward = 0, gemm_recomputed = 0, recomputed_linear_flops = 0;
    // fp8 training (train.weight_dtype fp8) on a GPU with fp8 tensor cores: the layers' linears run at the
    // dense fp8 peak with 1-byte inputs, under the same ceiling as bf16, and pay their casts (fp8_cast_bytes,
    // at HBM bandwidth, three passes' worth per micro-batch: not overlapped); the output projection and
    // attention stay in bf16 (Transformer Engine's fp8 recipes cover the transformer layers' linears;
    // torchtitan's float8 converter skips the output layer: torchtitan/components/quantization/float8.py
    // filter_fqns). On a GPU without fp8 tensor cores the GEMMs are timed at the bf16 rate (a caveat says so).
    const gemm_precision bf16{gpu.dense_bf16_flops_per_s, bf16_bytes};
    const bool fp8 = c.train.weight_dtype == dtype::fp8 && gpu.dense_fp8_flops_per_s > 0;
    const gemm_precision layer_precision = fp8 ? gemm_precision{gpu.dense_fp8_flops_per_s, 1} : bf16;
    double cast_bytes = 0;  // per micro-batch, forward and backward
    const double experts = static_cast<double>(model.num_experts), routed = static_cast<double>(model.experts_per_token);
    for (const linear_module& lm : profile.linears) {
        const double count = static_cast<double>(lm.count) / layers * stage_layers;  // matrices on this stage
        const double k = static_cast<double>(lm.d_in), n = static_cast<double>(lm.d_out) / tp;
        if (lm.expert) {
            const double local = count / ep;                                        // this GPU's experts
            const double rows = tokens_mb * ep * routed / experts;                 // tokens per expert
            gemm_forward += local * gemm_s(rows, k, n, gpu, layer_precision);
            if (fp8) cast_bytes += local * fp8_cast_bytes(rows, k, n);
        } else {
            const double t = count * gemm_s(tokens_mb, k, n, gpu, layer_precision);
            if (fp8) cast_bytes += count * fp8_cast_bytes(tokens_mb, k, n);
            gemm_forward += t;
            if (op_sac && !selective_op_keeps_output(model, lm.name)) {  // dense only: selective_op refuses MoE
                gemm_recomputed += t;
                recomputed_linear_flops += 2 * static_cast<double>(lm.d_in) * static_cast<double>(lm.d_out) * static_cast<double>(lm.count);
            }
        }
    }
    gemm_forward += gemm_s(tokens_mb, h, static_cast<double>(model.vocab_size) / tp, gpu, bf16);  // logits, last stage
    // Attention core (FlashAttention): causal FLOPs of this GPU's heads (split by tp) and sequence
    // chunk (split by cp); selective recompute repeats it (Korthikanti et al. 2022, §4.3).
    // Without FlashAttention the scores are batched GEMMs over the whole s × s matrix (the mask is
    // applied afterwards), at the GEMM ceiling.
    const bool flash = c.train.flash_attention;
    const double core_flops = flash ? f.attention_core : f.model - f.linear;
    const double attention_forward = core_flops * tokens_mb / tp * stage_layers / layers /
                                     (gpu.dense_bf16_flops_per_s * (flash ? gpu.attention_efficiency : gpu.gemm_efficiency));
    const double attention_passes = 3 + (recompute == recompute_mode::selective ? 1 : full_share);
    // Elementwise kernels (norms, activation, dropout, residual adds, softmax) are memory-bound: each
    // tensor a layer's forward pass keeps is written once and read once, bytes per GPU as Korthikanti
    // et al. 2022 Table 2 counts them — sbh(10 + 24/t) (34sbh/t with sequence parallelism) plus the
    // 5as²b/t of the scores without FlashAttention — and the backward pass moves twice as much.
    const double a_heads = static_cast<double>(model.num_attention_heads);
    const double sbh = tokens_mb * h;
    double layer_bytes = c.parallel.sequence_parallel ? 34 * sbh / tp : sbh * (10 + 24 / tp);
    if (!flash) layer_bytes += 5 * a_heads * (s / cp) * tokens_mb / tp;
    const double elementwise_mb = (passes * 2 * layer_bytes * stage_layers + cast_bytes) / gpu.hbm_bytes_per_s;
    const double compute_mb = (3 + full_share) * gemm_forward + gemm_recomputed + attention_passes * attention_forward + elementwise_mb;

    // Placement (Megatron-LM's default rank order tp-cp-ep-dp-pp, megatron/core/parallel_state.py at
    // the same commit): a group whose span fits gpus_per_node stays inside a node.
    const double node = static_cast<double>(p.gpus_per_node);
    const auto link = [&](double span) { return span <= node ? gpu.intra_node_bytes_per_s : gpu.inter_node_bytes_per_s; };
    const auto alpha = [&](double span) { return span <= node ? gpu.intra_node_latency_s : gpu.inter_node_latency_s; };

    // Tensor parallelism: per layer two all-reduces of the b·s·h activations forward and two backward
    // (Shoeybi et al. 2019, §3), two more with full recompute; sequence parallelism replaces each by a
    // reduce-scatter and an all-gather of the same volume (Korthikanti et al. 2022, §4.2.2). Not overlapped.
    // selective_op keeps the reduce-scatter outputs and re-runs the two all-gathers (one all-reduce's
    // volume), or without sequence parallelism both all-reduces, which its policy does not keep.
    const double tp_collectives = 4 + 2 * full_share + (op_sac ? (c.parallel.sequence_parallel ? 1 : 2) : 0);
    const double tp_mb = stage_layers * tp_collectives * all_reduce_s(tokens_mb * h * bf16_bytes, tp, link(tp), alpha(tp));
    // Expert parallelism: dispatch and combine all-to-alls forward and backward (4 per MoE layer) of the
    // top-k copies of each token (Lepikhin et al. 2020, GShard §2.2). The ep group's ranks are tp · cp apart
    // (the rank order above): node / (tp · cp) of them share a node and exchange over NVLink, the copies
    // for the others cross the scale-out network (an all-to-all sends each peer its share directly).
    const double ep_local = tp * cp >= node ? 1 : std::min(ep, std::floor(node / (tp * cp)));
    const double ep_mb = ep > 1 ? profile.moe_layers / layers * stage_layers * 4 *
                                      split_all_to_all_s(tokens_mb * routed * h * bf16_bytes, ep, ep_local, gpu.intra_node_bytes_per_s,
                                                         gpu.inter_node_bytes_per_s, gpu.intra_node_latency_s, gpu.inter_node_latency_s)
                                : 0;
    // Context parallelism: ring attention passes each rank's K and V around the ring (cp − 1 steps forward,
    // twice that backward), overlapped with the attention blocks (Liu et al. 2023, Ring Attention §3).
    const double kv_bytes = 2 * tokens_mb * static_cast<double>(resolved_kv_heads(model)) * static_cast<double>(resolved_head_dim(model)) * bf16_bytes / tp;
    const double cp_busy = cp > 1 ? stage_layers * 3 * (cp - 1) * (kv_bytes / link(tp * cp) + alpha(tp * cp)) : 0;
    const double cp_mb = std::max(0.0, cp_busy - attention_passes * attention_forward);

    const double per_mb = compute_mb + tp_mb + ep_mb + cp_mb;
    // Pipeline: the bubble (p − 1)/(v · m) of the ideal time (Narayanan et al. 2021, §2.2.1–2.2.2), and one
    // activation send forward and one gradient send backward per micro-batch and model chunk.
    const double bubble = (pp - 1) / (v * m) * m * per_mb;
    const double span_pp = tp * cp * dp * pp;
    const double p2p = pp > 1 ? 2 * m * v * (tokens_mb * h * bf16_bytes / tp / link(span_pp) + alpha(span_pp)) : 0;

    // Data parallelism: gradients of this GPU's parameters reduced over dp (an all-reduce; ZeRO 1–2 a
    // reduce-scatter plus the parameter all-gather, the same volume; ZeRO-3 one more all-gather, 1.5×:
    // Rajbhandari et al. 2020, §7). Overlap: the reduction hides behind the last micro-batch's backward
    // pass (Megatron-LM --overlap-grad-reduce); ZeRO-3's gathers behind each micro-batch's compute.
    const double local_params = (profile.total_params - profile.expert_params) / (tp * pp) + profile.expert_params / (ep * tp * pp);
    const double grad_bytes = static_cast<double>(dtype_bits(c.train.grad_dtype)) / 8;
    const double span_dp = tp * cp * dp;
    const double dp_reduce = all_reduce_s(local_params * grad_bytes, dp, link(span_dp), alpha(span_dp));
    const double backward_mb = per_mb * 2 / passes;
    double dp_exposed = options.overlap_grad_reduce ? std::max(0.0, dp_reduce - backward_mb) : dp_reduce;
    const bool deepspeed_step = c.train.framework == train_framework::deepspeed || p.comm_buffers == comm_buffer_model::deepspeed;
    if (p.zero_stage >= 1 && p.zero_stage <= 2 && options.overlap_grad_reduce && options.overlap_param_gather && !deepspeed_step) {
        // Sharded optimizer states (Megatron-LM's distributed optimizer, ZeRO 1–2): the reduction is a
        // reduce-scatter hidden behind the last backward pass, and the updated parameters' all-gather
        // (the other half of the volume) behind the next step's first forward pass (Megatron-LM
        // --overlap-grad-reduce and --overlap-param-gather, megatron/core/distributed/distributed_data_parallel.py).
        // DeepSpeed gathers the updated partitions at the end of its step instead (stage_1_and_2.py step):
        // there the whole volume stays behind the last backward pass.
        const double half = dp_reduce / 2, forward_mb = per_mb / passes;
        dp_exposed = std::max(0.0, half - backward_mb) + std::max(0.0, half - forward_mb);
    }
    double gather_busy = 0;
    if (p.zero_stage >= 3) {
        gather_busy = m * all_reduce_s(local_params * bf16_bytes, dp, link(span_dp), alpha(span_dp));  // AG fwd + AG bwd
        dp_exposed += options.overlap_param_gather ? std::max(0.0, gather_busy - m * per_mb) : gather_busy;
    }
    // Optimizer: Adam reads and writes the fp32 master weight and two moments (24 B), reads the gradient
    // and writes the bf16 weight, per parameter of this GPU's shard: bound by HBM bandwidth.
    const double shard = p.zero_stage >= 1 ? local_params / dp : local_params;
    const double optimizer = shard * (24 + grad_bytes + bf16_bytes) / gpu.hbm_bytes_per_s;

    const auto row = [&out](std::string_view name, double seconds, double busy, std::string_view how) {
        out.terms.push_back({name, seconds, busy, how});
    };
    row("compute", m * compute_mb, m * compute_mb,
        "m × (GEMMs by roofline, 3 passes + 1 with full recompute; attention; memory-bound elementwise kernels) on the slowest stage");
    row("tp_comm", m * tp_mb, m * tp_mb, "ring all-reduce (or RS + AG with sequence parallelism) of b·s·h, 4 per layer (+2 full recompute)");
    row("ep_comm", m * ep_mb, m * ep_mb, "dispatch + combine all-to-all of top-k token copies, forward and backward");
    row("cp_comm", m * cp_mb, m * cp_busy, "ring attention K/V passes, exposed beyond the attention compute");
    row("pp_bubble", bubble, bubble, "(p − 1)/(v · m) of the ideal time (Narayanan et al. 2021, §2.2)");
    row("pp_p2p", p2p, p2p, "one activation and one gradient send per micro-batch and model chunk");
    row("dp_comm", dp_exposed, dp_reduce + gather_busy, "gradient reduction over dp beyond the last backward pass; ZeRO-3 gathers beyond compute");
    row("optimizer", optimizer, optimizer, "Adam update of this GPU's shard, HBM-bound");
    for (const step_term& t : out.terms) out.step_s += t.seconds;
    const step_term* largest = &out.terms.front();
    for (const step_term& t : out.terms)
        if (t.seconds > largest->seconds) largest = &t;
    out.bottleneck = largest->name;
    const double tokens = static_cast<double>(global) * s;
    const double gpus = static_cast<double>(p.gpus);
    out.model_flops_per_step = 3 * f.model * tokens;
    const double executed_per_token = 3 * f.executed + full_share * f.executed +
                                      (recompute == recompute_mode::selective ? f.attention_core : 0) +
                                      recomputed_linear_flops;  // per token over every layer, as f.executed
    out.hardware_flops_per_step = executed_per_token * tokens;
    out.tokens_per_s_per_gpu = tokens / out.step_s / gpus;
    out.mfu = out.model_flops_per_step / (out.step_s * gpus * gpu.dense_bf16_flops_per_s);
    return out;
}

diagnostics step_time_caveats(const gpu_perf& gpu) {
    diagnostics out;
    if (gpu.step_time_validated || gpu.gemm_efficiency != default_gemm_efficiency) return out;
    // The ratio is this model's step time for the benchmark's first FSDP row (Llama 3.1 8B, 8 GPUs,
    // local batch 2 × 8192, op-level SAC, on h100-sxm-80gb) over the published one: 10,572 modelled
    // against 5,762 tokens/s per GPU (pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md
    // at b5bcd76c, Table 1); tests/core/search/test_step_time.cpp recomputes it, so this text cannot go stale.
    out.push_back({"gpu.gemm_efficiency",
                   "step time: the GEMM ceiling (0.72 of the dense bf16 peak) is calibrated on Megatron-LM's A100 runs "
                   "(Narayanan et al. 2021, Table 1) and rests on this GPU kind's datasheet peak. Held out, it holds for "
                   "Megatron-LM's bf16 weak scaling on H100s (median error 2.4 % over 9 runs) but not for every framework: "
                   "torchtitan's eager Llama 3.1 8B FSDP benchmark (5,762 tokens/s per GPU on 8 H100s at 500 W with HBM2e) "
                   "ran 1.8 times slower than this model gives. Compare layouts by it; to budget time, set "
                   "gemm_efficiency from a run of your own"});
    return out;
}

diagnostics step_time_caveats(const gpu_perf& gpu, const estimate_config& c) {
    diagnostics out = step_time_caveats(gpu);
    if (c.mode != run_mode::train) return out;
    // A rack-scale NVLink domain (GB200 NVL72) larger than the configuration's node: the placement above
    // times every group wider than parallel.gpus_per_node at the scale-out rate.
    if (gpu.nvlink_domain_gpus > static_cast<double>(c.parallel.gpus_per_node) && c.parallel.gpus > c.parallel.gpus_per_node)
        out.push_back({"parallel.gpus_per_node",
                       "step time: this GPU's NVLink domain joins " + std::to_string(static_cast<long long>(gpu.nvlink_domain_gpus)) +
                           " GPUs, but parallel.gpus_per_node is " + std::to_string(c.parallel.gpus_per_node) +
                           ": groups wider than that are timed at the scale-out network's rate; set it to the domain's size "
                           "to time them over NVLink"});
    // MoE: what the time model leaves out, and how far that was on the published runs memplan holds
    // (tests/data/throughput/megatron-bridge*.json, the runs whose ep · tp · cp fits a node;
    // tests/core/search/test_step_time.cpp recomputes the three figures, so the text cannot go stale).
    if (c.model.num_experts != 0)
        out.push_back({"model.num_experts",
                       "step time: an MoE layer is timed as its expert GEMMs at the dense GEMM ceiling and its "
                       "all-to-alls (not overlapped); the router, token permutation, grouped-GEMM efficiency and "
                       "load imbalance are not modelled. On 23 published Megatron-Bridge MoE runs with expert "
                       "parallelism inside a node (H100, B200) this model's step was 21 to 75 % shorter than "
                       "measured (median 43 %): budget about 1.7 times it"});
    // fp8 training: the layers' GEMMs at the fp8 peak with tensorwise casts (step_time above); what that
    // assumes is said, and a GPU without fp8 tensor cores is named.
    if (c.train.weight_dtype != dtype::fp8) return out;
    if (gpu.dense_fp8_flops_per_s > 0)
        out.push_back({"train.weight_dtype",
                       "step time: the layers' GEMMs are timed at the dense fp8 peak under the same ceiling as bf16, "
                       "with tensorwise dynamic casts (torchao float8's, 10 bytes per element of each operand per step) "
                       "as unfused HBM traffic; the output layer and attention in bf16. Rowwise and blockwise (MXFP8) "
                       "scaling and torch.compile's fused casts are not modelled"});
    else
        out.push_back({"train.weight_dtype",
                       "step time: this GPU has no fp8 tensor cores (its catalogue entry gives no fp8 peak), so the "
                       "GEMMs are timed at the dense bf16 rate; fp8 training needs Hopper (H100, H200) or later"});
    return out;
}

}  // namespace memplan
