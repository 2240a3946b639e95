// The step-time model (core/src/search/step_time.cpp): model FLOPs agree with Megatron-LM's
// num_floating_point_operations, the terms add up, and the published Megatron-LM runs (Narayanan et
// al. 2021, Table 1: tests/data/throughput/) are reproduced within the stated goals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "memplan/io/gpus.hpp"
#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"
#include "memplan/search/step_time.hpp"

using namespace memplan;

namespace {
estimate_config parsed(const std::string& text) {
    const auto c = parse_config(text);
    REQUIRE(c.ok());
    return c.value;
}

gpu_perf h100() {
    const gpu_entry* g = find_gpu("h100-sxm-80gb");
    REQUIRE(g != nullptr);
    REQUIRE(g->perf.ok());
    return g->perf;
}
}  // namespace

TEST_CASE("model FLOPs are Megatron-LM's num_floating_point_operations for Llama 3 8B", "[step_time][flops]") {
    // megatron/training/training.py at 86df799dc4c78e4bd7fbae972b3ee743e8b14f02:
    // 12 B s L h² ((1 + g/a + s/h) · (a d / h) + (f/h) · 3/2 + V / (2 L h)), SwiGLU, GQA.
    const estimate_config c = parsed(R"({"model": {"preset": "llama-3-8b"}, "parallel": {"gpus": 8},
        "train": {"seq_len": 8192, "micro_batch": 1}})");
    const double B = 8, s = 8192, L = 32, h = 4096, a = 32, g = 8, d = 128, f = 14336, V = 128256;
    const double megatron = 12 * B * s * L * h * h * ((1 + g / a + s / h) * (a * d / h) + (f / h) * 1.5 + V / (2 * L * h));
    const step_time_result t = step_time(c, h100(), step_options{});
    REQUIRE(t.errors.empty());
    CHECK(t.model_flops_per_step == Approx(megatron).epsilon(1e-12));
    // Executed FLOPs halve the causal attention: (s + 1)/2 keys instead of s; no recompute here.
    const forward_flops f1 = forward_flops_per_token(c.model, 8192);
    CHECK(f1.model - f1.executed == Approx(4 * a * d * L * (s - (s + 1) / 2)).epsilon(1e-12));
    CHECK(t.hardware_flops_per_step == Approx(3 * f1.executed * B * s).epsilon(1e-12));
}

TEST_CASE("step-time terms add up, the bottleneck is the largest, recompute costs a forward", "[step_time]") {
    estimate_config c = parsed(R"({"model": {"preset": "llama-3-70b"}, "parallel": {"gpus": 64, "tp": 8, "pp": 4},
        "train": {"seq_len": 4096, "micro_batch": 1}})");
    step_options o;
    o.global_batch_sequences = 128;
    const step_time_result none = step_time(c, h100(), o);
    REQUIRE(none.errors.empty());
    CHECK(none.microbatches == 64);  // 128 / (1 · dp 2)
    double sum = 0;
    const step_term* largest = &none.terms.front();
    for (const step_term& t : none.terms) {
        CAPTURE(t.name);
        CHECK(t.seconds >= 0);
        CHECK(t.seconds <= t.busy_seconds + 1e-12);
        sum += t.seconds;
        if (t.seconds > largest->seconds) largest = &t;
    }
    CHECK(sum == Approx(none.step_s));
    CHECK(none.bottleneck == largest->name);
    CHECK(none.tokens_per_s_per_gpu == Approx(128.0 * 4096 / none.step_s / 64));
    CHECK(none.mfu > 0);
    CHECK(none.mfu < 1);
    // The bubble is (p − 1)/(v · m) of the ideal time (Narayanan et al. 2021, §2.2).
    const auto term = [](const step_time_result& r, const char* name) {
        for (const step_term& t : r.terms)
            if (t.name == name) return t.seconds;
        return -1.0;
    };
    const double ideal = term(none, "compute") + term(none, "tp_comm");
    CHECK(term(none, "pp_bubble") == Approx(3.0 / 64 * ideal));
    c.parallel.virtual_stages = 2;  // interleaved: half the bubble
    CHECK(term(step_time(c, h100(), o), "pp_bubble") == Approx(term(none, "pp_bubble") / 2));
    c.parallel.virtual_stages = 1;
    c.train.recompute = recompute_mode::full;
    const step_time_result full = step_time(c, h100(), o);
    // Full recompute runs every forward GEMM and attention again: 4 passes instead of 3.
    CHECK(term(full, "compute") == Approx(term(none, "compute") * 4 / 3));
    CHECK(full.model_flops_per_step == Approx(none.model_flops_per_step));  // the model convention ignores recompute
    CHECK(full.mfu < none.mfu);
}

TEST_CASE("bad step-time input is refused naming the field", "[step_time][errors]") {
    estimate_config c = parsed(R"({"model": {"preset": "llama-3-8b"}, "parallel": {"gpus": 8}, "train": {"micro_batch": 2}})");
    step_options o;
    o.global_batch_sequences = 20;  // not a multiple of 2 · 8
    const step_time_result r = step_time(c, h100(), o);
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].field == "global_batch");
    gpu_perf slow = h100();
    slow.gemm_efficiency = 1.5;
    CHECK(step_time(c, slow, step_options{}).errors.at(0).field == "gpu.gemm_efficiency");
    CHECK(step_time(c, gpu_perf{}, step_options{}).errors.at(0).field == "gpu.perf");
    c.mode = run_mode::infer;
    CHECK(step_time(c, h100(), step_options{}).errors.at(0).field == "mode");
}

namespace {
/// A corpus file of tests/data/throughput/.
nlohmann::json throughput_corpus(const char* file) {
    std::ifstream in(std::string(MEMPLAN_DATA_DIR) + "/throughput/" + file);
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
}

/// The step time of one corpus case on its published layout, GPU and global batch.
step_time_result corpus_step_time(const nlohmann::json& k) {
    const estimate_config c = parsed(k["config"].dump());
    const gpu_entry* g = find_gpu(k["gpu"].get<std::string>());
    REQUIRE(g != nullptr);
    step_options o;
    o.global_batch_sequences = k["global_batch"];
    o.overlap_grad_reduce = k.value("overlap_grad_reduce", true);
    step_time_result t = step_time(c, g->perf, o);
    REQUIRE(t.errors.empty());
    return t;
}
}  // namespace

TEST_CASE("Narayanan et al. 2021 Table 1: step time within ±15 % of every run, median within ±7 %", "[step_time][validation]") {
    const nlohmann::json doc = throughput_corpus("narayanan2021_table1.json");
    std::vector<double> errors;
    for (const auto& k : doc["cases"]) {
        const std::string name = k["name"];
        CAPTURE(name);
        const step_time_result t = corpus_step_time(k);
        // The paper's Eq. 3: F = 96 B s l h² (1 + s/(6h) + V/(16 l h)); measured step = F / (GPUs · achieved).
        const double B = k["global_batch"], s = 2048, V = 51200;
        const double l = k["config"]["model"]["num_hidden_layers"], h = k["config"]["model"]["hidden_size"];
        const double F = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
        const double measured = F / (k["gpus"].get<double>() * k["published_tflops_per_gpu"].get<double>() * 1e12);
        const double error = t.step_s / measured - 1;
        CAPTURE(t.step_s, measured, error, t.bottleneck);
        CHECK(std::fabs(error) <= 0.15);
        errors.push_back(error);
    }
    REQUIRE(errors.size() == 10);
    std::vector<double> magnitudes;
    for (const double e : errors) magnitudes.push_back(std::fabs(e));
    std::sort(magnitudes.begin(), magnitudes.end());
    const double median = (magnitudes[4] + magnitudes[5]) / 2;
    CAPTURE(median);
    CHECK(median <= 0.07);
}

TEST_CASE("Outside the calibration: torchtitan's eager Llama 3.1 8B on H100 is recorded with its gap, and the answer warns", "[step_time][validation]") {
    // pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md at b5bcd76c, Tables 1 and 3 (FSDP,
    // no torch.compile, no Float8): 5,762 and 5,605 tokens/s per GPU on 8 and 128 H100s (500 W, HBM2e).
    const nlohmann::json doc = throughput_corpus("torchtitan2024_h100.json");
    REQUIRE(doc["calibrated"] == false);
    REQUIRE(doc["cases"].size() == 2);
    std::vector<double> ratios;
    for (const auto& k : doc["cases"]) {
        const std::string name = k["name"];
        CAPTURE(name);
        const gpu_entry* g = find_gpu(k["gpu"].get<std::string>());
        REQUIRE(g != nullptr);
        CHECK_FALSE(g->perf.step_time_validated);
        const step_time_result t = corpus_step_time(k);
        const double measured_tps = k["published_tokens_per_s_per_gpu"];
        const double ratio = t.tokens_per_s_per_gpu / measured_tps;  // > 1: the model is too fast
        CAPTURE(t.tokens_per_s_per_gpu, measured_tps, ratio);
        ratios.push_back(ratio);
        // The gap the answer states: it warns on this GPU kind, naming the field that calibrates it.
        REQUIRE(t.warnings.size() == 1);
        CHECK(t.warnings[0].field == "gpu.gemm_efficiency");
        // The user's own calibration silences it (the same figures otherwise as the ceiling allows).
        gpu_perf calibrated = g->perf;
        calibrated.gemm_efficiency = 0.5;
        step_options o;
        o.global_batch_sequences = k["global_batch"];
        CHECK(step_time(parsed(k["config"].dump()), calibrated, o).warnings.empty());
    }
    // The warning quotes the first row's ratio to one decimal ("1.8 times slower"): recomputed here so the
    // text cannot outlive the model; the 128-GPU row is less far off (the model charges FSDP's gathers
    // across nodes there).
    const gpu_entry* h100 = find_gpu("h100-sxm-80gb");
    const std::string text = step_time_caveats(h100->perf).at(0).message;
    char quoted[16];
    std::snprintf(quoted, sizeof quoted, "%.1f times", ratios[0]);
    CAPTURE(text, ratios[0], ratios[1]);
    CHECK(text.find(quoted) != std::string::npos);
    CHECK(text.find("5,762 tokens/s per GPU") != std::string::npos);
    CHECK(ratios[1] > 1.0);
    CHECK(ratios[1] < ratios[0]);
    // Where a published corpus checked the GPU kind (Narayanan et al. 2021 on A100 80GB) there is no warning.
    const gpu_entry* a100 = find_gpu("a100-sxm-80gb");
    REQUIRE(a100 != nullptr);
    CHECK(a100->perf.step_time_validated);
    CHECK(step_time_caveats(a100->perf).empty());
}

TEST_CASE("MoE: routed experts count top-k of E, as Megatron-LM's num_experts_routed_to", "[step_time][flops]") {
    // Mixtral 8x7B: 32 layers, h 4096, 32 heads, 8 KV heads, expert FFN 14336, top-2 of 8, V 32000.
    // Megatron-LM (same commit): 12 B s L h² ((1 + g/a + s/h)(a d/h) + (f/h) · k · 3/2 + V/(2 L h)); the
    // router's small h × E GEMM is left out by both.
    const estimate_config c = parsed(R"({"model": {"preset": "mixtral-8x7b"}, "parallel": {"gpus": 8}, "train": {"seq_len": 4096}})");
    const double s = 4096, L = 32, h = 4096, a = 32, g = 8, d = 128, f = 14336, k = 2, V = 32000;
    const double megatron = 12 * s * L * h * h * ((1 + g / a + s / h) * (a * d / h) + (f / h) * k * 1.5 + V / (2 * L * h));
    const step_time_result t = step_time(c, h100(), step_options{});
    REQUIRE(t.errors.empty());
    CHECK(t.model_flops_per_step / 8 == Approx(megatron).epsilon(1e-12));
}

TEST_CASE("sliding windows bound the executed attention: Σ min(i, w) / s keys per query", "[step_time][flops]") {
    estimate_config c = parsed(R"({"model": {"preset": "llama-3-8b"}, "train": {"seq_len": 8192}})");
    const forward_flops full = forward_flops_per_token(c.model, 8192);
    c.model.sliding_window = 4096;  // every layer slides (sliding_window_layers 0)
    const forward_flops window = forward_flops_per_token(c.model, 8192);
    const double s = 8192, w = 4096, per_key = 4 * 32 * 128 * 32;  // 4 a d per key, 32 layers
    CHECK(window.model == Approx(full.model));  // the model convention ignores windows (as Megatron-LM)
    CHECK(window.attention_core == Approx(per_key * (w - w * (w - 1) / (2 * s))).epsilon(1e-12));
    CHECK(full.attention_core == Approx(per_key * (s + 1) / 2).epsilon(1e-12));
}

TEST_CASE("fp8 training is timed at the fp8 peak with its casts, against torchtitan's published Float8 speed-up", "[step_time][fp8]") {
    // pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md (at 31a17bfd), Table 1: Llama 3.1 8B,
    // FSDP over 8 H100s, local batch 2 × 8192, selective (op) activation checkpointing, torch.compile:
    // 6,667 tokens/s per GPU in bf16, 8,532 with Float8 (tensorwise): a speed-up of 1.280; Table 3, the same
    // on 128 GPUs: 6,514 and 8,380, 1.286. memplan's time model has no torch.compile, so it is its ratio of
    // bf16 to fp8 step time that is compared, within the step-time goal's 15 %.
    const std::string common = R"("model": {"preset": "llama-3.1-8b"}, "overhead": {"misc_bytes": 0},
        "parallel": {"gpus": 8, "zero_stage": 3, "gpus_per_node": 8},)";
    const estimate_config bf16 = parsed("{" + common + R"("train": {"framework": "torchtitan", "micro_batch": 2,
        "seq_len": 8192, "recompute": "selective_op", "optimizer": "adam"}})");
    estimate_config fp8 = bf16;
    fp8.train.weight_dtype = dtype::fp8;
    step_options o;
    o.global_batch_sequences = 16;
    const step_time_result a = step_time(bf16, h100(), o);
    const step_time_result b = step_time(fp8, h100(), o);
    REQUIRE(a.errors.empty());
    REQUIRE(b.errors.empty());
    const double published = 8532.0 / 6667.0, modelled = a.step_s / b.step_s;
    INFO("modelled fp8 speed-up " << modelled << ", published " << published);
    CHECK(modelled > 1);
    CHECK(std::abs(modelled / published - 1) <= 0.15);
    // Only the layers' GEMMs and the casts move: the communication terms are bf16's.
    const auto busy = [](const step_time_result& r, const char* name) {
        for (const step_term& t : r.terms)
            if (t.name == name) return t.busy_seconds;
        return -1.0;
    };
    CHECK(busy(b, "dp_comm") == Approx(busy(a, "dp_comm")));
    CHECK(busy(b, "compute") < busy(a, "compute"));
    const auto says = [](const step_time_result& r, const char* text) {
        return std::any_of(r.warnings.begin(), r.warnings.end(), [&](const field_error& w) {
            return w.field == "train.weight_dtype" && w.message.find(text) != std::string::npos;
        });
    };
    CHECK(says(b, "timed at the dense fp8 peak"));
    CHECK_FALSE(says(a, "fp8"));
    // A GPU without fp8 tensor cores (A100: the catalogue gives no fp8 peak) is timed at the bf16 rate and
    // named as such.
    const gpu_entry* a100 = find_gpu("a100-sxm-80gb");
    REQUIRE(a100 != nullptr);
    REQUIRE(a100->perf.dense_fp8_flops_per_s == 0);
    const step_time_result on_a100 = step_time(fp8, a100->perf, o);
    REQUIRE(on_a100.errors.empty());
    CHECK(on_a100.step_s == Approx(step_time(bf16, a100->perf, o).step_s));
    CHECK(says(on_a100, "no fp8 tensor cores"));
}

namespace {
/// The measured step of a held-out case. A published tokens/s per GPU: global batch · seq_len / (GPUs ·
/// rate). A published TFLOP/s per GPU counted by Megatron-LM's num_floating_point_operations (the file's
/// flops_formula; megatron/training/training.py): 12 B s L h² ((1 + g/a + s/h)(a d/h) + (f/h) m + V/(2 L h)),
/// m = 3/2 for a gated MLP, over GPUs · rate.
double held_out_measured_step_s(const nlohmann::json& doc, const nlohmann::json& k) {
    const double B = k["global_batch"], gpus = k["gpus"], s = k["config"]["train"]["seq_len"];
    if (k.contains("published_tokens_per_s_per_gpu")) return B * s / (gpus * k["published_tokens_per_s_per_gpu"].get<double>());
    REQUIRE(doc.value("flops_formula", "") == "megatron_num_floating_point_operations");
    const nlohmann::json& m = k["config"]["model"];
    const double L = m["num_hidden_layers"], h = m["hidden_size"], a = m["num_attention_heads"], V = m["vocab_size"];
    const double g = m.value("num_key_value_heads", a), d = m.value("head_dim", h / a), f = m.value("intermediate_size", 4 * h);
    const double gated = m.value("mlp", std::string("plain")) == "gated" ? 1.5 : 1.0;
    const double F = 12 * B * s * L * h * h * ((1 + g / a + s / h) * (a * d / h) + (f / h) * gated + V / (2 * L * h));
    return F / (gpus * k["published_tflops_per_gpu"].get<double>() * 1e12);
}

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
}  // namespace

TEST_CASE("Held-out throughput corpus (set 2026-12): every published run at its published layout, the gap to the goal recorded", "[step_time][validation][held_out]") {
    // Eight files from four public sources, each written (inputs, assumptions, layouts) before memplan ran on it;
    // nothing in the model was fitted to them. Goal: within ±15 % on at least 80 % of the held-out runs and
    // median |error| under 8 %. When the set was written 23 of 84 runs (27 %) were within ±15 % and the median
    // |error| 23.6 %; with the expert-parallel all-to-all split by node (NVLink inside, the network across)
    // 24 and 23.2 %; with the distributed optimizer's parameter all-gather behind the next forward pass
    // (Megatron-LM --overlap-param-gather) 25 and 23.2 %. The gap is the MoE runs (memplan 21-75 % too fast inside a node, the step a caveat
    // states; +113 % for DeepSeek-V3 at ep 32 across four nodes, where DeepEP's one copy per node and the
    // all-to-all overlap are not modelled), torchtitan on 500 W H100s (context parallel 46-66 %, 2D and
    // async TP 10-49 % too fast), ZeRO-3 gathers on H200 (18 % too slow) and the dense fp8 runs (-17 % to
    // +34 %). Megatron-LM's bf16 weak scaling is met.
    // The figures below are floors and ceilings at that time: a change that improves the model raises them.
    struct source {
        const char* file;
        std::size_t runs;
        int within_15;       // floor
        double median_abs;   // ceiling
    };
    const source sources[] = {
        {"megatron-lm2024_h100_weak_scaling.json", 9, 8, 0.025},
        {"nemo2407_h100_fp8.json", 12, 8, 0.115},
        {"megatron-bridge2511_perf_summary.json", 11, 5, 0.350},
        {"megatron-bridge2602_perf_summary.json", 16, 2, 0.363},
        {"megatron-bridge2604_perf_summary.json", 10, 1, 0.419},
        {"torchtitan2024_h100_parallelisms.json", 12, 0, 0.465},
        {"torchtitan2025_h100_asynctp.json", 12, 1, 0.320},
        {"torchtitan2025_h200_trainy.json", 2, 0, 0.181},
    };
    std::vector<double> all;
    std::printf("\nHeld-out set 2026-12: %-42s %5s %9s %14s %15s %8s\n", "source", "runs", "within15", "median |error|", "median signed", "worst");
    for (const source& src : sources) {
        CAPTURE(src.file);
        const nlohmann::json doc = throughput_corpus(src.file);
        REQUIRE(doc["held_out_set"] == "2026-12");
        std::vector<double> errors, magnitudes;
        for (const auto& k : doc["cases"]) {
            const std::string name = k["name"];
            CAPTURE(name);
            const step_time_result t = corpus_step_time(k);
            const double measured = held_out_measured_step_s(doc, k);
            const double error = t.step_s / measured - 1;
            CAPTURE(t.step_s, measured, error, t.bottleneck);
            errors.push_back(error);
            magnitudes.push_back(std::fabs(error));
        }
        // A run memplan refused when the file was written (as `memplan step-time` answers it) stays refused;
        // when it is accepted, move it to cases.
        for (const auto& k : doc.value("left_out", nlohmann::json::array())) {
            if (!k.contains("config")) continue;
            const std::string name = k["name"];
            CAPTURE(name);
            const nlohmann::json request = {{"config", k["config"]}, {"gpu", k["gpu"]}, {"global_batch", k["global_batch"]}};
            CHECK_FALSE(nlohmann::json::parse(step_time_json(request.dump()))["errors"].empty());
        }
        REQUIRE(errors.size() == src.runs);
        const int within = static_cast<int>(std::count_if(magnitudes.begin(), magnitudes.end(), [](double e) { return e <= 0.15; }));
        const double worst = *std::max_element(errors.begin(), errors.end(), [](double x, double y) { return std::fabs(x) < std::fabs(y); });
        std::printf("Held-out set 2026-12: %-42s %5zu %9d %13.1f%% %+14.1f%% %+7.1f%%\n", src.file, errors.size(), within,
                    median_of(magnitudes) * 100, median_of(errors) * 100, worst * 100);
        CHECK(within >= src.within_15);
        CHECK(median_of(magnitudes) <= src.median_abs);
        all.insert(all.end(), errors.begin(), errors.end());
    }
    std::vector<double> magnitudes;
    for (const double e : all) magnitudes.push_back(std::fabs(e));
    const auto within = std::count_if(magnitudes.begin(), magnitudes.end(), [](double e) { return e <= 0.15; });
    std::printf("Held-out set 2026-12: %-42s %5zu %9d %13.1f%% %+14.1f%%\n", "all", all.size(), static_cast<int>(within),
                median_of(magnitudes) * 100, median_of(all) * 100);
    CHECK(all.size() == 84);
    CHECK(within >= 25);                     // goal: 0.8 · 84 ≈ 68
    CHECK(median_of(magnitudes) <= 0.233);   // goal: 0.08
    // The GEMM ceiling's caveat quotes Megatron-LM's H100 weak scaling (9 runs, median |error| to one decimal).
    const nlohmann::json weak = throughput_corpus("megatron-lm2024_h100_weak_scaling.json");
    std::vector<double> weak_errors;
    for (const auto& k : weak["cases"]) weak_errors.push_back(std::fabs(corpus_step_time(k).step_s / held_out_measured_step_s(weak, k) - 1));
    char quoted[64];
    std::snprintf(quoted, sizeof quoted, "median error %.1f %% over %zu runs", median_of(weak_errors) * 100, weak_errors.size());
    const std::string caveat = step_time_caveats(find_gpu("h100-sxm-80gb")->perf).at(0).message;
    CAPTURE(caveat);
    CHECK(caveat.find(quoted) != std::string::npos);
}

TEST_CASE("an MoE step time says what it leaves out and how far that was on the published runs inside a node", "[step_time][moe][held_out]") {
    // The held-out Megatron-Bridge runs whose expert-parallel group (ep · tp · cp) fits one node: the caveat's
    // count, range and median of how much shorter memplan's step is than the measured one.
    std::vector<double> shorter;
    for (const char* file : {"megatron-bridge2511_perf_summary.json", "megatron-bridge2602_perf_summary.json",
                             "megatron-bridge2604_perf_summary.json"}) {
        const nlohmann::json doc = throughput_corpus(file);
        for (const auto& k : doc["cases"]) {
            const nlohmann::json& p = k["config"].value("parallel", nlohmann::json::object());
            const int ep = p.value("ep", 1), span = ep * p.value("tp", 1) * p.value("cp", 1);
            if (ep <= 1 || span > p.value("gpus_per_node", 8)) continue;
            shorter.push_back(1 - corpus_step_time(k).step_s / held_out_measured_step_s(doc, k));
        }
    }
    REQUIRE(shorter.size() == 23);
    const auto [low, high] = std::minmax_element(shorter.begin(), shorter.end());
    CHECK(std::lround(*low * 100) == 21);
    CHECK(std::lround(*high * 100) == 75);
    CHECK(std::lround(median_of(shorter) * 100) == 43);
    CHECK(std::fabs(1 / (1 - median_of(shorter)) - 1.7) < 0.05);  // "budget about 1.7 times it"
    // The answer carries it for an MoE model, not for a dense one.
    const auto says = [](const char* config) {
        const gpu_entry* g = find_gpu("h100-sxm-80gb");
        REQUIRE(g != nullptr);
        for (const auto& w : step_time_caveats(g->perf, parsed(config)))
            if (w.field == "model.num_experts") return w.message;
        return std::string();
    };
    const std::string moe = says(R"({"mode": "train", "model": {"preset": "mixtral-8x7b"}})");
    CHECK(moe.find("23 published Megatron-Bridge MoE runs") != std::string::npos);
    CHECK(moe.find("21 to 75 % shorter") != std::string::npos);
    CHECK(moe.find("median 43 %") != std::string::npos);
    CHECK(says(R"({"mode": "train", "model": {"preset": "llama-3.1-8b"}})").empty());
}

TEST_CASE("expert parallelism across two nodes: copies for the same node go over NVLink, against a published run", "[step_time][moe]") {
    // Megatron-Bridge 26.04.01 performance summary (tests/data/throughput/megatron-bridge2604_perf_summary.json):
    // Qwen3-30B-A3B on 16 H100, ep 16 over two nodes, fp8. Half of each rank's top-8 copies go to the seven
    // peers on its node, half across the network; charging all of them to the network (the model before)
    // gave a step 51 % too long.
    const nlohmann::json doc = throughput_corpus("megatron-bridge2604_perf_summary.json");
    bool found = false;
    for (const auto& k : doc["cases"]) {
        if (k["name"] != "Megatron-Bridge 26.04.01 Qwen3_30B_a3B, 16 H100, FP8") continue;
        found = true;
        const step_time_result t = corpus_step_time(k);
        const double measured = held_out_measured_step_s(doc, k);
        CAPTURE(t.step_s, measured);
        CHECK(std::fabs(t.step_s / measured - 1) < 0.05);
        // The same layout inside one node of 16 GPUs (all NVLink) is faster still, and one of 1 GPU per node slower.
        nlohmann::json wide = k, narrow = k;
        wide["config"]["parallel"]["gpus_per_node"] = 16;
        narrow["config"]["parallel"]["gpus_per_node"] = 1;
        CHECK(corpus_step_time(wide).step_s < t.step_s);
        CHECK(corpus_step_time(narrow).step_s > t.step_s);
    }
    CHECK(found);
}

TEST_CASE("GB200's 72-GPU NVLink domain and the H800's cut NVLink are in the catalogue's time figures", "[step_time][gpus]") {
    // GB200 NVL72 (nvidia.com/en-us/data-center/gb200-nvl72): 360 PFLOPS BF16 and 720 PFLOPS FP8 with sparsity,
    // 576 TB/s of HBM3e and 130 TB/s of NVLink over 72 GPUs: per GPU 2,500 and 5,000 dense TFLOPS, 8 TB/s,
    // 900 GB/s each way. H800 (DeepSeek-V3, arXiv:2412.19437 §3.2.2): 160 GB/s NVLink, 50 GB/s InfiniBand.
    const gpu_entry* gb200 = find_gpu("gb200-186gb");
    const gpu_entry* h800 = find_gpu("h800-sxm-80gb");
    const gpu_entry* h100 = find_gpu("h100-sxm-80gb");
    REQUIRE(gb200 != nullptr);
    REQUIRE(h800 != nullptr);
    CHECK(gb200->perf.dense_bf16_flops_per_s == 2500e12);
    CHECK(gb200->perf.dense_fp8_flops_per_s == 5000e12);
    CHECK(gb200->perf.hbm_bytes_per_s == 8000e9);
    CHECK(gb200->perf.intra_node_bytes_per_s == 900e9);
    CHECK(gb200->perf.nvlink_domain_gpus == 72);
    CHECK(h800->perf.intra_node_bytes_per_s == 160e9);
    CHECK(h800->perf.dense_bf16_flops_per_s == h100->perf.dense_bf16_flops_per_s);
    // MI325X (amd.com): the MI300X's compute with 6 TB/s; L40S (nvidia.com): 362 dense BF16 TFLOPS, 864 GB/s,
    // PCIe between its GPUs; both timed now, where they were refused before.
    CHECK(find_gpu("mi325x-256gb")->perf.ok());
    CHECK(find_gpu("mi325x-256gb")->perf.hbm_bytes_per_s == 6000e9);
    CHECK(find_gpu("l40s-48gb")->perf.ok());
    CHECK(find_gpu("l40s-48gb")->perf.intra_node_bytes_per_s == 32e9);
    // Llama 3.1 70B at tp 8 × dp 8 on 64 GPUs: in 8-GPU nodes the answer says the domain is wider; with the
    // domain's 72 the data-parallel reduction runs over NVLink and the step is shorter.
    const std::string base = R"({"mode": "train", "model": {"preset": "llama-3.1-70b"}, "train": {"seq_len": 8192, "micro_batch": 1,
        "recompute": "full"}, "parallel": {"gpus": 64, "tp": 8, "zero_stage": 1, "gpus_per_node": )";
    const estimate_config in_nodes = parsed(base + "8}}"), in_rack = parsed(base + "64}}");
    const auto said = [&](const estimate_config& c) {
        for (const auto& w : step_time_caveats(gb200->perf, c))
            if (w.field == "parallel.gpus_per_node") return true;
        return false;
    };
    CHECK(said(in_nodes));
    CHECK_FALSE(said(in_rack));
    step_options o;
    o.overlap_grad_reduce = false;
    CHECK(step_time(in_rack, gb200->perf, o).step_s < step_time(in_nodes, gb200->perf, o).step_s);
    // The H800's narrower NVLink makes the same tensor-parallel step slower than on an H100.
    CHECK(step_time(in_nodes, h800->perf, o).step_s > step_time(in_nodes, h100->perf, o).step_s);
}

TEST_CASE("a sharded optimizer's parameter all-gather hides behind the next forward pass, not under DeepSpeed", "[step_time]") {
    // Llama 3.1 8B on 64 A100s (8 nodes), dp 64: the gradient reduction's two halves. With Megatron-LM's
    // distributed optimizer (ZeRO 1) the reduce-scatter hides behind the last backward pass and the
    // all-gather behind the next forward pass; DeepSpeed gathers at the end of its step, so its exposed
    // time is at least as large; without overlap the whole volume is exposed.
    const gpu_entry* a100 = find_gpu("a100-sxm-80gb");
    REQUIRE(a100 != nullptr);
    const std::string base = R"({"mode": "train", "model": {"preset": "llama-3.1-8b"}, "train": {"seq_len": 4096, "micro_batch": 1,
        "recompute": "full"}, "parallel": {"gpus": 64, "zero_stage": 1)";
    const auto dp_term = [](const step_time_result& t) {
        for (const auto& term : t.terms)
            if (term.name == "dp_comm") return term;
        FAIL("no dp_comm");
        return step_term{};
    };
    step_options o;
    const step_time_result megatron = step_time(parsed(base + "}}"), a100->perf, o);
    const step_time_result deepspeed = step_time(parsed(base + R"(, "comm_buffers": "deepspeed"}})"), a100->perf, o);
    o.overlap_param_gather = false;
    const step_time_result no_gather_overlap = step_time(parsed(base + "}}"), a100->perf, o);
    o.overlap_grad_reduce = false;
    const step_time_result none = step_time(parsed(base + "}}"), a100->perf, o);
    CHECK(dp_term(megatron).busy_seconds == Approx(dp_term(none).busy_seconds));
    CHECK(dp_term(none).seconds == Approx(dp_term(none).busy_seconds));
    CHECK(dp_term(megatron).seconds <= dp_term(no_gather_overlap).seconds);
    CHECK(dp_term(megatron).seconds <= dp_term(deepspeed).seconds);
    CHECK(dp_term(no_gather_overlap).seconds < dp_term(none).seconds);
}
