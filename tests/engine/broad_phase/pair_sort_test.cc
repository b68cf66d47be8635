#include "broad_phase/pair_sort.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "scene_driver.h"

namespace atl {
namespace {

std::vector<uint64_t> RandomUniqueKeys(int32_t count, int32_t ids,
                                       uint64_t seed) {
  test::Rng rng(seed);
  std::set<uint64_t> keys;
  while (static_cast<int32_t>(keys.size()) < count) {
    const int32_t a = rng.Int(ids);
    const int32_t b = rng.Int(ids);
    if (a != b) keys.insert(PairKey(a, b));
  }
  std::vector<uint64_t> out(keys.begin(), keys.end());
  // Scramble deterministically.
  for (size_t i = out.size(); i > 1; --i) {
    std::swap(out[i - 1], out[rng.Int(static_cast<int32_t>(i))]);
  }
  return out;
}

TEST(PairSortTest, PairKeyOrdersBySmallerThenLargerId) {
  EXPECT_EQ(PairKey(7, 3), PairKey(3, 7));
  EXPECT_EQ(PairKeyA(PairKey(7, 3)), 3);
  EXPECT_EQ(PairKeyB(PairKey(7, 3)), 7);
  EXPECT_LT(PairKey(3, 9), PairKey(4, 5));
  EXPECT_LT(PairKey(3, 5), PairKey(3, 9));
}

TEST(PairSortTest, SortsLikeStdSortOnEveryPath) {
  PairSorter sorter;
  // Few keys among many ids (comparison sort), many keys (counting sort),
  // and a crowded bucket (one id paired with everything).
  for (auto [count, ids] :
       {std::pair{10, 100000}, std::pair{5000, 2000}, std::pair{1999, 2000}}) {
    std::vector<uint64_t> keys = RandomUniqueKeys(count, ids, 42 + count);
    std::vector<uint64_t> expected = keys;
    std::sort(expected.begin(), expected.end());
    std::vector<ProxyPair> pairs;
    sorter.Sort(keys, ids, &pairs);
    ASSERT_EQ(pairs.size(), expected.size());
    for (size_t i = 0; i < pairs.size(); ++i) {
      ASSERT_EQ(pairs[i].a, PairKeyA(expected[i]));
      ASSERT_EQ(pairs[i].b, PairKeyB(expected[i]));
    }
    sorter.SortKeys(&keys, ids);
    EXPECT_EQ(keys, expected);
  }
  std::vector<uint64_t> star;
  for (int32_t b = 500; b > 0; --b) star.push_back(PairKey(0, b));
  std::vector<uint64_t> expected = star;
  std::sort(expected.begin(), expected.end());
  sorter.SortKeys(&star, 501);
  EXPECT_EQ(star, expected);
}

}  // namespace
}  // namespace atl
