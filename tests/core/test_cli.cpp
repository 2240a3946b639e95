// The native CLI end to end: output formats, exit codes and error messages.
#include <catch2/catch.hpp>

#include "cli_runner.hpp"

TEST_CASE("model-states prints the card's numbers as JSON", "[cli]") {
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
    CHECK(gpus.out == "{\"errors\":[{\"field\":\"n_gpus\",\"message\":\"must be an integer from 1 to 1048576\"}]}\n");
    const auto neg = run_cli({"model-states", "--params", "-7", "--gpus", "8"}, true);
    CHECK(neg.status == 2);
    CHECK(neg.out.rfind("memplan: error: params: must be a whole number", 0) == 0);
    const auto missing = run_cli({"model-states", "--gpus", "8"}, true);
    CHECK(missing.status == 2);
    CHECK(missing.out == "memplan: error: params: is required\n");
    CHECK(run_cli({"model-states", "--bogus"}).status == 2);
    CHECK(run_cli({"frobnicate"}).status == 2);
}

TEST_CASE("transformer-mem accepts the seed's short flags and abbreviations", "[cli][seed]") {
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

TEST_CASE("transformer-mem's corrected report states its unit and switches to GB", "[cli][seed]") {
    const std::vector<std::string> pythia = {"transformer-mem", "--num-layers=32", "--num-attention-heads=32",
                                             "--hidden-size=4096", "--tensor-parallel-size=2", "--num-gpus=128",
                                             "--params=6900000000", "--zero-stage=1"};
    const auto gib = run_cli(pythia);
    CHECK(gib.status == 0);
    CHECK(gib.out.find("Model Memory: 6.43 GiB\n") != std::string::npos);
    CHECK(gib.out.find("Gradient Memory: 6.43 GiB\n") != std::string::npos);  // the seed prints 12.85 (no tp split)
    auto gb_args = pythia;
    gb_args.push_back("--units=GB");
    const auto gb = run_cli(gb_args);
    CHECK(gb.out.find("Model Memory: 6.90 GB\n") != std::string::npos);
    gb_args.back() = "--units=MB";
    CHECK(run_cli(gb_args).status == 2);
}

TEST_CASE("transformer-mem refuses layouts the seed silently accepted", "[cli][errors]") {
    const auto r = run_cli({"transformer-mem", "--num-gpus=6", "--tensor-parallel-size=4"}, true);
    CHECK(r.status == 2);
    CHECK(r.out == "memplan: error: parallel.gpus: must be a multiple of parallel.tp × parallel.pp (4)\n");
}

TEST_CASE("transformer-mem --infer counts the KV cache with batch size", "[cli][seed]") {
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
    CHECK(r.out.find("\"limits\":{\"max_micro_batch\":null,\"max_seq_len\":null,\"max_batch\":26,") !=
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
