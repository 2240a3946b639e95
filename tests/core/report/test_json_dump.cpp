// detail::dump_json (core/src/json_dump.cpp) writes byte for byte what nlohmann's
// dump(-1, ' ', false, error_handler_t::replace) writes: on memplan's own outputs, on hand-picked
// hostile values (escapes, control bytes, DEL, UTF-8, invalid UTF-8, extreme integers, floats, NaN),
// and on 3,000 random documents.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "io/json_text.hpp"
#include "memplan/search/analyze.hpp"
#include "memplan/report/json.hpp"
#include "memplan/io/json.hpp"
#include "memplan/io/presets.hpp"
#include "memplan/config/schema.hpp"

using memplan::detail::dump_json;
using memplan::detail::ordered_json;

namespace {
std::string reference(const ordered_json& v) { return v.dump(-1, ' ', false, ordered_json::error_handler_t::replace); }

void same(const ordered_json& v) {
    INFO(reference(v));
    CHECK(dump_json(v) == reference(v));
}
}  // namespace

TEST_CASE("dump_json writes memplan's outputs as nlohmann does", "[json]") {
    for (const char* config : {R"({"model":{"preset":"llama-3-70b"},"parallel":{"gpus":1024,"tp":8,"pp":4},"gpu":{"memory_bytes":80e9}})",
                               R"({"model":{"preset":"qwen3-30b-a3b"},"mode":"infer","infer":{"engine":"vllm"},"gpu":{"memory_bytes":80e9}})",
                               R"({"model":{"preset":"llama-3-8b"},"train":{"adapter_type":"lora","base_dtype":"nf4"},"gpu":{"memory_bytes":24e9}})",
                               R"({"model":{"nope":1},"parallel":{"gpus":-1}})"}) {
        // The outputs are dump_json's; parsing them back and dumping with nlohmann must give the same text.
        for (const std::string& text : {memplan::estimate_json(config), memplan::analyze_json(config)}) {
            const ordered_json doc = ordered_json::parse(text);
            CHECK(reference(doc) == text);
            same(doc);
        }
    }
    same(ordered_json::parse(memplan::model_presets_json()));
    same(ordered_json::parse(memplan::schema_json()));
}

TEST_CASE("dump_json on hostile values", "[json]") {
    const std::string strings[] = {"", "plain", "quote \" inside", "back\\slash", "tab\there", "new\nline",
                                   std::string("nul\0byte", 8), "\x01\x1f\x7f", "caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80",
                                   "bad \xff byte", "lone \x80 continuation", "cut \xe2\x80", "\b\f\r"};
    for (const auto& s : strings) {
        same(ordered_json(s));
        ordered_json object = ordered_json::object();
        object[s] = s;
        same(object);
    }
    for (const double d : {0.0, -0.0, 0.1, 1.0, -2.5, 1e-5, 1e300, 123456789.125, std::nan(""),
                           std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()})
        same(ordered_json(d));
    same(ordered_json(std::numeric_limits<std::int64_t>::min()));
    same(ordered_json(std::numeric_limits<std::int64_t>::max()));
    same(ordered_json(std::numeric_limits<std::uint64_t>::max()));
    same(ordered_json(std::int64_t{-1}));
    same(ordered_json(std::uint64_t{0}));
    same(ordered_json::parse(R"({"a":{},"b":[],"c":[[],{}],"d":null,"e":true,"f":false,"g":[1,-1,1.5,"x"]})"));
}

TEST_CASE("dump_json on random documents", "[json]") {
    std::mt19937_64 rng(20261130);
    const auto random_string = [&] {
        std::string s;
        const std::size_t n = rng() % 8;
        for (std::size_t i = 0; i < n; ++i)
            s += rng() % 3 == 0 ? static_cast<char>(rng() % 256) : static_cast<char>('a' + rng() % 26);
        return s;
    };
    std::function<ordered_json(int)> random_value = [&](int depth) -> ordered_json {
        switch (rng() % (depth > 3 ? 6 : 8)) {
            case 0: return nullptr;
            case 1: return rng() % 2 == 0;
            case 2: return static_cast<std::int64_t>(rng());
            case 3: return rng();
            case 4: return std::ldexp(static_cast<double>(rng() % 100000) - 50000, static_cast<int>(rng() % 80) - 40);
            case 5: return random_string();
            case 6: {
                ordered_json a = ordered_json::array();
                for (std::size_t i = rng() % 4; i > 0; --i) a.push_back(random_value(depth + 1));
                return a;
            }
            default: {
                ordered_json o = ordered_json::object();
                for (std::size_t i = rng() % 4; i > 0; --i) o[random_string()] = random_value(depth + 1);
                return o;
            }
        }
    };
    int differ = 0;
    for (int k = 0; k < 3000; ++k) {
        const ordered_json v = random_value(0);
        if (dump_json(v) != reference(v)) {
            ++differ;
            UNSCOPED_INFO(reference(v));
        }
    }
    CHECK(differ == 0);
}
