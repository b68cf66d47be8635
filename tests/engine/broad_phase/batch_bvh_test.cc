#include "broad_phase/batch_bvh.h"

#include <gtest/gtest.h>

#include <vector>

#include "atoll/executor.h"
#include "engine/parallel/std_thread_executor.h"
#include "scene_driver.h"

namespace atl {
namespace {

ProxyData Data(uint32_t body, bool is_static) {
  ProxyData data;
  data.body_id = body;
  data.is_static = is_static;
  return data;
}

TEST(BatchBvhTest, KeepsStaticTreeOnlyWhenStaticsExceedAnEighth) {
  BatchBvh bvh;
  BroadPhase& phase = bvh;
  std::vector<ProxyPair> pairs;
  // 80 movers and 10 statics: 10 * 8 = 80 is not more than 90.
  for (int32_t i = 0; i < 80; ++i) {
    phase.CreateProxy({{float(i), 0}, {i + 1.5f, 1}}, Data(i + 1, false));
  }
  for (int32_t i = 0; i < 10; ++i) {
    phase.CreateProxy({{float(8 * i), -1}, {8 * i + 8.0f, 0}},
                      Data(1000, true));
  }
  phase.UpdatePairs(&pairs);
  EXPECT_FALSE(bvh.uses_static_tree());
  const size_t one_tree_pairs = pairs.size();
  phase.CreateProxy({{100, 100}, {101, 101}}, Data(1000, true));
  phase.CreateProxy({{100, 100}, {101, 101}}, Data(1000, true));
  phase.UpdatePairs(&pairs);
  EXPECT_TRUE(bvh.uses_static_tree());
  EXPECT_EQ(pairs.size(), one_tree_pairs);  // the extra statics touch nothing
}

TEST(BatchBvhTest, MatchesBruteForceWhenStaticsComeAndGoAcrossTheThreshold) {
  test::SceneDriver scene(
      test::SceneKind::kUniform, 400, 3,
      {BroadPhaseType::kBruteForce, BroadPhaseType::kBatchBvh});
  std::vector<ProxyPair> expected;
  std::vector<ProxyPair> actual;
  std::vector<int32_t> statics;
  for (int32_t frame = 0; frame < 60; ++frame) {
    // Grow a static floor for 30 frames (crossing 1/8), then tear it down.
    if (frame < 30) {
      for (int32_t k = 0; k < 4; ++k) {
        const float x = scene.rng().Uniform(-40.0f, 40.0f);
        const float y = scene.rng().Uniform(-40.0f, 40.0f);
        const AABB box{{x, y}, {x + 3.0f, y + 3.0f}};
        const int32_t id = scene.phase(0).CreateProxy(box, Data(5000, true));
        ASSERT_EQ(scene.phase(1).CreateProxy(box, Data(5000, true)), id);
        statics.push_back(id);
      }
    } else if (!statics.empty()) {
      for (int32_t k = 0; k < 5 && !statics.empty(); ++k) {
        scene.phase(0).DestroyProxy(statics.back());
        scene.phase(1).DestroyProxy(statics.back());
        statics.pop_back();
      }
    }
    scene.phase(0).UpdatePairs(&expected);
    scene.phase(1).UpdatePairs(&actual);
    ASSERT_EQ(expected, actual) << "frame " << frame;
    // The scene moves, creates and destroys only its own proxies.
    scene.Step();
  }
}

TEST(BatchBvhTest, DegenerateLayoutsStayShallowAndExact) {
  // Exponentially spaced boxes defeat the midpoint split; the depth guard
  // must keep the recursion bounded and the answer exact.
  BatchBvh bvh;
  BroadPhase& phase = bvh;
  float x = 1.0f;
  for (int32_t i = 0; i < 120; ++i) {
    phase.CreateProxy({{x, 0}, {x * 2.2f, 1}}, Data(i + 1, false));
    x *= 2.0f;
  }
  std::vector<ProxyPair> pairs;
  phase.UpdatePairs(&pairs);
  // Box i spans [2^i, 2.2 * 2^i]: it reaches box i+1 (from 2 * 2^i) and
  // not box i+2 (from 4 * 2^i). Each midpoint split peels off one box.
  ASSERT_EQ(pairs.size(), 119u);
  for (int32_t i = 0; i < 119; ++i) EXPECT_EQ(pairs[i], (ProxyPair{i, i + 1}));
}

// With several threads the build splits into subtrees built concurrently;
// the pairs must be exactly the serial build's on every kind of scene, while
// proxies come and go (the serial build equals brute force:
// equivalence_test.cc).
TEST(BatchBvhTest, ParallelBuildFindsExactlyTheSerialPairs) {
  std::vector<std::unique_ptr<Executor>> pools;
  for (int32_t threads : {2, 3, 8}) {
    pools.push_back(testing::kThreadSanitizer ? testing::MakeStdThreadExecutor(threads)
                                              : MakeThreadPoolExecutor(threads));
  }
  for (test::SceneKind kind :
       {test::SceneKind::kUniform, test::SceneKind::kClustered, test::SceneKind::kOneSpot,
        test::SceneKind::kHugeAndTiny, test::SceneKind::kDiagonal,
        test::SceneKind::kMostlyStatic}) {
    // Large enough to split (2048 proxies at least); all at one spot every
    // proxy pairs with every other.
    const int32_t count = kind == test::SceneKind::kOneSpot ? 2100 : 4000;
    test::SceneDriver scene(kind, count, 11,
                            {BroadPhaseType::kBatchBvh, BroadPhaseType::kBatchBvh,
                             BroadPhaseType::kBatchBvh, BroadPhaseType::kBatchBvh});
    for (int32_t i = 0; i < 3; ++i) scene.phase(i + 1).set_executor(pools[i].get());
    std::vector<ProxyPair> expected;
    std::vector<ProxyPair> actual;
    for (int32_t frame = 0; frame < 8; ++frame) {
      scene.phase(0).UpdatePairs(&expected);
      for (int32_t i = 1; i < scene.size(); ++i) {
        scene.phase(i).UpdatePairs(&actual);
        ASSERT_EQ(actual, expected) << test::SceneName(kind) << " frame " << frame
                                    << " phase " << i;
      }
      scene.Step();
    }
  }
}

}  // namespace
}  // namespace atl
