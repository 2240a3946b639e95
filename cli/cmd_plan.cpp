// memplan plan: the layout planner (core/src/search/plan.cpp through plan_json), as a ranked table or
// as the JSON object the WebAssembly API's mp.plan() returns.
#include <cstdio>
#include <iostream>
#include <optional>

#include <nlohmann/json.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "input.hpp"
#include "memplan/io/json.hpp"
#include "memplan/report/json.hpp"
#include "report.hpp"

namespace memplan::cli {

namespace {

/// "1.23 s", "45.6 ms": a duration for the table.
std::string seconds_text(double s) {
    char buffer[32];
    if (s >= 1) std::snprintf(buffer, sizeof buffer, "%.2f s", s);
    else std::snprintf(buffer, sizeof buffer, "%.1f ms", s * 1e3);
    return buffer;
}

std::string fixed(double v, int digits) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
    return buffer;
}

/// --gemm-efficiency's number; the core checks its range.
double number_or_error(const std::string& text, diagnostics& errors) {
    try {
        return std::stod(text);
    } catch (const std::exception&) {
        errors.push_back({"gemm-efficiency", "must be a number in (0, 1]"});
        return 0;
    }
}

/// The answer's warnings, each with its field, after the figures they qualify.
void print_warnings(const nlohmann::json& out) {
    for (const auto& w : out["warnings"])
        std::cout << "warning: " << w["field"].get<std::string>() << ": " << w["message"].get<std::string>() << "\n";
}

void print_text(const nlohmann::json& out) {
    const bool train = out["mode"] == "train";
    std::cout << "memplan plan on " << out["gpu"].get<std::string>() << ": " << with_commas(out["considered"].get<std::uint64_t>())
              << " layouts tried, " << with_commas(out["fitting"].get<std::uint64_t>()) << " fit; the best " << out["top"].size() << ":\n";
    int rank = 0;
    for (const auto& l : out["top"]) {
        std::cout << "  " << ++rank << ". " << with_commas(l["gpus"].get<std::uint64_t>()) << " GPUs, " << l["text"].get<std::string>() << "\n     ";
        if (train)
            std::cout << "step " << seconds_text(l["step_s"].get<double>()) << ", " << with_commas(static_cast<std::uint64_t>(l["tokens_per_s_per_gpu"].get<double>()))
                      << " tokens/s/GPU, MFU " << fixed(100 * l["mfu"].get<double>(), 1) << " %, bottleneck " << l["bottleneck"].get<std::string>();
        else
            std::cout << "decode " << with_commas(static_cast<std::uint64_t>(l["decode_tokens_per_s_per_gpu"].get<double>())) << " tokens/s/GPU ("
                      << seconds_text(l["decode_step_s"].get<double>()) << " a step), prefill " << seconds_text(l["prefill_s"].get<double>());
        std::cout << "; " << in_units(l["total_bytes"].get<std::uint64_t>(), true) << " per GPU, headroom "
                  << in_units(l["headroom_bytes"].get<std::uint64_t>(), true) << "\n";
        if (train && rank == 1)
            for (const auto& t : l["terms"])
                std::cout << "       " << t["name"].get<std::string>() << ": " << seconds_text(t["seconds"].get<double>()) << " — " << t["how"].get<std::string>() << "\n";
    }
    if (out["by_gpus"].size() > 1) std::cout << "the best at each GPU count:\n";
    for (const auto& row : out["by_gpus"]) {
        if (out["by_gpus"].size() < 2) break;
        std::cout << "  " << with_commas(row["gpus"].get<std::uint64_t>()) << " GPUs: " << with_commas(row["considered"].get<std::uint64_t>())
                  << " tried, " << with_commas(row["fitting"].get<std::uint64_t>()) << " fit";
        const auto& b = row["best"];
        if (b.is_null()) std::cout << ", none fits\n";
        else if (train) std::cout << "; step " << seconds_text(b["step_s"].get<double>()) << ", " << in_units(b["total_bytes"].get<std::uint64_t>(), true) << " per GPU, " << b["text"].get<std::string>() << "\n";
        else std::cout << "; decode " << with_commas(static_cast<std::uint64_t>(b["decode_tokens_per_s_per_gpu"].get<double>())) << " tokens/s/GPU, "
                       << in_units(b["total_bytes"].get<std::uint64_t>(), true) << " per GPU, " << b["text"].get<std::string>() << "\n";
    }
    if (!out["rejected"].empty()) std::cout << "rejected:\n";
    for (const auto& r : out["rejected"])
        std::cout << "  " << with_commas(r["count"].get<std::uint64_t>()) << " × " << r["reason"].get<std::string>() << " (e.g. " << r["example"].get<std::string>() << ")\n";
    if (!out["empty_reason"].get<std::string>().empty()) std::cout << "no layout: " << out["empty_reason"].get<std::string>() << "\n";
    print_warnings(out);
}

/// The request's `config` (from --config FILE or -) and `gpu` (--gpu ID), shared by step-time and plan;
/// the exit code when either is missing or unreadable, after reporting it.
std::optional<int> read_request(const parsed_args& args, nlohmann::json& request) {
    if (!args.has("config") || !args.has("gpu")) return usage_error("--config FILE.json (or -) and --gpu ID are required");
    auto text = read_input(*args.value("config"), "config", /*required=*/true);
    if (!text.errors.empty()) return report_errors(text.errors, args.has("json"));
    request["config"] = nlohmann::json::parse(text.value, nullptr, false);
    if (request["config"].is_discarded()) return report_errors({{"config", "is not valid JSON"}}, args.has("json"));
    request["gpu"] = *args.value("gpu");
    return std::nullopt;
}

}  // namespace

int run_step_time(const std::vector<std::string>& argv) {
    const auto args = parse_args(argv, {{"config", {"c"}, true}, {"gpu", {}, true}, {"global-batch", {}, true},
                                        {"gemm-efficiency", {}, true}, {"no-overlap-grad-reduce", {}, false}, {"json", {}, false}});
    if (!args.error.empty()) return usage_error(args.error);
    nlohmann::json request;
    if (const auto failed = read_request(args, request)) return *failed;
    diagnostics errors;
    if (args.has("global-batch")) request["global_batch"] = quantity(args, "global-batch", 0, errors);
    if (args.has("no-overlap-grad-reduce")) request["overlap_grad_reduce"] = false;
    if (const auto e = args.value("gemm-efficiency")) request["gemm_efficiency"] = number_or_error(*e, errors);
    if (!errors.empty()) return report_errors(errors, args.has("json"));
    const std::string reply = step_time_json(request.dump());
    const nlohmann::json out = nlohmann::json::parse(reply);
    if (args.has("json") || !out["errors"].empty()) {
        if (args.has("json")) std::cout << reply << "\n";
        for (const auto& e : out["errors"])
            if (!args.has("json")) std::cerr << "memplan step-time: " << e["field"].get<std::string>() << " " << e["message"].get<std::string>() << "\n";
        return out["errors"].empty() ? 0 : exit_usage;
    }
    std::cout << "step " << seconds_text(out["step_s"].get<double>()) << ", " << with_commas(static_cast<std::uint64_t>(out["tokens_per_s_per_gpu"].get<double>()))
              << " tokens/s/GPU, MFU " << fixed(100 * out["mfu"].get<double>(), 1) << " %, bottleneck " << out["bottleneck"].get<std::string>() << "\n";
    for (const auto& t : out["terms"])
        std::cout << "  " << t["name"].get<std::string>() << ": " << seconds_text(t["seconds"].get<double>()) << " — " << t["how"].get<std::string>() << "\n";
    print_warnings(out);
    return 0;
}

int run_plan(const std::vector<std::string>& argv) {
    const auto args = parse_args(argv, {{"config", {"c"}, true}, {"gpu", {}, true}, {"gpus", {}, true}, {"min-gpus", {}, true},
                                        {"max-gpus", {}, true}, {"global-batch", {}, true}, {"top", {}, true},
                                        {"gemm-efficiency", {}, true}, {"json", {}, false}});
    if (!args.error.empty()) return usage_error(args.error);
    nlohmann::json request;
    if (const auto failed = read_request(args, request)) return *failed;
    diagnostics errors;
    const auto put = [&](const char* option, const char* key) {
        if (args.has(option)) request[key] = quantity(args, option, 0, errors);
    };
    put("gpus", "gpus");
    put("min-gpus", "min_gpus");
    put("max-gpus", "max_gpus");
    put("global-batch", "global_batch");
    put("top", "top_n");
    if (const auto e = args.value("gemm-efficiency")) request["gemm_efficiency"] = number_or_error(*e, errors);
    if (!errors.empty()) return report_errors(errors, args.has("json"));
    const std::string reply = plan_json(request.dump());
    const nlohmann::json out = nlohmann::json::parse(reply);
    if (!out["errors"].empty()) {
        if (args.has("json")) std::cout << reply << "\n";
        else
            for (const auto& e : out["errors"]) std::cerr << "memplan plan: " << e["field"].get<std::string>() << " " << e["message"].get<std::string>() << "\n";
        return exit_usage;
    }
    if (args.has("json")) std::cout << reply << "\n";
    else print_text(out);
    return 0;
}

}  // namespace memplan::cli
