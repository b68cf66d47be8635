#include "broad_phase/dynamic_tree.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace atl {
namespace {

TEST(DynamicTreeTest, SortedInsertionsStayShallowThanksToRotations) {
  DynamicTree tree;
  BroadPhase& phase = tree;
  const int32_t count = 2048;
  for (int32_t i = 0; i < count; ++i) {
    ProxyData data;
    data.body_id = static_cast<uint32_t>(i + 1);
    const float x = static_cast<float>(i);
    phase.CreateProxy({{x, 0}, {x + 0.5f, 0.5f}}, data);
  }
  // A plain greedy insertion of sorted boxes degenerates into a list.
  EXPECT_LE(tree.Height(), 4 * 11);
}

TEST(DynamicTreeTest, SmallMovesInsideTheFatBoxStillUpdateExactPairs) {
  DynamicTree tree;
  BroadPhase& phase = tree;
  ProxyData a;
  a.body_id = 1;
  ProxyData b;
  b.body_id = 2;
  phase.CreateProxy({{0, 0}, {1, 1}}, a);
  phase.CreateProxy({{1.05f, 0}, {2.05f, 1}}, b);
  std::vector<ProxyPair> pairs;
  phase.UpdatePairs(&pairs);
  EXPECT_TRUE(pairs.empty());  // fat boxes overlap, real ones do not
  phase.MoveProxy(1, {{1.0f, 0}, {2.0f, 1}});  // within the fat box
  phase.UpdatePairs(&pairs);
  EXPECT_EQ(pairs, (std::vector<ProxyPair>{{0, 1}}));
  phase.MoveProxy(1, {{1.04f, 0}, {2.04f, 1}});
  phase.UpdatePairs(&pairs);
  EXPECT_TRUE(pairs.empty());
}

}  // namespace
}  // namespace atl
