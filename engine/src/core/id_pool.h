// Atoll — slot allocator with free list and generations.

#ifndef ATOLL_CORE_ID_POOL_H_
#define ATOLL_CORE_ID_POOL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "atoll/assert.h"

namespace atl {

/// Hands out dense slot indices and a generation per slot. Freed slots are
/// reused last-freed-first, so allocation order depends only on the
/// sequence of Alloc/Free calls, never on addresses. The whole state (free
/// list and generations) is plain data that a snapshot saves verbatim.
///
/// The capacity never shrinks: a pool that once held 80 000 contacts (a pile
/// created inside itself) keeps 80 000 slots when a thousand are left. So
/// the pool also keeps its alive flags as bits, 64 to a word, and
/// ForEachAlive walks the live slots at the cost of the live ones plus one
/// word per 64 slots; a per-step loop over the capacity would cost the old
/// peak every step. The bits are derived from the alive flags (Restore
/// rebuilds them), not part of the saved state.
class IdPool {
 public:
  /// Returns a free slot index; its generation is already bumped.
  int32_t Alloc() {
    if (!free_.empty()) {
      const int32_t index = free_.back();
      free_.pop_back();
      alive_[index] = 1;
      SetBit(index);
      return index;
    }
    generations_.push_back(1);
    alive_.push_back(1);
    const int32_t index = static_cast<int32_t>(generations_.size() - 1);
    if (static_cast<size_t>(index) / 64 >= alive_bits_.size()) alive_bits_.push_back(0);
    SetBit(index);
    return index;
  }

  /// The slot the n-th next Alloc returns (n = 0: the next), if no Free
  /// comes between: to ask for a new object's memory ahead of its creation.
  int32_t PeekAlloc(int32_t n) const {
    const int32_t free = static_cast<int32_t>(free_.size());
    return n < free ? free_[static_cast<size_t>(free - 1 - n)] : Capacity() + (n - free);
  }

  /// Returns `index` to the pool and bumps its generation so that ids
  /// naming the old object no longer match.
  void Free(int32_t index) {
    ATOLL_ASSERT(IsAlive(index));
    alive_[index] = 0;
    alive_bits_[static_cast<size_t>(index) / 64] &= ~(uint64_t{1} << (index % 64));
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

  /// Calls f(index) for every live slot, in ascending order. f may free the
  /// slot it is given (not others) and must not allocate.
  template <typename F>
  void ForEachAlive(F&& f) const {
    ForEachAliveInWords(0, AliveWordCount(), f);
  }

  /// The live slots as words of 64: ForEachAliveInWords(first, end, f) is
  /// ForEachAlive over slots [64 first, 64 end) (blocks of a parallel walk).
  int32_t AliveWordCount() const { return static_cast<int32_t>(alive_bits_.size()); }
  template <typename F>
  void ForEachAliveInWords(int32_t first, int32_t end, F&& f) const {
    for (int32_t word = first; word < end; ++word) {
      uint64_t bits = alive_bits_[static_cast<size_t>(word)];
      while (bits != 0) {
        const int32_t index = word * 64 + __builtin_ctzll(bits);
        bits &= bits - 1;
        f(index);
      }
    }
  }

  // Raw state, for snapshots.
  const std::vector<int32_t>& free_list() const { return free_; }
  const std::vector<uint16_t>& generations() const { return generations_; }
  const std::vector<uint8_t>& alive() const { return alive_; }
  void Restore(std::vector<int32_t> free_list, std::vector<uint16_t> generations,
               std::vector<uint8_t> alive) {
    free_ = std::move(free_list);
    generations_ = std::move(generations);
    alive_ = std::move(alive);
    alive_bits_.assign((alive_.size() + 63) / 64, 0);
    for (size_t i = 0; i < alive_.size(); ++i) {
      if (alive_[i] != 0) SetBit(static_cast<int32_t>(i));
    }
  }

 private:
  void SetBit(int32_t index) {
    alive_bits_[static_cast<size_t>(index) / 64] |= uint64_t{1} << (index % 64);
  }

  std::vector<int32_t> free_;
  std::vector<uint16_t> generations_;
  std::vector<uint8_t> alive_;
  // alive_ as bits, bit i % 64 of word i / 64 (see the class comment).
  std::vector<uint64_t> alive_bits_;
};

}  // namespace atl

#endif  // ATOLL_CORE_ID_POOL_H_
