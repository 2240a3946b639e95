// The native CLI end to end: output formats, exit codes and error messages.
#include <catch2/catch.hpp>

#include <cstdio>
#include <unistd.h>
#include <vector>

#include "cli_runner.hpp"
#include "memplan/io/explanations.hpp"
#include "memplan/io/recipes.hpp"

TEST_CASE("model-states prints ZeRO's per-GPU model-state bytes as JSON", "[cli]") {
    // ZeRO paper (Rajbhandari et al. 2020), §5: stage 1 keeps 2Ψ + 2Ψ + 12Ψ/N bytes = 5.5 · 7e9 for N = 8.
    const auto r = run_cli({"model-states", "--params", "7e9", "--gpus", "8", "--stage", "1", "--json"});
    CHECK(r.status == 0);
    CHECK(r.out == "{\"bytes\":38500000000}\n");
    const auto all = run_cli({"model-states", "--params", "7B", "--gpus", "8", "--json"});
    CHECK(all.out ==
          "{\"stages\":[{\"stage\":0,\"bytes\":112000000000},{\"stage\":1,\"bytes\":38500000000},"
          "{\"stage\":2,\"bytes\":26250000000},{\"stage\":3,\"bytes\":14000000000}]}\n");
}

TEST_CASE("max-params accepts unit suffixes and prints the exact answer", "[cli]") {
    CHECK(run_cli({"max-params", "--gpu-bytes", "80GB", "--gpus", "8", "--stage", "1", "--json"}).out ==
          "{\"params\":14545454545}\n");
    CHECK(run_cli({"max-params", "--gpu-bytes=80e9", "--gpus=8", "--stage=3", "--json"}).out ==
          "{\"params\":40000000000}\n");
    const auto human = run_cli({"max-params", "--gpu-bytes", "80GiB", "--gpus", "8"});
    CHECK(human.status == 0);
    CHECK(human.out.find("ZeRO stage 1: 15,618,062,894 parameters") != std::string::npos);  // floor(80·2^30·8/44)
}

TEST_CASE("a bad stage or count exits 2 and names the field", "[cli][errors]") {
    const auto stage = run_cli({"model-states", "--params", "7e9", "--gpus", "8", "--stage", "4"}, true);
    CHECK(stage.status == 2);
    CHECK(stage.out == "memplan: error: stage: must be 0, 1, 2 or 3\n");
    const auto gpus = run_cli({"max-params", "--gpu-bytes", "80GB", "--gpus", "0", "--json"});
    CHECK(gpus.status == 2);
    CHECK(gpus.out == "{\"errors\":[{\"field\":\"gpus\",\"message\":\"must be an integer from 1 to 1048576\"}]}\n");
    const auto neg = run_cli({"model-states", "--params", "-7", "--gpus", "8"}, true);
    CHECK(neg.status == 2);
    CHECK(neg.out.rfind("memplan: error: params: must be a whole number", 0) == 0);
    const auto missing = run_cli({"model-states", "--gpus", "8"}, true);
    CHECK(missing.status == 2);
    CHECK(missing.out == "memplan: error: params: is required\n");
    CHECK(run_cli({"model-states", "--bogus"}).status == 2);
    CHECK(run_cli({"frobnicate"}).status == 2);
}

TEST_CASE("transformer-mem accepts transformer_mem.py's short flags and abbreviations", "[cli][eleuther]") {
    const auto shortf = run_cli({"transformer-mem", "--eleuther", "-tp", "2", "-pp=1", "-z", "1", "-ca", "-pa", "-b", "8",
                                 "-hs", "4096", "-a", "32", "-s", "2048", "-l", "32", "--num-gpus", "128", "-p", "6.9B"});
    const auto longf = run_cli({"transformer-mem", "--eleuther", "--tensor-parallel-size=2", "--zero-stage=1",
                                "--checkpoint-activations", "--partition-activations", "--batch-size-per-gpu=8",
                                "--hidden-size=4096", "--num-attention-heads=32", "--num-layers=32",
                                "--num-gpus=128", "--params=6900000000"});
    const auto abbrev = run_cli({"transformer-mem", "--eleuther", "--tensor=2", "--zero-s=1", "--checkpoint",
                                 "--partition", "--batch=8", "--hidden=4096", "--num-att=32", "--num-l=32",
                                 "--num-g=128", "--param=6900000000"});
    CHECK(shortf.status == 0);
    CHECK(shortf.out == longf.out);
    CHECK(abbrev.out == longf.out);
    CHECK(longf.out.find("Total Memory Required for Training: 42.81 GB") != std::string::npos);
    CHECK(run_cli({"transformer-mem", "--num"}).status == 2);  // ambiguous: --num-gpus, --num-attention-heads, ...
}

TEST_CASE("transformer-mem's corrected report states its unit and switches to GB", "[cli][eleuther]") {
    const std::vector<std::string> pythia = {"transformer-mem", "--num-layers=32", "--num-attention-heads=32",
                                             "--hidden-size=4096", "--tensor-parallel-size=2", "--num-gpus=128",
                                             "--params=6900000000", "--zero-stage=1"};
    const auto gib = run_cli(pythia);
    CHECK(gib.status == 0);
    CHECK(gib.out.find("Model Memory: 6.43 GiB\n") != std::string::npos);
    CHECK(gib.out.find("Gradient Memory: 6.43 GiB\n") != std::string::npos);  // transformer_mem.py prints 12.85 (no tp split)
    auto gb_args = pythia;
    gb_args.push_back("--units=GB");
    const auto gb = run_cli(gb_args);
    CHECK(gb.out.find("Model Memory: 6.90 GB\n") != std::string::npos);
    gb_args.back() = "--units=MB";
    CHECK(run_cli(gb_args).status == 2);
}

TEST_CASE("transformer-mem refuses layouts transformer_mem.py silently accepted", "[cli][errors]") {
    const auto r = run_cli({"transformer-mem", "--num-gpus=6", "--tensor-parallel-size=4"}, true);
    CHECK(r.status == 2);
    CHECK(r.out == "memplan: error: parallel.gpus: must be a multiple of parallel.tp × parallel.pp (4)\n");
}

TEST_CASE("transformer-mem --infer counts the KV cache with batch size", "[cli][eleuther]") {
    const auto one = run_cli({"transformer-mem", "--infer", "--json", "--num-layers=32", "--hidden-size=4096",
                              "--num-attention-heads=32", "--sequence-length=4096", "--params=6738415616"});
    CHECK(one.out.find("\"kv_cache\":2147483648") != std::string::npos);
    const auto four = run_cli({"transformer-mem", "--infer", "--json", "--num-layers=32", "--hidden-size=4096",
                               "--num-attention-heads=32", "--sequence-length=4096", "--params=6738415616",
                               "--batch-size-per-gpu=4"});
    CHECK(four.out.find("\"kv_cache\":8589934592") != std::string::npos);
}

TEST_CASE("estimate reads a configuration from standard input or a file", "[cli]") {
    const std::string config =
        R"({"model":{"params":7e9,"num_hidden_layers":32,"hidden_size":4096,"num_attention_heads":32},"parallel":{"gpus":8,"zero_stage":3}})";
    const auto r = run_cli({"estimate", "--config", "-"}, false, config);
    CHECK(r.status == 0);
    CHECK(r.out.rfind("{\"params\":7000000000,\"data_parallel\":8,\"per_gpu\":{\"weights\":1750000000,", 0) == 0);
    const auto bad = run_cli({"estimate", "--config", "-"}, false, R"({"parallel":{"tp":"x"}})");
    CHECK(bad.status == 2);
    CHECK(bad.out.find("\"field\":\"parallel.tp\"") != std::string::npos);
    CHECK(run_cli({"estimate", "--config", "/nonexistent.json"}).status == 2);
    CHECK(run_cli({"estimate"}).status == 2);
}

TEST_CASE("estimate takes the model from a preset or a Hugging Face config.json", "[cli][hf]") {
    const std::string infer = R"({"mode":"infer","infer":{"context_len":4096}})";
    const auto preset = run_cli({"estimate", "--config", "-", "--preset", "llama-2-7b"}, false, infer);
    CHECK(preset.status == 0);
    CHECK(preset.out.find("\"params\":6738415616") != std::string::npos);
    CHECK(preset.out.find("\"kv_cache\":2147483648") != std::string::npos);
    const std::string path = std::string(MEMPLAN_DATA_DIR) + "/hf_llama2_7b_config.json";
    const auto hf = run_cli({"estimate", "--config", "-", "--hf-config", path}, false, infer);
    CHECK(hf.status == 0);
    CHECK(hf.out == preset.out);
    CHECK(run_cli({"estimate", "--preset", "no-such-model"}).status == 2);
    CHECK(run_cli({"estimate", "--hf-config", "/nonexistent.json"}).status == 2);
}

TEST_CASE("analyze prints the inverse queries", "[cli]") {
    const auto r = run_cli({"analyze", "--config", "-", "--preset", "llama-2-7b"}, false,
                           R"({"mode":"infer","infer":{"context_len":4096},"gpu":{"memory_bytes":80e9}})");
    CHECK(r.status == 0);
    // 30 sequences of 2 GiB KV beside 12.55 GiB of weights on 74.5 GiB: the prefill is chunked at vLLM's
    // 8,192 tokens (0.63 GB of activations); the whole batch × 4,096 tokens in one pass leaves room for 26.
    CHECK(r.out.find("\"limits\":{\"max_micro_batch\":null,\"max_seq_len\":null,\"max_batch\":30,") !=
          std::string::npos);
    const auto whole = run_cli({"analyze", "--config", "-", "--preset", "llama-2-7b"}, false,
                               R"({"mode":"infer","infer":{"context_len":4096,"chunked_prefill":false},"gpu":{"memory_bytes":80e9}})");
    CHECK(whole.status == 0);
    CHECK(whole.out.find("\"limits\":{\"max_micro_batch\":null,\"max_seq_len\":null,\"max_batch\":26,") !=
          std::string::npos);
}

TEST_CASE("presets lists every stored model with its exact count", "[cli]") {
    const auto r = run_cli({"presets"});
    CHECK(r.status == 0);
    CHECK(r.out.find("llama-3-8b") != std::string::npos);
    CHECK(r.out.find("8,030,261,248 params") != std::string::npos);
    const auto j = run_cli({"presets", "--json"});
    CHECK(j.out.rfind("{", 0) == 0);
}

TEST_CASE("deepspeed-estimate prints DeepSpeed's documented table", "[cli][reference]") {
    // DeepSpeed docs, memory.rst: estimate_zero3_model_states_mem_needs_all_cold(total_params=2851e6,
    // largest_layer_params=32e6, num_gpus_per_node=8, num_nodes=1).
    const auto r = run_cli({"deepspeed-estimate", "--stage", "3", "--params", "2851e6", "--largest-layer-params", "32e6",
                            "--gpus-per-node", "8"});
    CHECK(r.status == 0);
    CHECK(r.out.find("   71.69GB |   0.12GB | offload_param=cpu , offload_optimizer=cpu , zero_init=1\n") !=
          std::string::npos);
    CHECK(r.out.find("    1.43GB |   6.09GB | offload_param=none, offload_optimizer=none, zero_init=1\n") !=
          std::string::npos);
    const auto z2 = run_cli({"deepspeed-estimate", "--stage", "2", "--params", "2851e6", "--gpus-per-node", "8"});
    CHECK(z2.out.find("  127.45GB |  15.93GB | offload_optimizer=none\n") != std::string::npos);
    CHECK(run_cli({"deepspeed-estimate", "--stage", "3", "--params", "2851e6"}).status == 2);  // no largest layer
}

TEST_CASE("megatron-memory prints Megatron-LM's theoretical footprint line", "[cli][reference]") {
    const auto r = run_cli({"megatron-memory", "--num-layers", "32", "--hidden-size", "4096", "--num-attention-heads", "32",
                            "--ffn-hidden-size", "11008", "--padded-vocab-size", "32000", "--seq-length", "4096",
                            "--swiglu", "--untie-embeddings-and-output-weights", "--use-distributed-optimizer",
                            "--pipeline-model-parallel-size", "4", "--data-parallel-size", "2"});
    CHECK(r.status == 0);
    CHECK(r.out.rfind("Theoretical memory footprints: weight and optimizer=20029.52 MB, ", 0) == 0);
    CHECK(run_cli({"megatron-memory", "--hidden-size", "4096"}).status == 2);
}

namespace {
/// A file under the system's temporary directory holding `content` (NUL bytes included); removed on destruction.
struct temp_file {
    std::string path;
    explicit temp_file(const std::string& content) {
        char name[] = "/tmp/memplan-cli-XXXXXX";
        const int fd = mkstemp(name);
        REQUIRE(fd >= 0);
        path = name;
        REQUIRE(write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size()));
        close(fd);
    }
    ~temp_file() { std::remove(path.c_str()); }
};

const std::string infer_config = R"({"mode":"infer","infer":{"context_len":4096}})";
}  // namespace

TEST_CASE("an endless or huge input is refused after 8 MiB, naming the field and the limit", "[cli][errors]") {
    const std::string too_large =
        "{\"errors\":[{\"field\":\"config\",\"message\":\"is larger than 8388608 bytes (8 MiB), the most memplan reads\"}]}\n";
    const auto zero = run_cli_piped("true", {"estimate", "--config", "/dev/zero"});
    CHECK(zero.status == 2);
    CHECK(zero.out.rfind(too_large, 0) == 0);
    CHECK(zero.out.find("memplan: error: config: is larger than 8388608 bytes") != std::string::npos);
    const auto endless = run_cli_piped("yes", {"estimate", "--config", "-"});
    CHECK(endless.status == 2);
    CHECK(endless.out.rfind(too_large, 0) == 0);
    const temp_file config(infer_config);
    const auto hf = run_cli_piped("true", {"analyze", "--config", config.path, "--hf-config", "/dev/zero"});
    CHECK(hf.status == 2);
    CHECK(hf.out.rfind("{\"errors\":[{\"field\":\"hf_config\",\"message\":\"is larger than 8388608 bytes", 0) == 0);
    // Exactly 8 MiB is still read: whitespace around a valid configuration.
    const auto at_limit = run_cli_piped("head -c 8388606 /dev/zero | tr '\\0' ' '; printf '{}'", {"estimate", "--config", "-"});
    CHECK(at_limit.out.find("8388608 bytes") == std::string::npos);
    CHECK(at_limit.out.find("\"field\":\"model.params\"") != std::string::npos);  // parsed: {} has no model
}

TEST_CASE("a NUL byte in a configuration is an error, not the end of the document", "[cli][errors]") {
    const temp_file config(infer_config + std::string(1, '\0') + "{\"mode\":\"train\"}");
    const auto r = run_cli({"estimate", "--config", config.path, "--preset", "llama-2-7b"}, true);
    CHECK(r.status == 2);
    CHECK(r.out.find("{\"errors\":[{\"field\":\"config\",\"message\":\"contains a NUL byte at offset 45; JSON text cannot "
                     "contain one\"}]}\n") == 0);
    const temp_file hf(std::string("{\"model_type\":\"llama\"}") + std::string(1, '\0'));
    const auto h = run_cli({"estimate", "--config", "-", "--hf-config", hf.path}, false, infer_config);
    CHECK(h.status == 2);
    CHECK(h.out.find("\"field\":\"hf_config\",\"message\":\"contains a NUL byte at offset 22") != std::string::npos);
}

TEST_CASE("an empty, null or directory --hf-config is an error naming hf_config", "[cli][errors][hf]") {
    const temp_file empty("");
    for (const std::string& path : {empty.path, std::string("/dev/null")}) {
        const auto r = run_cli({"estimate", "--config", "-", "--hf-config", path}, true, infer_config);
        CHECK(r.status == 2);
        CHECK(r.out == "{\"errors\":[{\"field\":\"hf_config\",\"message\":\"is empty; it must be a JSON object\"}]}\n"
                       "memplan: error: hf_config: is empty; it must be a JSON object\n");
    }
    const auto dir = run_cli({"analyze", "--config", "-", "--hf-config", "/tmp"}, false, infer_config);
    CHECK(dir.status == 2);
    CHECK(dir.out == "{\"errors\":[{\"field\":\"hf_config\",\"message\":\"/tmp is a directory, not a JSON file\"}]}\n");
    const auto config_dir = run_cli({"estimate", "--config", "/tmp"}, true);
    CHECK(config_dir.status == 2);
    CHECK(config_dir.out.find("config: /tmp is a directory, not a JSON file") != std::string::npos);
    CHECK(config_dir.out.find("not valid JSON") == std::string::npos);
    const auto missing = run_cli({"estimate", "--config", "/nonexistent.json"});
    CHECK(missing.out ==
          "{\"errors\":[{\"field\":\"config\",\"message\":\"cannot read /nonexistent.json: No such file or directory\"}]}\n");
}

TEST_CASE("errors name the flag the user typed, not the core's argument", "[cli][errors]") {
    const auto states = run_cli({"model-states", "--params", "7e9", "--gpus", "0"}, true);
    CHECK(states.status == 2);
    CHECK(states.out == "memplan: error: gpus: must be an integer from 1 to 1048576\n");
    const auto ds = run_cli({"deepspeed-estimate", "--stage", "3", "--params", "1e9", "--largest-layer-params", "2e9",
                             "--nodes", "1"}, true);
    CHECK(ds.status == 2);
    CHECK(ds.out == "memplan: error: largest-layer-params: must not exceed params\n");
    CHECK(run_cli({"deepspeed-estimate", "--stage", "2", "--params", "1e9", "--gpus-per-node", "0", "--json"}).out ==
          "{\"errors\":[{\"field\":\"gpus-per-node\",\"message\":\"must be an integer from 1 to 1024\"}]}\n");
    const auto mega = run_cli({"megatron-memory", "--hidden-size", "4096", "--num-attention-heads", "32",
                               "--seq-length", "8", "--padded-vocab-size", "8"}, true);
    CHECK(mega.out == "memplan: error: num-layers: must be at least 1\n");
    const auto eleuther = run_cli({"transformer-mem", "--eleuther", "--num-gpus", "0", "-tp", "0"}, true);
    CHECK(eleuther.out == "memplan: error: num-gpus: must be an integer from 1 to 1048576\n"
                          "memplan: error: tensor-parallel-size: must be an integer from 1 to 1024\n");
    const auto corrected = run_cli({"transformer-mem", "--num-gpus", "0", "--batch-size-per-gpu=0"}, true);
    CHECK(corrected.out == "memplan: error: num-gpus: must be an integer from 1 to 1048576\n"
                           "memplan: error: batch-size-per-gpu: must be an integer from 1 to 1048576\n");
}

TEST_CASE("estimate --preset names the model as the configuration's model.preset would", "[cli][hf]") {
    // Same answer as {"model":{"preset":ID}} in the configuration itself.
    const auto flag = run_cli({"estimate", "--config", "-", "--preset", "mixtral-8x7b"}, false, infer_config);
    const auto key = run_cli({"estimate", "--config", "-"}, false,
                             R"({"mode":"infer","infer":{"context_len":4096},"model":{"preset":"mixtral-8x7b"}})");
    CHECK(flag.status == 0);
    CHECK(flag.out == key.out);
    CHECK(flag.out.find("\"params\":46702792704") != std::string::npos);  // Mixtral 8x7B, counted from its config.json
    // The configuration's own model section is replaced, but still checked.
    const auto replaced = run_cli({"estimate", "--config", "-", "--preset", "mixtral-8x7b"}, false,
                                  R"({"mode":"infer","infer":{"context_len":4096},"model":{"params":5}})");
    CHECK(replaced.out == flag.out);
    const auto checked = run_cli({"estimate", "--config", "-", "--preset", "mixtral-8x7b"}, false,
                                 R"({"model":{"bogus":1}})");
    CHECK(checked.status == 2);
    CHECK(checked.out == "{\"warnings\":[],\"errors\":[{\"field\":\"model.bogus\",\"message\":\"is not a known key\"}]}\n");
    // An invalid layout with a valid preset exits 2 with the core's errors, warnings or not.
    const auto layout = run_cli({"estimate", "--config", "-", "--preset", "llama-2-7b"}, false,
                                R"({"parallel":{"gpus":6,"tp":4}})");
    CHECK(layout.status == 2);
    CHECK(layout.out.find("\"field\":\"parallel.gpus\"") != std::string::npos);
}

TEST_CASE("memplan COMMAND --help prints that command's usage", "[cli]") {
    const auto all = run_cli({"--help"});
    CHECK(all.status == 0);
    for (const char* name : {"model-states", "max-params", "transformer-mem", "estimate", "analyze", "presets",
                             "recipes", "explain", "deepspeed-estimate", "megatron-memory"})
        CHECK(all.out.find(std::string("  memplan ") + name) != std::string::npos);
    const auto one = run_cli({"max-params", "--help"});
    CHECK(one.status == 0);
    CHECK(one.out.find("  memplan max-params --gpu-bytes B --gpus N [--stage S] [--json]\n") != std::string::npos);
    CHECK(one.out.find("memplan model-states") == std::string::npos);
    CHECK(run_cli({}).status == 2);
}

TEST_CASE("schema prints the core's field table as JSON and as Markdown", "[cli][schema]") {
    const auto json_out = run_cli({"schema", "--json"});
    CHECK(json_out.status == 0);
    CHECK(json_out.out.rfind("{\"version\":1,\"fields\":[{\"path\":\"mode\"", 0) == 0);
    const auto md = run_cli({"schema", "--markdown"});
    CHECK(md.status == 0);
    CHECK(md.out.find("| `train.micro_batch` | integer 1 … 2^20 sequences | 1 | Micro-batch size |") != std::string::npos);
    CHECK(run_cli({"schema", "--json", "--markdown"}).status == 2);
}

TEST_CASE("compare prints every tool beside memplan and fails on an invalid configuration", "[cli][compare]") {
    // Llama-2-7B, ZeRO-3 on 8 GPUs: DeepSpeed's documented ZeRO-3 estimator prints 14.61 "GB" (GiB)
    // with the 6,738,415,616 parameters and a largest layer of 32000 · 4096 (its embedding).
    const auto r = run_cli({"compare", "--config", "-", "--preset", "llama-2-7b"}, false,
                           R"({"parallel": {"gpus": 8, "zero_stage": 3}})");
    CHECK(r.status == 0);
    CHECK(r.out.find(R"("tool":"deepspeed_zero3_doc")") != std::string::npos);
    CHECK(r.out.find(R"("figure_text":"14.61 GB")") != std::string::npos);
    CHECK(r.out.find(R"("errors":[]})") != std::string::npos);
    const auto bad = run_cli({"compare", "--config", "-"}, false, R"({"parallel": {"tp": 3}})");
    CHECK(bad.status == 2);
    CHECK(bad.out.find(R"("field":"parallel.gpus")") != std::string::npos);
}

namespace {
/// A command listing stored data: its text begins with lines[0] and holds every other line of
/// `lines`, `--json` prints the core's `json` text, and an unknown option exits 2.
void check_listing(const std::string& command, const std::string& json, const std::vector<std::string>& lines) {
    const auto text = run_cli({command});
    CHECK(text.status == 0);
    CHECK(text.out.rfind(lines.front(), 0) == 0);
    for (const auto& line : lines) {
        CAPTURE(line);
        CHECK(text.out.find(line) != std::string::npos);
    }
    const auto listed = run_cli({command, "--json"});
    CHECK(listed.status == 0);
    CHECK(listed.out == json + "\n");
    CHECK(run_cli({command, "--bogus"}).status == 2);
}
}  // namespace

TEST_CASE("explain prints how each breakdown row is computed, per run mode", "[cli][explanations]") {
    check_listing("explain", memplan::explanations_json(),
                  {"mode train:\n  Weights (weights)\n    This GPU's parameters:", "mode infer:\n",
                   "  KV cache (kv_cache)\n    Training keeps no KV cache.\n    Source: —\n"});
}

TEST_CASE("recipes lists the fine-tuning recipes with the fields each sets", "[cli][recipes]") {
    check_listing("recipes", memplan::recipes_json(),
                  {"full: Full fine-tune (bf16, AdamW)\n    train.adapter_type = \"none\"\n",
                   "qlora: QLoRA r16 all-linear, checkpointing, paged 8-bit AdamW\n", "    train.adapter_rank = 16\n",
                   "    source: Dettmers et al. 2023, QLoRA"});
}

TEST_CASE("estimate --recipe applies a recipe's values as the configuration would give them, an unknown id exits 2", "[cli][recipes]") {
    const std::string config = R"({"mode":"train","parallel":{"gpus":1},"gpu":{"memory_bytes":24e9}})";
    const auto recipe = run_cli({"estimate", "--config", "-", "--preset", "llama-3.2-3b", "--recipe", "qlora"}, false, config);
    const auto by_hand = run_cli({"estimate", "--config", "-", "--preset", "llama-3.2-3b"}, false,
                                 R"({"mode":"train","parallel":{"gpus":1},"gpu":{"memory_bytes":24e9},"train":{"adapter_type":"lora",)"
                                 R"("adapter_rank":16,"adapter_targets":"all-linear","base_dtype":"nf4","double_quant":true,)"
                                 R"("recompute":"full","optimizer":"adam_8bit","paged_optimizer":true}})");
    CHECK(recipe.status == 0);
    CHECK(recipe.out == by_hand.out);
    CHECK(recipe.out.find("\"base_dtype\":\"nf4\"") != std::string::npos);
    const auto analyzed = run_cli({"analyze", "--config", "-", "--preset", "llama-3.2-3b", "--recipe", "lora"}, false, config);
    CHECK(analyzed.status == 0);
    CHECK(analyzed.out.find("\"max_adapter_rank\":") != std::string::npos);
    const auto compared = run_cli({"compare", "--config", "-", "--preset", "llama-3.2-3b", "--recipe=dora"}, false, config);
    CHECK(compared.status == 0);
    const auto unknown = run_cli({"estimate", "--config", "-", "--preset", "llama-3.2-3b", "--recipe", "qlora8"}, false, config);
    CHECK(unknown.status == 2);
    CHECK(unknown.out == "{\"warnings\":[],\"errors\":[{\"field\":\"recipe\",\"message\":\"must be one of: full, lora, qlora, "
                         "dora (memplan recipes lists them)\"}]}\n");
    const auto infer = run_cli({"estimate", "--config", "-", "--preset", "llama-3.2-3b", "--recipe", "lora"}, false, R"({"mode":"infer"})");
    CHECK(infer.status == 2);
    CHECK(infer.out.find("\"field\":\"recipe\"") != std::string::npos);
    CHECK(run_cli({"estimate", "--config", "-", "--recipe"}, false, config).status == 2);  // the flag needs its id
}
