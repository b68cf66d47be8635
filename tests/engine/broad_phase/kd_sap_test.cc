#include "broad_phase/kd_sap.h"

#include <gtest/gtest.h>

#include <vector>

#include "broad_phase/brute_force.h"
#include "scene_driver.h"

namespace atl {
namespace {

ProxyData Data(uint32_t body) {
  ProxyData data;
  data.body_id = body;
  return data;
}

// A pile of boxes on a grid where a few move each step and the rest rest.
class RestingPile {
 public:
  explicit RestingPile(int32_t count) : rng_(11) {
    for (int32_t i = 0; i < count; ++i) {
      const float x = static_cast<float>(i % 60) * 0.9f;
      const float y = static_cast<float>(i / 60) * 0.9f;
      const AABB box{{x, y}, {x + 1.0f, y + 1.0f}};
      boxes_.push_back(box);
      kd_.CreateProxy(box, Data(i + 1));
      oracle_.CreateProxy(box, Data(i + 1));
    }
  }
  // Moves `movers` random boxes a little (the rest stay exactly in place),
  // or every box a tiny jitter within epsilon when `jitter`.
  void Step(int32_t movers, bool jitter) {
    if (jitter) {
      for (size_t i = 0; i < boxes_.size(); ++i) {
        const float d = rng_.Uniform(-0.001f, 0.001f);
        AABB box = boxes_[i];
        box.lower.x += d;
        box.upper.x += d;
        Move(static_cast<int32_t>(i), box);
      }
    }
    for (int32_t k = 0; k < movers; ++k) {
      const int32_t i = rng_.Int(static_cast<int32_t>(boxes_.size()));
      const Vec2 d{rng_.Uniform(-0.6f, 0.6f), rng_.Uniform(-0.6f, 0.6f)};
      boxes_[i].lower += d;
      boxes_[i].upper += d;
      Move(i, boxes_[i]);
    }
  }
  void Move(int32_t i, const AABB& box) {
    kd_.MoveProxy(i, box);
    oracle_.MoveProxy(i, box);
  }
  KdSap& kd() { return kd_; }
  BruteForce& oracle() { return oracle_; }

 private:
  test::Rng rng_;
  std::vector<AABB> boxes_;
  KdSap kd_;
  BruteForce oracle_;
};

TEST(KdSapTest, SwitchesToIncrementalWhenMostObjectsRestAndStaysExact) {
  RestingPile pile(3000);
  std::vector<ProxyPair> expected;
  std::vector<ProxyPair> actual;
  int32_t incremental_steps = 0;
  for (int32_t step = 0; step < 30; ++step) {
    static_cast<BroadPhase&>(pile.oracle()).UpdatePairs(&expected);
    static_cast<BroadPhase&>(pile.kd()).UpdatePairs(&actual);
    ASSERT_EQ(expected, actual) << "step " << step;
    if (pile.kd().last_step_incremental()) ++incremental_steps;
    // Resting objects jitter inside epsilon every other step: still "at
    // rest", but their real boxes change, so cached pairs are re-checked.
    pile.Step(/*movers=*/40, /*jitter=*/step % 2 == 1);
  }
  EXPECT_GT(incremental_steps, 20);
}

TEST(KdSapTest, ObjectsFallingThroughARestingHeapStayExactIncrementally) {
  // A resting heap of assorted boxes (long bars straddle the planes) and a
  // stream of boxes falling through it: the incremental search must find
  // every pair of a falling box, with resting boxes of its own node and of
  // other nodes, while the falling boxes overtake resting ones in the sort
  // order. Static boxes, shared bodies and a negative group exercise the
  // pair rules on the way.
  KdSap kd;
  BruteForce oracle;
  test::Rng rng(33);
  std::vector<AABB> boxes;
  std::vector<float> speeds;
  auto add = [&](const AABB& box, const ProxyData& data, float speed) {
    boxes.push_back(box);
    speeds.push_back(speed);
    static_cast<BroadPhase&>(kd).CreateProxy(box, data);
    static_cast<BroadPhase&>(oracle).CreateProxy(box, data);
  };
  auto half_extents = [&]() -> Vec2 {
    switch (rng.Int(3)) {
      case 0:
        return {3.0f, 0.1f};  // bar
      case 1:
        return {0.5f, 0.5f};
      default:
        return {rng.Uniform(0.2f, 1.0f), rng.Uniform(0.2f, 1.0f)};
    }
  };
  for (int32_t i = 0; i < 2400; ++i) {
    const Vec2 c{rng.Uniform(0.0f, 200.0f), rng.Uniform(0.0f, 12.0f)};
    const Vec2 h = half_extents();
    ProxyData data = Data(static_cast<uint32_t>(i + 1));
    data.is_static = i % 7 == 0;
    if (i % 13 == 0) data.filter.group_index = -1;
    add({c - h, c + h}, data, 0.0f);
  }
  for (int32_t i = 0; i < 400; ++i) {
    const Vec2 c{rng.Uniform(0.0f, 200.0f), rng.Uniform(15.0f, 60.0f)};
    const Vec2 h = half_extents();
    // Every ninth falling box shares a body with a heap box.
    ProxyData data = Data(i % 9 == 0 ? static_cast<uint32_t>(i + 1)
                                     : static_cast<uint32_t>(10000 + i));
    if (i % 5 == 0) data.filter.group_index = -1;
    add({c - h, c + h}, data, rng.Uniform(0.3f, 1.5f));
  }
  std::vector<ProxyPair> expected;
  std::vector<ProxyPair> actual;
  int32_t incremental_steps = 0;
  int64_t total_pairs = 0;
  for (int32_t step = 0; step < 60; ++step) {
    static_cast<BroadPhase&>(oracle).UpdatePairs(&expected);
    static_cast<BroadPhase&>(kd).UpdatePairs(&actual);
    ASSERT_EQ(expected, actual) << "step " << step;
    total_pairs += static_cast<int64_t>(expected.size());
    if (kd.last_step_incremental()) ++incremental_steps;
    for (size_t i = 0; i < boxes.size(); ++i) {
      if (speeds[i] == 0.0f) continue;
      boxes[i].lower.y -= speeds[i];
      boxes[i].upper.y -= speeds[i];
      static_cast<BroadPhase&>(kd).MoveProxy(static_cast<int32_t>(i), boxes[i]);
      static_cast<BroadPhase&>(oracle).MoveProxy(static_cast<int32_t>(i),
                                                 boxes[i]);
    }
  }
  EXPECT_GT(incremental_steps, 50);
  EXPECT_GT(total_pairs, 60 * 1000);
}

TEST(KdSapTest, BoxesNearTheEndsOfTheFloatRangeStayExact) {
  // Centers and extents of such boxes overflow to infinity in single
  // precision; the tree's estimates must cope and the pairs stay exact.
  KdSap kd;
  BruteForce oracle;
  test::Rng rng(8);
  std::vector<AABB> boxes;
  for (int32_t i = 0; i < 600; ++i) {
    const Vec2 c{rng.Uniform(0.0f, 100.0f), rng.Uniform(0.0f, 100.0f)};
    boxes.push_back({c, {c.x + 1.0f, c.y + 1.0f}});
  }
  for (int32_t i = 0; i < 6; ++i) {
    const float y = 15.0f * static_cast<float>(i);
    boxes.push_back({{-3.0e38f, y}, {3.0e38f, y + 0.5f}});  // a wide bar
    boxes.push_back({{3.0e38f, y}, {3.1e38f, y + 1.0f}});   // far away
  }
  for (size_t i = 0; i < boxes.size(); ++i) {
    static_cast<BroadPhase&>(kd).CreateProxy(boxes[i], Data(i + 1));
    static_cast<BroadPhase&>(oracle).CreateProxy(boxes[i], Data(i + 1));
  }
  std::vector<ProxyPair> expected;
  std::vector<ProxyPair> actual;
  for (int32_t step = 0; step < 40; ++step) {
    static_cast<BroadPhase&>(oracle).UpdatePairs(&expected);
    static_cast<BroadPhase&>(kd).UpdatePairs(&actual);
    ASSERT_EQ(expected, actual) << "step " << step;
    // The small boxes drift; every other step the bars and far boxes too.
    for (size_t i = 0; i < boxes.size(); ++i) {
      if (i >= 600 && step % 2 == 0) continue;
      const float d = i < 600 ? rng.Uniform(-0.3f, 0.3f) : 0.4f;
      boxes[i].lower.y += d;
      boxes[i].upper.y += d;
      static_cast<BroadPhase&>(kd).MoveProxy(static_cast<int32_t>(i), boxes[i]);
      static_cast<BroadPhase&>(oracle).MoveProxy(static_cast<int32_t>(i),
                                                 boxes[i]);
    }
  }
}

TEST(KdSapTest, FallsBackToCompleteSearchWhenEverythingMoves) {
  RestingPile pile(2000);
  std::vector<ProxyPair> expected;
  std::vector<ProxyPair> actual;
  for (int32_t step = 0; step < 10; ++step) {
    static_cast<BroadPhase&>(pile.oracle()).UpdatePairs(&expected);
    static_cast<BroadPhase&>(pile.kd()).UpdatePairs(&actual);
    ASSERT_EQ(expected, actual) << "step " << step;
    pile.Step(/*movers=*/4000, /*jitter=*/false);
  }
  EXPECT_FALSE(pile.kd().last_step_incremental());
}

TEST(KdSapTest, ReshapesTheTreeWhenTheCrowdMigratesAndStaysExact) {
  // Everything drifts toward a point that jumps around: planes that were
  // good become lopsided and must be translated or erased.
  KdSap kd;
  BruteForce oracle;
  test::Rng rng(21);
  std::vector<AABB> boxes;
  for (int32_t i = 0; i < 4000; ++i) {
    const Vec2 c{rng.Uniform(0, 400), rng.Uniform(0, 400)};
    boxes.push_back({c, {c.x + 1, c.y + 1}});
    static_cast<BroadPhase&>(kd).CreateProxy(boxes.back(), Data(i + 1));
    static_cast<BroadPhase&>(oracle).CreateProxy(boxes.back(), Data(i + 1));
  }
  const Vec2 targets[] = {{20, 20}, {380, 50}, {200, 380}, {10, 200}};
  std::vector<ProxyPair> expected;
  std::vector<ProxyPair> actual;
  for (int32_t step = 0; step < 40; ++step) {
    static_cast<BroadPhase&>(oracle).UpdatePairs(&expected);
    static_cast<BroadPhase&>(kd).UpdatePairs(&actual);
    ASSERT_EQ(expected, actual) << "step " << step;
    const Vec2 target = targets[(step / 10) % 4];
    for (size_t i = 0; i < boxes.size(); ++i) {
      // Move a quarter of the way, keeping a spread so pairs stay sparse.
      const Vec2 c = Center(boxes[i]);
      const Vec2 spot = target + 0.3f * (c - target);
      const Vec2 d = 0.25f * (spot - c) +
                     Vec2{rng.Uniform(-0.5f, 0.5f), rng.Uniform(-0.5f, 0.5f)};
      boxes[i].lower += d;
      boxes[i].upper += d;
      static_cast<BroadPhase&>(kd).MoveProxy(static_cast<int32_t>(i), boxes[i]);
      static_cast<BroadPhase&>(oracle).MoveProxy(static_cast<int32_t>(i),
                                                 boxes[i]);
    }
  }
}

TEST(KdSapTest, TreeGrowsWithCrowdingAndShrinksWhenEmptied) {
  KdSap kd;
  BroadPhase& phase = kd;
  test::Rng rng(5);
  std::vector<ProxyPair> pairs;
  for (int32_t i = 0; i < 5000; ++i) {
    const Vec2 c{rng.Uniform(0, 300), rng.Uniform(0, 300)};
    phase.CreateProxy({c, {c.x + 1, c.y + 1}}, Data(i + 1));
  }
  phase.UpdatePairs(&pairs);
  // 5000 objects at up to 512 per leaf need at least 10 leaves.
  EXPECT_GE(kd.node_count(), 19);
  for (int32_t i = 0; i < 4900; ++i) phase.DestroyProxy(i);
  phase.UpdatePairs(&pairs);
  EXPECT_EQ(kd.node_count(), 1);  // collapsed back to one leaf
}

}  // namespace
}  // namespace atl
