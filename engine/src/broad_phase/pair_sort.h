// Atoll — canonical ordering of broad-phase pairs.

#ifndef ATOLL_BROAD_PHASE_PAIR_SORT_H_
#define ATOLL_BROAD_PHASE_PAIR_SORT_H_

#include <cstdint>
#include <vector>

#include "broad_phase/broad_phase.h"

namespace atl {

/// A pair as one sortable integer: the smaller id in the high half, so
/// integer order is the canonical (a, b) order.
inline uint64_t PairKey(int32_t x, int32_t y) {
  const uint32_t a = static_cast<uint32_t>(x < y ? x : y);
  const uint32_t b = static_cast<uint32_t>(x < y ? y : x);
  return (static_cast<uint64_t>(a) << 32) | b;
}
/// The smaller id of a pair key.
inline int32_t PairKeyA(uint64_t key) {
  return static_cast<int32_t>(key >> 32);
}
/// The larger id of a pair key.
inline int32_t PairKeyB(uint64_t key) {
  return static_cast<int32_t>(key & 0xffffffffu);
}

/// Sorts unique pair keys into canonical order. Keeps its buffers between
/// calls, so a broad phase owns one and reuses it every step.
class PairSorter {
 public:
  /// Writes the pairs of `keys` (unique, any order, ids below
  /// `id_capacity`) to *out (replaced) sorted by (a, b).
  void Sort(const std::vector<uint64_t>& keys, int32_t id_capacity,
            std::vector<ProxyPair>* out);

  /// Sorts `keys` in place (unique keys, ids below `id_capacity`).
  void SortKeys(std::vector<uint64_t>* keys, int32_t id_capacity);

 private:
  std::vector<int32_t> cursor_;
  std::vector<uint64_t> scratch_;
};

}  // namespace atl

#endif  // ATOLL_BROAD_PHASE_PAIR_SORT_H_
