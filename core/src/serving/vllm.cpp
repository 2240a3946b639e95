// vLLM V1's KV cache pool (docs/serving.md): the memory it requests of the GPU, the blocks its
// allocator groups layers into (the hybrid allocator for sliding-window, linear-attention and Mamba
// layers), the blocks one request needs, and whether the engine starts. Registered in engines.cpp.
#include <algorithm>
#include <vector>

#include "memplan/serving/serving.hpp"
#include "serving/engine.hpp"

namespace memplan::detail {

namespace {
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
        // gated_delta_net_state_shape: conv ((K − 1), (2·nk·dk + nv·dv)/tp); temporal (nv/tp, dv, dk). Kimi Delta
        // Attention's kda_state_shape (q, k and v conv states (K − 1) × heads·d/tp each, recurrent (heads/tp, d, d))
        // holds the same elements with nk = nv and dk = dv.
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
    /// Tokens per block of the full-attention and the local groups after unify_kv_cache_spec_page_size (0: block).
    u128 full_block = 0, local_block = 0;
    u128 state_page = 0;        ///< the recurrent layers' unpadded page (MambaSpec.page_size_bytes)
    u128 padded_page = 0;       ///< the page every layer gets (the state page padded to the attention page)
    u128 draft_page = 0;        ///< bytes of one block held by the draft's layers (uniform pools)
    bool hybrid = false;
    bool chunked = false;       ///< the local layers are chunked-local (Llama 4), `window` their chunk size
};

/// vLLM's pool for a model with linear-attention or Mamba layers (vLLM at commit 001cabc1 for
/// kv_cache_utils.py and kv_cache_interface.py; the block-size rule of
/// vllm/model_executor/models/config.py HybridAttentionMambaModelConfig.verify_and_update_config, the
/// mamba_cache_mode "none" branch — prefix caching off, mamba_block_size = max_model_len):
/// - attention block = A · ⌈state page / (A · attention bytes per token)⌉ (kernel_block_alignment_size A:
///   16 for FlashAttention/FlashInfer, 64 for MLA), unless infer.block_size is given and at least that; the
///   state page is padded to
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
    bool mla = false;  // the attention layers are MLA (Kimi Linear), one latent per token
    for (const layer_spec& l : layers) {
        if (l.state_bytes != 0) {
            if (pool.state_page != 0 && pool.state_page != l.state_bytes) {
                errors.push_back({"model.layer_types", "linear-attention and Mamba layers with different state pages "
                                                       "in one model are not covered by memplan's vLLM arithmetic"});
                return pool;
            }
            pool.state_page = l.state_bytes;
            state += l.count;
        } else if (l.kind == attention_kind::full || l.kind == attention_kind::mla) {
            if ((full != 0 && (l.kind == attention_kind::mla) != mla) || (token_bytes != 0 && token_bytes != l.token_bytes)) {
                errors.push_back({"model.layer_types", "attention layers of different page sizes beside linear-attention "
                                                       "or Mamba layers are not covered by memplan's vLLM arithmetic"});
                return pool;
            }
            token_bytes = l.token_bytes;
            mla = l.kind == attention_kind::mla;
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
    // HybridAttentionMambaModelConfig: the smallest multiple of kernel_block_alignment_size tokens whose attention
    // page holds the state page (16; 64 for MLA models, the MLA backends other than CUTLASS_MLA); a given block_size
    // stays when it is at least that.
    const u128 alignment = mla ? 64 : 16;
    const u128 least = alignment * ceil_div(pool.state_page, alignment * token_bytes);
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
        if (l.kind == attention_kind::sliding || l.kind == attention_kind::chunked) {
            // Sliding-window and chunked-local layers are each their own spec (SlidingWindowSpec,
            // ChunkedLocalAttentionSpec) grouped apart from the full-attention layers; vLLM refuses a model
            // with both (kv_cache_interface.py: "both sliding window layers and chunked local attention").
            const bool chunked = l.kind == attention_kind::chunked;
            if (sliding != 0 && (pool.window != l.window || pool.chunked != chunked)) {
                errors.push_back({"model.sliding_window", "layers with different windows or chunk sizes are not covered"});
                return pool;
            }
            sliding += l.count;
            pool.window = l.window;
            pool.chunked = chunked;
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
        // unify_kv_cache_spec_page_size (kv_cache_utils.py at 001cabc1): a layer whose page divides the largest
        // page gets block · (largest / its page) tokens per block, so every page is the largest (Gemma 4: full
        // layers of 2 KV heads · 512 get 32-token blocks beside sliding layers of 8 · 256 at 16). One block size per
        // kind is modelled; pages that do not divide the largest are not covered.
        u128 largest = 0;
        for (const layer_spec& l : layers) largest = std::max<u128>(largest, u128{block} * l.token_bytes);
        for (const layer_spec& l : layers) {
            const u128 layer_page = u128{block} * l.token_bytes;
            const bool local = l.kind == attention_kind::sliding || l.kind == attention_kind::chunked;
            u128& kind_block = local ? pool.local_block : pool.full_block;
            const u128 scaled = layer_page != 0 && largest % layer_page == 0 ? u128{block} * (largest / layer_page) : 0;
            if (scaled == 0 || (kind_block != 0 && kind_block != scaled)) {
                errors.push_back({l.draft ? "infer.draft_preset" : "model.layer_types",
                                  "layers whose KV pages do not divide the largest page, or layers of one kind with "
                                  "different pages, are not covered by memplan's vLLM arithmetic"});
                return pool;
            }
            kind_block = scaled;
        }
        page = largest;
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
    // Each kind at its own block size where unify_kv_cache_spec_page_size changed it.
    const u128 full_block = pool.full_block != 0 ? pool.full_block : u128{block};
    const u128 local_block = pool.local_block != 0 ? pool.local_block : u128{block};
    const u128 full = ceil_div(len, full_block);
    // A local group's blocks per request: SlidingWindowSpec ⌈min(window − 1 + batched, len) / block⌉ + 1;
    // ChunkedLocalAttentionSpec ⌈min(chunk + batched, len) / block⌉ (max_memory_usage_bytes).
    const u128 local = pool.chunked ? ceil_div(std::min(pool.window + batched_tokens, len), local_block)
                                    : ceil_div(std::min(pool.window - 1 + batched_tokens, len), local_block) + 1;
    if (!pool.hybrid) return pool.full_groups != 0 ? full : local;
    return pool.full_groups * full + pool.sliding_groups * local;
}

/// vLLM's pool for the budget step's inputs.
serving_result vllm_size_pool(const engine_inputs& in, serving_result s, diagnostics& warnings, diagnostics& errors) {
    const infer_config& inf = in.config.infer;
    const std::vector<layer_spec>& layers = in.layers;
    const u128 total = in.total_bytes, weights = in.weights_bytes, activation = in.activation_bytes;
    const u128 non_torch = in.non_torch_bytes, len = in.max_model_len;
    const std::uint64_t batched = in.batched_tokens;
    // CacheConfig.block_size default 16; DeepSeek Sparse Attention (a model with index_topk) is forced to 64
    // blocks whatever is given (vllm/platforms/cuda.py check_and_update_config at vllm-project/vllm 002db495,
    // "Forcing kv cache block size to 64 for FlashMLASparse backend").
    const bool sparse = in.config.model.index_n_heads != 0;
    const std::uint64_t block = sparse ? 64 : inf.block_size != 0 ? inf.block_size : 16;
    if (sparse && inf.block_size != 0 && inf.block_size != 64)
        warnings.push_back({"infer.block_size", "vLLM forces blocks of 64 tokens for DeepSeek Sparse Attention "
                                                "(FlashMLASparse): " + std::to_string(inf.block_size) + " is not used"});
    s.block_size = block;
    // Budget (vllm/v1/worker/gpu_worker.py determine_available_memory): requested memory
    // ⌈total × gpu_memory_utilization⌉ less the profiled non-KV memory: weights, the activation peak
    // and non-torch memory; a CUDA-graph pool only where the engine counts it (given measured).
    const u128 requested = permille_up(total, inf.gpu_memory_utilization_permille);
    const u128 graphs = in.cuda_graph_bytes;
    s.budget_bytes = to_u64(requested);
    s.activation_peak_bytes = to_u64(activation);
    s.cuda_graph_bytes = to_u64(graphs);
    const i128 available = inf.kv_cache_memory_bytes != 0
                               ? static_cast<i128>(inf.kv_cache_memory_bytes)
                               : static_cast<i128>(requested) - static_cast<i128>(weights + activation + non_torch + graphs);
    const vllm_pool pool = vllm_groups(layers, block, errors);
    if (!errors.empty()) return serving_result{};
    if (pool.state_groups != 0) {
        // The attention block size vLLM sets for a hybrid model; a recurrent-only model's block is
        // max_model_len (mamba_block_size).
        s.block_size = to_u64(pool.full_groups != 0 ? pool.block : len);
        s.state_page_bytes = to_u64(pool.state_page);
        s.state_page_padded_bytes = to_u64(pool.padded_page);
        warnings.push_back({"infer.engine", "vLLM's hybrid allocator for linear-attention/Mamba layers is reproduced "
                                            "with prefix caching off (mamba_cache_mode none, one state block per "
                                            "request), the attention block aligned to 16 tokens (64 with MLA: "
                                            "CUTLASS_MLA aligns to 128), and the conv state "
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
    // With unified pages the kind of the largest page keeps `block`, the smallest of the groups' block sizes.
    const u128 min_block = pool.state_groups == 0 ? u128{block}
                                                  : (pool.full_groups != 0 ? std::min<u128>(pool.block, len) : len);
    // With decode context parallelism each rank holds every dcp-th token: the size logged is multiplied by
    // dcp (_report_kv_cache_config, "Multiplying the GPU KV cache size by the dcp_world_size"), and one request
    // needs the blocks of cdiv(max_model_len, dcp) tokens (FullAttentionSpec.max_memory_usage_bytes).
    const std::uint64_t dcp = inf.decode_context_parallel_size;
    s.kv_capacity_tokens = to_u64(blocks / groups * min_block * dcp);
    if (inf.swap_space_bytes != 0)  // V0: num_cpu_blocks = swap_space_bytes // cache_block_size (worker.py)
        s.cpu_blocks = to_u64(u128{inf.swap_space_bytes} / pool.memory_per_block);
    const u128 need = vllm_blocks_needed(pool, ceil_div(len, u128{dcp}), block, batched);
    s.blocks_per_request = to_u64(need);
    // get_max_concurrency_for_kv_cache_config: num_blocks / blocks per request.
    s.max_concurrency_numerator = s.num_blocks;
    s.max_concurrency_denominator = s.blocks_per_request;
    s.max_model_len_that_starts = largest_true(max_token_count, [&](std::uint64_t n) {
        return vllm_blocks_needed(pool, ceil_div(u128{n}, u128{dcp}), block, batched) <= blocks;
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
}  // namespace

/// The entry engines.cpp registers.
extern const engine vllm_engine{serving_engine::vllm, "vLLM",
                                "vLLM V1 engine, vllm/v1/core/kv_cache_utils.py at commit 001cabc1",
                                &infer_config::gpu_memory_utilization_permille, "infer.gpu_memory_utilization_permille",
                                "--gpu-memory-utilization", "of the GPU's memory for the whole engine",
                                "⌈total × gpu_memory_utilization⌉ − weights − activation peak − non-torch − CUDA graphs "
                                "(the estimate from 0.21, or measured); vllm/v1/worker/gpu_worker.py "
                                "determine_available_memory.",
                                vllm_state_page, /*pages_mtp_layers=*/true, /*predicts_overheads=*/true, /*subtracts_activation=*/true,
                                /*held_out_high_permille=*/154, /*held_out_logs=*/29,
                                vllm_size_pool};

}  // namespace memplan::detail
