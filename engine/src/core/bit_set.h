// Atoll — growable bit set with fast iteration over set bits.

#ifndef ATOLL_CORE_BIT_SET_H_
#define ATOLL_CORE_BIT_SET_H_

#include <bit>
#include <cstdint>
#include <vector>

namespace atl {

/// Bits addressed by dense indices (contact indices, body indices). Used to
/// record changes from the narrow phase so they are applied later in index
/// order, whatever order (or thread) produced them.
class BitSet {
 public:
  /// Grows to hold at least `bit_count` bits; new bits are clear.
  void Resize(int32_t bit_count) {
    const size_t words = (static_cast<size_t>(bit_count) + 63) / 64;
    if (words > words_.size()) words_.resize(words, 0);
  }
  void ClearAll() { std::fill(words_.begin(), words_.end(), 0); }
  void Set(int32_t i) { words_[i >> 6] |= uint64_t{1} << (i & 63); }
  void Clear(int32_t i) { words_[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  bool Get(int32_t i) const {
    const size_t w = static_cast<size_t>(i) >> 6;
    return w < words_.size() && ((words_[w] >> (i & 63)) & 1) != 0;
  }
  /// this |= other (other may be shorter).
  void OrWith(const BitSet& other) {
    if (other.words_.size() > words_.size()) words_.resize(other.words_.size(), 0);
    for (size_t w = 0; w < other.words_.size(); ++w) words_[w] |= other.words_[w];
  }
  /// Calls fn(index) for every set bit in increasing index order.
  template <typename Fn>
  void ForEachSet(Fn&& fn) const {
    for (size_t w = 0; w < words_.size(); ++w) {
      uint64_t word = words_[w];
      while (word != 0) {
        const int bit = std::countr_zero(word);
        fn(static_cast<int32_t>(w * 64 + static_cast<size_t>(bit)));
        word &= word - 1;
      }
    }
  }

 private:
  std::vector<uint64_t> words_;
};

}  // namespace atl

#endif  // ATOLL_CORE_BIT_SET_H_
