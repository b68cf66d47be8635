#include "broad_phase/pair_sort.h"

#include <algorithm>

namespace atl {
namespace {

// Buckets (all pairs sharing the smaller id) are tiny in physical scenes:
// a shape touches a handful of others. Insertion sort wins there; big
// buckets (everything piled on one spot) fall back to std::sort.
constexpr int64_t kInsertionSortMax = 24;

template <typename T, typename Less>
void SortBucket(T* begin, T* end, Less less) {
  if (end - begin <= kInsertionSortMax) {
    for (T* i = begin + 1; i < end; ++i) {
      const T value = *i;
      T* j = i;
      while (j > begin && less(value, *(j - 1))) {
        *j = *(j - 1);
        --j;
      }
      *j = value;
    }
  } else {
    std::sort(begin, end, less);
  }
}

// Counting sort wants a histogram over all ids; when pairs are few compared
// with ids a comparison sort is cheaper.
bool UseCountingSort(size_t count, int32_t id_capacity) {
  return count >= 64 && count * 4 >= static_cast<size_t>(id_capacity);
}

}  // namespace

void PairSorter::Sort(const std::vector<uint64_t>& keys, int32_t id_capacity,
                      std::vector<ProxyPair>* out) {
  const size_t count = keys.size();
  out->resize(count);
  if (count == 0) return;
  ProxyPair* pairs = out->data();
  if (!UseCountingSort(count, id_capacity)) {
    scratch_.assign(keys.begin(), keys.end());
    std::sort(scratch_.begin(), scratch_.end());
    for (size_t i = 0; i < count; ++i) {
      pairs[i] = {PairKeyA(scratch_[i]), PairKeyB(scratch_[i])};
    }
    return;
  }
  // Counting sort on the smaller id (one histogram pass and one scatter),
  // then each bucket sorted on the larger id.
  cursor_.assign(static_cast<size_t>(id_capacity) + 1, 0);
  int32_t* cursor = cursor_.data();
  for (uint64_t key : keys) ++cursor[PairKeyA(key) + 1];
  for (int32_t i = 0; i < id_capacity; ++i) cursor[i + 1] += cursor[i];
  for (uint64_t key : keys) {
    const int32_t a = PairKeyA(key);
    pairs[cursor[a]++] = {a, PairKeyB(key)};
  }
  // cursor[a] is now the end of bucket a.
  int32_t begin = 0;
  for (int32_t a = 0; a < id_capacity; ++a) {
    const int32_t end = cursor[a];
    if (end - begin > 1) {
      SortBucket(
          pairs + begin, pairs + end,
          [](const ProxyPair& x, const ProxyPair& y) { return x.b < y.b; });
    }
    begin = end;
  }
}

void PairSorter::SortKeys(std::vector<uint64_t>* keys, int32_t id_capacity) {
  const size_t count = keys->size();
  if (!UseCountingSort(count, id_capacity)) {
    std::sort(keys->begin(), keys->end());
    return;
  }
  cursor_.assign(static_cast<size_t>(id_capacity) + 1, 0);
  int32_t* cursor = cursor_.data();
  for (uint64_t key : *keys) ++cursor[PairKeyA(key) + 1];
  for (int32_t i = 0; i < id_capacity; ++i) cursor[i + 1] += cursor[i];
  scratch_.resize(count);
  uint64_t* sorted = scratch_.data();
  for (uint64_t key : *keys) sorted[cursor[PairKeyA(key)]++] = key;
  int32_t begin = 0;
  for (int32_t a = 0; a < id_capacity; ++a) {
    const int32_t end = cursor[a];
    if (end - begin > 1) {
      SortBucket(sorted + begin, sorted + end,
                 [](uint64_t x, uint64_t y) { return x < y; });
    }
    begin = end;
  }
  keys->swap(scratch_);
}

}  // namespace atl
