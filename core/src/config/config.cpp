// The element widths of dtypes, the ZeRO stages of FSDP strategies (the enumerations' names:
// config/names.cpp) and the prefill chunk of an inference estimate.
#include "memplan/config/config.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>

#include "memplan/base/limits.hpp"

namespace memplan {

std::int64_t zero_stage_of(fsdp_strategy strategy) {
    switch (strategy) {  // Zhao et al. 2023, §3.2: FULL_SHARD ~ ZeRO-3, SHARD_GRAD_OP ~ ZeRO-2
        case fsdp_strategy::full_shard:
        case fsdp_strategy::hybrid_shard: return 3;
        case fsdp_strategy::shard_grad_op:
        case fsdp_strategy::hybrid_shard_zero2: return 2;
        case fsdp_strategy::no_shard: return 0;
        case fsdp_strategy::unset: break;
    }
    return -1;
}

std::uint64_t dtype_bits(dtype type) {
    switch (type) {
        case dtype::fp32: return 32;
        case dtype::bf16:
        case dtype::fp16: return 16;
        case dtype::fp8:
        case dtype::int8: return 8;
        case dtype::int4: return 4;
    }
    return 32;
}

namespace {
/// True when `name` contains "a100" in any case, as vLLM tests the device name
/// (vllm/engine/arg_utils.py EngineArgs._set_default_args, vllm-project/vllm 99d7eb5d:
/// `"a100" not in current_platform.get_device_name().lower()`).
bool names_an_a100(const std::string& name) {
    for (std::size_t i = 0; i + 4 <= name.size(); ++i) {
        const char a = name[i];
        if ((a == 'a' || a == 'A') && name.compare(i + 1, 3, "100") == 0) return true;
    }
    return false;
}
}  // namespace

unsigned nvidia_compute_capability(const std::string& gpu_name) {
    std::string n;
    for (char ch : gpu_name) n += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    for (char& ch : n)
        if (ch == '-' || ch == '_') ch = ' ';
    const auto has = [&n](const char* part) { return n.find(part) != std::string::npos; };
    // developer.nvidia.com/cuda-gpus: Blackwell datacenter 10.0, Blackwell GeForce and RTX PRO 12.0, Hopper
    // 9.0, Ada 8.9, Ampere 8.0 (A100, A800, A30) and 8.6 (A10, A40, RTX A-series, GeForce 30), Turing 7.5,
    // Volta 7.0. Longer names first ("a100" before "a10", "rtx pro 6000 blackwell" before "6000").
    if (has("b200") || has("b300") || has("b100")) return 100;  // GB200 and GB300 contain these
    if (has("blackwell") || has("5090") || has("5080") || has("5070") || has("5060")) return 120;
    if (has("h100") || has("h200") || has("h800") || has("h20")) return 90;  // GH200 contains h200
    if (has("a100") || has("a800") || has("a30")) return 80;
    if (has("6000 ada") || has("4090") || has("4080") || has("4070") || has("4060") || has("l40") || has("l4")) return 89;
    if (has("a10") || has("a40") || has("a6000") || has("a5000") || has("a4000") || has("3090") || has("3080") ||
        has("3070") || has("3060"))
        return 86;
    if (has("t4")) return 75;
    if (has("v100")) return 70;
    return 0;
}

engine_release modelled_vllm_line(engine_release release) {
    switch (release) {
    case engine_release::v0_7: return engine_release::v0_6;   // V0, the same profile_run (vllm/worker/model_runner.py)
    case engine_release::v0_8: return engine_release::v0_9;   // V1 on by default from 0.8.0 (VLLM_USE_V1)
    case engine_release::v0_12:
    case engine_release::v0_13:
    case engine_release::v0_14: return engine_release::v0_11;
    case engine_release::v0_15:
    case engine_release::v0_16:
    case engine_release::v0_17: return engine_release::v0_18;
    case engine_release::v0_20: return engine_release::v0_19;  // the CUDA-graph estimate is subtracted from 0.21 only
    case engine_release::v0_22:
    case engine_release::v0_23: return engine_release::v0_21;
    default: return release;
    }
}

engine_release effective_vllm_line(const estimate_config& c) {
    const engine_release asked = c.infer.engine_version;
    const unsigned capability = nvidia_compute_capability(c.gpu_name);
    const bool v1_with_fallback = asked == engine_release::v0_8 || asked == engine_release::v0_9 || asked == engine_release::v0_10;
    if (v1_with_fallback && capability != 0 && capability < 80) return engine_release::v0_6;
    return modelled_vllm_line(asked);
}

vllm_scheduler_step vllm_default_scheduler_step(engine_release release, vllm_entrypoint entrypoint,
                                                std::uint64_t gpu_memory_bytes, const std::string& gpu_name,
                                                std::uint64_t max_model_len) {
    vllm_scheduler_step step;
    if (modelled_vllm_line(release) == engine_release::v0_6) {
        // vllm/config.py SchedulerConfig.__post_init__ (v0.6.6.post1): max(max_model_len, 2048) without
        // chunked prefill, 2048 with it (vllm-project/vllm pull request 10544 raised it from 512), which
        // vllm/engine/arg_utils.py EngineArgs.create_engine_config turns on above 32,768 tokens; 256
        // sequences (EngineArgs.max_num_seqs). The entry point does not matter in V0.
        step.max_num_batched_tokens = max_model_len > 32768 ? 2048 : std::max<std::uint64_t>(max_model_len, 2048);
        step.max_num_seqs = 256;
        return step;
    }
    // vllm/engine/arg_utils.py EngineArgs._set_default_args (vllm-project/vllm 99d7eb5d): device_memory >=
    // 70 * GiB_bytes and "a100" not in the device name (vllm-project/vllm pull request 17885, May 2025):
    // OPENAI_API_SERVER 8192 / 1024, LLM_CLASS 16384 / 1024; otherwise 2048 / 256 and 8192 / 256.
    const bool large_memory = gpu_memory_bytes >= 70 * bytes_per_gib;
    const bool large = large_memory && !names_an_a100(gpu_name);
    step.assumed_not_a100 = large_memory && gpu_name.empty();
    const bool llm = entrypoint == vllm_entrypoint::llm;
    step.max_num_batched_tokens = large ? (llm ? 16384 : 8192) : (llm ? 8192 : 2048);
    step.max_num_seqs = large ? 1024 : 256;
    return step;
}

vllm_scheduler_step vllm_scheduler_step_of(const estimate_config& c) {
    return vllm_scheduler_step_of(c, effective_vllm_line(c));
}

vllm_scheduler_step vllm_scheduler_step_of(const estimate_config& c, engine_release release) {
    const infer_config& inf = c.infer;
    const std::uint64_t max_model_len = inf.max_model_len != 0 ? inf.max_model_len : inf.context_len;
    vllm_scheduler_step step =
        vllm_default_scheduler_step(release, inf.entrypoint, c.gpu_memory_bytes, c.gpu_name, max_model_len);
    const bool v1 = modelled_vllm_line(release) != engine_release::v0_6;
    if (inf.max_num_batched_tokens != 0) step.max_num_batched_tokens = inf.max_num_batched_tokens;
    if (inf.max_num_seqs != 0)
        step.max_num_seqs = inf.max_num_seqs;
    else if (v1)  // vllm/engine/arg_utils.py (vllm-project/vllm 99d7eb5d): min(default, max_num_batched_tokens)
        step.max_num_seqs = std::min(step.max_num_seqs, step.max_num_batched_tokens);
    // The name decided nothing when both were given.
    if (inf.max_num_batched_tokens != 0 && inf.max_num_seqs != 0) step.assumed_not_a100 = false;
    return step;
}

std::uint64_t prefill_chunk_tokens(const estimate_config& c) {
    if (!c.infer.chunked_prefill) return 0;
    return vllm_scheduler_step_of(c).max_num_batched_tokens;
}

}  // namespace memplan
