// transformer_mem.py's flags (EleutherAI cookbook, calc/transformer_mem.py) mapped to the script's
// arguments and to an estimate_config (memplan/eleuther_flags.hpp).
#include <catch2/catch.hpp>

#include "memplan/reproduce/eleuther_flags.hpp"
#include "memplan/report/json.hpp"
#include "memplan/api/estimate.hpp"

using namespace memplan;

TEST_CASE("no flags: the script's defaults (20B parameters, 44 layers, ZeRO 1, one GPU)", "[eleuther][flags]") {
    const auto c = transformer_mem_config(transformer_mem_flags{});
    REQUIRE(c.ok());
    const estimate_config& v = c.value;
    CHECK(v.mode == run_mode::train);
    CHECK(v.model.params == 20000000000ULL);
    CHECK(v.model.num_hidden_layers == 44);
    CHECK(v.model.hidden_size == 6144);
    CHECK(v.model.num_attention_heads == 64);
    CHECK(v.model.num_key_value_heads == 0);
    CHECK(v.model.vocab_size == 0);
    CHECK(v.parallel.gpus == 1);
    CHECK(v.parallel.tp == 1);
    CHECK(v.parallel.pp == 1);
    CHECK(v.parallel.zero_stage == 1);
    CHECK(v.parallel.zero_bucket_params == 500000000);      // the script's 5e8
    CHECK(v.parallel.zero3_max_live_params == 1000000000);  // the script's 1e9
    CHECK(v.train.micro_batch == 1);
    CHECK(v.train.seq_len == 2048);
    CHECK(v.train.recompute == recompute_mode::none);
    CHECK(v.train.weight_dtype == dtype::bf16);
    CHECK(v.train.grad_dtype == dtype::bf16);
    CHECK(v.misc_bytes == 0);
    CHECK(v.gpu_memory_bytes == 0);
    const auto e = eleuther_args_from_flags(transformer_mem_flags{});
    REQUIRE(e.ok());
    CHECK(e.value.params == eleuther_args{}.params);
    CHECK(e.value.zero_allgather_bucket_size == 5e8);
}

TEST_CASE("each flag lands in its configuration field", "[eleuther][flags]") {
    transformer_mem_flags f;
    f.params = "6.9B";
    f.num_gpus = "128";
    f.tensor_parallel_size = "2";
    f.pipeline_parallel_size = "4";
    f.zero_stage = "3";
    f.batch_size_per_gpu = "8";
    f.hidden_size = "4096";
    f.num_attention_heads = "32";
    f.sequence_length = "4096";
    f.num_layers = "32";
    f.zero_allgather_bucket_size = "1e8";
    f.zero3_max_live_params = "2e8";
    f.misc_mem_gb = "2";
    f.checkpoint_activations = true;
    f.partition_activations = true;
    f.fp32_grads = true;
    f.num_key_value_heads = "8";
    f.vocab_size = "32000";
    f.sequence_parallel = true;
    f.flash_attention = true;
    f.gpu_memory = "80GB";
    const auto c = transformer_mem_config(f);
    REQUIRE(c.ok());
    const estimate_config& v = c.value;
    CHECK(v.model.params == 6900000000ULL);
    CHECK(v.parallel.gpus == 128);
    CHECK(v.parallel.tp == 2);
    CHECK(v.parallel.pp == 4);
    CHECK(v.parallel.zero_stage == 3);
    CHECK(v.parallel.partition_activations);
    CHECK(v.parallel.sequence_parallel);
    CHECK(v.parallel.zero_bucket_params == 100000000);
    CHECK(v.parallel.zero3_max_live_params == 200000000);
    CHECK(v.train.micro_batch == 8);
    CHECK(v.train.seq_len == 4096);
    CHECK(v.train.recompute == recompute_mode::full);  // --checkpoint-activations: every layer recomputed
    CHECK(v.train.flash_attention);
    CHECK(v.train.weight_dtype == dtype::bf16);
    CHECK(v.train.grad_dtype == dtype::fp32);         // --fp32-grads alone
    CHECK(v.model.num_key_value_heads == 8);
    CHECK(v.model.vocab_size == 32000);
    CHECK(v.misc_bytes == 2147483648ULL);             // the script's "GB" are 1024**3 bytes
    CHECK(v.gpu_memory_bytes == 80000000000ULL);
    const auto r = estimate(v);
    REQUIRE(r.errors.empty());
    CHECK(r.data_parallel == 16);  // 128 / (2 · 4)
    // Pythia 6.9B's layout, tp = 2 under ZeRO 1: the bf16 weights split in two, 6.9e9 · 2 bytes / 2.
    transformer_mem_flags p;
    p.params = "6900000000";
    p.num_gpus = "128";
    p.tensor_parallel_size = "2";
    p.hidden_size = "4096";
    p.num_attention_heads = "32";
    p.num_layers = "32";
    const auto pythia = transformer_mem_config(p);
    REQUIRE(pythia.ok());
    CHECK(estimate(pythia.value).per_gpu.weights == 6900000000ULL);
}

TEST_CASE("recompute overrides checkpoint-activations, fp32-model makes everything fp32, infer serves", "[eleuther][flags]") {
    transformer_mem_flags f;
    f.checkpoint_activations = true;
    f.recompute = "selective";
    f.fp32_model = true;
    auto c = transformer_mem_config(f);
    REQUIRE(c.ok());
    CHECK(c.value.train.recompute == recompute_mode::selective);
    CHECK(c.value.train.weight_dtype == dtype::fp32);
    CHECK(c.value.train.grad_dtype == dtype::fp32);
    CHECK(c.value.infer.weight_dtype == dtype::fp32);
    CHECK(c.value.infer.kv_dtype == dtype::fp32);
    transformer_mem_flags g;
    g.infer = true;
    g.batch_size_per_gpu = "4";
    g.sequence_length = "4096";
    c = transformer_mem_config(g);
    REQUIRE(c.ok());
    CHECK(c.value.mode == run_mode::infer);
    CHECK(c.value.infer.batch == 4);
    CHECK(c.value.infer.context_len == 4096);
}

TEST_CASE("errors name the flags, the script's before memplan's", "[eleuther][flags][errors]") {
    transformer_mem_flags f;
    f.zero_stage = "4";
    f.params = "7.5";  // not a whole count
    f.recompute = "some";
    f.gpu_memory = "-1";
    const auto c = transformer_mem_config(f);
    REQUIRE(c.errors.size() == 4);
    CHECK(c.errors[0].field == "params");
    CHECK(c.errors[1].field == "zero-stage");
    CHECK(c.errors[1].message == "must be 0, 1, 2 or 3");
    CHECK(c.errors[2].field == "recompute");
    CHECK(c.errors[2].message == "must be one of: none, selective, full, selective_op");
    CHECK(c.errors[3].field == "gpu-memory");
    const auto e = eleuther_args_from_flags(f);
    REQUIRE(e.errors.size() == 2);  // memplan's own flags are not the script's
    // Zero counts the layout needs are refused by flag, not by the configuration key they fill.
    transformer_mem_flags z;
    z.num_gpus = "0";
    z.tensor_parallel_size = "0";
    const auto zc = transformer_mem_config(z);
    REQUIRE(zc.errors.size() == 2);
    CHECK(zc.errors[0].field == "num-gpus");
    CHECK(zc.errors[0].message == "must be an integer from 1 to 1048576");
    CHECK(zc.errors[1].field == "tensor-parallel-size");
    CHECK(eleuther_args_from_flags(z).ok());  // the reproduction reports the script's own crash instead
}

TEST_CASE("the script's report as JSON keeps every double exactly", "[eleuther][flags]") {
    const auto report = eleuther_transformer_mem(eleuther_args{});
    REQUIRE(report.errors.empty());
    const std::string json = eleuther_report_json(report);
    // 20e9 · 2 bytes / 2^30 = 37.252902984619140625, printed with 17 significant digits.
    CHECK(json.rfind("{\"params\":\"20.0 B\",\"unit\":\"GiB\",\"rows\":{\"Model Memory\":37.252902984619141,", 0) == 0);
    CHECK(json.find("\"Miscellaneous Memory\":0,") != std::string::npos);
    CHECK(json.substr(json.size() - 2) == "}}");
}
