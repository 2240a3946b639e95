// The budget step every serving engine shares (memplan/serving/serving.hpp, docs/serving.md): the layers on
// the GPU and their pages, the draft's weights and layers (a draft model or the MTP modules), the
// memory the engines do not give their KV cache (weights, activation peak, non-torch memory), and the
// result's common fields; then the engine's own pool arithmetic (engines.cpp: vllm.cpp, sglang.cpp,
// trtllm.cpp). Exact integers throughout; each formula names the upstream file it reproduces. Last, the
// engines as listed for people (engine_descriptions) and the budget's terms explained (budget_terms).
#include "memplan/serving/serving.hpp"

#include <algorithm>
#include <vector>

#include "base/checks.hpp"
#include "memory/stage.hpp"
#include "memplan/model/arch.hpp"
#include "serving/engines.hpp"

namespace memplan {

// The cache layout per layer kind comes from the architecture (memplan/arch.hpp: kv_layer_groups).

namespace {
using detail::ceil_div;
using detail::engine;
using detail::layer_spec;
using detail::to_u64;
using detail::u128;

/// Bytes of one cached element of `type` in the engines' KV caches (fp8: 1 byte; validate() admits
/// only fp32, bf16, fp16 and fp8 with an engine).
u128 kv_element_bytes(dtype type) { return dtype_bits(type) / 8; }

/// KV bytes per token of one layer on one tensor-parallel rank. GQA: 2 · kv_heads/tp · head_dim ·
/// bytes, the KV heads replicated when tp exceeds them (vLLM: max(1, kv_heads // tp),
/// vllm/config/model.py get_num_kv_heads; SGLang: model_config.get_num_kv_heads(tp)); MLA: one latent
/// of latent_dim per token, replicated on every rank, no ×2 (vLLM MLAAttentionSpec.real_page_size_bytes).
u128 token_bytes_of(const kv_layer_group& g, std::uint64_t tp, dtype kv) {
    // DeepSeek Sparse Attention (DeepSeek-V3.2): the latent in the engines' fp8 layout and the indexer's key cache
    // (arch.hpp sparse_mla_token_bytes); vLLM gives the indexer's cache its own layers of the same kind, one KV cache
    // group whose page is the sum of their pages (vllm/v1/kv_cache_interface.py UniformTypeKVCacheSpecs at 001cabc1),
    // so the two add per token and layer.
    if (g.kind == attention_kind::mla && g.index_head_dim != 0) return sparse_mla_token_bytes(g, kv);
    if (g.kind == attention_kind::mla) return u128{g.latent_dim} * kv_element_bytes(kv);
    // K of head_dim and V of v_head_dim where they differ (vLLM FlashAttentionDiffKVBackend, head_size_v).
    return ceil_div(g.kv_heads, tp) * (g.head_dim + (g.v_head_dim != 0 ? g.v_head_dim : g.head_dim)) * kv_element_bytes(kv);
}

/// What SGLang's profile_max_num_token counts per token for an MLA layer with the sparse-attention indexer:
/// (kv_lora_rank + qk_rope_head_dim) · the KV element's bytes + the indexer's key and scale
/// (model_runner_kv_cache_mixin.py get_cell_size_per_token at sgl-project/sglang 001ccef0), while its NSA pool stores
/// the fp8 latent as 656 B (calculate_mla_kv_cache_dim): 576 + 132 = 708 B counted, 656 + 132 = 788 B stored.
/// Assumed: NSA attention backends other than trtllm (--nsa-prefill-backend / --nsa-decode-backend trtllm keep
/// the 576-value latent, which memplan does not model).
u128 profiled_bytes_of(const kv_layer_group& g, dtype kv) {
    if (g.kind != attention_kind::mla || g.index_head_dim == 0) return 0;
    return u128{g.latent_dim} * kv_element_bytes(kv) + g.index_head_dim + g.index_head_dim / 128 * 4;
}

/// The GPU's layers: the reported stage's share of each layer kind (sliding layers in proportion,
/// as infer_memory.cpp counts them) and, with a draft model or MTP modules, the draft's layers.
/// Linear-attention and Mamba layers are covered for the engines with a state page (vLLM: its hybrid
/// allocator), with one pipeline stage; the other engines refuse them with a message naming the assumption.
std::vector<layer_spec> layers_on_gpu(const estimate_config& c, const engine& e, std::uint64_t stage_layers,
                                      const model_config* draft, diagnostics& errors) {
    const model_config& m = c.model;
    const std::uint64_t tp = c.parallel.tp;
    const dtype kv = c.infer.kv_dtype;
    std::vector<layer_spec> out;
    std::uint64_t left = stage_layers;
    const auto groups = kv_layer_groups(m);
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const kv_layer_group& g = groups[i];
        const bool recurrent = g.kind == attention_kind::linear || g.kind == attention_kind::mamba;
        if (recurrent && e.state_page == nullptr) {
            errors.push_back({"infer.engine", std::string(e.label) +
                                                  "'s pools for linear-attention and Mamba state are not modelled by "
                                                  "memplan (its hybrid arithmetic reproduces vLLM's allocator: "
                                                  "infer.engine vllm)"});
            return {};
        }
        if (recurrent && c.parallel.pp > 1) {
            errors.push_back({"parallel.pp", std::string(e.label) + "'s grouping of linear-attention and Mamba layers "
                                                                    "across pipeline stages is not modelled: serve with "
                                                                    "parallel.pp 1"});
            return {};
        }
        // The whole model on the GPU: every group's own count (layers without a cache, such as
        // Nemotron-H's MLP-only layers, are in no group). A pipeline stage: every group but the last
        // gets its proportional share rounded up; the last what is left.
        const u128 share = stage_layers >= m.num_hidden_layers ? u128{g.layers}
                           : i + 1 == groups.size()           ? u128{left}
                                                   : std::min<u128>(left, ceil_div(u128{stage_layers} * g.layers,
                                                                                   m.num_hidden_layers));
        left -= static_cast<std::uint64_t>(share);
        if (share == 0) continue;
        if (g.index_head_dim != 0 && e.id == serving_engine::trtllm) {
            errors.push_back({"infer.engine", "TensorRT-LLM's cache for DeepSeek Sparse Attention (the indexer's keys "
                                              "beside the latent) is not modelled by memplan: infer.engine vllm or sglang"});
            return {};
        }
        if (g.index_head_dim != 0 && e.id == serving_engine::vllm && c.infer.engine_version < engine_release::v0_11) {
            errors.push_back({"infer.engine_version", "vLLM serves DeepSeek Sparse Attention (DeepSeek-V3.2) from "
                                                      "release 0.11 on"});
            return {};
        }
        layer_spec l{g.kind, recurrent ? 0 : token_bytes_of(g, tp, kv), g.window_tokens, share};
        l.profiled_token_bytes = profiled_bytes_of(g, kv);
        if (recurrent && !e.state_page(m, g.kind, tp, c.infer.state_dtype, l.state_bytes, errors)) return {};
        out.push_back(l);
    }
    if (draft != nullptr)
        for (const kv_layer_group& g : kv_layer_groups(*draft)) {
            if (g.kind == attention_kind::linear || g.kind == attention_kind::mamba) {
                errors.push_back({"infer.draft_preset", "a draft model with linear-attention or Mamba layers is not "
                                                        "covered by memplan's engine arithmetic"});
                return {};
            }
            layer_spec l{g.kind, token_bytes_of(g, tp, kv), g.window_tokens, g.layers};
            l.draft = true;
            out.push_back(l);
        }
    // MTP modules as the draft (model.mtp; vLLM speculative method "mtp"/"deepseek_mtp"): each module
    // is one decoder layer like the model's last (params.cpp count_params), whose attention joins the KV
    // cache groups: vLLM registers the drafter's attention layers beside the target's
    // (vllm/v1/worker/gpu_model_runner.py get_kv_cache_spec), num_nextn_predict_layers more layers.
    if (m.mtp && m.num_nextn_predict_layers != 0) {
        const auto kinds = resolved_layer_attention(m);
        const attention_kind last = kinds.empty() ? attention_kind::full : kinds.back();
        const kv_layer_group* g = nullptr;
        for (const kv_layer_group& x : groups)
            if (x.kind == last) g = &x;
        if (g == nullptr || last == attention_kind::linear || last == attention_kind::mamba) {
            errors.push_back({"model.mtp", "MTP modules on a model whose last layer keeps a recurrent state (or no "
                                           "cache) are not covered by memplan's engine arithmetic"});
            return {};
        }
        for (const layer_spec& l : out)
            if (l.state_bytes != 0) {
                errors.push_back({"model.mtp", "MTP speculative decoding on a model with linear-attention or Mamba "
                                               "layers (extra state slots per speculative token) is not covered by "
                                               "memplan's engine arithmetic"});
                return {};
            }
        layer_spec l{g->kind, token_bytes_of(*g, tp, kv), g->window_tokens, m.num_nextn_predict_layers};
        l.profiled_token_bytes = profiled_bytes_of(*g, kv);
        l.draft = true;
        out.push_back(l);
    }
    return out;
}

/// The assumption behind MTP layers in the pools of the engines that page them otherwise (SGLang,
/// TensorRT-LLM; vLLM's grouping is reproduced).
void mtp_pool_warning(const estimate_config& c, const engine& e, diagnostics& warnings) {
    if (c.model.mtp && c.model.num_nextn_predict_layers != 0 && !e.pages_mtp_layers)
        warnings.push_back({"model.mtp", "the MTP modules' attention layers are counted as more layers of the one KV "
                                         "pool (per-token bytes grow by their layers), as vLLM groups them; this "
                                         "engine's own draft pool sizing is not reproduced"});
}

/// Activation peak of vLLM's profiling run (vllm/v1/worker/gpu_model_runner.py profile_run): a dummy
/// forward of max_num_batched_tokens tokens, then the sampler on max_num_seqs rows. Named terms:
/// forward = tokens × the widest set of bf16 tensors live inside one layer (residual, normed input,
/// q, k, v, attention output, or the MLP's gate, up and product — infer_memory.cpp's
/// forward_live_bytes_per_token); sampler = the kept hidden states (tokens × h × 2 B) + max_num_seqs ×
/// vocab × (4 + 4) B (fp32 logits and their softmax). The peak is the larger of the two phases.
u128 modelled_activation_peak(const estimate_config& c, std::uint64_t tokens, std::uint64_t seqs, bool last_stage) {
    const model_config& m = c.model;
    const u128 forward = u128{tokens} * detail::forward_live_bytes_per_token(m, c.parallel.tp);
    const u128 sampler =
        last_stage && m.vocab_size != 0 ? u128{tokens} * m.hidden_size * 2 + u128{seqs} * m.vocab_size * 8 : 0;
    return std::max(forward, sampler);
}

}  // namespace

namespace detail {
void token_pool_result(const engine_inputs& in, u128 blocks, u128 page, serving_result& s, diagnostics& warnings) {
    const u128 tokens = blocks * page;
    s.page_bytes = to_u64(in.token_bytes * page);
    s.num_blocks = to_u64(blocks);
    s.kv_capacity_tokens = to_u64(tokens);
    s.kv_cache_bytes = to_u64(tokens * in.token_bytes);
    s.draft_kv_cache_bytes = to_u64(tokens * in.draft_token_bytes);
    s.blocks_per_request = to_u64(ceil_div(in.max_model_len, page));
    s.max_concurrency_numerator = s.num_blocks;
    s.max_concurrency_denominator = s.blocks_per_request;
    s.starts = blocks > 0;
    s.max_model_len_that_starts = to_u64(std::min<u128>(tokens, max_token_count));
    if (s.starts && tokens < in.max_model_len)
        warnings.push_back({"infer.max_model_len", "exceeds the KV pool (" + std::to_string(s.kv_capacity_tokens) +
                                                       " tokens): one request cannot reach it"});
}
}  // namespace detail

std::string gib_text(std::uint64_t bytes) {
    const u128 hundredths = (u128{bytes} * 200 + bytes_per_gib) / (2 * u128{bytes_per_gib});  // round half up
    const std::string cents = std::to_string(static_cast<unsigned>(hundredths % 100));
    return detail::to_decimal(hundredths / 100) + "." + (cents.size() == 1 ? "0" : "") + cents;
}

namespace {
/// The engine's view of the GPU of one pipeline stage: `plain`'s stage, layers and weights.
serving_result serving_for_stage(const estimate_config& c, const estimate_result& plain, diagnostics& warnings,
                                 diagnostics& errors) {
    serving_result s;
    const infer_config& inf = c.infer;
    const parallel_config& p = c.parallel;
    const engine* e = detail::find_engine(inf.engine);
    if (c.mode != run_mode::infer || e == nullptr) return s;
    s.present = true;
    s.engine = to_string(inf.engine);
    s.engine_label = e->label;
    s.engine_version = e->version;
    s.replicas = plain.data_parallel;
    const u128 total = c.gpu_memory_bytes;
    s.max_model_len = inf.max_model_len != 0 ? inf.max_model_len : inf.context_len;

    // The draft model of speculative decoding: its weights (split over tp, in the serving weight
    // dtype, bf16 when that is quantized) and its KV layers sit on every GPU beside the target's.
    const bool has_draft = !inf.draft_preset.empty();
    u128 draft_weights = 0;
    if (has_draft) {
        if (!inf.draft_model) {  // validate() refuses this first; kept so that no path divides by a missing draft
            errors.push_back({"infer.draft_preset", "must be the id of a model preset (memplan presets)"});
            return serving_result{};
        }
        const auto counted = count_params(*inf.draft_model);
        if (!counted.ok()) {
            errors.push_back({"infer.draft_preset", counted.errors.front().message});
            return serving_result{};
        }
        const dtype wt = dtype_bits(inf.weight_dtype) < 16 ? dtype::bf16 : inf.weight_dtype;
        draft_weights = detail::ceil_div(u128{counted.value.total} * dtype_bits(wt), 8 * u128{p.tp});
    }
    const std::vector<layer_spec> layers =
        layers_on_gpu(c, *e, plain.details.layers_on_gpu, has_draft ? &*inf.draft_model : nullptr, errors);
    if (!errors.empty()) return serving_result{};
    if (layers.empty()) {  // no page to divide the memory by: refused, not divided by zero
        errors.push_back({"model.layer_types", "has no layer with a KV cache or recurrent state on this GPU: the "
                                               "engine arithmetic sizes a pool of such layers"});
        return serving_result{};
    }
    mtp_pool_warning(c, *e, warnings);

    // MTP modules as the draft (model.mtp): their weights — one decoder layer, enorm, hnorm, eh_proj
    // and the final norm per module; the embedding and output head are the target's, shared at load:
    // vLLM logs "Detected MTP model. Sharing target model embedding weights with the draft model." and
    // the same for lm_head, vllm/v1/spec_decode/eagle.py load_model, llm_base_proposer.py in later
    // releases) — are already in memplan's per-GPU weights (the last
    // stage's, model_states.cpp); their own row is that count less the same model without them.
    const bool mtp_draft = c.model.mtp && c.model.num_nextn_predict_layers != 0;
    u128 mtp_weights = 0;
    if (mtp_draft) {
        if (has_draft) {
            errors.push_back({"infer.draft_preset", "a draft model and the MTP modules (model.mtp) cannot both be the "
                                                    "speculative-decoding draft"});
            return serving_result{};
        }
        if (p.pp > 1) {
            errors.push_back({"parallel.pp", "MTP speculative decoding with pipeline parallelism is not covered by "
                                             "memplan's engine arithmetic: serve with parallel.pp 1"});
            return serving_result{};
        }
        estimate_config without = c;
        without.model.mtp = false;
        without.infer.engine = serving_engine::none;
        estimate_options options;
        options.want_tensors = false;
        const estimate_result alone = estimate_memory(without, options);
        if (alone.errors.empty() && plain.per_gpu.weights > alone.per_gpu.weights)
            mtp_weights = plain.per_gpu.weights - alone.per_gpu.weights;
    }

    // Measured overheads where given, else memplan's count, model or assumption (named in a warning).
    // A measured infer.weights_bytes is the target's load ("Loading model weights took"); the drafter's
    // weights are added to it. memplan's own count already holds the MTP modules.
    u128 weights = (inf.weights_bytes != 0 ? u128{inf.weights_bytes} + mtp_weights : u128{plain.per_gpu.weights}) +
                   draft_weights;
    draft_weights += mtp_weights;
    const bool last_stage = plain.details.stage + 1 == p.pp;
    // The scheduler step of the profiling run: given, else vLLM's defaults for the release, the entry
    // point and the GPU (config.cpp vllm_default_scheduler_step; vllm/engine/arg_utils.py
    // EngineArgs._set_default_args, vllm-project/vllm 99d7eb5d; V0: vllm/config.py at v0.6.6.post1).
    // SGLang and TensorRT-LLM size their generic activation model with vLLM's V1 values.
    const bool v0_generic = !e->predicts_overheads && effective_vllm_line(c) == engine_release::v0_6;
    const vllm_scheduler_step step = vllm_scheduler_step_of(c, v0_generic ? engine_release::v0_27 : effective_vllm_line(c));
    const std::uint64_t batched = step.max_num_batched_tokens;
    const std::uint64_t seqs = step.max_num_seqs;
    if (step.assumed_not_a100)
        warnings.push_back({"gpu.name", "not given: the GPU of " + gib_text(c.gpu_memory_bytes) +
                                            " GiB is taken not to be an A100, so vLLM's scheduler step is " +
                                            std::to_string(batched) + " tokens and " + std::to_string(seqs) +
                                            " sequences (vLLM gives an A100 2048 tokens and 256 sequences under "
                                            "vllm serve, 8192 and 256 under the LLM class); set gpu.name"});
    // The engine's non-KV memory: vLLM's predicted from the settings (vllm_profile.cpp), the other
    // engines' by the generic model below; a measured override replaces either.
    u128 modelled_activation = 0, modelled_non_torch = assumed_non_torch_bytes;
    u128 graphs = inf.enforce_eager ? 0 : u128{inf.cuda_graph_bytes};
    if (e->predicts_overheads) {
        const detail::vllm_overheads o =
            detail::vllm_predicted_overheads(c, batched, seqs, plain.details.stage == 0, last_stage, s, warnings);
        modelled_activation = o.activation;
        modelled_non_torch = o.non_torch;
        graphs = o.cuda_graphs;
        weights += o.weights_extra;
    } else {
        modelled_activation = modelled_activation_peak(c, batched, seqs, last_stage);
        if (inf.non_torch_bytes == 0)
            warnings.push_back({"infer.non_torch_bytes", "not given: " + gib_text(assumed_non_torch_bytes) +
                                                             " GiB assumed (the engine logs it as non-torch memory)"});
    }
    const u128 activation = inf.activation_peak_bytes != 0 ? u128{inf.activation_peak_bytes} : modelled_activation;
    const u128 non_torch = inf.non_torch_bytes != 0 ? u128{inf.non_torch_bytes} : modelled_non_torch;
    s.weights_bytes = to_u64(weights);
    s.draft_weights_bytes = to_u64(draft_weights);
    s.non_torch_bytes = to_u64(non_torch);

    u128 per_token = 0, draft_per_token = 0;  // KV bytes of one token over every layer of the GPU (of the draft's)
    u128 profiled_per_token = 0;
    for (const layer_spec& l : layers) {
        per_token += l.token_bytes * l.count;
        profiled_per_token += (l.profiled_token_bytes != 0 ? l.profiled_token_bytes : l.token_bytes) * l.count;
        if (l.draft) draft_per_token += l.token_bytes * l.count;
    }
    const u128 len = s.max_model_len;

    const detail::engine_inputs in{c,         layers,    total,           weights,         activation, non_torch,
                                   graphs,    per_token, profiled_per_token, draft_per_token, len, batched};
    return e->size_pool(in, s, warnings, errors);
}

/// vLLM with pipeline stages: every worker profiles its own stage (its layers, its weights, the sampler
/// on the last), and vLLM gives every worker the smallest block count among them
/// (vllm/v1/core/kv_cache_utils.py get_kv_cache_configs: "the smallest among all ranks"). The result is
/// that stage's; each stage's pool is a row of serving.breakdown.
serving_result smallest_stage(const estimate_config& c, const estimate_result& plain, diagnostics& warnings,
                              diagnostics& errors) {
    const model_counts counts = count_model(c.model);
    if (!counts.params.ok()) return serving_for_stage(c, plain, warnings, errors);
    serving_result best;
    diagnostics best_warnings;
    std::uint64_t best_stage = 0;
    std::vector<serving_row> stages;
    for (std::uint64_t i = 0; i < c.parallel.pp; ++i) {
        estimate_result stage = plain;
        const detail::parts128 parts = detail::infer_stage(c, counts.params.value, i);
        const detail::stage_params sp = detail::params_of_stage(c, counts.params.value, i, counts.uniform_layers);
        stage.details.stage = i;
        stage.details.layers_on_gpu = to_u64(sp.layers);
        stage.per_gpu.weights = to_u64(parts.weights);
        diagnostics stage_warnings, stage_errors;
        serving_result one = serving_for_stage(c, stage, stage_warnings, stage_errors);
        if (!stage_errors.empty()) {
            errors = stage_errors;
            return serving_result{};
        }
        stages.push_back({"kv_cache_bytes",
                          "pipeline stage " + std::to_string(i) + " (" + std::to_string(stage.details.layers_on_gpu) +
                              " layers): " + std::to_string(one.num_blocks) + " blocks",
                          one.kv_cache_bytes, "vllm/v1/core/kv_cache_utils.py get_kv_cache_configs"});
        if (i == 0 || one.num_blocks < best.num_blocks) {
            best = std::move(one);
            best_warnings = std::move(stage_warnings);
            best_stage = i;
        }
    }
    best.breakdown.insert(best.breakdown.end(), stages.begin(), stages.end());
    warnings.insert(warnings.end(), best_warnings.begin(), best_warnings.end());
    warnings.push_back({"parallel.pp", "vLLM gives every worker the smallest block count of its " +
                                           std::to_string(c.parallel.pp) + " pipeline stages: stage " +
                                           std::to_string(best_stage) +
                                           "'s, whose figures these are (each stage's pool: serving.breakdown)"});
    return best;
}
}  // namespace

serving_result serving_for(const estimate_config& c, const estimate_result& plain, diagnostics& warnings,
                           diagnostics& errors) {
    const detail::engine* e = detail::find_engine(c.infer.engine);
    serving_result s = c.mode == run_mode::infer && e != nullptr && e->predicts_overheads && c.parallel.pp > 1
                           ? smallest_stage(c, plain, warnings, errors)
                           : serving_for_stage(c, plain, warnings, errors);
    // A pool predicted from the settings (no measured figure from the engine's own log) carries how far it
    // was from the engine on held-out public logs, and the capacity a plan can count on: the tokens less
    // the worst over-prediction seen there, ⌊tokens · 1000 / (1000 + worst)⌋.
    // An engine that subtracts no activation peak (SGLang: it lives in the reserved share) has its pool
    // measured by the non-torch figure alone.
    const infer_config& inf = c.infer;
    if (!errors.empty() || e == nullptr || !s.starts) return s;
    const bool activation_known = inf.activation_peak_bytes != 0 || !e->subtracts_activation;
    if (inf.kv_cache_memory_bytes != 0 || (activation_known && inf.non_torch_bytes != 0)) return s;
    const std::string engine = e->label;
    if (e->held_out_logs == 0) {
        warnings.push_back({"infer.engine", "no public " + engine + " start-up log has checked this pool: treat it as "
                                                                   "unvalidated, or give the log's measured figures"});
        return s;
    }
    const std::uint64_t safe = detail::to_u64(u128{s.kv_capacity_tokens} * 1000 / (1000 + e->held_out_high_permille));
    warnings.push_back({"infer.engine", "predicted, not measured: on " + std::to_string(e->held_out_logs) +
                                            " held-out public " + engine + " logs memplan's KV tokens were up to " +
                                            std::to_string(e->held_out_high_permille / 10) + "." +
                                            std::to_string(e->held_out_high_permille % 10) +
                                            " % above the engine's; count on " + std::to_string(safe) +
                                            " tokens, or give the log's measured figures (infer.kv_cache_memory_bytes)"});
    return s;
}

estimate_result estimate_with_engine(const estimate_config& c, const estimate_options& options) {
    estimate_result r = estimate_memory(c, options);
    if (!r.errors.empty() || c.mode != run_mode::infer || c.infer.engine == serving_engine::none) return r;
    diagnostics errors;
    r.serving = serving_for(c, r, r.warnings, errors);
    if (!errors.empty()) {
        estimate_result failed;
        failed.errors = errors;
        return failed;
    }
    if (!options.want_warnings) r.warnings.clear();  // serving_for's, which builds its own
    return r;
}

std::vector<engine_description> engine_descriptions() {
    std::vector<engine_description> out;
    for (const detail::engine* e : detail::engines())
        out.push_back({to_string(e->id), e->label, e->version, e->share_field, e->share_flag, e->share_of, e->budget});
    return out;
}

const std::vector<budget_term>& budget_terms() {
    // Built once; immutable afterwards. The formulas are this file's and each engine file's.
    static const std::vector<budget_term> table = {
        {"weights_bytes", "Weights",
         "memplan's per-GPU weights (tp, pp, ep, quantization), or infer.weights_bytes as the engine logs it "
         "(\"Loading model weights took …\")."},
        {"draft_weights_bytes", "Draft model weights",
         "The draft of speculative decoding: a draft model (infer.draft_preset; its weights split over tp, bf16 when "
         "the target is quantized) or the model's MTP modules (model.mtp); its layers join the KV pool "
         "(serving.draft_kv_cache_bytes)."},
        {"activation_peak_bytes", "Activation peak",
         "vLLM subtracts its profiling run's torch peak: the larger of the dummy forward of max_num_batched_tokens "
         "tokens (the widest set of bf16 tensors live in one layer, plus MoE routing buffers) and the sampler's dummy "
         "run (hidden states + min(max_num_seqs, tokens) × vocab × 18 B: bf16 and fp32 logits, their sort's fp32 "
         "values and int64 indices), each a row of serving.breakdown; TensorRT-LLM allocates its runtime buffers before the pool; SGLang does not "
         "subtract it (it lives in 1 − mem_fraction_static). infer.activation_peak_bytes replaces the model with a "
         "measured value."},
        {"non_torch_bytes", "Non-torch memory",
         "NCCL, cuBLAS and CUDA context growth outside PyTorch's allocator: infer.non_torch_bytes; else vLLM: 0.5 "
         "GiB of CUDA runtime and cuBLAS assumed plus NCCL communicator and custom all-reduce buffers from tp and pp "
         "(serving.breakdown), the other engines 0.5 GiB assumed (with a warning)."},
        {"cuda_graph_bytes", "CUDA graphs",
         "vLLM from 0.21 (infer.engine_version) subtracts its CUDA-graph estimate before sizing the pool: "
         "infer.cuda_graph_bytes, else 0.5 GiB assumed (with a warning); earlier releases capture their graphs after "
         "sizing the pool, inside the 1 − utilization margin, and subtract only a given infer.cuda_graph_bytes. None "
         "in eager mode."},
        {"kv_cache_bytes", "KV cache pool",
         "What is left: vLLM num_blocks = available // page_size // layers (page = 2 · block · KV heads/tp · head_dim "
         "· bytes per layer; MLA one latent); SGLang max_total_num_tokens = rest // cell; TensorRT-LLM blocks = "
         "⌈allotted / bytes per token / tokens per block⌉."},
    };
    return table;
}

}  // namespace memplan
