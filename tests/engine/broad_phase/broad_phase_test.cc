// Contract tests run against every strategy: id allocation, pair rules,
// queries and ray casts (checked against brute force), refit.

#include "broad_phase/broad_phase.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scene_driver.h"

namespace atl {
namespace {

using test::SceneDriver;
using test::SceneKind;

AABB Box(float x0, float y0, float x1, float y1) {
  return {{x0, y0}, {x1, y1}};
}

ProxyData Body(uint32_t body, bool is_static = false) {
  ProxyData data;
  data.body_id = body;
  data.is_static = is_static;
  return data;
}

std::vector<ProxyPair> Pairs(BroadPhase& phase) {
  std::vector<ProxyPair> pairs;
  phase.UpdatePairs(&pairs);
  return pairs;
}

class BroadPhaseContractTest : public ::testing::TestWithParam<BroadPhaseType> {
 protected:
  std::unique_ptr<BroadPhase> Make() { return MakeBroadPhase(GetParam()); }
};

TEST_P(BroadPhaseContractTest, FactoryMakesTheRequestedStrategy) {
  EXPECT_EQ(Make()->type(), GetParam());
}

TEST_P(BroadPhaseContractTest, EmptyBroadPhaseReportsNothing) {
  auto phase = Make();
  EXPECT_TRUE(Pairs(*phase).empty());
  std::vector<int32_t> ids;
  phase->QueryAabb(Box(-1e6f, -1e6f, 1e6f, 1e6f), &ids);
  EXPECT_TRUE(ids.empty());
  RayHit hit;
  EXPECT_FALSE(phase->RayCastClosest(
      {{0, 0}, {1, 1}, 1.0f}, [](int32_t, const RayCastInput&) { return 0.0f; },
      &hit));
}

TEST_P(BroadPhaseContractTest, KnowsWhetherItsPairsMayHaveChanged) {
  auto phase = Make();
  EXPECT_TRUE(phase->pairs_may_have_changed());  // never computed
  const int32_t a = phase->CreateProxy(Box(0, 0, 1, 1), Body(1));
  const int32_t b = phase->CreateProxy(Box(0.5f, 0, 1.5f, 1), Body(2));
  EXPECT_EQ(Pairs(*phase).size(), 1u);
  EXPECT_FALSE(phase->pairs_may_have_changed());
  // Queries change nothing.
  std::vector<int32_t> ids;
  phase->QueryAabb(Box(0, 0, 2, 2), &ids);
  EXPECT_FALSE(phase->pairs_may_have_changed());
  phase->MoveProxy(b, Box(5, 0, 6, 1));
  EXPECT_TRUE(phase->pairs_may_have_changed());
  EXPECT_TRUE(Pairs(*phase).empty());
  phase->Refit(b, Box(0.5f, 0, 1.5f, 1));
  EXPECT_TRUE(phase->pairs_may_have_changed());
  EXPECT_EQ(Pairs(*phase).size(), 1u);
  phase->DestroyProxy(a);
  EXPECT_TRUE(phase->pairs_may_have_changed());
  EXPECT_TRUE(Pairs(*phase).empty());
  phase->CreateProxy(Box(0, 0, 1, 1), Body(3));
  EXPECT_TRUE(phase->pairs_may_have_changed());
}

TEST_P(BroadPhaseContractTest, CreateProxyTakesLowestFreeId) {
  auto phase = Make();
  for (int32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(phase->CreateProxy(Box(i, 0, i + 0.5f, 1), Body(i + 1)), i);
  }
  phase->DestroyProxy(3);
  phase->DestroyProxy(1);
  EXPECT_EQ(phase->CreateProxy(Box(0, 5, 1, 6), Body(10)), 1);
  EXPECT_EQ(phase->CreateProxy(Box(0, 5, 1, 6), Body(11)), 3);
  EXPECT_EQ(phase->CreateProxy(Box(0, 5, 1, 6), Body(12)), 5);
  EXPECT_EQ(phase->proxy_count(), 6);
}

TEST_P(BroadPhaseContractTest,
       CreateProxyWithIdUsesCallersIdAndFreesSkippedIds) {
  auto phase = Make();
  phase->CreateProxyWithId(4, Box(0, 0, 1, 1), Body(1));
  phase->CreateProxyWithId(2, Box(0.5f, 0.5f, 2, 2), Body(2));
  EXPECT_EQ(phase->id_capacity(), 5);
  EXPECT_TRUE(phase->IsLive(4));
  EXPECT_FALSE(phase->IsLive(3));
  EXPECT_EQ(phase->CreateProxy(Box(9, 9, 10, 10), Body(3)), 0);
  EXPECT_EQ(phase->CreateProxy(Box(9, 9, 10, 10), Body(4)), 1);
  EXPECT_EQ(phase->CreateProxy(Box(20, 9, 21, 10), Body(5)), 3);
  EXPECT_EQ(phase->CreateProxy(Box(30, 9, 31, 10), Body(6)), 5);
  const std::vector<ProxyPair> pairs = Pairs(*phase);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0], (ProxyPair{0, 1}));
  EXPECT_EQ(pairs[1], (ProxyPair{2, 4}));
}

TEST_P(BroadPhaseContractTest, BoxesTouchingAtAnEdgeOverlap) {
  auto phase = Make();
  phase->CreateProxy(Box(0, 0, 1, 1), Body(1));
  phase->CreateProxy(Box(1, 0, 2, 1), Body(2));       // shares an edge
  phase->CreateProxy(Box(2, 1, 3, 2), Body(3));       // shares a corner
  phase->CreateProxy(Box(3.001f, 0, 4, 1), Body(4));  // a hair apart
  EXPECT_EQ(Pairs(*phase), (std::vector<ProxyPair>{{0, 1}, {1, 2}}));
}

TEST_P(BroadPhaseContractTest, PairsRespectCategoriesAndMasks) {
  auto phase = Make();
  ProxyData player = Body(1);
  player.filter.category_bits = 0x2;
  player.filter.mask_bits = ~0x4ull;  // ignores pickups
  ProxyData pickup = Body(2);
  pickup.filter.category_bits = 0x4;
  ProxyData wall = Body(3);
  const AABB box = Box(0, 0, 1, 1);
  phase->CreateProxy(box, player);
  phase->CreateProxy(box, pickup);
  phase->CreateProxy(box, wall);
  EXPECT_EQ(Pairs(*phase), (std::vector<ProxyPair>{{0, 2}, {1, 2}}));
}

TEST_P(BroadPhaseContractTest, GroupsOverrideBits) {
  auto phase = Make();
  ProxyData ragdoll_a = Body(1);
  ragdoll_a.filter.group_index = -1;
  ProxyData ragdoll_b = Body(2);
  ragdoll_b.filter.group_index = -1;
  ProxyData friend_a = Body(3);
  friend_a.filter.group_index = 2;
  friend_a.filter.mask_bits = 0;
  ProxyData friend_b = Body(4);
  friend_b.filter.group_index = 2;
  friend_b.filter.mask_bits = 0;
  const AABB box = Box(0, 0, 1, 1);
  phase->CreateProxy(box, ragdoll_a);  // 0
  phase->CreateProxy(box, ragdoll_b);  // 1
  phase->CreateProxy(box, friend_a);   // 2
  phase->CreateProxy(box, friend_b);   // 3
  // 0-1: same negative group, never. 2-3: same positive group, always,
  // although their masks accept nothing. Friends against ragdolls: bits,
  // and the friends' masks are empty.
  EXPECT_EQ(Pairs(*phase), (std::vector<ProxyPair>{{2, 3}}));
}

TEST_P(BroadPhaseContractTest, StaticProxiesNeverPairWithStaticOnes) {
  auto phase = Make();
  const AABB box = Box(0, 0, 1, 1);
  phase->CreateProxy(box, Body(1, true));
  phase->CreateProxy(box, Body(2, true));
  phase->CreateProxy(box, Body(3, false));
  EXPECT_EQ(Pairs(*phase), (std::vector<ProxyPair>{{0, 2}, {1, 2}}));
}

TEST_P(BroadPhaseContractTest, ShapesOfOneBodyNeverPair) {
  auto phase = Make();
  const AABB box = Box(0, 0, 1, 1);
  phase->CreateProxy(box, Body(7));
  phase->CreateProxy(box, Body(7));
  phase->CreateProxy(box, Body(8));
  EXPECT_EQ(Pairs(*phase), (std::vector<ProxyPair>{{0, 2}, {1, 2}}));
}

TEST_P(BroadPhaseContractTest, ReusedIdDoesNotInheritOldPairsOrRules) {
  auto phase = Make();
  phase->CreateProxy(Box(0, 0, 1, 1), Body(1));
  phase->CreateProxy(Box(0.5f, 0, 1.5f, 1), Body(2));
  EXPECT_EQ(Pairs(*phase).size(), 1u);
  phase->DestroyProxy(1);
  // Same id, same place, but now the same body as proxy 0.
  EXPECT_EQ(phase->CreateProxy(Box(0.5f, 0, 1.5f, 1), Body(1)), 1);
  EXPECT_TRUE(Pairs(*phase).empty());
  phase->DestroyProxy(1);
  EXPECT_TRUE(Pairs(*phase).empty());
  EXPECT_EQ(phase->CreateProxy(Box(5, 5, 6, 6), Body(3)), 1);
  EXPECT_TRUE(Pairs(*phase).empty());
  phase->MoveProxy(1, Box(0.9f, 0.9f, 2, 2));
  EXPECT_EQ(Pairs(*phase), (std::vector<ProxyPair>{{0, 1}}));
}

TEST_P(BroadPhaseContractTest, PairsFollowMovesBetweenSteps) {
  auto phase = Make();
  phase->CreateProxy(Box(0, 0, 1, 1), Body(1));
  phase->CreateProxy(Box(3, 0, 4, 1), Body(2));
  EXPECT_TRUE(Pairs(*phase).empty());
  for (int32_t step = 0; step < 40; ++step) {
    const float x = 3.0f - 0.1f * static_cast<float>(step);
    phase->MoveProxy(1, Box(x, 0, x + 1, 1));
    const bool touching = x <= 1.0f;
    EXPECT_EQ(Pairs(*phase).size(), touching ? 1u : 0u) << "x = " << x;
  }
}

TEST_P(BroadPhaseContractTest, QueryAabbMatchesBruteForceAlsoBetweenSteps) {
  for (SceneKind kind : {SceneKind::kUniform, SceneKind::kClustered,
                         SceneKind::kMostlyStatic, SceneKind::kHugeAndTiny}) {
    SceneDriver scene(kind, 600, 99, {BroadPhaseType::kBruteForce, GetParam()});
    std::vector<ProxyPair> pairs;
    std::vector<int32_t> expected;
    std::vector<int32_t> actual;
    for (int32_t frame = 0; frame < 12; ++frame) {
      // Queries right after a step, and after moves not yet stepped.
      if (frame % 2 == 0) {
        scene.phase(0).UpdatePairs(&pairs);
        scene.phase(1).UpdatePairs(&pairs);
      }
      for (int32_t q = 0; q < 20; ++q) {
        const AABB box = scene.RandomQueryBox();
        scene.phase(0).QueryAabb(box, &expected);
        scene.phase(1).QueryAabb(box, &actual);
        ASSERT_EQ(expected, actual)
            << test::SceneName(kind) << " frame " << frame;
      }
      scene.Step();
    }
  }
}

TEST_P(BroadPhaseContractTest, QueryCallbackRunsInIdOrderAndStopsOnFalse) {
  auto phase = Make();
  for (int32_t i = 0; i < 50; ++i) {
    phase->CreateProxy(Box(49 - i, 0, 50 - i, 1), Body(i + 1));
  }
  std::vector<int32_t> seen;
  phase->QueryAabb(Box(10, 0, 30, 1), [&seen](int32_t id) {
    seen.push_back(id);
    return seen.size() < 5;
  });
  EXPECT_EQ(seen, (std::vector<int32_t>{19, 20, 21, 22, 23}));
}

TEST_P(BroadPhaseContractTest, RayCastsMatchBruteForceAlsoBetweenSteps) {
  for (SceneKind kind : {SceneKind::kUniform, SceneKind::kClustered,
                         SceneKind::kMostlyStatic, SceneKind::kDiagonal}) {
    SceneDriver scene(kind, 600, 7, {BroadPhaseType::kBruteForce, GetParam()});
    std::vector<ProxyPair> pairs;
    for (int32_t frame = 0; frame < 10; ++frame) {
      if (frame % 2 == 0) {
        scene.phase(0).UpdatePairs(&pairs);
        scene.phase(1).UpdatePairs(&pairs);
      }
      for (int32_t r = 0; r < 20; ++r) {
        const RayCastInput ray = scene.RandomRay();
        auto disc = [&scene](int32_t id, const RayCastInput& input) {
          return test::DiscRayCast(scene.phase(0).GetAabb(id), input);
        };
        RayHit expected_hit;
        RayHit actual_hit;
        const bool expected_any =
            scene.phase(0).RayCastClosest(ray, disc, &expected_hit);
        const bool actual_any =
            scene.phase(1).RayCastClosest(ray, disc, &actual_hit);
        ASSERT_EQ(expected_any, actual_any);
        if (expected_any) {
          ASSERT_EQ(expected_hit.proxy_id, actual_hit.proxy_id);
          ASSERT_EQ(expected_hit.fraction, actual_hit.fraction);
        }
        std::vector<RayHit> expected_all;
        std::vector<RayHit> actual_all;
        scene.phase(0).RayCastAll(ray, disc, &expected_all);
        scene.phase(1).RayCastAll(ray, disc, &actual_all);
        ASSERT_EQ(expected_all.size(), actual_all.size());
        for (size_t i = 0; i < expected_all.size(); ++i) {
          ASSERT_EQ(expected_all[i].proxy_id, actual_all[i].proxy_id);
          ASSERT_EQ(expected_all[i].fraction, actual_all[i].fraction);
        }
        if (expected_any) {
          ASSERT_FALSE(expected_all.empty());
          EXPECT_EQ(expected_all.front().proxy_id, expected_hit.proxy_id);
        }
      }
      scene.Step();
    }
  }
}

TEST_P(BroadPhaseContractTest, RayCastClosestBreaksTiesBySmallerId) {
  auto phase = Make();
  // A column of identical boxes: a horizontal ray enters all at once.
  for (int32_t i = 0; i < 30; ++i) {
    phase->CreateProxy(Box(10, 0, 11, 1), Body(i + 1));
  }
  phase->CreateProxy(Box(20, 0, 21, 1), Body(100));
  std::vector<ProxyPair> pairs;
  phase->UpdatePairs(&pairs);
  const RayCastInput ray{{0, 0.5f}, {30, 0}, 1.0f};
  auto box_hit = [&phase](int32_t id, const RayCastInput& input) {
    float t = 0.0f;
    return RayEntersAabb(input, phase->GetAabb(id), &t) ? t : -1.0f;
  };
  RayHit hit;
  ASSERT_TRUE(phase->RayCastClosest(ray, box_hit, &hit));
  EXPECT_EQ(hit.proxy_id, 0);
  EXPECT_FLOAT_EQ(hit.fraction, 10.0f / 30.0f);
  // Filtering a proxy out through the callback.
  auto skip_even = [&](int32_t id, const RayCastInput& input) {
    return id % 2 == 0 ? -1.0f : box_hit(id, input);
  };
  ASSERT_TRUE(phase->RayCastClosest(ray, skip_even, &hit));
  EXPECT_EQ(hit.proxy_id, 1);
  std::vector<RayHit> all;
  phase->RayCastAll(ray, box_hit, &all);
  ASSERT_EQ(all.size(), 31u);
  for (int32_t i = 0; i < 30; ++i) EXPECT_EQ(all[i].proxy_id, i);
  EXPECT_EQ(all[30].proxy_id, 30);
}

TEST_P(BroadPhaseContractTest, RefitKeepsQueriesAndNextPairsExact) {
  for (SceneKind kind : {SceneKind::kUniform, SceneKind::kMostlyStatic}) {
    SceneDriver scene(kind, 800, 5, {BroadPhaseType::kBruteForce, GetParam()});
    std::vector<ProxyPair> expected;
    std::vector<ProxyPair> actual;
    std::vector<int32_t> expected_ids;
    std::vector<int32_t> actual_ids;
    for (int32_t frame = 0; frame < 10; ++frame) {
      scene.phase(0).UpdatePairs(&expected);
      scene.phase(1).UpdatePairs(&actual);
      ASSERT_EQ(expected, actual);
      // Continuous collision: a few proxies refit, queried, refit again.
      for (int32_t round = 0; round < 5; ++round) {
        scene.RefitSome(3);
        for (int32_t q = 0; q < 10; ++q) {
          const AABB box = scene.RandomQueryBox();
          scene.phase(0).QueryAabb(box, &expected_ids);
          scene.phase(1).QueryAabb(box, &actual_ids);
          ASSERT_EQ(expected_ids, actual_ids);
        }
      }
      scene.Step();
    }
  }
}

TEST_P(BroadPhaseContractTest, QueryStaticAabbIsTheStaticPartOfQueryAabb) {
  // Mostly static puts the statics in their own tree in batch_bvh; uniform
  // keeps them with the rest.
  for (SceneKind kind : {SceneKind::kUniform, SceneKind::kMostlyStatic}) {
    SceneDriver scene(kind, 600, 7, {GetParam()});
    std::vector<ProxyPair> pairs;
    std::vector<int32_t> all, statics;
    for (int32_t frame = 0; frame < 6; ++frame) {
      scene.phase(0).UpdatePairs(&pairs);
      for (int32_t q = 0; q < 20; ++q) {
        const AABB box = scene.RandomQueryBox();
        scene.phase(0).QueryAabb(box, &all);
        scene.phase(0).QueryStaticAabb(box, &statics);
        std::vector<int32_t> expected;
        for (int32_t id : all) {
          if (scene.phase(0).GetData(id).is_static) expected.push_back(id);
        }
        ASSERT_EQ(statics, expected) << test::SceneName(kind) << " frame " << frame;
      }
      scene.RefitSome(3);
      scene.Step();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllStrategies, BroadPhaseContractTest,
    ::testing::Values(BroadPhaseType::kBatchBvh, BroadPhaseType::kKdSap,
                      BroadPhaseType::kDynamicTree,
                      BroadPhaseType::kBruteForce),
    [](const ::testing::TestParamInfo<BroadPhaseType>& info) {
      return std::string(BroadPhaseTypeName(info.param));
    });

}  // namespace
}  // namespace atl
