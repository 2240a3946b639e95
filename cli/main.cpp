// memplan — command-line front end of the memplan core: the dispatch table and --help. Each command
// lives in its own file (cmd_*.cpp); arguments are parsed by args.cpp, inputs read by input.cpp.
#include <iostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "report.hpp"

namespace memplan::cli {

const std::vector<command>& commands() {
    static const std::vector<command> table = {
        {"model-states",
         "  memplan model-states --params P --gpus N [--stage S] [--json]\n"
         "      model-state bytes per GPU for mixed-precision Adam under ZeRO (all stages without --stage)\n",
         run_model_states},
        {"max-params",
         "  memplan max-params --gpu-bytes B --gpus N [--stage S] [--json]\n"
         "      largest parameter count whose model states fit in B bytes per GPU\n",
         run_max_params},
        {"transformer-mem",
         "  memplan transformer-mem [flags of EleutherAI's transformer_mem.py] [--eleuther] [--units GB|GiB] [--json]\n"
         "      transformer_mem.py's report with corrected formulas; --eleuther reproduces the script exactly\n",
         run_transformer_mem},
        {"estimate",
         "  memplan estimate --config FILE.json|- [--hf-config config.json | --hf-model PATH | --preset ID] [--recipe ID]\n"
         "      the JSON interface shared with the WebAssembly API (docs/schema.md); --hf-config takes the\n"
         "      model from a Hugging Face config.json, --hf-model from a model folder or the Hugging Face\n"
         "      cache (ORG/NAME) or a GGUF file's metadata (FILE.gguf; its weights not at the GGUF's bytes,\n"
         "      said in warnings), --preset from a stored model (memplan presets); a folder whose\n"
         "      config.json no family reads is estimated from its safetensors headers' stored bytes and\n"
         "      its declared sizes, each assumption a warning (docs/models.md, the day-one path);\n"
         "      --recipe sets a fine-tuning recipe's fields over the configuration (memplan recipes)\n",
         run_estimate},
        {"analyze",
         "  memplan analyze  (same options as estimate)\n"
         "      adds all ZeRO stages, the largest model, the fewest GPUs, the largest batch / context /\n"
         "      micro-batch / sequence that fit, and what would make it fit (needs gpu.memory_bytes)\n",
         run_analyze},
        {"plan",
         "  memplan plan --config FILE.json|- --gpu ID (--gpus N | --min-gpus A --max-gpus B) [--global-batch N]\n"
         "               [--top N] [--gemm-efficiency E] [--json]\n"
         "      every layout that fits (training: dp × tp × pp × cp × ep, ZeRO, recompute, micro-batch; serving:\n"
         "      tp × pp, replicas, weight and KV precision), ranked by step time or decode throughput (docs/planner.md)\n",
         run_plan},
        {"step-time",
         "  memplan step-time --config FILE.json|- --gpu ID [--global-batch N] [--gemm-efficiency E]\n"
         "                    [--no-overlap-grad-reduce] [--json]\n"
         "      the time of one training step as configured: compute, each parallelism's communication, the\n"
         "      pipeline bubble and the optimizer, each its own row; tokens/s per GPU and MFU (docs/planner.md)\n",
         run_step_time},
        {"compare",
         "  memplan compare  (same options as estimate)\n"
         "      memplan beside DeepSpeed, Megatron-LM, EleutherAI's calculators and accelerate, each in its\n"
         "      own units and conventions, with the terms that differ and why (docs/compare.md)\n",
         run_compare},
        {"checkpoint",
         "  memplan checkpoint --hf-model PATH\n"
         "      a model folder or Hugging Face cache snapshot (ORG/NAME): the bytes its safetensors headers\n"
         "      store per dtype beside memplan's count of its config.json, reconciled part by part (JSON);\n"
         "      or a GGUF file (FILE.gguf): its header's bytes per ggml type, reconciled the same way\n",
         run_checkpoint},
        {"fits",
         "  memplan fits --config FILE.json|-\n"
         "      which stored models fit this setup: every preset with the rest of the configuration unchanged\n",
         run_fits},
        {"schema",
         "  memplan schema [--json | --markdown | --typescript]\n"
         "      every configuration field: range, default, label and meaning (the core's one table)\n",
         run_schema},
        {"presets",
         "  memplan presets [--json]\n"
         "      the stored models with their exact parameter counts and sources\n",
         run_presets},
        {"recipes",
         "  memplan recipes [--json]\n"
         "      the fine-tuning recipes (full, LoRA, QLoRA, DoRA): the fields each sets, and its source\n",
         run_recipes},
        {"explain",
         "  memplan explain [--json]\n"
         "      how each row of the per-GPU breakdown is computed, per run mode, with its sources\n",
         run_explain},
        {"engines",
         "  memplan engines [--json]\n"
         "      the serving engines reproduced: each one's share field and flag, its budget, its upstream source\n",
         run_engines},
        {"frameworks",
         "  memplan frameworks [--json]\n"
         "      the training frameworks train.framework names: the figure each one's log prints, its conventions, its source\n",
         run_frameworks},
        {"deepspeed-estimate",
         "  memplan deepspeed-estimate --stage 2|3 --params P [--largest-layer-params P] [--gpus-per-node N] [--nodes N]\n"
         "      DeepSpeed's estimate_zero2/3_model_states_mem_needs table, reproduced (its \"GB\" are GiB)\n",
         run_deepspeed_estimate},
        {"megatron-memory",
         "  memplan megatron-memory --num-layers L --hidden-size H --num-attention-heads A --seq-length S\n"
         "                          --padded-vocab-size V [Megatron-LM's other flags]\n"
         "      Megatron-LM's theoretical memory report, reproduced (its \"MB\" are MiB)\n",
         run_megatron_memory},
    };
    return table;
}

namespace {

const char* const numbers_note =
    "\nnumbers accept 7e9, 7000000000 and suffixes K M B T (counts), KB MB GB TB (1e3..1e12 bytes),\n"
    "KiB MiB GiB TiB (2^10..2^40 bytes).\n";

/// The usage text of every command, or of one.
std::string usage_text(const command* only = nullptr) {
    std::string text = "memplan — GPU memory planner for transformer training and inference\n\nusage:\n";
    for (const auto& c : commands())
        if (only == nullptr || only == &c) text += c.usage;
    return text + numbers_note;
}

}  // namespace

}  // namespace memplan::cli

int main(int argc, char** argv) {
    using namespace memplan::cli;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        std::cout << usage_text();
        return args.empty() ? exit_usage : 0;
    }
    if (args[0] == "--version") {
        std::cout << "memplan 0.1.0\n";
        return 0;
    }
    const std::string name = args[0];
    args.erase(args.begin());
    for (const auto& c : commands()) {
        if (name != c.name) continue;
        for (const auto& a : args)
            if (a == "--help" || a == "-h") {
                std::cout << usage_text(&c);
                return 0;
            }
        return c.run(args);
    }
    return usage_error("unknown command " + name);
}
