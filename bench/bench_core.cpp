// memplan_bench — native timings of the core: estimate() with and without the per-tensor activation
// list, the JSON round trip (estimate_json) and analyze() for Llama-3-70B training on 1,024 GPUs
// (tp 8, pp 4 and pp 80) and a pp = 1024 training configuration. Prints the median of repeated runs
// (each run times a batch of calls; the median is per call) and a checksum so that nothing is
// optimised away. Timings only inform: the program fails only when an estimate fails.
//
// Usage: memplan_bench [--quick]   (--quick: few iterations, for CI)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "memplan/search/analyze.hpp"
#include "memplan/report/json.hpp"
#include "memplan/api/estimate.hpp"
#include "memplan/api/fast_estimate.hpp"
#include "memplan/io/json.hpp"

// Heap allocations, counted by this program's own global operator new (a replaceable function,
// [replacement.functions]); new[] and the sized deletes reach these through their defaults.
namespace {
std::uint64_t heap_allocations = 0;
}  // namespace

void* operator new(std::size_t size) {
    ++heap_allocations;
    if (void* p = std::malloc(size != 0 ? size : 1)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

using clock_type = std::chrono::steady_clock;
volatile std::uint64_t sink = 0;

/// Median seconds per call of `fn` over `runs` batches of `batch` calls.
template <typename Fn>
double median_per_call(int runs, int batch, Fn&& fn) {
    std::vector<double> per_call;
    for (int r = 0; r < runs; ++r) {
        const auto start = clock_type::now();
        for (int i = 0; i < batch; ++i) sink = sink + fn();
        const std::chrono::duration<double> elapsed = clock_type::now() - start;
        per_call.push_back(elapsed.count() / batch);
    }
    std::sort(per_call.begin(), per_call.end());
    return per_call[per_call.size() / 2];
}

memplan::estimate_config parse(const std::string& text) {
    auto parsed = memplan::parse_config(text);
    if (!parsed.ok()) {
        std::fprintf(stderr, "memplan_bench: bad configuration %s: %s\n", text.c_str(), parsed.errors[0].message.c_str());
        std::exit(1);
    }
    return parsed.value;
}

/// Llama-3-70B training, tp 8, on `gpus` GPUs with `pp` pipeline stages (pp 80 needs a multiple of 640 GPUs).
std::string llama70b_train(int gpus, int pp) {
    return R"({"model":{"preset":"llama-3-70b"},"mode":"train","parallel":{"gpus":)" + std::to_string(gpus) +
           R"(,"tp":8,"pp":)" + std::to_string(pp) +
           R"(,"zero_stage":1,"sequence_parallel":true},"train":{"micro_batch":1,"seq_len":8192,"recompute":"selective","flash_attention":true},"gpu":{"memory_bytes":80000000000}})";
}

}  // namespace

int main(int argc, char** argv) {
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    const int runs = quick ? 3 : 15;
    const int scale = quick ? 1 : 20;

    const std::string text4 = llama70b_train(1024, 4), text80 = llama70b_train(1280, 80);
    const std::string text1024 = R"({"model":{"num_hidden_layers":1024,"hidden_size":64,"num_attention_heads":1},"parallel":{"gpus":1024,"pp":1024},"gpu":{"memory_bytes":80e9}})";
    const memplan::estimate_config c4 = parse(text4), c80 = parse(text80), c1024 = parse(text1024);
    if (!memplan::estimate(c4).errors.empty() || !memplan::estimate(c80).errors.empty()) {
        std::fprintf(stderr, "memplan_bench: the benchmark configuration does not estimate\n");
        return 1;
    }

    std::printf("memplan_bench (%s): median per call\n", quick ? "quick" : "full");
    const memplan::estimate_options totals{false};
    const double core_totals = median_per_call(runs, 500 * scale, [&] { return memplan::estimate(c4, totals).per_gpu.total; });
    const double core_full = median_per_call(runs, 200 * scale, [&] { return memplan::estimate(c4).per_gpu.total; });
    const double json = median_per_call(runs, 20 * scale, [&] { return memplan::estimate_json(text4).size(); });
    // The hot path of searches (analyze) and of the numeric fast path: the model's counts reused.
    const memplan::model_counts counts4 = memplan::count_model(c4.model);
    memplan::estimate_options hot{false, &counts4};
    const double core_hot = median_per_call(runs, 2000 * scale, [&] { return memplan::estimate(c4, hot).per_gpu.total; });
    const std::uint64_t allocations_before = heap_allocations;
    for (int i = 0; i < 1000; ++i) sink = sink + memplan::estimate(c4, hot).per_gpu.total;
    const double hot_allocations = static_cast<double>(heap_allocations - allocations_before) / 1000;
    std::printf("  estimate, Llama-3-70B train tp8 pp4, counts reused %10.3f us, %.1f heap allocations per call\n",
                core_hot * 1e6, hot_allocations);
    const std::uint64_t counted_before = heap_allocations;
    for (int i = 0; i < 100; ++i) sink = sink + memplan::estimate(c4, totals).per_gpu.total;
    const double totals_allocations = static_cast<double>(heap_allocations - counted_before) / 100;
    std::printf("  estimate, same, totals only (counts each call)    %10.3f us, %.1f heap allocations per call\n",
                core_totals * 1e6, totals_allocations);
    std::printf("  estimate, same, with the per-tensor list          %10.3f us\n", core_full * 1e6);
    std::printf("  estimate_json (parse + estimate + write)          %10.3f us\n", json * 1e6);
    const double core_pp80 = median_per_call(runs, 200 * scale, [&] { return memplan::estimate(c80, totals).per_gpu.total; });
    std::printf("  estimate, Llama-3-70B train tp8 pp80 (1280 GPUs)   %10.3f us\n", core_pp80 * 1e6);

    const int analyze_runs = quick ? 3 : 9;
    const double a4 = median_per_call(analyze_runs, quick ? 1 : 5, [&] { return memplan::analyze(c4).sweep.size(); });
    const double a80 = median_per_call(analyze_runs, quick ? 1 : 5, [&] { return memplan::analyze(c80).sweep.size(); });
    const double a1024 = median_per_call(analyze_runs, 1, [&] { return memplan::analyze(c1024).sweep.size(); });
    std::printf("  analyze, Llama-3-70B train 1024 GPUs tp8 pp4      %10.3f ms\n", a4 * 1e3);
    std::printf("  analyze, tp8 pp80 on 1280 GPUs                    %10.3f ms\n", a80 * 1e3);
    std::printf("  analyze, 1024-layer toy model, pp1024 (fuzz case) %10.3f ms\n", a1024 * 1e3);
    std::printf("  (checksum %llu)\n", static_cast<unsigned long long>(sink));
    return 0;
}
