// The training frameworks an estimate can name (memplan/memory/frameworks.hpp): one table, read by the
// estimate (the optimizer step and the loss path), by validation (the layouts a framework has) and by
// the reports (what its log prints). Every fact names the upstream file and commit it was read from.
#include "memplan/memory/frameworks.hpp"

#include <cstdlib>
#include <string>

#include "base/checks.hpp"
#include "memplan/config/schema.hpp"

namespace memplan {

namespace {
// Entries in the order of train_framework (config.hpp); a test checks every enumerator has its own.
const framework_conventions table[] = {
    {train_framework::none, "no framework named", allocator_figure::allocated, "", false, false, false},
    {train_framework::torchtitan, "torchtitan", allocator_figure::reserved, "GiB", true, true, true},
    {train_framework::hf_trainer, "Hugging Face Trainer", allocator_figure::allocated, "bytes", false, false, false},
    {train_framework::trl, "TRL", allocator_figure::none, "", false, false, false},
    {train_framework::torchtune, "torchtune", allocator_figure::both, "GiB", false, false, true},
    {train_framework::litgpt, "LitGPT", allocator_figure::allocated, "GB", false, false, false},
    {train_framework::unsloth, "Unsloth", allocator_figure::none, "", false, false, false},
    {train_framework::axolotl, "Axolotl", allocator_figure::both, "GiB", false, false, false},
    {train_framework::megatron, "Megatron-LM", allocator_figure::both, "MiB", true, false, false},
    {train_framework::deepspeed, "DeepSpeed", allocator_figure::both, "GiB", true, false, false},
    {train_framework::llama_factory, "LLaMA-Factory", allocator_figure::none, "", false, false, false},
};
constexpr std::size_t framework_count = sizeof(table) / sizeof(table[0]);

// Each framework's defaults for the train.* fields that change memory, applied when train.framework names
// it and the field is not given (apply_framework_defaults). Only defaults read from the cited upstream file
// are here; none for torchtune (each recipe's YAML sets them, there is no framework-wide default), nor for
// Megatron-LM and DeepSpeed, whose defaults were not read from a source here. Grouped by framework;
// the index of an entry is its bit in train_config::framework_defaults (at most 32 entries).
const framework_default defaults_table[] = {
    // torchtitan's job config: Optimizer.name "AdamW" (two states per parameter).
    {train_framework::torchtitan, "train.optimizer", "adam", "Optimizer.name=\"AdamW\"",
     "pytorch/torchtitan torchtitan/config/job_config.py at 6404b932421f5ce382e7dac5ad381b2c17b1373c"},
    // torchtitan's job config: Optimizer.early_step_in_backward False.
    {train_framework::torchtitan, "train.optimizer_in_backward", "false", "Optimizer.early_step_in_backward=False",
     "pytorch/torchtitan torchtitan/config/job_config.py at 6404b932421f5ce382e7dac5ad381b2c17b1373c"},
    // Transformers' TrainingArguments: gradient_checkpointing default False.
    {train_framework::hf_trainer, "train.recompute", "none", "TrainingArguments gradient_checkpointing=False",
     "huggingface/transformers src/transformers/training_args.py at fd798335c275520af034c678b35e8167820c7c80"},
    // Transformers' TrainingArguments: optim default_optim "adamw_torch" (two states per parameter).
    {train_framework::hf_trainer, "train.optimizer", "adam", "TrainingArguments optim=\"adamw_torch\"",
     "huggingface/transformers src/transformers/training_args.py at fd798335c275520af034c678b35e8167820c7c80"},
    // TRL's trainer configurations extend _BaseConfig, whose gradient_checkpointing defaults to True
    // (Transformers' TrainingArguments: False); every decoder layer is checkpointed at its input.
    {train_framework::trl, "train.recompute", "full", "_BaseConfig gradient_checkpointing=True, which SFTConfig extends",
     "huggingface/trl trl/trainer/base_config.py at 13e421be78042441c1c988385403859ae1bb3e78"},
    // SFTConfig activation_offloading defaults to False.
    {train_framework::trl, "train.activation_offload", "false", "SFTConfig activation_offloading=False",
     "huggingface/trl trl/trainer/sft_config.py at 016013e88acec9257c7476fdcdb12e5479938a5f"},
    // FastLlamaModel.get_peft_model(use_gradient_checkpointing="unsloth"): each layer recomputed from its input.
    {train_framework::unsloth, "train.recompute", "full", "FastLlamaModel.get_peft_model use_gradient_checkpointing=\"unsloth\"",
     "unslothai/unsloth unsloth/models/llama.py at 015bdef0d94a241bcd94eec7a405b1700632180d"},
    // The same "unsloth" mode offloads the checkpointed layer inputs to host memory; below 512 tokens
    // apply_unsloth_gradient_checkpointing (unsloth/models/_utils.py, same commit) falls back to plain
    // checkpointing, so this one applies only from train.seq_len 512 and with recompute full.
    {train_framework::unsloth, "train.activation_offload", "true",
     "use_gradient_checkpointing=\"unsloth\" offloads the checkpointed inputs (from 512 tokens, apply_unsloth_gradient_checkpointing)",
     "unslothai/unsloth unsloth/models/llama.py and unsloth/models/_utils.py at 015bdef0d94a241bcd94eec7a405b1700632180d",
     default_condition::unsloth_offload},
    // LitGPT's RMSNorm is written in eager PyTorch (x.float(), torch.mean of x * x, torch.rsqrt, the product
    // with the weight, cast back): autograd keeps its fp32 intermediates, as train.kernels "eager" counts.
    {train_framework::litgpt, "train.kernels", "eager", "RMSNorm.forward in eager PyTorch (fp32 intermediates kept)",
     "Lightning-AI/litgpt litgpt/model.py at 04205815e8849fe883825e3e858e62749c5d7f4d"},
    // LLaMA-Factory's ModelArguments: disable_gradient_checkpointing False, so every decoder layer is
    // checkpointed (model/model_utils/checkpointing.py prepare_model_for_training enables it).
    {train_framework::llama_factory, "train.recompute", "full", "ModelArguments disable_gradient_checkpointing=False",
     "hiyouga/LlamaFactory src/llamafactory/hparams/model_args.py at 881a7749dac93cd2999ea95c3232547584c89d44"},
    // Its QuantizationArguments: double_quantization True for bitsandbytes 4-bit (quantization_bit 4).
    {train_framework::llama_factory, "train.double_quant", "true", "QuantizationArguments double_quantization=True",
     "hiyouga/LlamaFactory src/llamafactory/hparams/model_args.py at 881a7749dac93cd2999ea95c3232547584c89d44",
     default_condition::four_bit_base},
    // Axolotl's config schema: gradient_checkpointing default False.
    {train_framework::axolotl, "train.recompute", "none", "gradient_checkpointing=False",
     "axolotl-ai-cloud/axolotl src/axolotl/utils/schemas/config.py at 067b021c8b87a9e5e380b9173c704cf7340e30f5"},
    // Axolotl's config schema: activation_offloading default False.
    {train_framework::axolotl, "train.activation_offload", "false", "activation_offloading=False",
     "axolotl-ai-cloud/axolotl src/axolotl/utils/schemas/config.py at 067b021c8b87a9e5e380b9173c704cf7340e30f5"},
};
constexpr std::size_t defaults_count = sizeof(defaults_table) / sizeof(defaults_table[0]);
static_assert(defaults_count <= 32, "train_config::framework_defaults has 32 bits");

void refuse(diagnostics& errors, const char* field, const framework_conventions& f, const std::string& why) {
    errors.push_back({field, std::string("cannot be used with train.framework ") + to_string(f.id) + " (" +
                                 f.label + "): " + why});
}

// The band of reserved / allocated at the peak, in thousandths, over the 24 public training runs of
// tests/data/allocator/allocator-pairs.json that print both peaks of the same window (Megatron-LM,
// NeMo, Megatron-DeepSpeed, DeepSpeed, Axolotl, Hugging Face Trainer, llama-recipes, ONNX Runtime;
// tests/core/memory/test_frameworks.cpp recomputes all three from the file): 1.003 (Megatron-LM, a run near
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

framework_span framework_entries() { return {table, table + framework_count}; }

const framework_conventions& conventions_of(train_framework framework) {
    const auto i = static_cast<std::size_t>(framework);
    return i < framework_count ? table[i] : table[0];
}

framework_default_span framework_defaults() { return {defaults_table, defaults_table + defaults_count}; }

void apply_framework_defaults(estimate_config& c, const std::function<bool(const std::string&)>& given) {
    c.train.framework_defaults = 0;
    if (c.train.framework == train_framework::none) return;
    for (std::size_t i = 0; i < defaults_count; ++i) {
        const framework_default& d = defaults_table[i];
        if (d.framework != c.train.framework || given(d.path)) continue;
        const field_spec* field = find_field(d.path);
        if (field == nullptr) continue;
        const std::string value = d.value;
        // Unsloth's offloading: only where its "unsloth" mode offloads (unsloth/models/_utils.py
        // apply_unsloth_gradient_checkpointing, unslothai/unsloth 015bdef0: from 512 tokens) and the layers
        // are recomputed from their inputs (the user may have given another recompute).
        if (d.when == default_condition::unsloth_offload && (c.train.recompute != recompute_mode::full || c.train.seq_len < 512))
            continue;
        // A quantization default only over a 4-bit frozen base.
        if (d.when == default_condition::four_bit_base &&
            (c.train.adapter_type == adapter_kind::none ||
             (c.train.base_dtype != base_precision::nf4 && c.train.base_dtype != base_precision::fp4)))
            continue;
        field_value v;
        switch (field->type) {
            case field_type::boolean: v.flag = value == "true"; break;
            case field_type::integer:
            case field_type::bytes: v.number = std::strtoull(d.value, nullptr, 10); break;
            default: v.name = value; break;
        }
        if (field->set(c, v)) c.train.framework_defaults |= std::uint32_t{1} << i;
    }
}

std::vector<const framework_default*> applied_framework_defaults(const estimate_config& c) {
    std::vector<const framework_default*> out;
    for (std::size_t i = 0; i < defaults_count; ++i)
        if ((c.train.framework_defaults >> i) & 1u) out.push_back(&defaults_table[i]);
    return out;
}

std::string framework_default_note(const framework_default& d) {
    return std::string("not given; ") + conventions_of(d.framework).label + "'s default (" + d.upstream + ", " +
           d.source + ") assumed: " + d.value;
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
        case train_framework::llama_factory:
            if (p.pp > 1)
                refuse(errors, "parallel.pp", f, "it has no pipeline parallelism (parallel.pp 1)");
            if (p.comm_buffers == comm_buffer_model::deepspeed && c.train.framework != train_framework::axolotl &&
                c.train.framework != train_framework::llama_factory)
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
    const auto scaled = [&](std::uint64_t permille) { return detail::ceil_div(rounded * permille, 1000); };
    // Beyond 2^53 bytes a figure is no longer exact in JSON: refused by the caller, never capped.
    if (scaled(band_high_permille) > max_exact_integer) return {0, 0, 0, false};
    return {static_cast<std::uint64_t>(scaled(band_low_permille)), static_cast<std::uint64_t>(scaled(band_median_permille)),
            static_cast<std::uint64_t>(scaled(band_high_permille)), true};
}

}  // namespace memplan
