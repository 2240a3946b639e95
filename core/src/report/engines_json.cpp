// The serving engines memplan reproduces and the training frameworks it names, as JSON
// (memplan/report/json.hpp): what the page and the CLI say about each engine comes from its entry in
// serving/ (label, upstream source, share field and flag, budget formula) and the budget's terms, and
// about each framework from memory/frameworks.cpp, written once there.
#include "io/json_text.hpp"
#include "memplan/report/json.hpp"
#include "memplan/memory/frameworks.hpp"
#include "memplan/serving/serving.hpp"

namespace memplan {

std::string engines_json() {
    using detail::ordered_json;
    ordered_json engines = ordered_json::array();
    for (const engine_description& e : engine_descriptions())
        engines.push_back(ordered_json{{"id", e.id},
                                       {"label", e.label},
                                       {"version", e.version},
                                       {"share_field", e.share_field},
                                       {"share_flag", e.share_flag},
                                       {"share_of", e.share_of},
                                       {"budget", e.budget}});
    ordered_json terms = ordered_json::array();
    for (const budget_term& t : budget_terms())
        terms.push_back(ordered_json{{"key", t.key}, {"label", t.label}, {"formula", t.formula}});
    return detail::dump_json(ordered_json{{"engines", engines}, {"budget_terms", terms}});
}

namespace {
// In the order of train_framework (config.hpp), beside memory/frameworks.cpp's table of the same frameworks.
const framework_notes notes[] = {
    {train_framework::none,
     "",
     "the figure memplan computes is PyTorch's allocated peak, torch.cuda.max_memory_allocated()",
     "memplan's own conventions: torch.optim.AdamW with foreach (PyTorch's default on CUDA, its temporaries "
     "counted), the unchunked loss keeping the bf16 logits and their fp32 log-probabilities",
     "pytorch/pytorch torch/optim/adam.py at dc80ccded5385cca3e777472d64cfe3d874fad89"},
    {train_framework::torchtitan,
     "pytorch/torchtitan at b5bcd76c66d0acb1a08b176d9639425bc55e0b2a",
     "\"memory: X GiB(Y%)\" every log step: memory_stats()['reserved_bytes.all.peak'] / 2^30, the reserved "
     "peak",
     "fused AdamW (optimizer.implementation \"fused\" by default: no foreach temporaries); the loss is "
     "cross_entropy(pred.float()) and the trainer deletes the bf16 logits before backward, so only the fp32 "
     "log-probabilities stay (4 bytes per logit) until the loss's backward; FSDP2 shards parameters, "
     "gradients and optimizer states together (reshard_after_forward: ZeRO stage 3, or 2 with \"never\"); "
     "run_train.sh sets PYTORCH_ALLOC_CONF=expandable_segments:True",
     "torchtitan/components/metrics.py (DeviceMemoryMonitor, log line), torchtitan/components/optimizer/"
     "optimizer.py (implementation = \"fused\"), torchtitan/components/loss.py (cross_entropy_loss), "
     "torchtitan/trainer.py (del pred before loss.backward()), run_train.sh, "
     "torchtitan/models/llama3/parallelize.py (fully_shard with MixedPrecisionPolicy bf16 / fp32)"},
    {train_framework::hf_trainer,
     "huggingface/transformers at 007360d654f36b1f4bc0c701c7b1b69273a7c4ed",
     "nothing by default; with skip_memory_metrics=False the metric train_mem_gpu_peaked_delta, "
     "torch.cuda.max_memory_allocated() minus the bytes allocated when training ends",
     "ForCausalLMLoss upcasts the logits to fp32 while the model's output keeps the bf16 ones (memplan's "
     "default loss path); torch AdamW (foreach); PyTorch FSDP or DeepSpeed ZeRO through the Trainer's "
     "arguments; gradient checkpointing off by default; PEFT adapters in fp32 (autocast_adapter_dtype)",
     "src/transformers/trainer_utils.py (TrainerMemoryTracker), src/transformers/loss/loss_utils.py "
     "(ForCausalLMLoss, at 0114da07ec0e101b420a923dedeb6032b6ac3a44)"},
    {train_framework::trl,
     "huggingface/trl at f2cd57710ae345ea6428ae95363267fcf38a3dc8",
     "no peak-memory figure of its own (the Trainer's, with skip_memory_metrics=False)",
     "SFTTrainer on the Hugging Face Trainer: gradient checkpointing on by default (SFTConfig), the loss "
     "chunked_nll by default (fp32 logits one chunk at a time: set train.loss_chunks and train.recompute)",
     "trl/trainer/sft_config.py (loss_type, gradient_checkpointing), trl/trainer/base_config.py"},
    {train_framework::torchtune,
     "pytorch/torchtune at bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1",
     "peak_memory_active, peak_memory_alloc and peak_memory_reserved (with log_peak_memory_stats: True): "
     "torch.cuda.max_memory_allocated() and max_memory_reserved() / 2^30, reset after each log",
     "FSDP2 (fully_shard per layer) in its distributed recipes, with its all-gather and reduce-scatter "
     "buffers; no pipeline parallelism; a chunked loss upcasting one chunk at a time (train.loss_chunks, 8 "
     "in its configs); models built in bf16 (no fp32 master copy: train.master_weights false)",
     "torchtune/training/memory.py (get_memory_stats), torchtune/training/_distributed.py (fully_shard), "
     "torchtune/modules/loss/cross_entropy_loss.py"},
    {train_framework::litgpt,
     "Lightning-AI/litgpt at 26857050fe3ff627cd714fe92f5838f51a3d5efa",
     "\"Memory Used: X GB\" at the end: torch.cuda.max_memory_allocated() / 1e9",
     "Fabric FSDP over its blocks on several GPUs, one GPU otherwise; no pipeline parallelism and no "
     "DeepSpeed in its training scripts; chunked cross-entropy over 128-token chunks; bitsandbytes "
     "pinned at 0.42 for QLoRA (train.base_keeps_inputs)",
     "litgpt/utils.py (chunked_cross_entropy, the memory line), litgpt/finetune/lora.py, litgpt/pretrain.py"},
    {train_framework::unsloth,
     "unslothai/unsloth at 015bdef0d94a241bcd94eec7a405b1700632180d",
     "no peak-memory figure from the library (its notebooks print torch.cuda.max_memory_reserved())",
     "one GPU or plain data parallelism (no tensor or pipeline parallelism); its offloaded gradient "
     "checkpointing by default (train.recompute full with train.activation_offload); fused chunked "
     "cross-entropy",
     "unsloth/_gpu_init.py, unsloth/models/llama.py (get_peft_model use_gradient_checkpointing=\"unsloth\")"},
    {train_framework::axolotl,
     "axolotl-ai-cloud/axolotl at 067b021c8b87a9e5e380b9173c704cf7340e30f5",
     "\"memory/max_allocated (GiB)\" and \"memory/device_reserved (GiB)\" in every training log: "
     "torch.cuda.max_memory_allocated() and max_memory_reserved() / 2^30, reset after each log",
     "the Hugging Face Trainer with DeepSpeed or FSDP (1 or 2), tensor and context parallelism; no pipeline "
     "parallelism; gradient checkpointing off by default",
     "src/axolotl/utils/bench.py (gpu_memory_usage_all), src/axolotl/utils/schemas/config.py"},
    {train_framework::megatron,
     "NVIDIA/Megatron-LM at d98e8a64ddf34856e74b24714e3bedb2f5a39553",
     "\"memory (MB) | allocated | max allocated | reserved | max reserved\" once after the first iterations: "
     "torch.cuda.max_memory_allocated() and max_memory_reserved() / 2^20 (MiB, printed as MB), never reset",
     "FusedAdam from Transformer Engine or Apex (in place, no temporaries); the distributed optimizer "
     "shards the fp32 main weights and Adam states only (ZeRO stage 1); vocabulary-parallel cross-entropy "
     "on an fp32 copy of the logits; recomputation off by default",
     "megatron/training/utils/common_utils.py (report_memory), megatron/core/optimizer/__init__.py "
     "(FusedAdam), megatron/core/tensor_parallel/cross_entropy.py"},
    {train_framework::deepspeed,
     "microsoft/DeepSpeed at 38327e07f6cd39b63418f60cedd1651b0be3e7c3",
     "\"MA x GB Max_MA y GB CA z GB Max_CA w GB\" (with memory_breakdown: true): max_memory_allocated() and "
     "max_memory_reserved() / 2^30 printed as GB, Max_CA rounded to a whole number",
     "ZeRO stages 0 to 3 with DeepSpeed's own buffers (parallel.comm_buffers deepspeed is implied) and "
     "FusedAdam (in place); CPU and NVMe offload; its own pipeline engine",
     "deepspeed/runtime/utils.py (see_memory_usage), deepspeed/runtime/zero/stage_1_and_2.py, stage3.py"},
    {train_framework::llama_factory,
     "hiyouga/LlamaFactory at 881a7749dac93cd2999ea95c3232547584c89d44",
     "no peak-memory figure of its own (the Hugging Face Trainer's, with skip_memory_metrics=False)",
     "the Hugging Face Trainer with DeepSpeed or FSDP, no pipeline parallelism; gradient checkpointing on by "
     "default (disable_gradient_checkpointing False); bitsandbytes 4-bit with double quantization by default; "
     "its own prepare_model_for_training, which upcasts the norms only with upcast_layernorm (default False)",
     "src/llamafactory/hparams/model_args.py (ModelArguments, QuantizationArguments), "
     "src/llamafactory/model/model_utils/checkpointing.py"},
};
}  // namespace

const framework_notes& framework_notes_of(train_framework framework) {
    const auto i = static_cast<std::size_t>(framework);
    return i < sizeof(notes) / sizeof(notes[0]) ? notes[i] : notes[0];
}

std::string frameworks_json() {
    using detail::ordered_json;
    ordered_json list = ordered_json::array();
    for (const framework_conventions& f : framework_entries()) {
        const train_framework id = f.id;
        const char* name = to_string(id);
        list.push_back(ordered_json{{"id", name},
                                    {"label", f.label},
                                    {"version", framework_notes_of(id).version},
                                    {"logs", allocator_figure_names[static_cast<int>(f.logs)]},
                                    {"log_text", framework_notes_of(id).log_text},
                                    {"log_unit", f.log_unit},
                                    {"conventions", framework_notes_of(id).conventions},
                                    {"source", framework_notes_of(id).source}});
    }
    const reserved_band band = reserved_ratio_band();
    return detail::dump_json(ordered_json{
        {"frameworks", list},
        {"reserved_band", ordered_json{{"low_permille", band.low_permille},
                                       {"median_permille", band.median_permille},
                                       {"high_permille", band.high_permille},
                                       {"measurements", band.measurements}}}});
}

}  // namespace memplan
