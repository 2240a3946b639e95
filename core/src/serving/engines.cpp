// The serving engines, registered: each engine's own file defines its entry (its names, the upstream
// source it reproduces and its pool arithmetic); registering one is its line below and in the table.
#include "serving/engines.hpp"

#include "memplan/serving/serving.hpp"

namespace memplan::detail {

extern const engine vllm_engine;    // vllm.cpp
extern const engine sglang_engine;  // sglang.cpp
extern const engine trtllm_engine;  // trtllm.cpp

const std::vector<const engine*>& engines() {
    // Built once; immutable afterwards.
    static const std::vector<const engine*> table = {&vllm_engine, &sglang_engine, &trtllm_engine};
    return table;
}

}  // namespace memplan::detail

namespace memplan {

std::vector<engine_description> engine_descriptions() {
    std::vector<engine_description> out;
    for (const detail::engine* e : detail::engines())
        out.push_back({to_string(e->id), e->label, e->version, e->share_field, e->share_flag, e->share_of, e->budget});
    return out;
}

const std::vector<budget_term>& budget_terms() {
    // Built once; immutable afterwards. The formulas are budget.cpp's and each engine file's.
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

namespace memplan::detail {

const engine* find_engine(serving_engine id) {
    for (const engine* e : engines())
        if (e->id == id) return e;
    return nullptr;
}

}  // namespace memplan::detail
