// memplan — internal: the stable sort of the core's short lists.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace memplan::detail {

/// Sorts `items` by `less`, keeping equal items in their order, as std::stable_sort does (same
/// result). Insertion sort: O(n²) comparisons, for the lists it is used on only, which are tens of
/// items (search hits over the stored presets and GPUs, a configuration's candidate changes); a few
/// hundred bytes of WebAssembly per use where std::stable_sort's merge sort compiles to about 3 KB.
template <class T, class Less>
void stable_sort_small(std::vector<T>& items, Less less) {
    for (std::size_t i = 1; i < items.size(); ++i) {
        T item = std::move(items[i]);
        std::size_t at = i;
        for (; at > 0 && less(item, items[at - 1]); --at) items[at] = std::move(items[at - 1]);
        items[at] = std::move(item);
    }
}

}  // namespace memplan::detail
