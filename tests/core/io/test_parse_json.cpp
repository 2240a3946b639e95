// detail::parse_json (core/src/io/json.cpp), the core's one JSON parse: the document it builds from
// nlohmann's SAX events is the one nlohmann's own parser builds, it refuses what nlohmann refuses, and
// it names the first key given twice in one object (and only such a key).
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "io/json_text.hpp"
#include "memplan/io/presets.hpp"
#include "memplan/report/json.hpp"
#include "memplan/config/schema.hpp"

using memplan::detail::ordered_json;
using memplan::detail::parse_json;

namespace {
std::string text_of(const ordered_json& v) { return v.dump(-1, ' ', false, ordered_json::error_handler_t::replace); }

/// parse_json and nlohmann's parser agree on `text`: both refuse it, or both give the same document
/// (compared as values and as text, which also compares the order of the keys).
void agree(const std::string& text) {
    INFO(text);
    ordered_json ours;
    memplan::detail::repeated_key repeated;
    const bool ok = parse_json(text, ours, &repeated);
    const ordered_json theirs = ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
    CHECK(ok == !theirs.is_discarded());
    if (ok) {
        CHECK(ours == theirs);
        CHECK(text_of(ours) == text_of(theirs));
    } else {
        CHECK(ours.is_null());
    }
}

/// The key parse_json reports as repeated, or "(none)".
std::string duplicate_in(const std::string& text) {
    ordered_json doc;
    memplan::detail::repeated_key repeated;
    parse_json(text, doc, &repeated);
    return repeated.found ? repeated.key : "(none)";
}
}  // namespace

TEST_CASE("parse_json builds the documents nlohmann's parser builds", "[json]") {
    agree(memplan::model_presets_json());
    agree(memplan::schema_json());
    for (const char* text : {"{}", "[]", "null", "true", "0", "-0", "1.5e300", "18446744073709551615", "-9223372036854775808",
                             "\"caf\\u00e9\"", R"({"a":{},"b":[],"c":[[],{}],"d":null,"e":true,"f":false,"g":[1,-1,1.5,"x"]})",
                             R"([[[[{"deep":[{"x":[1,{"y":2}]}]}]]],{"z":3}])", R"({"b":1,"a":2,"c":{"b":3,"a":4}})"})
        agree(text);
}

TEST_CASE("parse_json refuses what is not one JSON value", "[json]") {
    for (const char* text : {"", " ", "{", "}", "[1,]", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{} {}", "[1] x", "nul",
                             "1e400", "-1e400", "\"unterminated", "\"bad \\x escape\"", "{\"a\":1}\"", "01", "+1", ".5",
                             "[1 2]", "{'a':1}", "\x01"}) {
        agree(text);
        ordered_json doc = ordered_json::object();
        CHECK_FALSE(parse_json(text, doc));
        CHECK(doc.is_null());
    }
}

TEST_CASE("parse_json names the first key given twice in one object", "[json]") {
    CHECK(duplicate_in(R"({"a":1,"b":{"a":2},"a":3})") == "a");
    CHECK(duplicate_in(R"({"x":{"y":1,"y":2}})") == "y");
    CHECK(duplicate_in(R"({"b":1,"a":1,"a":2,"b":2})") == "a");
    CHECK(duplicate_in(R"({"":1,"":2})") == "");               // the empty key is a key
    CHECK(duplicate_in(R"([{"a":1},{"a":2}])") == "(none)");   // the same key in sibling objects
    CHECK(duplicate_in(R"({"a":{"a":{"a":1}}})") == "(none)");  // and in nested ones
    CHECK(duplicate_in(R"({"a":1,"A":2})") == "(none)");        // keys are case-sensitive
    CHECK(duplicate_in(R"({"a":[{"b":1}],"c":{"b":2,"d":[{"b":3,"b":4}]}})") == "b");
    // Without a place to report it the later value wins, as in nlohmann's parser.
    ordered_json doc;
    REQUIRE(parse_json(R"({"a":1,"b":2,"a":3})", doc));
    CHECK(text_of(doc) == R"({"a":3,"b":2})");
    agree(R"({"a":1,"b":2,"a":3})");
}

TEST_CASE("parse_json on random documents", "[json]") {
    std::mt19937_64 rng(20261130);
    const auto random_key = [&] {
        std::string s;
        for (std::size_t i = rng() % 3; i > 0; --i) s += static_cast<char>('a' + rng() % 3);  // few names: repeats
        return s;
    };
    std::function<std::string(int)> random_text = [&](int depth) -> std::string {
        switch (rng() % (depth > 3 ? 6 : 8)) {
            case 0: return "null";
            case 1: return rng() % 2 == 0 ? "true" : "false";
            case 2: return std::to_string(static_cast<std::int64_t>(rng()));
            case 3: return std::to_string(rng());
            case 4: return text_of(ordered_json(std::ldexp(static_cast<double>(rng() % 100000) - 50000, static_cast<int>(rng() % 80) - 40)));
            case 5: return text_of(ordered_json(random_key() + "\xc3\xa9\\"));
            case 6: {
                std::string a = "[";
                for (std::size_t i = rng() % 4; i > 0; --i) a += random_text(depth + 1) + (i > 1 ? "," : "");
                return a + "]";
            }
            default: {
                std::string o = "{";
                for (std::size_t i = rng() % 4; i > 0; --i) o += text_of(ordered_json(random_key())) + ":" + random_text(depth + 1) + (i > 1 ? "," : "");
                return o + "}";
            }
        }
    };
    int documents = 0, with_duplicates = 0;
    for (int k = 0; k < 3000; ++k) {
        const std::string text = random_text(0);
        agree(text);
        // A key is reported exactly when some object of the document repeats one (found here from
        // nlohmann's own parser events).
        bool repeated = false;
        std::vector<std::vector<std::string>> open;
        const ordered_json::parser_callback_t watch = [&](int, ordered_json::parse_event_t event, ordered_json& parsed) {
            if (event == ordered_json::parse_event_t::object_start) open.emplace_back();
            if (event == ordered_json::parse_event_t::object_end) open.pop_back();
            if (event == ordered_json::parse_event_t::key) {
                const std::string key = parsed.get<std::string>();
                for (const auto& seen : open.back()) repeated = repeated || seen == key;
                open.back().push_back(key);
            }
            return true;
        };
        CHECK_FALSE(ordered_json::parse(text, watch, false).is_discarded());  // the generator writes valid JSON
        CHECK((duplicate_in(text) != "(none)") == repeated);
        ++documents;
        with_duplicates += repeated ? 1 : 0;
    }
    CHECK(documents == 3000);
    CHECK(with_duplicates > 50);  // the generator does produce repeated keys (75 of the 3,000 with this seed)
}
