// Serving engines' start-up arithmetic (memplan/serving.hpp, docs/serving.md): the KV cache pool
// vLLM, SGLang and TensorRT-LLM size from the GPU's memory, the requests it holds, and whether the
// engine starts. Exact integers throughout; each formula names the upstream file it reproduces.
#include "memplan/serving/serving.hpp"

#include <algorithm>
#include <functional>
#include <vector>


#include "base/checks.hpp"
#include "memory/stage.hpp"
#include "memplan/model/arch.hpp"

namespace memplan {

// The cache layout per layer kind comes from the architecture (memplan/arch.hpp: kv_layer_groups).

namespace {
using detail::ceil_div;
using detail::u128;
__extension__ typedef __int128 i128;

/// Bytes of one cached element of `type` in the engines' KV caches (fp8: 1 byte; validate() admits
/// only fp32, bf16, fp16 and fp8 with an engine).
u128 kv_element_bytes(dtype type) { return dtype_bits(type) / 8; }

/// One layer of the GPU as the engines see it: its kind, KV bytes per token and window.
struct layer_spec {
    attention_kind kind;
    u128 token_bytes;   ///< K and V (MLA: the latent) of one token in this layer on this GPU
    u128 window;        ///< sliding window in tokens (sliding layers)
    u128 count;         ///< layers of this spec on the GPU
    u128 state_bytes = 0;  ///< linear attention / Mamba: vLLM's unpadded state page of one sequence (MambaSpec)
    bool draft = false;    ///< a layer of the speculative-decoding draft (a draft model or the MTP modules)
};

/// KV bytes per token of one layer on one tensor-parallel rank. GQA: 2 · kv_heads/tp · head_dim ·
/// bytes, the KV heads replicated when tp exceeds them (vLLM: max(1, kv_heads // tp),
/// vllm/config/model.py get_num_kv_heads; SGLang: model_config.get_num_kv_heads(tp)); MLA: one latent
/// of latent_dim per token, replicated on every rank, no ×2 (vLLM MLAAttentionSpec.real_page_size_bytes).
u128 token_bytes_of(const kv_layer_group& g, std::uint64_t tp, dtype kv) {
    if (g.kind == attention_kind::mla) return u128{g.latent_dim} * kv_element_bytes(kv);
    return 2 * ceil_div(g.kv_heads, tp) * g.head_dim * kv_element_bytes(kv);
}

/// vLLM's page of one linear-attention or Mamba layer on one tp rank: MambaSpec.page_size_bytes =
/// Σ prod(shape) · dtype size over the conv and temporal states, with the shapes of
/// vllm/model_executor/layers/mamba/mamba_utils.py MambaStateShapeCalculator (vLLM at commit
/// 02d71083, num_spec = 0) and the dtypes of MambaStateDtypeCalculator: the conv state in the model
/// dtype (mamba_cache_dtype "auto"; memplan serves in bf16, 2 B), the temporal state in
/// infer.state_dtype (mamba_ssm_cache_dtype; "auto" follows the conv state). vLLM's divide() asserts
/// that tp splits the split dimensions; memplan refuses otherwise, naming parallel.tp.
bool vllm_state_page(const model_config& m, attention_kind kind, std::uint64_t tp, dtype ssm, u128& out,
                     diagnostics& errors) {
    const u128 conv_bytes = 2, ssm_bytes = dtype_bits(ssm) / 8;
    const auto split = [&](u128 dim, const char* what) {
        if (dim % tp == 0) return true;
        errors.push_back({"parallel.tp", std::string("must divide ") + what + " (" + detail::to_decimal(dim) +
                                             ") for vLLM's recurrent-state shapes (mamba_utils.py divide)"});
        return false;
    };
    if (kind == attention_kind::linear) {
        // gated_delta_net_state_shape: conv ((K − 1), (2·nk·dk + nv·dv)/tp); temporal (nv/tp, dv, dk).
        const u128 conv_dim = 2 * u128{m.linear_num_key_heads} * m.linear_key_head_dim +
                              u128{m.linear_num_value_heads} * m.linear_value_head_dim;
        if (!split(conv_dim, "the linear-attention conv width 2·nk·dk + nv·dv") ||
            !split(m.linear_num_value_heads, "model.linear_num_value_heads"))
            return false;
        out = u128{m.linear_conv_kernel_dim - 1} * (conv_dim / tp) * conv_bytes +
              u128{m.linear_num_value_heads / tp} * m.linear_value_head_dim * m.linear_key_head_dim * ssm_bytes;
        return true;
    }
    const u128 inner = m.mamba_d_inner, n = m.mamba_d_state, k = m.mamba_d_conv;
    if (m.mamba_version == 1) {
        // mamba1_state_shape: conv ((K − 1), I/tp); temporal (I/tp, N).
        if (!split(inner, "model.mamba_d_inner")) return false;
        out = (k - 1) * (inner / tp) * conv_bytes + (inner / tp) * n * ssm_bytes;
        return true;
    }
    // mamba2_state_shape: groups not divisible by tp are extended by tp − G (extra_groups_for_head_shards,
    // written as vLLM writes it); conv ((K − 1), (I + 2·G'·N)/tp); temporal (nh/tp, I/nh, N).
    const i128 g = m.mamba_n_groups;
    const i128 groups = g % static_cast<i128>(tp) == 0 ? g : g + (static_cast<i128>(tp) - g);
    const u128 conv_dim = inner + 2 * static_cast<u128>(groups) * n;
    if (!split(conv_dim, "the Mamba-2 conv width I + 2·G·N") || !split(m.mamba_num_heads, "model.mamba_num_heads"))
        return false;
    out = (k - 1) * (conv_dim / tp) * conv_bytes + u128{m.mamba_num_heads / tp} * (inner / m.mamba_num_heads) * n * ssm_bytes;
    return true;
}

/// The GPU's layers: the reported stage's share of each layer kind (sliding layers in proportion,
/// as infer_memory.cpp counts them) and, with a draft model or MTP modules, the draft's layers.
/// Linear-attention and Mamba layers are covered for vLLM only (its hybrid allocator), with one
/// pipeline stage; the other engines refuse them with a message naming the assumption.
std::vector<layer_spec> layers_on_gpu(const estimate_config& c, std::uint64_t stage_layers, const model_config* draft,
                                      diagnostics& errors) {
    const model_config& m = c.model;
    const std::uint64_t tp = c.parallel.tp;
    const dtype kv = c.infer.kv_dtype;
    std::vector<layer_spec> out;
    std::uint64_t left = stage_layers;
    const auto groups = kv_layer_groups(m);
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const kv_layer_group& g = groups[i];
        const bool recurrent = g.kind == attention_kind::linear || g.kind == attention_kind::mamba;
        if (recurrent && c.infer.engine != serving_engine::vllm) {
            errors.push_back({"infer.engine", std::string(c.infer.engine == serving_engine::sglang ? "SGLang" : "TensorRT-LLM") +
                                                  "'s pools for linear-attention and Mamba state are not modelled by "
                                                  "memplan (its hybrid arithmetic reproduces vLLM's allocator: "
                                                  "infer.engine vllm)"});
            return {};
        }
        if (recurrent && c.parallel.pp > 1) {
            errors.push_back({"parallel.pp", "vLLM's grouping of linear-attention and Mamba layers across pipeline "
                                             "stages is not modelled: serve with parallel.pp 1"});
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
        layer_spec l{g.kind, recurrent ? 0 : token_bytes_of(g, tp, kv), g.window_tokens, share};
        if (recurrent && !vllm_state_page(m, g.kind, tp, c.infer.state_dtype, l.state_bytes, errors)) return {};
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
    // is one decoder layer like the model's last (arch.cpp count_params), whose attention joins the KV
    // cache groups: vLLM registers the drafter's attention layers beside the target's
    // (vllm/v1/worker/gpu_model_runner.py get_kv_cache_spec), num_nextn_predict_layers more layers.
    if (m.mtp && m.num_nextn_predict_layers != 0 && c.infer.engine != serving_engine::none) {
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
        l.draft = true;
        out.push_back(l);
    }
    return out;
}

/// The assumption behind MTP layers in SGLang's and TensorRT-LLM's pools (vLLM's is reproduced).
void mtp_pool_warning(const estimate_config& c, diagnostics& warnings) {
    if (c.model.mtp && c.model.num_nextn_predict_layers != 0 && c.infer.engine != serving_engine::vllm)
        warnings.push_back({"model.mtp", "the MTP modules' attention layers are counted as more layers of the one KV "
                                         "pool (per-token bytes grow by their layers), as vLLM groups them; this "
                                         "engine's own draft pool sizing is not reproduced"});
}

/// ⌈a · permille / 1000⌉ of a byte count (vLLM: math.ceil(total × gpu_memory_utilization),
/// vllm/v1/worker/utils.py request_memory).
u128 permille_up(u128 bytes, std::uint64_t permille) { return ceil_div(bytes * permille, 1000); }

std::uint64_t to_u64(u128 v) { return v > max_exact_integer ? max_exact_integer : static_cast<std::uint64_t>(v); }

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

/// vLLM's defaults of the scheduler step (vllm/engine/arg_utils.py get_batch_defaults, `vllm serve`):
/// GPUs of 70 GiB or more (other than A100) 8192 tokens and 1024 sequences, others 2048 and 256.
std::uint64_t default_batched_tokens(std::uint64_t capacity) { return capacity >= 70 * bytes_per_gib ? 8192 : 2048; }
std::uint64_t default_num_seqs(std::uint64_t capacity) { return capacity >= 70 * bytes_per_gib ? 1024 : 256; }

/// Largest n in [1, hi] with ok(n) (ok monotone: true on a prefix); 0 when ok(1) is false.
std::uint64_t largest_true(std::uint64_t hi, const std::function<bool(std::uint64_t)>& ok) {
    std::uint64_t lo = 0;
    while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo + 1) / 2;
        if (ok(mid)) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/// vLLM V1's pool (vllm/v1/core/kv_cache_utils.py at 001cabc1): layers grouped by spec, num_blocks and
/// the blocks one request of `len` tokens needs. One spec kind, or full-attention layers of different
/// page sizes (UniformTypeKVCacheSpecs): num_blocks = available // Σ page sizes, a request needs
/// ⌈len / block⌉ blocks. Full + sliding layers (the hybrid allocator): groups of group_size layers,
/// num_blocks = available // page_size // group_size (get_num_blocks), a request needs Σ over groups of
/// the blocks of its spec (_max_memory_usage_bytes_from_groups), sliding layers
/// ⌈min(window − 1 + max_num_batched_tokens, len) / block⌉ + 1 (SlidingWindowSpec.max_memory_usage_bytes).
struct vllm_pool {
    u128 memory_per_block = 0;  ///< bytes one block id holds over every layer
    u128 full_groups = 0, sliding_groups = 0;
    u128 state_groups = 0;      ///< groups of linear-attention / Mamba layers (one block per request each)
    u128 window = 0;
    u128 block = 0;             ///< tokens per attention block after vLLM's hybrid adjustment (0: as configured)
    u128 state_page = 0;        ///< the recurrent layers' unpadded page (MambaSpec.page_size_bytes)
    u128 padded_page = 0;       ///< the page every layer gets (the state page padded to the attention page)
    u128 draft_page = 0;        ///< bytes of one block held by the draft's layers (uniform pools)
    bool hybrid = false;
};

/// vLLM's pool for a model with linear-attention or Mamba layers (vLLM at commit 001cabc1 for
/// kv_cache_utils.py and kv_cache_interface.py; the block-size rule of
/// vllm/model_executor/models/config.py HybridAttentionMambaModelConfig.verify_and_update_config, the
/// mamba_cache_mode "none" branch — prefix caching off, mamba_block_size = max_model_len):
/// - attention block = 16 · ⌈state page / (16 · attention bytes per token)⌉ (FlashAttention/FlashInfer
///   alignment 16), unless infer.block_size is given and at least that; the state page is padded to
///   the attention page (mamba_page_size_padded), so every layer has one page size;
/// - layers grouped by spec (_get_kv_cache_groups_uniform_page_size): group size = the smaller count,
///   or the larger when below 1.5 × the smaller; ⌈count / group size⌉ groups of each kind;
/// - num_blocks = available // page // group size (get_num_blocks);
/// - a request needs ⌈len / block⌉ blocks per attention group and one per state group
///   (MambaSpec.max_memory_usage_bytes = page_size_bytes · (1 + num_speculative_blocks), no speculation).
/// A model of recurrent layers only is one uniform group (page × layers per block, one block a request).
vllm_pool vllm_recurrent_groups(const std::vector<layer_spec>& layers, std::uint64_t block_given, diagnostics& errors) {
    vllm_pool pool;
    u128 full = 0, state = 0, token_bytes = 0;
    for (const layer_spec& l : layers) {
        if (l.state_bytes != 0) {
            if (pool.state_page != 0 && pool.state_page != l.state_bytes) {
                errors.push_back({"model.layer_types", "linear-attention and Mamba layers with different state pages "
                                                       "in one model are not covered by memplan's vLLM arithmetic"});
                return pool;
            }
            pool.state_page = l.state_bytes;
            state += l.count;
        } else if (l.kind == attention_kind::full) {
            if (token_bytes != 0 && token_bytes != l.token_bytes) {
                errors.push_back({"model.layer_types", "attention layers of different page sizes beside linear-attention "
                                                       "or Mamba layers are not covered by memplan's vLLM arithmetic"});
                return pool;
            }
            token_bytes = l.token_bytes;
            full += l.count;
        } else {
            errors.push_back({"model.layer_types", std::string(to_string(l.kind)) + " attention beside linear-attention or "
                                                  "Mamba layers is not covered by memplan's vLLM arithmetic"});
            return pool;
        }
    }
    pool.hybrid = true;
    if (full == 0) {
        // One spec for every layer: _get_kv_cache_groups_uniform_spec, one group of all layers.
        pool.padded_page = pool.state_page;
        pool.state_groups = 1;
        pool.memory_per_block = pool.state_page * state;
        return pool;
    }
    // HybridAttentionMambaModelConfig: the smallest multiple of 16 tokens whose attention page holds the
    // state page; a given block_size stays when it is at least that.
    const u128 least = 16 * ceil_div(pool.state_page, 16 * token_bytes);
    pool.block = block_given != 0 && block_given >= least ? u128{block_given} : least;
    pool.padded_page = pool.block * token_bytes;  // the state page is padded to it (mamba_page_size_padded)
    const u128 lo = std::min(full, state), hi = std::max(full, state);
    const u128 group_size = 2 * hi < 3 * lo ? hi : lo;
    pool.full_groups = ceil_div(full, group_size);
    pool.state_groups = ceil_div(state, group_size);
    pool.memory_per_block = pool.padded_page * group_size;
    return pool;
}

vllm_pool vllm_groups(const std::vector<layer_spec>& layers, std::uint64_t block, diagnostics& errors) {
    for (const layer_spec& l : layers)
        if (l.state_bytes != 0) return vllm_recurrent_groups(layers, block, errors);
    vllm_pool pool;
    u128 full = 0, sliding = 0, page = 0;
    bool same_page = true;
    for (const layer_spec& l : layers) {
        const u128 layer_page = u128{block} * l.token_bytes;  // AttentionSpec.real_page_size_bytes
        if (page != 0 && layer_page != page) same_page = false;
        page = layer_page;
        if (l.kind == attention_kind::sliding) {
            sliding += l.count;
            if (pool.window != 0 && pool.window != l.window) {
                errors.push_back({"model.sliding_window", "layers with different windows are not covered"});
                return pool;
            }
            pool.window = l.window;
        } else {
            full += l.count;
        }
    }
    if (sliding == 0 || full == 0) {
        // Uniform spec or UniformTypeKVCacheSpecs: one group, a page per layer each.
        for (const layer_spec& l : layers) {
            pool.memory_per_block += u128{block} * l.token_bytes * l.count;
            if (l.draft) pool.draft_page += u128{block} * l.token_bytes * l.count;
        }
        pool.full_groups = sliding == 0 ? 1 : 0;
        pool.sliding_groups = sliding == 0 ? 0 : 1;
        return pool;
    }
    if (!same_page) {
        errors.push_back({"infer.draft_preset", "a draft model whose KV page differs from the sliding-window target's "
                                                "is not covered by memplan's vLLM arithmetic"});
        return pool;
    }
    // _get_kv_cache_groups_uniform_page_size: group size = the smaller count, or the larger when it is
    // below 1.5 × the smaller (padding layers).
    const u128 lo = std::min(full, sliding), hi = std::max(full, sliding);
    const u128 group_size = 2 * hi < 3 * lo ? hi : lo;
    pool.hybrid = true;
    pool.full_groups = ceil_div(full, group_size);
    pool.sliding_groups = ceil_div(sliding, group_size);
    pool.memory_per_block = page * group_size;
    return pool;
}

u128 vllm_blocks_needed(const vllm_pool& pool, u128 len, std::uint64_t block, std::uint64_t batched_tokens) {
    if (pool.state_groups != 0)  // recurrent groups: one block each; attention groups ⌈len / block⌉
        return (pool.full_groups != 0 ? pool.full_groups * ceil_div(len, pool.block) : 0) + pool.state_groups;
    const u128 full = ceil_div(len, block);
    if (!pool.hybrid) return pool.full_groups != 0 ? full : ceil_div(std::min(pool.window - 1 + batched_tokens, len), block) + 1;
    const u128 sliding = ceil_div(std::min(pool.window - 1 + batched_tokens, len), block) + 1;
    return pool.full_groups * full + pool.sliding_groups * sliding;
}

}  // namespace

std::string gib_text(std::uint64_t bytes) {
    const u128 hundredths = (u128{bytes} * 200 + bytes_per_gib) / (2 * u128{bytes_per_gib});  // round half up
    const std::string cents = std::to_string(static_cast<unsigned>(hundredths % 100));
    return detail::to_decimal(hundredths / 100) + "." + (cents.size() == 1 ? "0" : "") + cents;
}

serving_result serving_for(const estimate_config& c, const estimate_result& plain, diagnostics& warnings,
                           diagnostics& errors) {
    serving_result s;
    const infer_config& inf = c.infer;
    const parallel_config& p = c.parallel;
    if (c.mode != run_mode::infer || inf.engine == serving_engine::none) return s;
    s.present = true;
    s.engine = to_string(inf.engine);
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
        layers_on_gpu(c, plain.details.layers_on_gpu, has_draft ? &*inf.draft_model : nullptr, errors);
    if (!errors.empty()) return serving_result{};
    if (layers.empty()) {  // no page to divide the memory by: refused, not divided by zero
        errors.push_back({"model.layer_types", "has no layer with a KV cache or recurrent state on this GPU: the "
                                               "engine arithmetic sizes a pool of such layers"});
        return serving_result{};
    }
    mtp_pool_warning(c, warnings);

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
    const u128 weights = (inf.weights_bytes != 0 ? u128{inf.weights_bytes} + mtp_weights : u128{plain.per_gpu.weights}) +
                         draft_weights;
    draft_weights += mtp_weights;
    const bool last_stage = plain.details.stage + 1 == p.pp;
    const std::uint64_t batched = inf.max_num_batched_tokens != 0 ? inf.max_num_batched_tokens
                                                                   : default_batched_tokens(c.gpu_memory_bytes);
    const std::uint64_t seqs = inf.max_num_seqs != 0 ? inf.max_num_seqs : default_num_seqs(c.gpu_memory_bytes);
    const u128 activation = inf.activation_peak_bytes != 0 ? u128{inf.activation_peak_bytes}
                                                           : modelled_activation_peak(c, batched, seqs, last_stage);
    const u128 non_torch = inf.non_torch_bytes != 0 ? u128{inf.non_torch_bytes} : u128{assumed_non_torch_bytes};
    if (inf.non_torch_bytes == 0)
        warnings.push_back({"infer.non_torch_bytes", "not given: " + gib_text(assumed_non_torch_bytes) +
                                                         " GiB assumed (the engine logs it as non-torch memory)"});
    s.weights_bytes = to_u64(weights);
    s.draft_weights_bytes = to_u64(draft_weights);
    s.non_torch_bytes = to_u64(non_torch);

    u128 per_token = 0, draft_per_token = 0;  // KV bytes of one token over every layer of the GPU (of the draft's)
    for (const layer_spec& l : layers) {
        per_token += l.token_bytes * l.count;
        if (l.draft) draft_per_token += l.token_bytes * l.count;
    }
    const u128 len = s.max_model_len;

    if (inf.engine == serving_engine::vllm) {
        s.engine_version = vllm_version;
        const std::uint64_t block = inf.block_size != 0 ? inf.block_size : 16;  // CacheConfig.block_size default
        s.block_size = block;
        // Budget (vllm/v1/worker/gpu_worker.py determine_available_memory): requested memory
        // ⌈total × gpu_memory_utilization⌉ less the profiled non-KV memory: weights, the activation peak
        // and non-torch memory; a CUDA-graph pool only where the engine counts it (given measured).
        const u128 requested = permille_up(total, inf.gpu_memory_utilization_permille);
        const u128 graphs = inf.enforce_eager ? 0 : u128{inf.cuda_graph_bytes};
        s.budget_bytes = to_u64(requested);
        s.activation_peak_bytes = to_u64(activation);
        s.cuda_graph_bytes = to_u64(graphs);
        const i128 available = inf.kv_cache_memory_bytes != 0
                                   ? static_cast<i128>(inf.kv_cache_memory_bytes)
                                   : static_cast<i128>(requested) - static_cast<i128>(weights + activation + non_torch + graphs);
        const vllm_pool pool = vllm_groups(layers, inf.block_size != 0 ? inf.block_size : block, errors);
        if (!errors.empty()) return serving_result{};
        if (pool.state_groups != 0) {
            // The attention block size vLLM sets for a hybrid model; a recurrent-only model's block is
            // max_model_len (mamba_block_size).
            s.block_size = to_u64(pool.full_groups != 0 ? pool.block : len);
            s.state_page_bytes = to_u64(pool.state_page);
            s.state_page_padded_bytes = to_u64(pool.padded_page);
            warnings.push_back({"infer.engine", "vLLM's hybrid allocator for linear-attention/Mamba layers is reproduced "
                                                "with prefix caching off (mamba_cache_mode none, one state block per "
                                                "request), the attention block aligned to 16 tokens, and the conv state "
                                                "in bf16 (mamba_cache_dtype auto); --enable-prefix-caching, Blackwell "
                                                "head_dim-256 alignment (32) and speculative state slots differ"});
        }
        s.page_bytes = to_u64(pool.memory_per_block);
        const u128 blocks = available > 0 ? static_cast<u128>(available) / pool.memory_per_block : 0;
        s.num_blocks = to_u64(blocks);
        s.kv_cache_bytes = to_u64(blocks * pool.memory_per_block);
        s.draft_kv_cache_bytes = to_u64(blocks * pool.draft_page);
        bool draft_layers = false;
        for (const layer_spec& l : layers) draft_layers = draft_layers || l.draft;
        if (draft_layers && pool.hybrid)  // grouped layers share each block's pools: no per-layer share
            warnings.push_back({"infer.draft_preset", "the draft's layers share the hybrid allocator's grouped "
                                                      "pools with the target's: draft_kv_cache_bytes is not split "
                                                      "out (0); kv_cache_bytes holds both"});
        // "GPU KV cache size": num_blocks // number of groups × the smallest group block size
        // (_report_kv_cache_config; a state group's block is max_model_len).
        const u128 groups = pool.full_groups + pool.sliding_groups + pool.state_groups;
        const u128 min_block = pool.state_groups == 0 ? u128{block}
                                                      : (pool.full_groups != 0 ? std::min<u128>(pool.block, len) : len);
        s.kv_capacity_tokens = to_u64(blocks / groups * min_block);
        if (inf.swap_space_bytes != 0)  // V0: num_cpu_blocks = swap_space_bytes // cache_block_size (worker.py)
            s.cpu_blocks = to_u64(u128{inf.swap_space_bytes} / pool.memory_per_block);
        const u128 need = vllm_blocks_needed(pool, len, block, batched);
        s.blocks_per_request = to_u64(need);
        // get_max_concurrency_for_kv_cache_config: num_blocks / blocks per request.
        s.max_concurrency_numerator = s.num_blocks;
        s.max_concurrency_denominator = s.blocks_per_request;
        s.max_model_len_that_starts = largest_true(max_token_count, [&](std::uint64_t n) {
            return vllm_blocks_needed(pool, n, block, batched) <= blocks;
        });
        // _check_enough_kv_cache_memory: refuse when one max_model_len request does not fit.
        s.starts = available > 0 && need <= blocks;
        if (available <= 0)
            s.refusal = "No available memory for the cache blocks: weights, activation peak and non-torch memory (" +
                        gib_text(to_u64(weights + activation + non_torch + graphs)) +
                        " GiB) exceed total × gpu_memory_utilization (" + gib_text(s.budget_bytes) +
                        " GiB). Try increasing gpu_memory_utilization.";
        else if (!s.starts)
            s.refusal = "To serve at least one request with max_model_len (" + std::to_string(s.max_model_len) + "), " +
                        gib_text(to_u64(need * pool.memory_per_block)) +
                        " GiB KV cache is needed, which is larger than the available KV cache memory (" +
                        gib_text(to_u64(static_cast<u128>(available))) +
                        " GiB). The longest max_model_len that starts is " +
                        std::to_string(s.max_model_len_that_starts) +
                        ". Try increasing gpu_memory_utilization or decreasing max_model_len.";
        return s;
    }

    if (inf.engine == serving_engine::sglang) {
        s.engine_version = sglang_version;
        // profile_max_num_token (model_runner.py): rest = memory free after loading the weights −
        // total × (1 − mem_fraction_static); max_total_num_tokens = rest // cell, cell = per-token KV
        // bytes over the layers (kv_heads/tp · head_dim · L · 2 · bytes; MLA: latent · L · bytes); the
        // pool is rounded down to whole pages of page_size tokens (default 1). Activations and CUDA
        // graphs live in the reserved (1 − fraction) share, not subtracted here.
        const std::uint64_t page = inf.block_size != 0 ? inf.block_size : 1;
        s.block_size = page;
        const std::uint64_t fraction = inf.mem_fraction_static_permille;
        const u128 reserved = permille_up(total, 1000 - fraction);
        s.budget_bytes = to_u64(total - reserved);
        const i128 free_after_load = static_cast<i128>(total) - static_cast<i128>(weights + non_torch);
        const i128 rest = free_after_load - static_cast<i128>(reserved);
        u128 tokens = rest > 0 ? static_cast<u128>(rest) / per_token / page * page : 0;
        // Sliding-window layers: SGLang gives them a separate, smaller pool (SWAKVPool) for the
        // architectures python/sglang/srt/configs/model_config.py is_hybrid_swa_model lists — of memplan's
        // model types gpt_oss (GptOssForCausalLM) and llama4 (Llama4ForConditionalGeneration, its chunked
        // layers) — and full-length KV for the others. set_num_tokens_hybrid_swa
        // (python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py at commit 001ccef0): the profiled
        // max_total_num_tokens × cell is shared as full_tokens · F + swa_tokens · S with swa_tokens =
        // full_tokens · swa_full_tokens_ratio (0.8, server_args.py): full_tokens = ⌊total / (F + r·S)⌋,
        // swa_tokens = ⌊full_tokens · r⌋, both rounded down to pages; max_total_num_tokens = full_tokens.
        u128 windowed_bytes = 0;  // S: per-token bytes of the windowed layers
        for (const layer_spec& l : layers)
            if (l.kind == attention_kind::sliding || l.kind == attention_kind::chunked) windowed_bytes += l.token_bytes * l.count;
        const model_family* family = find_family(c.model.model_type);
        const bool swa_pool = windowed_bytes != 0 && family != nullptr && family->sglang_swa_pool;
        u128 pool_bytes = tokens * per_token;
        if (swa_pool) {
            constexpr std::uint64_t ratio_permille = 800;  // server_args.py swa_full_tokens_ratio = 0.8
            const u128 full_bytes = per_token - windowed_bytes;  // F
            u128 full_tokens = 0, swa_tokens = 0;
            if (full_bytes == 0) {
                swa_tokens = tokens;  // every layer windowed: one SWA pool of max_total_num_tokens
                tokens = swa_tokens;
            } else {
                full_tokens = tokens * per_token * 1000 / (1000 * full_bytes + ratio_permille * windowed_bytes) / page * page;
                swa_tokens = full_tokens * ratio_permille / 1000 / page * page;
                tokens = full_tokens;
            }
            s.swa_capacity_tokens = to_u64(swa_tokens);
            pool_bytes = full_tokens * full_bytes + swa_tokens * windowed_bytes;
            warnings.push_back({"model.sliding_window",
                                "SGLang's sliding-window pool (SWAKVPool) sized with swa_full_tokens_ratio 0.8, "
                                "SGLang's default (--swa-full-tokens-ratio); the full-attention pool is the capacity"});
        } else if (windowed_bytes != 0) {
            warnings.push_back({"model.sliding_window",
                                "SGLang gives sliding-window layers full-length KV for this architecture (its "
                                "separate SWAKVPool is used only for the architectures model_config.py "
                                "is_hybrid_swa_model lists, such as GPT-OSS and Llama 4): counted as full attention"});
        }
        s.page_bytes = to_u64(per_token * page);
        s.num_blocks = to_u64(tokens / page);
        s.kv_capacity_tokens = to_u64(tokens);
        s.kv_cache_bytes = to_u64(pool_bytes);
        s.draft_kv_cache_bytes = to_u64(tokens * draft_per_token);
        s.blocks_per_request = to_u64(ceil_div(len, page));
        s.max_concurrency_numerator = s.num_blocks;
        s.max_concurrency_denominator = s.blocks_per_request;
        s.starts = tokens > 0;
        s.max_model_len_that_starts = to_u64(std::min<u128>(tokens, max_token_count));
        if (activation > reserved)
            warnings.push_back({"infer.mem_fraction_static_permille",
                                "the modelled activation peak (" + gib_text(to_u64(activation)) +
                                    " GiB) exceeds the reserved share total × (1 − mem_fraction_static) (" +
                                    gib_text(to_u64(reserved)) + " GiB): out of memory at run time is likely"});
        if (s.starts && tokens < len)
            warnings.push_back({"infer.max_model_len", "exceeds the KV pool (" + std::to_string(s.kv_capacity_tokens) +
                                                           " tokens): one request cannot reach it"});
        if (!s.starts) {
            // The smallest fraction (in thousandths) that leaves one page: rest grows with the fraction.
            const std::uint64_t fewest = 1000 - largest_true(999, [&](std::uint64_t k) {  // k = 1000 − fraction
                return free_after_load - static_cast<i128>(permille_up(total, k)) >= static_cast<i128>(per_token * page);
            });
            s.refusal = "Not enough memory: the memory free after loading (" +
                        gib_text(to_u64(free_after_load > 0 ? static_cast<u128>(free_after_load) : 0)) +
                        " GiB) is below total × (1 − mem_fraction_static) (" + gib_text(to_u64(reserved)) +
                        " GiB). Increase mem_fraction_static" +
                        (fewest < 1000 ? " to at least " + std::to_string(fewest) + " thousandths." : ".");
        }
        return s;
    }

    // TensorRT-LLM (kvCacheManager.cpp calculateMaxNumBlocks): allotted = free memory after loading ×
    // free_gpu_memory_fraction; maxTokens = allotted / bytes per token (capped by max_tokens);
    // blocks = ⌈maxTokens / tokens_per_block⌉. The weights, the engine's activation and runtime
    // buffers and non-torch memory are allocated before the KV cache is sized.
    s.engine_version = trtllm_version;
    const std::uint64_t block = inf.block_size != 0 ? inf.block_size : 32;  // tokens_per_block default
    s.block_size = block;
    s.activation_peak_bytes = to_u64(activation);
    const i128 free_after_load = static_cast<i128>(total) - static_cast<i128>(weights + activation + non_torch);
    const u128 allotted = free_after_load > 0 ? static_cast<u128>(free_after_load) * inf.free_gpu_memory_fraction_permille / 1000 : 0;
    s.budget_bytes = to_u64(allotted);
    bool sliding = false;
    for (const layer_spec& l : layers) sliding = sliding || l.kind == attention_kind::sliding;
    if (sliding)
        // kvCacheManager.cpp sizes the memory as if every layer were full attention (calculateMaxNumBlocks;
        // its calculateWindowSizeToShare notes it is not used there), then splits the blocks between the
        // window sizes in proportion to window × per-token bytes: that split is what is not modelled.
        warnings.push_back({"model.sliding_window", "TensorRT-LLM's per-window pools are not modelled: the memory is "
                                                    "sized as the engine sizes it (every layer as full attention), "
                                                    "but its split of blocks between window sizes "
                                                    "(calculateWindowSizeToShare) is not, so sliding-window layers "
                                                    "are counted as full attention (fewer tokens than the engine)"});
    u128 tokens = allotted / per_token;
    if (inf.max_tokens != 0) tokens = std::min<u128>(tokens, inf.max_tokens);
    const u128 blocks = ceil_div(tokens, block);
    s.page_bytes = to_u64(per_token * block);
    s.num_blocks = to_u64(blocks);
    s.kv_capacity_tokens = to_u64(blocks * block);
    s.kv_cache_bytes = to_u64(blocks * block * per_token);
    s.draft_kv_cache_bytes = to_u64(blocks * block * draft_per_token);
    // getMaxCapacityBatchSize: allotted blocks / ⌈sequence / tokens_per_block⌉.
    s.blocks_per_request = to_u64(ceil_div(len, block));
    s.max_concurrency_numerator = s.num_blocks;
    s.max_concurrency_denominator = s.blocks_per_request;
    s.starts = blocks > 0;
    s.max_model_len_that_starts = to_u64(std::min<u128>(blocks * block, max_token_count));
    if (!s.starts)
        s.refusal = "No memory is left for the KV cache after loading: weights, runtime buffers and non-torch memory (" +
                    gib_text(to_u64(weights + activation + non_torch)) + " GiB) fill the GPU.";
    else if (blocks * block < len)
        warnings.push_back({"infer.max_model_len", "exceeds the KV pool (" + std::to_string(s.kv_capacity_tokens) +
                                                       " tokens): one request cannot reach it"});
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

}  // namespace memplan
