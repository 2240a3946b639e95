// SGLang's KV cache pool (docs/serving.md): profile_max_num_token's share of the GPU, its token
// pool (and the separate sliding-window pool of the architectures that have one), and whether the
// engine starts. Registered in engines.cpp.
#include <algorithm>
#include <vector>

#include "memplan/model/families.hpp"
#include "memplan/serving/serving.hpp"
#include "serving/engine.hpp"

namespace memplan::detail {

namespace {
/// SGLang's pool for the budget step's inputs.
serving_result sglang_size_pool(const engine_inputs& in, serving_result s, diagnostics& warnings, diagnostics&) {
    const infer_config& inf = in.config.infer;
    const std::vector<layer_spec>& layers = in.layers;
    const u128 total = in.total_bytes, weights = in.weights_bytes, activation = in.activation_bytes;
    const u128 non_torch = in.non_torch_bytes, per_token = in.token_bytes;
    // profile_max_num_token (model_runner.py): rest = memory free after loading the weights −
    // total_gpu_memory × (1 − mem_fraction_static); max_total_num_tokens = rest // cell, cell = per-token KV
    // bytes over the layers (kv_heads/tp · head_dim · L · 2 · bytes; MLA: latent · L · bytes); the
    // pool is rounded down to whole pages of page_size tokens (default 1). Activations and CUDA
    // graphs live in the reserved (1 − fraction) share, not subtracted here. total_gpu_memory is not the
    // device's total: ModelRunner.init_torch_distributed measures it as the memory free once the worker has
    // started (get_available_gpu_memory after the CUDA context and the distributed init; the log's "Load
    // weight begin. avail mem"), so the reserve is taken of the device less what is in use by then, here
    // the CUDA context (overhead.misc_bytes).
    const std::uint64_t page = inf.block_size != 0 ? inf.block_size : 1;
    s.block_size = page;
    const std::uint64_t fraction = inf.mem_fraction_static_permille;
    const u128 context = std::min<u128>(in.config.misc_bytes, total);
    const u128 free_at_start = total - context;
    const u128 reserved = permille_up(free_at_start, 1000 - fraction);
    s.budget_bytes = to_u64(free_at_start - reserved);
    const i128 free_after_load = static_cast<i128>(free_at_start) - static_cast<i128>(weights + non_torch);
    const i128 rest = free_after_load - static_cast<i128>(reserved);
    // The cell is what the profiler counts per token (engine.hpp layer_spec::profiled_token_bytes): for
    // DeepSeek-V3.2 under an fp8 cache 576 B of latent per layer, while the pool then stores 656 B
    // (serving.cpp profiled_bytes_of), so the pool outgrows rest by that difference, as SGLang allocates it.
    const u128 cell = in.profiled_token_bytes;
    if (in.config.model.index_n_heads != 0 && page != 64)
        warnings.push_back({"infer.block_size", "SGLang sets page_size 64 for DeepSeek Sparse Attention on CUDA "
                                                "(server_args.py: \"Setting page size to 64 for DeepSeek DSA\"), and some "
                                                "releases turn on DP attention for it (attention weights on every GPU), "
                                                "which memplan does not reproduce: set infer.block_size 64"});
    u128 tokens = rest > 0 ? static_cast<u128>(rest) / cell / page * page : 0;
    if (cell != per_token)
        warnings.push_back({"infer.kv_dtype", "SGLang sizes max_total_num_tokens by a cell of " + std::to_string(to_u64(cell)) +
                                                  " B per token (the fp8 latent as kv_lora_rank + qk_rope_head_dim bytes) "
                                                  "while its NSA pool stores " + std::to_string(to_u64(per_token)) +
                                                  " B per token (the 656-byte fp8 layout of its NSA backends other than trtllm): the pool is "
                                                  "larger than the share it was sized from"});
    // Sliding-window layers: SGLang gives them a separate, smaller pool (SWAKVPool) for the
    // architectures python/sglang/srt/configs/model_config.py is_hybrid_swa_model lists — of memplan's
    // families (their rows' sglang_swa_pool) gpt_oss (GptOssForCausalLM) and llama4
    // (Llama4ForConditionalGeneration, its chunked layers) — and full-length KV for the others. set_num_tokens_hybrid_swa
    // (python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py at commit 001ccef0): the profiled
    // max_total_num_tokens × cell is shared as full_tokens · F + swa_tokens · S with swa_tokens =
    // full_tokens · swa_full_tokens_ratio (0.8, server_args.py): full_tokens = ⌊total / (F + r·S)⌋,
    // swa_tokens = ⌊full_tokens · r⌋, both rounded down to pages; max_total_num_tokens = full_tokens.
    u128 windowed_bytes = 0;  // S: per-token bytes of the windowed layers
    for (const layer_spec& l : layers)
        if (l.kind == attention_kind::sliding || l.kind == attention_kind::chunked) windowed_bytes += l.token_bytes * l.count;
    const model_family* family = find_family(in.config.model.model_type);
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
    if (activation > reserved)
        warnings.push_back({"infer.mem_fraction_static_permille",
                            "the modelled activation peak (" + gib_text(to_u64(activation)) +
                                " GiB) exceeds the reserved share (free at start × (1 − mem_fraction_static)) (" +
                                gib_text(to_u64(reserved)) + " GiB): out of memory at run time is likely"});
    // The pool: tokens is whole pages; its bytes are the full-attention pool's and the SWA pool's.
    token_pool_result(in, tokens / page, page, s, warnings);
    s.kv_cache_bytes = to_u64(pool_bytes);
    if (!s.starts) {
        // The smallest fraction (in thousandths) that leaves one page: rest grows with the fraction.
        const std::uint64_t fewest = 1000 - largest_true(999, [&](std::uint64_t k) {  // k = 1000 − fraction
            return free_after_load - static_cast<i128>(permille_up(free_at_start, k)) >= static_cast<i128>(cell * page);
        });
        s.refusal = "Not enough memory: the memory free after loading (" +
                    gib_text(to_u64(free_after_load > 0 ? static_cast<u128>(free_after_load) : 0)) +
                    " GiB) is below the memory free at start × (1 − mem_fraction_static) (" + gib_text(to_u64(reserved)) +
                    " GiB). Increase mem_fraction_static" +
                    (fewest < 1000 ? " to at least " + std::to_string(fewest) + " thousandths." : ".");
    }
    return s;
}
}  // namespace

/// The entry engines.cpp registers.
extern const engine sglang_engine{serving_engine::sglang, "SGLang",
                                  "SGLang, python/sglang/srt/model_executor/model_runner.py at commit 01cc04e2",
                                  &infer_config::mem_fraction_static_permille, "infer.mem_fraction_static_permille",
                                  "--mem-fraction-static", "of the GPU's memory for weights and the KV pool",
                                  "Free after loading − free at start × (1 − mem_fraction_static); "
                                  "python/sglang/srt/model_executor/model_runner.py profile_max_num_token.",
                                  /*state_page=*/nullptr, /*pages_mtp_layers=*/false, /*predicts_overheads=*/false, /*subtracts_activation=*/false, /*held_out_high_permille=*/103, /*held_out_logs=*/5,
                                  sglang_size_pool};

}  // namespace memplan::detail
