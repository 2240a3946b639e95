// memplan — internal: the macros that write one schema row (memplan/schema.hpp) from a member of
// estimate_config, so that a field's reader, range check and echo come from one line.
#pragma once

#include "memplan/config/schema.hpp"

namespace memplan::detail {
/// A row of another type or with "0 means not set"; constexpr, so that the tables stay constant data
/// (built at compile time, no code runs to fill them).
constexpr field_spec row_with(field_spec row, field_type type, bool unset_is_zero) {
    row.type = type;
    row.unset_is_zero = unset_is_zero;
    return row;
}
}  // namespace memplan::detail

/// An integer field stored in MEMBER (of estimate_config), allowed from LO to HI.
#define MEMPLAN_INTEGER(PATH, MEMBER, LO, HI, LABEL, HELP, UNIT, MODES)                                \
    ::memplan::field_spec {                                                                           \
        PATH, ::memplan::field_type::integer, LO, HI, nullptr, LABEL, HELP, UNIT, MODES,              \
            [](const ::memplan::estimate_config& c) {                                                 \
                ::memplan::field_value v;                                                             \
                v.number = static_cast<std::uint64_t>(c.MEMBER);                                      \
                return v;                                                                             \
            },                                                                                        \
            [](::memplan::estimate_config& c, const ::memplan::field_value& v) {                      \
                c.MEMBER = static_cast<decltype(c.MEMBER)>(v.number);                                 \
                return true;                                                                          \
            },                                                                                        \
            false,                                                                                    \
            [](const ::memplan::estimate_config& c) { return static_cast<std::uint64_t>(c.MEMBER); }  \
    }

/// An integer field whose 0 means "not set" (a derived default), allowed from LO (≥ 1) to HI when given.
#define MEMPLAN_OPTIONAL_INTEGER(PATH, MEMBER, LO, HI, LABEL, HELP, UNIT, MODES)                       \
    ::memplan::detail::row_with(MEMPLAN_INTEGER(PATH, MEMBER, LO, HI, LABEL, HELP, UNIT, MODES),          \
                                ::memplan::field_type::integer, true)

/// A byte count (0 means "not set" when OPTIONAL is true).
#define MEMPLAN_BYTES(PATH, MEMBER, LO, HI, OPTIONAL, LABEL, HELP, MODES)                             \
    ::memplan::detail::row_with(MEMPLAN_INTEGER(PATH, MEMBER, LO, HI, LABEL, HELP, "bytes", MODES),       \
                                ::memplan::field_type::bytes, OPTIONAL)

/// A true/false field.
#define MEMPLAN_BOOLEAN(PATH, MEMBER, LABEL, HELP, MODES)                                             \
    ::memplan::field_spec {                                                                           \
        PATH, ::memplan::field_type::boolean, 0, 1, nullptr, LABEL, HELP, "", MODES,                  \
            [](const ::memplan::estimate_config& c) {                                                 \
                ::memplan::field_value v;                                                             \
                v.flag = c.MEMBER;                                                                    \
                return v;                                                                             \
            },                                                                                        \
            [](::memplan::estimate_config& c, const ::memplan::field_value& v) {                      \
                c.MEMBER = v.flag;                                                                    \
                return true;                                                                          \
            },                                                                                        \
            false, nullptr                                                                            \
    }

/// One of the names of MEMBER's enumeration (config.hpp's to_string / parse_enum / choice_names).
#define MEMPLAN_CHOICE(PATH, MEMBER, LABEL, HELP, MODES)                                              \
    ::memplan::field_spec {                                                                           \
        PATH, ::memplan::field_type::choice, 0, 0,                                                    \
            [] { return ::memplan::choice_names(decltype(::memplan::estimate_config{}.MEMBER){}); }, LABEL, \
            HELP, "",                                                                                 \
            MODES,                                                                                    \
            [](const ::memplan::estimate_config& c) {                                                 \
                ::memplan::field_value v;                                                             \
                v.name = ::memplan::to_string(c.MEMBER);                                              \
                return v;                                                                             \
            },                                                                                        \
            [](::memplan::estimate_config& c, const ::memplan::field_value& v) {                      \
                return ::memplan::parse_enum(v.name, c.MEMBER);                                       \
            },                                                                                        \
            false, nullptr                                                                            \
    }

/// A choice whose default is "not set" (the schema's default null): the core decides when it is not given
/// (infer.weight_dtype: a quantized checkpoint served as stored). The member keeps its enumeration's value;
/// GIVEN (a bool member) says whether it was given, and the value reads as "" (null in the echo) when not.
#define MEMPLAN_OPTIONAL_CHOICE(PATH, MEMBER, GIVEN, LABEL, HELP, MODES)                              \
    ::memplan::field_spec {                                                                           \
        PATH, ::memplan::field_type::choice, 0, 0,                                                    \
            [] { return ::memplan::choice_names(decltype(::memplan::estimate_config{}.MEMBER){}); }, LABEL, \
            HELP, "", MODES,                                                                          \
            [](const ::memplan::estimate_config& c) {                                                 \
                ::memplan::field_value v;                                                             \
                if (c.GIVEN) v.name = ::memplan::to_string(c.MEMBER);                                 \
                return v;                                                                             \
            },                                                                                        \
            [](::memplan::estimate_config& c, const ::memplan::field_value& v) {                      \
                c.GIVEN = ::memplan::parse_enum(v.name, c.MEMBER);                                    \
                return c.GIVEN;                                                                       \
            },                                                                                        \
            true, nullptr                                                                             \
    }

/// A free-text field (names).
#define MEMPLAN_TEXT(PATH, MEMBER, LABEL, HELP, MODES)                                                \
    ::memplan::field_spec {                                                                           \
        PATH, ::memplan::field_type::text, 0, 0, nullptr, LABEL, HELP, "", MODES,                     \
            [](const ::memplan::estimate_config& c) {                                                 \
                ::memplan::field_value v;                                                             \
                v.name = c.MEMBER;                                                                    \
                return v;                                                                             \
            },                                                                                        \
            [](::memplan::estimate_config& c, const ::memplan::field_value& v) {                      \
                c.MEMBER = v.name;                                                                    \
                return true;                                                                          \
            },                                                                                        \
            false, nullptr                                                                            \
    }
