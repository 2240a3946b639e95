// memplan compared with the reproduced estimators on one configuration (memplan/compare.hpp): where
// they agree, where they differ, and that every term adds up.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "memplan/api/estimate.hpp"
#include "memplan/reproduce/compare.hpp"
#include "memplan/report/json.hpp"
#include "memplan/io/json.hpp"
#include "memplan/reproduce/reference.hpp"

using namespace memplan;
using nlohmann::json;

namespace {
const json* find_tool(const json& result, const std::string& name) {
    for (const auto& t : result.at("tools"))
        if (t.at("tool") == name) return &t;
    return nullptr;
}

std::uint64_t u(const json& value) { return value.get<std::uint64_t>(); }

/// Every number in the output is an unsigned integer (no floats, nothing negative).
bool integers_only(const json& value) {
    if (value.is_number()) return value.is_number_unsigned();
    if (value.is_structured())
        for (const auto& item : value)
            if (!integers_only(item)) return false;
    return true;
}

/// Each expressible tool's terms add up to its figure (within the rounding of each term up to a byte)
/// and memplan's side of the terms adds up to memplan's total.
void check_terms_add_up(const json& result) {
    const std::uint64_t memplan_total = u(result.at("memplan").at("total_bytes"));
    for (const auto& t : result.at("tools")) {
        CAPTURE(t.at("tool").get<std::string>());
        if (!t.at("expressible").get<bool>()) {
            CHECK(t.at("figure").is_null());
            CHECK_FALSE(t.at("lacks").get<std::string>().empty());
            continue;
        }
        std::uint64_t tool = 0, memplan = 0;
        for (const auto& term : t.at("terms")) {
            tool += u(term.at("tool_bytes"));
            memplan += u(term.at("memplan_bytes"));
            const bool equal = term.at("tool_bytes") == term.at("memplan_bytes");
            CHECK(term.at("reason").get<std::string>().empty() == equal);  // every difference is explained
        }
        CHECK(memplan == memplan_total);
        CHECK(tool <= u(t.at("figure")) + t.at("terms").size());
        CHECK(tool + t.at("terms").size() >= u(t.at("figure")));
    }
}
}  // namespace

TEST_CASE("compare: DeepSpeed's ZeRO-3 estimator against memplan on Llama-2-7B over 8 GPUs", "[compare][deepspeed]") {
    const auto result = json::parse(compare_json(
        R"({"model":{"preset":"llama-2-7b"},"parallel":{"gpus":8,"zero_stage":3},)"
        R"("train":{"seq_len":4096,"flash_attention":true,"recompute":"full"}})"));
    REQUIRE(result.at("errors").empty());
    CHECK(integers_only(result));
    check_terms_add_up(result);
    const json* ds = find_tool(result, "deepspeed_zero3_doc");
    REQUIRE(ds != nullptr);
    REQUIRE(ds->at("expressible").get<bool>());
    // Llama-2-7B: P = 6,738,415,616; the largest module is the 32000 x 4096 embedding (131,072,000).
    // DeepSpeed: 4 x 131,072,000 + int(18 x P / 8) = 524,288,000 + 15,161,435,136 = 15,685,723,136 B = 14.61 GiB.
    CHECK(u(ds->at("figure")) == 15685723136ULL);
    CHECK(ds->at("figure_text") == "14.61 GB");
    CHECK(ds->at("units") == "GiB labelled GB");
    const auto& states = ds->at("terms").at(0);
    CHECK(states.at("term") == "model_states");
    CHECK(u(states.at("tool_bytes")) == 15161435136ULL);
    // memplan: 16 B/param sharded over 8 (bf16 weights and gradients, 12 B Adam): 13,476,831,232 B.
    CHECK(u(states.at("memplan_bytes")) == 13476831232ULL);
    CHECK(states.at("reason").get<std::string>().find("4 B fp32 gradient") != std::string::npos);
    CHECK(u(ds->at("terms").at(1).at("tool_bytes")) == 524288000ULL);
    // The stage-2 estimators and Megatron cannot express ZeRO-3, and say so.
    CHECK_FALSE(find_tool(result, "deepspeed_zero2_doc")->at("expressible").get<bool>());
    CHECK(find_tool(result, "megatron_theoretical_memory")->at("lacks") ==
          "Megatron shards optimizer states only (distributed optimizer = ZeRO stage 1)");
}

TEST_CASE("compare: DeepSpeed's two ZeRO-2 formulas on the documented 2851M example", "[compare][deepspeed]") {
    // memory.rst: 2851e6 parameters on 1 node of 8 GPUs prints 15.93GB (4P + 16P/N); the code since
    // v0.14.3 prints 11.28GB (2P + 18P/N).
    const auto result = json::parse(compare_json(
        R"({"model":{"params":2851000000,"num_hidden_layers":24,"hidden_size":1024,"num_attention_heads":16},)"
        R"("parallel":{"gpus":8,"zero_stage":2}})"));
    REQUIRE(result.at("errors").empty());
    check_terms_add_up(result);
    const json* doc = find_tool(result, "deepspeed_zero2_doc");
    const json* code = find_tool(result, "deepspeed_zero2_code");
    REQUIRE((doc != nullptr && code != nullptr));
    CHECK(doc->at("figure_text") == "15.93 GB");
    CHECK(u(doc->at("figure")) == 17106000000ULL);  // 4 x 2851e6 + 16 x 2851e6 / 8
    CHECK(code->at("figure_text") == "11.28 GB");
    CHECK(u(code->at("figure")) == 12116750000ULL);  // 2 x 2851e6 + 18 x 2851e6 / 8
    // memplan at ZeRO stage 2 (Rajbhandari et al. 2020): 2P + 14P/N = 5,702,000,000 + 4,989,250,000.
    CHECK(u(code->at("terms").at(0).at("memplan_bytes")) == 10691250000ULL);
    // Megatron has no ZeRO-2; the ZeRO-3 estimator is for stage 3.
    CHECK_FALSE(find_tool(result, "megatron_theoretical_memory")->at("expressible").get<bool>());
    CHECK_FALSE(find_tool(result, "deepspeed_zero3_doc")->at("expressible").get<bool>());
}

TEST_CASE("compare: Megatron agrees with memplan's model states when memplan counts as Megatron does", "[compare][megatron]") {
    // A GPT-style block without biases, fp32 gradients and the distributed optimizer (ZeRO-1), with
    // sequence parallelism and selective recompute (the conditions of Megatron's activation formula).
    const std::string config =
        R"({"model":{"num_hidden_layers":24,"hidden_size":2048,"num_attention_heads":16,"vocab_size":51200,)"
        R"("qkv_bias":false,"attention_out_bias":false,"mlp_bias":false},)"
        R"("parallel":{"gpus":16,"tp":2,"pp":2,"zero_stage":1,"zero_bucket_params":0,"sequence_parallel":true},)"
        R"("train":{"grad_dtype":"fp32","recompute":"selective","seq_len":2048}})";
    const auto result = json::parse(compare_json(config));
    REQUIRE(result.at("errors").empty());
    check_terms_add_up(result);
    const json* mg = find_tool(result, "megatron_theoretical_memory");
    REQUIRE(mg != nullptr);
    REQUIRE(mg->at("expressible").get<bool>());
    const auto& states = mg->at("terms").at(0);
    // Equal up to Megatron spreading the final LayerNorm over all stages and memplan's whole-parameter shards.
    CHECK(static_cast<double>(u(states.at("memplan_bytes"))) ==
          Approx(static_cast<double>(u(states.at("tool_bytes")))).epsilon(1e-5));
    // The figure text is Megatron's own line for the same arguments.
    megatron_args a;
    a.num_layers = 24;
    a.hidden_size = 2048;
    a.num_attention_heads = 16;
    a.ffn_hidden_size = 8192;
    a.padded_vocab_size = 51200;  // already a multiple of 128 x tp
    a.seq_length = 2048;
    a.use_distributed_optimizer = true;
    a.tensor_model_parallel_size = 2;
    a.pipeline_model_parallel_size = 2;
    a.data_parallel_size = 4;
    const auto direct = megatron_theoretical_memory(a);
    REQUIRE(direct.errors.empty());
    CHECK(mg->at("figure_text") == fixed_text(direct.total_mib, 2) + " MB");
    CHECK(mg->at("units") == "MiB labelled MB");
    // Without sequence parallelism Megatron switches to sbh(10 + 24/t) per layer and x1.05.
    const auto no_sp = json::parse(compare_json(
        R"({"model":{"num_hidden_layers":24,"hidden_size":2048,"num_attention_heads":16,"vocab_size":51200},)"
        R"("parallel":{"gpus":16,"tp":2,"pp":2,"zero_stage":1},"train":{"seq_len":2048}})"));
    const json* mg2 = find_tool(no_sp, "megatron_theoretical_memory");
    REQUIRE(mg2->at("expressible").get<bool>());
    CHECK(mg2->at("lacks").get<std::string>().find("without sequence parallelism") != std::string::npos);
    a.sequence_parallel = false;
    CHECK(mg2->at("figure_text") == fixed_text(megatron_theoretical_memory(a).total_mib, 2) + " MB");
}

TEST_CASE("compare: accelerate agrees with memplan on bf16 weights for serving", "[compare][accelerate]") {
    // Llama-2-7B served from one GPU: accelerate's float16 "Total Size" is 4P / 2 = 13,476,831,232 B,
    // printed "12.55 GB" (powers of 1024); memplan's bf16 weights are the same 2 B/param.
    const auto result = json::parse(compare_json(R"({"mode":"infer","model":{"preset":"llama-2-7b"}})"));
    REQUIRE(result.at("errors").empty());
    check_terms_add_up(result);
    const json* acc = find_tool(result, "accelerate_estimate_memory");
    REQUIRE(acc->at("expressible").get<bool>());
    CHECK(acc->at("figure_text") == "12.55 GB");
    CHECK(u(acc->at("figure")) == 13476831232ULL);
    const auto& weights = acc->at("terms").at(0);
    CHECK(weights.at("term") == "weights");
    CHECK(weights.at("tool_bytes") == weights.at("memplan_bytes"));
    CHECK(weights.at("reason") == "");
    // The training column of int8 weights is N/A in accelerate: not expressible.
    const auto int8 = json::parse(compare_json(R"({"model":{"preset":"llama-2-7b"},"train":{"weight_dtype":"int8"}})"));
    if (int8.at("errors").empty())
        CHECK_FALSE(find_tool(int8, "accelerate_estimate_memory")->at("expressible").get<bool>());
}

TEST_CASE("compare: the cookbook's calc_transformer_mem.py on the same configuration", "[compare][eleuther]") {
    // Pythia-6.9B-like: 32 layers, h 4096, 32 heads, vocabulary 50432, TP 2, 128 GPUs, ZeRO-1, micro-batch 8,
    // full recompute (-ca), partitioned activations (-pa): the cookbook's own example (vocabulary aside).
    const auto result = json::parse(compare_json(
        R"({"model":{"num_hidden_layers":32,"hidden_size":4096,"num_attention_heads":32,"vocab_size":51200},)"
        R"("parallel":{"gpus":128,"tp":2,"zero_stage":1,"partition_activations":true},)"
        R"("train":{"micro_batch":8,"recompute":"full","grad_dtype":"fp32"}})"));
    REQUIRE(result.at("errors").empty());
    check_terms_add_up(result);
    const json* e = find_tool(result, "eleuther_calc_transformer_mem");
    REQUIRE(e->at("expressible").get<bool>());
    // calc_transformer_mem.py on the same flags prints "Per-GPU Memory Required for Training: 67.53 GiB"
    // (its pythia 6.9B example; test_reference.cpp checks every line of it).
    CHECK(e->at("figure_text") == "67.53 GiB");
    const auto& acts = e->at("terms").at(4);
    CHECK(acts.at("term") == "activations");
    CHECK(u(acts.at("tool_bytes")) == 34ULL * 2048 * 8 * 4096 * 32 / 2);  // 34·sbhL / tp
    CHECK(acts.at("reason").get<std::string>().find("34") != std::string::npos);
}

TEST_CASE("compare: invalid configurations give errors and no tools — output is deterministic", "[compare][errors]") {
    const auto bad = json::parse(compare_json(R"({"parallel":{"tp":0}})"));
    CHECK(bad.at("memplan").is_null());
    CHECK(bad.at("tools").empty());
    CHECK_FALSE(bad.at("errors").empty());
    CHECK(json::parse(compare_json("{not json")).at("errors").size() >= 1);
    const std::string config = R"({"model":{"preset":"mixtral-8x7b"},"parallel":{"gpus":64,"tp":2,"pp":4,"zero_stage":1}})";
    const std::string first = compare_json(config);
    CHECK(first == compare_json(config));
    const auto result = json::parse(first);
    REQUIRE(result.at("errors").empty());
    CHECK(integers_only(result));
    check_terms_add_up(result);
    CHECK(result.at("tools").size() == 7);
}

TEST_CASE("compare: DeepSpeed's buffers for the run beside memplan's communication row", "[compare][deepspeed][buffers]") {
    // Llama-2-7B at ZeRO-3 with DeepSpeed's defaults: overlap_comm on, one flat reduce bucket of 5e8
    // bf16 elements (1e9 B), a prefetch of 5e7 elements (1e8 B) and the largest-layer working copy
    // 4 x 131,072,000 = 524,288,000 B; memplan's row: allgather bucket 1e9 B + max live 2e9 B.
    const auto a = json::parse(compare_json(
        R"({"model":{"preset":"llama-2-7b"},"parallel":{"gpus":8,"zero_stage":3},"train":{"seq_len":4096}})"));
    REQUIRE(a.at("errors").empty());
    const auto& b = a.at("deepspeed_buffers");
    CHECK(b.at("stage") == 3);
    CHECK(b.at("overlap_comm") == true);
    CHECK(u(b.at("allocated_bytes")) == 1000000000ULL + 100000000ULL + 524288000ULL);
    CHECK(u(b.at("memplan_communication_bytes")) == 3000000000ULL);
    // ZeRO-2 with DeepSpeed's defaults (overlap_comm off): one reduce bucket; the guide's rule without
    // the 4.5 factor is one copy of each bucket, 2 x (5e8 + 5e8) B.
    const auto two = json::parse(compare_json(
        R"({"model":{"preset":"llama-2-7b"},"parallel":{"gpus":8,"zero_stage":2}})"));
    REQUIRE(two.at("errors").empty());
    CHECK(two.at("deepspeed_buffers").at("overlap_comm") == false);
    CHECK(u(two.at("deepspeed_buffers").at("allocated_bytes")) == 1000000000ULL);
    CHECK(u(two.at("deepspeed_buffers").at("guide_bytes")) == 2000000000ULL);
    // No ZeRO, or serving: no DeepSpeed buffers.
    CHECK(json::parse(compare_json(R"({"mode":"infer","model":{"preset":"llama-2-7b"}})")).at("deepspeed_buffers").is_null());
}

TEST_CASE("compare: tool figures at 2^53 bytes or more are refused, never clamped or wrapped", "[compare][errors]") {
    // 2^49 parameters over 2^20 GPUs: memplan's per-GPU figures are small, DeepSpeed's CPU column
    // (P x 4 x 2^20 x 1.5) and the first cookbook script's unsharded figures are not.
    const auto result = json::parse(compare_json(
        R"({"model":{"params":562949953421312,"num_hidden_layers":64,"hidden_size":8192,"num_attention_heads":64},)"
        R"("parallel":{"gpus":1048576,"zero_stage":3,"zero_bucket_params":0,"zero3_max_live_params":0}})"));
    REQUIRE(result.at("errors").empty());
    CHECK(integers_only(result));
    for (const auto& t : result.at("tools")) {
        CAPTURE(t.at("tool").get<std::string>());
        if (t.at("expressible").get<bool>()) {
            CHECK(u(t.at("figure")) < 9007199254740992ULL);
            for (const auto& term : t.at("terms")) CHECK(u(term.at("tool_bytes")) < 9007199254740992ULL);
        }
    }
    CHECK_FALSE(find_tool(result, "deepspeed_zero3_doc")->at("expressible").get<bool>());
}

TEST_CASE("parallel.comm_buffers deepspeed counts DeepSpeed's own allocations in the estimate", "[compare][deepspeed][estimate]") {
    const auto comm = [](const std::string& parallel) {
        const auto parsed = parse_config(R"({"model": {"preset": "llama-2-7b"}, "train": {"recompute": "full"},
            "parallel": )" + parallel + "}");
        REQUIRE(parsed.ok());
        const auto r = estimate(parsed.value);
        REQUIRE(r.errors.empty());
        return r.per_gpu.communication;
    };
    // memplan's model (the default): the 5e8-element allgather bucket in bf16.
    CHECK(comm(R"({"gpus": 8, "zero_stage": 2})") == 1000000000ULL);
    // DeepSpeed ZeRO-2 (stage_1_and_2.py): a reduce bucket of reduce_bucket_size elements, a second
    // one with overlap_comm; the allgather writes into the flat parameter buffer (0 extra bytes).
    CHECK(comm(R"({"gpus": 8, "zero_stage": 2, "comm_buffers": "deepspeed"})") == 1000000000ULL);
    CHECK(comm(R"({"gpus": 8, "zero_stage": 2, "comm_buffers": "deepspeed", "overlap_comm": "on"})") == 2000000000ULL);
    CHECK(comm(R"({"gpus": 8, "zero_stage": 2, "comm_buffers": "deepspeed", "overlap_comm": "on",
                   "reduce_bucket_params": 200000000})") == 800000000ULL);
    // The Hugging Face DeepSpeed guide's rule for the same settings: 5e8 + 5e8 elements × 2 B × 4.5 = 9 GB.
    const json cmp = json::parse(compare_json(R"({"model": {"preset": "llama-2-7b"}, "train": {"recompute": "full"},
        "parallel": {"gpus": 8, "zero_stage": 2, "overlap_comm": "on"}})"));
    CHECK(cmp["deepspeed_buffers"]["guide_bytes"] == 9000000000ULL);
    CHECK(cmp["deepspeed_buffers"]["allocated_bytes"] == 2000000000ULL);
}
