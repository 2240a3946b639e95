// The training frameworks an estimate can name (memplan/memory/frameworks.hpp): one table, read by the
// estimate (the optimizer step and the loss path), by validation (the layouts a framework has) and by
// the reports (what its log prints). Every fact names the upstream file and commit it was read from.
#include "memplan/memory/frameworks.hpp"

#include <string>

#include "base/checks.hpp"

namespace memplan {

namespace {
// Entries in the order of train_framework (config.hpp); a test checks every enumerator has its own.
const framework_conventions table[] = {
    {train_framework::none, "no framework named", "", allocator_figure::allocated,
     "the figure memplan computes is PyTorch's allocated peak, torch.cuda.max_memory_allocated()", "",
     "memplan's own conventions: torch.optim.AdamW with foreach (PyTorch's default on CUDA, its temporaries "
     "counted), the unchunked loss keeping the bf16 logits and their fp32 log-probabilities",
     "pytorch/pytorch torch/optim/adam.py at dc80ccded5385cca3e777472d64cfe3d874fad89", false},
    {train_framework::torchtitan, "torchtitan", "pytorch/torchtitan at b5bcd76c66d0acb1a08b176d9639425bc55e0b2a",
     allocator_figure::reserved,
     "\"memory: X GiB(Y%)\" every log step: memory_stats()['reserved_bytes.all.peak'] / 2^30, the reserved "
     "peak", "GiB",
     "fused AdamW (optimizer.implementation \"fused\" by default: no foreach temporaries); the loss is "
     "cross_entropy(pred.float()) and the trainer deletes the bf16 logits before backward, so only the fp32 "
     "log-probabilities stay (4 bytes per logit) until the loss's backward; FSDP2 shards parameters, "
     "gradients and optimizer states together (reshard_after_forward: ZeRO stage 3, or 2 with \"never\"); "
     "run_train.sh sets PYTORCH_ALLOC_CONF=expandable_segments:True",
     "torchtitan/components/metrics.py (DeviceMemoryMonitor, log line), torchtitan/components/optimizer/"
     "optimizer.py (implementation = \"fused\"), torchtitan/components/loss.py (cross_entropy_loss), "
     "torchtitan/trainer.py (del pred before loss.backward()), run_train.sh, "
     "torchtitan/models/llama3/parallelize.py (fully_shard with MixedPrecisionPolicy bf16 / fp32)",
     true, true, true},
    {train_framework::hf_trainer, "Hugging Face Trainer", "huggingface/transformers at 007360d654f36b1f4bc0c701c7b1b69273a7c4ed",
     allocator_figure::allocated,
     "nothing by default; with skip_memory_metrics=False the metric train_mem_gpu_peaked_delta, "
     "torch.cuda.max_memory_allocated() minus the bytes allocated when training ends", "bytes",
     "ForCausalLMLoss upcasts the logits to fp32 while the model's output keeps the bf16 ones (memplan's "
     "default loss path); torch AdamW (foreach); PyTorch FSDP or DeepSpeed ZeRO through the Trainer's "
     "arguments; gradient checkpointing off by default; PEFT adapters in fp32 (autocast_adapter_dtype)",
     "src/transformers/trainer_utils.py (TrainerMemoryTracker), src/transformers/loss/loss_utils.py "
     "(ForCausalLMLoss, at 0114da07ec0e101b420a923dedeb6032b6ac3a44)",
     false, false, false},
    {train_framework::trl, "TRL", "huggingface/trl at f2cd57710ae345ea6428ae95363267fcf38a3dc8", allocator_figure::none,
     "no peak-memory figure of its own (the Trainer's, with skip_memory_metrics=False)", "",
     "SFTTrainer on the Hugging Face Trainer: gradient checkpointing on by default (SFTConfig), the loss "
     "chunked_nll by default (fp32 logits one chunk at a time: set train.loss_chunks and train.recompute)",
     "trl/trainer/sft_config.py (loss_type, gradient_checkpointing), trl/trainer/base_config.py",
     false, false, false},
    {train_framework::torchtune, "torchtune", "pytorch/torchtune at bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1",
     allocator_figure::both,
     "peak_memory_active, peak_memory_alloc and peak_memory_reserved (with log_peak_memory_stats: True): "
     "torch.cuda.max_memory_allocated() and max_memory_reserved() / 2^30, reset after each log", "GiB",
     "FSDP2 (fully_shard per layer) in its distributed recipes, with its all-gather and reduce-scatter "
     "buffers; no pipeline parallelism; a chunked loss upcasting one chunk at a time (train.loss_chunks, 8 "
     "in its configs); models built in bf16 (no fp32 master copy: train.master_weights false)",
     "torchtune/training/memory.py (get_memory_stats), torchtune/training/_distributed.py (fully_shard), "
     "torchtune/modules/loss/cross_entropy_loss.py",
     false, false, true},
    {train_framework::litgpt, "LitGPT", "Lightning-AI/litgpt at 26857050fe3ff627cd714fe92f5838f51a3d5efa",
     allocator_figure::allocated,
     "\"Memory Used: X GB\" at the end: torch.cuda.max_memory_allocated() / 1e9", "GB",
     "Fabric FSDP over its blocks on several GPUs, one GPU otherwise; no pipeline parallelism and no "
     "DeepSpeed in its training scripts; chunked cross-entropy over 128-token chunks; bitsandbytes "
     "pinned at 0.42 for QLoRA (train.base_keeps_inputs)",
     "litgpt/utils.py (chunked_cross_entropy, the memory line), litgpt/finetune/lora.py, litgpt/pretrain.py",
     false, false, false},
    {train_framework::unsloth, "Unsloth", "unslothai/unsloth at 015bdef0d94a241bcd94eec7a405b1700632180d",
     allocator_figure::none,
     "no peak-memory figure from the library (its notebooks print torch.cuda.max_memory_reserved())", "",
     "one GPU or plain data parallelism (no tensor or pipeline parallelism); its offloaded gradient "
     "checkpointing by default (train.recompute full with train.activation_offload); fused chunked "
     "cross-entropy",
     "unsloth/_gpu_init.py, unsloth/models/llama.py (get_peft_model use_gradient_checkpointing=\"unsloth\")",
     false, false, false},
    {train_framework::axolotl, "Axolotl", "axolotl-ai-cloud/axolotl at 067b021c8b87a9e5e380b9173c704cf7340e30f5",
     allocator_figure::both,
     "\"memory/max_allocated (GiB)\" and \"memory/device_reserved (GiB)\" in every training log: "
     "torch.cuda.max_memory_allocated() and max_memory_reserved() / 2^30, reset after each log", "GiB",
     "the Hugging Face Trainer with DeepSpeed or FSDP (1 or 2), tensor and context parallelism; no pipeline "
     "parallelism; gradient checkpointing off by default",
     "src/axolotl/utils/bench.py (gpu_memory_usage_all), src/axolotl/utils/schemas/config.py",
     false, false, false},
    {train_framework::megatron, "Megatron-LM", "NVIDIA/Megatron-LM at d98e8a64ddf34856e74b24714e3bedb2f5a39553",
     allocator_figure::both,
     "\"memory (MB) | allocated | max allocated | reserved | max reserved\" once after the first iterations: "
     "torch.cuda.max_memory_allocated() and max_memory_reserved() / 2^20 (MiB, printed as MB), never reset",
     "MiB",
     "FusedAdam from Transformer Engine or Apex (in place, no temporaries); the distributed optimizer "
     "shards the fp32 main weights and Adam states only (ZeRO stage 1); vocabulary-parallel cross-entropy "
     "on an fp32 copy of the logits; recomputation off by default",
     "megatron/training/utils/common_utils.py (report_memory), megatron/core/optimizer/__init__.py "
     "(FusedAdam), megatron/core/tensor_parallel/cross_entropy.py",
     true, false, false},
    {train_framework::deepspeed, "DeepSpeed", "microsoft/DeepSpeed at 38327e07f6cd39b63418f60cedd1651b0be3e7c3",
     allocator_figure::both,
     "\"MA x GB Max_MA y GB CA z GB Max_CA w GB\" (with memory_breakdown: true): max_memory_allocated() and "
     "max_memory_reserved() / 2^30 printed as GB, Max_CA rounded to a whole number", "GiB",
     "ZeRO stages 0 to 3 with DeepSpeed's own buffers (parallel.comm_buffers deepspeed is implied) and "
     "FusedAdam (in place); CPU and NVMe offload; its own pipeline engine",
     "deepspeed/runtime/utils.py (see_memory_usage), deepspeed/runtime/zero/stage_1_and_2.py, stage3.py",
     true, false, false},
};
constexpr std::size_t framework_count = sizeof(table) / sizeof(table[0]);

void refuse(diagnostics& errors, const char* field, const framework_conventions& f, const std::string& why) {
    errors.push_back({field, std::string("cannot be used with train.framework ") + to_string(f.id) + " (" +
                                 f.label + "): " + why});
}

// The band of reserved / allocated at the peak, in thousandths, over the 24 public training runs of
// tests/data/allocator/allocator-pairs.json that print both peaks of the same window (Megatron-LM,
// NeMo, Megatron-DeepSpeed, DeepSpeed, Axolotl, Hugging Face Trainer, llama-recipes, ONNX Runtime;
// tests/core/test_frameworks.cpp recomputes all three from the file): 1.003 (Megatron-LM, a run near
// its GPU's capacity) to 1.796 (a Hugging Face Trainer run), median 1.171. A wide band: fragmentation
// depends on the allocation pattern, and memplan states the range rather than one factor.
constexpr std::uint64_t band_low_permille = 1003;
constexpr std::uint64_t band_median_permille = 1171;
constexpr std::uint64_t band_high_permille = 1796;
constexpr std::uint64_t band_measurements = 24;
// PyTorch's caching allocator rounds every request up to 512 bytes (kMinBlockSize), requests above 10 MiB
// to whole 2 MiB (kRoundLarge), and reserves segments of 2 MiB (small pool), 20 MiB or the rounded size
// (pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp at 001074d25084fdb87a799823e395a50f5ec044d3, round_size and get_allocation_size): the
// reserved bytes are whole 2 MiB units.
constexpr std::uint64_t allocator_round_bytes = 2u << 20;
}  // namespace

const framework_conventions& conventions_of(train_framework framework) {
    const auto i = static_cast<std::size_t>(framework);
    return i < framework_count ? table[i] : table[0];
}

void check_framework(const estimate_config& c, diagnostics& errors) {
    const framework_conventions& f = conventions_of(c.train.framework);
    const parallel_config& p = c.parallel;
    switch (c.train.framework) {
        case train_framework::torchtitan:
            // FSDP2 (torch.distributed.fsdp.fully_shard) has no optimizer-only sharding.
            if (p.zero_stage == 1)
                refuse(errors, "parallel.zero_stage", f,
                       "FSDP2 shards parameters, gradients and optimizer states together (stage 3, or 2 with "
                       "reshard_after_forward \"never\"); without it (stage 0) every GPU keeps them whole; "
                       "there is no stage 1");
            if (p.comm_buffers == comm_buffer_model::deepspeed)
                refuse(errors, "parallel.comm_buffers", f, "DeepSpeed's buffers are not torchtitan's (use memplan)");
            if (p.offload_optimizer == offload_target::nvme || p.offload_params == offload_target::nvme)
                refuse(errors, p.offload_optimizer == offload_target::nvme ? "parallel.offload_optimizer" : "parallel.offload_params",
                       f, "FSDP2 offloads to CPU memory only (none or cpu)");
            break;
        case train_framework::torchtune:
        case train_framework::litgpt:
        case train_framework::axolotl:
            if (p.pp > 1)
                refuse(errors, "parallel.pp", f, "it has no pipeline parallelism (parallel.pp 1)");
            if (p.comm_buffers == comm_buffer_model::deepspeed && c.train.framework != train_framework::axolotl)
                refuse(errors, "parallel.comm_buffers", f, "it does not run DeepSpeed (use memplan)");
            break;
        case train_framework::unsloth:
            if (p.tp > 1 || p.pp > 1)
                refuse(errors, p.tp > 1 ? "parallel.tp" : "parallel.pp", f,
                       "it trains on one GPU or data-parallel, without tensor or pipeline parallelism");
            break;
        case train_framework::deepspeed:
            if (p.fsdp != fsdp_strategy::unset)
                refuse(errors, "parallel.fsdp", f, "PyTorch FSDP's strategies are not DeepSpeed's; give parallel.zero_stage");
            break;
        default: break;
    }
}

reserved_band reserved_ratio_band() { return {band_low_permille, band_median_permille, band_high_permille, band_measurements}; }

reserved_range reserved_peak_range(std::uint64_t allocated) {
    // Rounded to the allocator's granularity first (derivation: reserved memory is whole segments).
    const detail::u128 rounded = detail::ceil_div(detail::u128{allocated}, allocator_round_bytes) * allocator_round_bytes;
    const auto scaled = [&](std::uint64_t permille) {
        const detail::u128 v = detail::ceil_div(rounded * permille, 1000);
        return static_cast<std::uint64_t>(v > max_exact_integer ? detail::u128{max_exact_integer} : v);
    };
    return {scaled(band_low_permille), scaled(band_median_permille), scaled(band_high_permille)};
}

}  // namespace memplan
