// memplan — internal: the bisections of the inverse answers (largest that fits, fewest that fits),
// written once. Each predicate must be monotone over the range searched; the callers say why theirs is.
#pragma once

#include <cstdint>

namespace memplan::detail {

/// The largest v in [1, hi] with ok(v), where ok holds on a prefix of [1, hi]; 0 when ok(1) is false.
/// Invariant: every value ≤ lo satisfies ok (lo = 0: none known), every value > hi does not.
template <class Predicate>
std::uint64_t largest_true(std::uint64_t hi, Predicate&& ok) {
    std::uint64_t lo = 0;
    while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo + 1) / 2;  // ≥ 1
        if (ok(mid)) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/// The smallest v in [lo, hi] with ok(v), where ok holds on a suffix of [lo, hi] and ok(hi) is known.
/// Invariant: hi satisfies ok, every value < lo does not.
template <class Predicate>
std::uint64_t smallest_true(std::uint64_t lo, std::uint64_t hi, Predicate&& ok) {
    while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (ok(mid)) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

}  // namespace memplan::detail
