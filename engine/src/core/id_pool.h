// Atoll — slot allocator with free list and generations.

#ifndef ATOLL_CORE_ID_POOL_H_
#define ATOLL_CORE_ID_POOL_H_

#include <cstdint>
#include <vector>

#include "atoll/assert.h"

namespace atl {

/// Hands out dense slot indices and a generation per slot. Freed slots are
/// reused last-freed-first, so allocation order depends only on the
/// sequence of Alloc/Free calls, never on addresses. The whole state (free
/// list and generations) is plain data that a snapshot saves verbatim.
class IdPool {
 public:
  /// Returns a free slot index; its generation is already bumped.
  int32_t Alloc() {
    if (!free_.empty()) {
      const int32_t index = free_.back();
      free_.pop_back();
      alive_[index] = 1;
      return index;
    }
    generations_.push_back(1);
    alive_.push_back(1);
    return static_cast<int32_t>(generations_.size() - 1);
  }

  /// Returns `index` to the pool and bumps its generation so that ids
  /// naming the old object no longer match.
  void Free(int32_t index) {
    ATOLL_ASSERT(IsAlive(index));
    alive_[index] = 0;
    uint16_t& g = generations_[index];
    g = static_cast<uint16_t>(g + 1);
    if (g == 0) g = 1;  // 0 is reserved for the null id
    free_.push_back(index);
  }

  bool IsAlive(int32_t index) const {
    return index >= 0 && index < Capacity() && alive_[index] != 0;
  }
  /// True when `index` is alive with this generation.
  bool Matches(int32_t index, uint16_t generation) const {
    return IsAlive(index) && generations_[index] == generation;
  }
  uint16_t Generation(int32_t index) const { return generations_[index]; }
  /// One past the highest slot ever allocated.
  int32_t Capacity() const { return static_cast<int32_t>(generations_.size()); }
  int32_t Count() const { return Capacity() - static_cast<int32_t>(free_.size()); }

  // Raw state, for snapshots.
  const std::vector<int32_t>& free_list() const { return free_; }
  const std::vector<uint16_t>& generations() const { return generations_; }
  const std::vector<uint8_t>& alive() const { return alive_; }
  void Restore(std::vector<int32_t> free_list, std::vector<uint16_t> generations,
               std::vector<uint8_t> alive) {
    free_ = std::move(free_list);
    generations_ = std::move(generations);
    alive_ = std::move(alive);
  }

 private:
  std::vector<int32_t> free_;
  std::vector<uint16_t> generations_;
  std::vector<uint8_t> alive_;
};

}  // namespace atl

#endif  // ATOLL_CORE_ID_POOL_H_
