// Fine-tuning: the linear layers of a block, LoRA/DoRA trainable parameters, the storage of a frozen
// (possibly quantized) base. Formulas and sources in memplan/adapters.hpp (the fine-tuning
// enumerations' names: config/names.cpp).
#include "memplan/model/adapters.hpp"

#include <algorithm>
#include <set>

#include "base/checks.hpp"
#include "memplan/model/arch.hpp"

namespace memplan {

using detail::ceil_div;
using detail::u128;

std::uint64_t precision_bytes(float_precision precision) { return precision == float_precision::fp32 ? 4 : 2; }

// ---------------------------------------------------------------------------------------------
// Linear layers

const char* modules_to_save_names() { return "lm_head, embed_tokens"; }

namespace {
/// Comma-separated names, trimmed; empty items dropped.
std::vector<std::string> split_names(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        std::string item = text.substr(start, end - start);
        const auto first = item.find_first_not_of(" \t");
        const auto last = item.find_last_not_of(" \t");
        if (first != std::string::npos) out.push_back(item.substr(first, last - first + 1));
        start = end + 1;
    }
    return out;
}

/// The linears an adapter may target: the blocks' weight matrices (arch.hpp linear_modules) plus the
/// MoE router (an nn.Linear h→E in modeling_mixtral.py / modeling_qwen2_moe.py, which PEFT's
/// all-linear adapts) and Qwen2-MoE's shared-expert gate h→1; arch.hpp leaves those two out because
/// quantized checkpoints keep them unquantized.
std::vector<linear_module> adapter_modules(const model_config& m) {
    std::vector<linear_module> out = linear_modules(m);
    const std::uint64_t moe_layers = count_layer_kinds(m).moe;
    if (m.num_experts != 0 && moe_layers != 0) {
        out.push_back({"router", m.hidden_size, m.num_experts, moe_layers, false});
        if (m.shared_expert_intermediate_size != 0 && m.shared_expert_gate)
            out.push_back({"shared_expert_gate", m.hidden_size, 1, moe_layers, false});
    }
    return out;
}

/// PEFT matches a target name against the end of a module's dotted name (peft/tuners/tuners_utils.py
/// check_target_module_exists: key == target or key.endswith("." + target)).
bool name_matches(const std::string& module, const std::string& target) {
    return module == target || (module.size() > target.size() &&
                                module.compare(module.size() - target.size(), target.size(), target) == 0 &&
                                module[module.size() - target.size() - 1] == '.');
}

bool known_target(const std::string& name, const std::vector<linear_module>& modules) {
    if (name == "lm_head" || name == "embed_tokens") return true;
    for (const auto& lm : modules)
        if (name_matches(lm.name, name)) return true;
    return false;
}

/// The block linears of `m` by their last name part, for messages ("q_proj, k_proj, …").
std::string module_names(const std::vector<linear_module>& modules) {
    std::vector<std::string> names;
    for (const auto& lm : modules) {
        const std::string last = lm.name.substr(lm.name.rfind('.') + 1);
        if (std::find(names.begin(), names.end(), last) == names.end()) names.push_back(last);
    }
    std::string out;
    for (const auto& n : names) out += n + ", ";
    return out + modules_to_save_names();
}

/// The adapter's target names ("all-linear" expanded to the block linears), or errors. `modules` is
/// adapter_modules(m), built once by the caller (80 layers of names for a 70B model).
std::set<std::string> resolve_targets(const train_config& t, const std::vector<linear_module>& modules,
                                      diagnostics& errors) {
    std::set<std::string> out;
    const auto items = split_names(t.adapter_targets);
    if (items.empty()) {
        errors.push_back({"train.adapter_targets", "must name at least one module, or be \"all-linear\""});
        return out;
    }
    for (const auto& item : items) {
        if (item == "all-linear") {
            // PEFT: every linear layer except the output layer.
            for (const auto& lm : modules) out.insert(lm.name);
        } else if (known_target(item, modules)) {
            // A name selects every module it ends (PEFT): "gate_proj" also adapts experts.gate_proj.
            for (const auto& lm : modules)
                if (name_matches(lm.name, item)) out.insert(lm.name);
            if (item == "lm_head" || item == "embed_tokens") out.insert(item);
        } else {
            errors.push_back({"train.adapter_targets", "\"" + item + "\" is not a module of this model; allowed: " +
                                                           module_names(modules) + " or all-linear"});
        }
    }
    return out;
}

std::set<std::string> resolve_saved(const train_config& t, diagnostics& errors) {
    std::set<std::string> out;
    for (const auto& item : split_names(t.modules_to_save)) {
        if (item == "lm_head" || item == "embed_tokens") out.insert(item);
        else
            errors.push_back({"train.modules_to_save", "\"" + item + "\" is not a module memplan knows; allowed: " +
                                                           modules_to_save_names()});
    }
    return out;
}
}  // namespace

outcome<finetune_params> count_finetune_params(const model_config& m, const train_config& t) {
    outcome<finetune_params> out;
    if (t.adapter_type == adapter_kind::none) return out;
    const std::vector<linear_module> modules = adapter_modules(m);
    const auto targets = resolve_targets(t, modules, out.errors);
    const auto saved = resolve_saved(t, out.errors);
    if (!out.ok()) return out;
    const u128 r = t.adapter_rank, L = std::max<std::uint64_t>(1, m.num_hidden_layers);
    const bool dora = t.adapter_type == adapter_kind::dora;
    u128 per_layer = 0, per_layer_experts = 0, factored = 0, linears = 0, largest = 0;
    bool matched = false;
    for (const auto& lm : modules) {
        if (targets.count(lm.name) == 0 || lm.count == 0) continue;
        matched = true;
        // PEFT LoraLayer: lora_A r×d_in and lora_B d_out×r; DoRA adds lora_magnitude_vector (d_out).
        const u128 one = r * (u128{lm.d_in} + lm.d_out) + (dora ? lm.d_out : 0);
        // Whole-model sums; layers may differ (dense-first, hybrid), so the per-layer figure is the
        // mean rounded up (an upper bound for each stage).
        const u128 in_layer = u128{lm.count};
        (lm.expert ? per_layer_experts : per_layer) += one * in_layer;
        // Adafactor factors each matrix into a row and a column vector (Shazeer & Stern 2018, §3);
        // the magnitude vector is kept whole.
        factored += (2 * r + lm.d_in + lm.d_out + (dora ? lm.d_out : 0)) * in_layer;  // whole model
        linears += lm.count;
        largest = std::max<u128>(largest, u128{lm.d_in} * lm.d_out);
    }
    const u128 V = m.vocab_size, h = m.hidden_size;
    u128 first = 0, last = 0;
    if ((targets.count("lm_head") != 0 || saved.count("lm_head") != 0 || targets.count("embed_tokens") != 0 ||
         saved.count("embed_tokens") != 0) &&
        V == 0)
        out.errors.push_back({"model.vocab_size", "is needed for lm_head or embed_tokens in train.adapter_targets or "
                                                  "train.modules_to_save"});
    if (targets.count("lm_head") != 0) {  // lm_head h→V adapted like any linear
        last += r * (h + V) + (dora ? V : 0);
        largest = std::max<u128>(largest, h * V);
        matched = true;
        ++linears;
    }
    if (targets.count("embed_tokens") != 0) {
        if (dora) out.errors.push_back({"train.adapter_targets", "embed_tokens with DoRA is not modelled; use lora"});
        first += r * (V + h);  // lora_embedding_A r×V, lora_embedding_B h×r (PEFT lora.layer.Embedding)
        matched = true;
    }
    u128 saved_params = 0;
    if (saved.count("lm_head") != 0) last += V * h, saved_params += V * h;          // ModulesToSaveWrapper copy
    if (saved.count("embed_tokens") != 0) first += V * h, saved_params += V * h;
    if (!matched && saved.empty())
        out.errors.push_back({"train.adapter_targets", "matches no module of this model (PEFT raises the same)"});
    if (!out.ok()) return out;
    finetune_params& p = out.value;
    const u128 whole_layers = per_layer + per_layer_experts;  // adapters of all blocks
    p.per_layer = static_cast<std::uint64_t>(ceil_div(per_layer, L));
    p.per_layer_experts = static_cast<std::uint64_t>(ceil_div(per_layer_experts, L));
    p.first_stage = static_cast<std::uint64_t>(first);
    p.last_stage = static_cast<std::uint64_t>(last);
    p.per_layer_factored = static_cast<std::uint64_t>(ceil_div(factored, L));
    p.adapted_linears = static_cast<std::uint64_t>(linears);
    p.largest_adapted_elements = static_cast<std::uint64_t>(largest);
    const u128 adapters = whole_layers + first + last - saved_params;
    p.adapter = static_cast<std::uint64_t>(adapters);
    p.saved_modules = static_cast<std::uint64_t>(saved_params);
    p.trainable = static_cast<std::uint64_t>(adapters + saved_params);
    return out;
}

std::vector<std::string> adapted_linear_names(const model_config& m, const train_config& t) {
    std::vector<std::string> out;
    if (t.adapter_type == adapter_kind::none) return out;
    diagnostics ignored;
    for (const auto& name : resolve_targets(t, adapter_modules(m), ignored)) out.push_back(name);
    return out;
}

// ---------------------------------------------------------------------------------------------
// Frozen base storage

std::uint64_t unquantized_bytes(base_precision precision) {
    switch (precision) {
        case base_precision::fp32: return 4;
        case base_precision::fp16: return 2;
        default: return 2;  // bf16, and the unquantized parts of quantized bases
    }
}

std::uint64_t frozen_linear_bytes(std::uint64_t d_in, std::uint64_t d_out, base_precision precision, bool double_quant) {
    const u128 n = u128{d_in} * d_out;
    u128 bytes = 0;
    switch (precision) {
        case base_precision::bf16:
        case base_precision::fp16: bytes = 2 * n; break;
        case base_precision::fp32: bytes = 4 * n; break;
        case base_precision::fp8: bytes = n + 4; break;               // e4m3 weights + one fp32 per-tensor scale
        case base_precision::int8: bytes = n + 4 * u128{d_out}; break;  // bitsandbytes CB + fp32 SCB per output row
        case base_precision::nf4:
        case base_precision::fp4: {
            const u128 blocks = ceil_div(n, 64);  // bitsandbytes quantize_4bit blocksize 64 (QLoRA §3)
            bytes = ceil_div(n, 2);               // two 4-bit codes per byte
            if (double_quant)  // int8 absmax per block, fp32 absmax per 256 blocks, fp32 offset (QLoRA §3)
                bytes += blocks + 4 * ceil_div(blocks, 256) + 4;
            else
                bytes += 4 * blocks;  // fp32 absmax per block
            break;
        }
    }
    return static_cast<std::uint64_t>(bytes);
}

outcome<frozen_base_bytes> count_frozen_base(const model_config& m, const train_config& t) {
    outcome<frozen_base_bytes> out;
    const auto counted = count_params(m);
    if (!counted.ok()) {
        out.errors = counted.errors;
        return out;
    }
    const param_breakdown& pb = counted.value;
    const u128 L = std::max<std::uint64_t>(1, m.num_hidden_layers);
    // PEFT's prepare_model_for_kbit_training casts every fp16/bf16 parameter of a k-bit model to fp32 (the
    // quantized weights are uint8/int8 and stay): embeddings, the output layer, norms and biases at 4 bytes
    // (huggingface/peft src/peft/utils/other.py at 012c0d5a96744096ab28f87cde9bd9918f5367a1).
    const u128 unq = t.kbit_prepare ? 4 : unquantized_bytes(t.base_dtype);
    u128 dense = 0, experts = 0, largest = 0;
    for (const auto& lm : linear_modules(m)) {
        const u128 in_layer = u128{lm.count};  // whole model; divided by L (rounded up) below
        const u128 bytes = in_layer * frozen_linear_bytes(lm.d_in, lm.d_out, t.base_dtype, t.double_quant);
        (lm.expert ? experts : dense) += bytes;
        largest = std::max<u128>(largest, u128{lm.d_in} * lm.d_out);
    }
    // The rest of a block (biases, norms) stays unquantized: the largest block's parameters outside
    // its linear weights (arch.hpp); the linears are whole-model sums spread over the layers, rounded up.
    const auto minus = [](u128 a, u128 b) { return a > b ? a - b : u128{0}; };
    const u128 dense_rest = minus(u128{pb.per_layer} - pb.per_layer_experts, pb.per_layer_linear);
    const u128 expert_rest = minus(pb.per_layer_experts, pb.per_layer_expert_linear);
    frozen_base_bytes& b = out.value;
    b.per_layer = static_cast<std::uint64_t>(ceil_div(dense, L) + dense_rest * unq);
    b.per_layer_experts = static_cast<std::uint64_t>(ceil_div(experts, L) + expert_rest * unq);
    b.embedding = static_cast<std::uint64_t>(u128{pb.embedding} * unq);
    b.output = static_cast<std::uint64_t>(u128{pb.lm_head + pb.final_norm} * unq);
    b.tied_output_copy = m.tie_word_embeddings ? static_cast<std::uint64_t>(u128{m.vocab_size} * m.hidden_size * unq) : 0;
    b.largest_linear_elements = static_cast<std::uint64_t>(largest);
    return out;
}

std::uint64_t kbit_prepare_extra_bytes(const model_config& m, const train_config& t) {
    if (t.kbit_prepare || t.adapter_type == adapter_kind::none ||
        (t.base_dtype != base_precision::nf4 && t.base_dtype != base_precision::fp4 && t.base_dtype != base_precision::int8))
        return 0;
    train_config prepared = t;
    prepared.kbit_prepare = true;
    const auto as_is = count_frozen_base(m, t);
    const auto upcast = count_frozen_base(m, prepared);
    if (!as_is.ok() || !upcast.ok()) return 0;
    const auto whole = [&m](const frozen_base_bytes& b) {
        const u128 L = std::max<std::uint64_t>(1, m.num_hidden_layers);
        return L * (u128{b.per_layer} + b.per_layer_experts) + b.embedding + b.output;  // one copy of tied embeddings
    };
    return static_cast<std::uint64_t>(whole(upcast.value) - whole(as_is.value));
}

// ---------------------------------------------------------------------------------------------
// Validation

diagnostics validate_finetune(const estimate_config& c) {
    diagnostics errors;
    if (c.mode != run_mode::train) return errors;
    const train_config& t = c.train;
    const bool adapter = t.adapter_type != adapter_kind::none;
    const bool four_bit = t.base_dtype == base_precision::nf4 || t.base_dtype == base_precision::fp4;
    if (!adapter && t.base_dtype != base_precision::bf16)
        errors.push_back({"train.base_dtype", "applies to a frozen base under an adapter: set train.adapter_type to "
                                              "lora or dora (full fine-tuning uses train.weight_dtype)"});
    if (t.double_quant && !four_bit)
        errors.push_back({"train.double_quant", "applies to a 4-bit base only: train.base_dtype nf4 or fp4"});
    if (t.base_keeps_inputs && !(adapter && four_bit))
        errors.push_back({"train.base_keeps_inputs", "applies to a 4-bit base under an adapter only: train.adapter_type "
                                                     "lora or dora with train.base_dtype nf4 or fp4"});
    const bool k_bit = four_bit || t.base_dtype == base_precision::int8;
    if (t.kbit_prepare && !(adapter && k_bit))
        errors.push_back({"train.kbit_prepare", "applies to an int8 or 4-bit base under an adapter only: "
                                                "train.adapter_type lora or dora with train.base_dtype int8, nf4 or fp4"});
    if (!adapter && !t.modules_to_save.empty())
        errors.push_back({"train.modules_to_save", "needs train.adapter_type lora or dora"});
    if (adapter) {
        diagnostics names;
        (void)resolve_targets(t, adapter_modules(c.model), names);
        (void)resolve_saved(t, names);
        errors.insert(errors.end(), names.begin(), names.end());
    }
    const optimizer_kind o = t.optimizer;
    if (t.paged_optimizer && o != optimizer_kind::adam && o != optimizer_kind::adam_8bit && o != optimizer_kind::lion)
        errors.push_back({"train.paged_optimizer", "bitsandbytes pages adam, adam_8bit and lion states only"});
    if (t.optimizer_state_dtype != float_precision::fp32 && o == optimizer_kind::adam_8bit)
        errors.push_back({"train.optimizer_state_dtype", "does not apply to adam_8bit, whose states are 8-bit; "
                                                         "leave it at fp32"});
    if (t.activation_offload && t.recompute != recompute_mode::full)
        errors.push_back({"train.activation_offload", "offloads the checkpointed layer inputs: needs train.recompute "
                                                      "full"});
    return errors;
}


}  // namespace memplan
