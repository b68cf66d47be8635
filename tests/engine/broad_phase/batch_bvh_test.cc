#include "broad_phase/batch_bvh.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "atoll/executor.h"
#include "broad_phase/brute_force.h"
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

// The box query, the static box query and a ray cast of `phase` give
// the oracle's answers.
void ExpectSameAnswers(BroadPhase* phase, BroadPhase* oracle, const AABB& box,
                       const RayCastInput& ray, const std::string& where) {
  std::vector<int32_t> ids[2];
  phase->QueryAabb(box, &ids[0]);
  oracle->QueryAabb(box, &ids[1]);
  EXPECT_EQ(ids[1], ids[0]) << "query, " << where;
  phase->QueryStaticAabb(box, &ids[0]);
  oracle->QueryStaticAabb(box, &ids[1]);
  EXPECT_EQ(ids[1], ids[0]) << "static query, " << where;
  std::vector<RayHit> hits[2];
  auto hit = [](int32_t, const RayCastInput&) { return 0.5f; };
  phase->RayCastAll(ray, hit, &hits[0]);
  oracle->RayCastAll(ray, hit, &hits[1]);
  ASSERT_EQ(hits[1].size(), hits[0].size()) << "ray, " << where;
  for (size_t h = 0; h < hits[0].size(); ++h) {
    EXPECT_EQ(hits[1][h].proxy_id, hits[0][h].proxy_id) << "ray, " << where;
  }
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

// A resting heap whose boxes jitter inside their grown boxes while a few
// (then many) move far, proxies come and go, a static moves, and
// continuous collision refits some proxies between the pair update and the
// queries: the candidates kept from grown boxes must give brute force's
// pairs at every step, and queries must stay exact on the grown tree.
TEST(BatchBvhTest, RestingProxiesReuseCandidatesAndStayExact) {
  for (const int32_t statics : {40, 400}) {  // one tree, then a static tree too
    BatchBvh bvh;
    BruteForce oracle;
    BroadPhase* phases[2] = {&bvh, &oracle};
    test::Rng rng(5 + static_cast<uint64_t>(statics));
    std::vector<AABB> boxes;
    std::vector<int32_t> ids;
    auto create = [&](const AABB& box, const ProxyData& data) {
      const int32_t id = phases[0]->CreateProxy(box, data);
      EXPECT_EQ(phases[1]->CreateProxy(box, data), id);
      if (static_cast<size_t>(id) >= boxes.size()) boxes.resize(static_cast<size_t>(id) + 1);
      boxes[static_cast<size_t>(id)] = box;
      return id;
    };
    auto move = [&](int32_t id, const AABB& box, bool refit) {
      for (BroadPhase* p : phases) refit ? p->Refit(id, box) : p->MoveProxy(id, box);
      boxes[static_cast<size_t>(id)] = box;
    };
    for (int32_t i = 0; i < 2000; ++i) {
      const float x = static_cast<float>(i % 50) * 0.95f;
      const float y = static_cast<float>(i / 50) * 0.95f;
      ProxyData data = Data(static_cast<uint32_t>(i + 1), false);
      if (i % 11 == 0) data.filter.group_index = -1;
      create({{x, y}, {x + 1.0f, y + 1.0f}}, data);
      ids.push_back(i);
    }
    std::vector<int32_t> static_ids;
    for (int32_t i = 0; i < statics; ++i) {
      const float x = rng.Uniform(-5.0f, 50.0f);
      const float y = rng.Uniform(-5.0f, 40.0f);
      static_ids.push_back(create({{x, y}, {x + 2.0f, y + 0.5f}}, Data(100000, true)));
    }
    auto check_queries = [&](int32_t step) {
      for (int32_t q = 0; q < 4; ++q) {
        const Vec2 c{rng.Uniform(0.0f, 48.0f), rng.Uniform(0.0f, 38.0f)};
        const AABB box{c, c + Vec2{rng.Uniform(0.1f, 3.0f), rng.Uniform(0.1f, 3.0f)}};
        ExpectSameAnswers(phases[0], phases[1], box, {c, Vec2{3.0f, -2.0f}, 1.0f},
                          "step " + std::to_string(step));
      }
    };
    std::vector<ProxyPair> expected;
    std::vector<ProxyPair> actual;
    int32_t reused = 0;
    int32_t sent_back = -1;  // refit far, then back where it was
    AABB sent_from;
    for (int32_t step = 0; step < 120; ++step) {
      if (sent_back >= 0) move(sent_back, sent_from, false);
      // Everyone jitters a little (well inside a grown box)...
      for (const int32_t id : ids) {
        AABB box = boxes[static_cast<size_t>(id)];
        const Vec2 d{rng.Uniform(-0.004f, 0.004f), rng.Uniform(-0.004f, 0.004f)};
        move(id, {box.lower + d, box.upper + d}, false);
      }
      // ... a few travel (escaping their grown boxes); from step 60 to 70,
      // a third of them at once.
      const int32_t travellers = step >= 60 && step < 70 ? 700 : 1 + step % 9;
      for (int32_t k = 0; k < travellers; ++k) {
        const int32_t id = ids[static_cast<size_t>(rng.Int(static_cast<int32_t>(ids.size())))];
        const AABB box = boxes[static_cast<size_t>(id)];
        const Vec2 d{rng.Uniform(-1.5f, 1.5f), rng.Uniform(-1.5f, 1.5f)};
        move(id, {box.lower + d, box.upper + d}, false);
      }
      if (step % 23 == 7) {  // one created, one destroyed
        const int32_t gone = ids[static_cast<size_t>(rng.Int(static_cast<int32_t>(ids.size())))];
        for (BroadPhase* p : phases) p->DestroyProxy(gone);
        ids.erase(std::find(ids.begin(), ids.end(), gone));
        const float x = rng.Uniform(0.0f, 45.0f);
        ids.push_back(create({{x, 10.0f}, {x + 1.0f, 11.0f}},
                             Data(200000 + static_cast<uint32_t>(step), false)));
      }
      if (step % 31 == 11) {  // a static slides
        const int32_t id = static_ids[static_cast<size_t>(step) % static_ids.size()];
        const AABB box = boxes[static_cast<size_t>(id)];
        move(id, {box.lower + Vec2{0.7f, 0.0f}, box.upper + Vec2{0.7f, 0.0f}}, false);
      }
      if (step % 17 == 3) {
        check_queries(step);  // a stale index: rebuilt tight
        // A small refit (inside the grown box) now must reach that tight
        // index too: a query of the strip it moved into finds it.
        const int32_t id = ids[static_cast<size_t>(rng.Int(static_cast<int32_t>(ids.size())))];
        const AABB box = boxes[static_cast<size_t>(id)];
        move(id, {box.lower + Vec2{0.1f, 0.0f}, box.upper + Vec2{0.1f, 0.0f}}, true);
        const Vec2 c = Center(box);
        const AABB strip{{box.upper.x + 0.04f, c.y}, {box.upper.x + 0.06f, c.y}};
        ExpectSameAnswers(phases[0], phases[1], strip, {c, Vec2{0.0f, 0.1f}, 1.0f},
                          "refit after a query, step " + std::to_string(step));
        check_queries(step);
      }
      phases[1]->UpdatePairs(&expected);
      phases[0]->UpdatePairs(&actual);
      ASSERT_EQ(expected, actual) << "statics " << statics << " step " << step;
      if (bvh.last_pairs_from_candidates()) ++reused;
      check_queries(step);
      // Continuous collision: a few proxies refit after the pair update,
      // some a little, one far (and the next step puts it back).
      for (int32_t k = 0; k < 3; ++k) {
        const int32_t id = ids[static_cast<size_t>(rng.Int(static_cast<int32_t>(ids.size())))];
        const AABB box = boxes[static_cast<size_t>(id)];
        if (k == 0) {
          sent_back = id;
          sent_from = box;
        }
        const float r = k == 0 ? 2.0f : 0.003f;
        const Vec2 d{rng.Uniform(-r, r), rng.Uniform(-r, r)};
        move(id, {box.lower + d, box.upper + d}, true);
      }
      check_queries(step);
    }
    // Most steps reuse the candidates: all but the builds after the
    // travellers' rush, the comings and goings and the static moves.
    EXPECT_GT(reused, 60) << "statics " << statics;
  }
}

// Bodies falling asleep among many statics have their proxies refiled as
// static (destroyed and created again under the same id), and back when
// they wake. While such changes are few the static tree is kept: new
// statics go with the moving part, destroyed ones are skipped by
// generation. Pairs and every kind of query must stay brute force's, and
// the tree is rebuilt once the changes pile up.
TEST(BatchBvhTest, StaticsRefiledBySleepKeepTheStaticTreeAndStayExact) {
  BatchBvh bvh;
  BruteForce oracle;
  BroadPhase* phases[2] = {&bvh, &oracle};
  test::Rng rng(21);
  std::vector<AABB> boxes;
  std::vector<bool> asleep;
  auto create = [&](int32_t id, const AABB& box, bool is_static) {
    for (BroadPhase* p : phases) p->CreateProxyWithId(id, box, Data(static_cast<uint32_t>(id), is_static));
    if (static_cast<size_t>(id) >= boxes.size()) boxes.resize(static_cast<size_t>(id) + 1);
    boxes[static_cast<size_t>(id)] = box;
  };
  // A level of 1 600 statics and 200 movers over it.
  int32_t next = 0;
  for (int32_t i = 0; i < 1600; ++i) {
    const float x = static_cast<float>(i % 100) * 1.1f;
    const float y = static_cast<float>(i / 100) * 1.1f;
    create(next++, {{x, y}, {x + 1.2f, y + 0.3f}}, true);
  }
  const int32_t first_mover = next;
  for (int32_t i = 0; i < 200; ++i) {
    const float x = rng.Uniform(0.0f, 108.0f);
    const float y = rng.Uniform(0.0f, 32.0f);
    create(next++, {{x, y}, {x + 0.8f, y + 0.8f}}, false);
    asleep.push_back(false);
  }
  auto check_all = [&](int32_t step) {
    std::vector<ProxyPair> pairs[2];
    for (int k = 0; k < 2; ++k) phases[k]->UpdatePairs(&pairs[k]);
    ASSERT_EQ(pairs[1], pairs[0]) << "step " << step;
    for (int32_t q = 0; q < 6; ++q) {
      const Vec2 c{rng.Uniform(0.0f, 108.0f), rng.Uniform(0.0f, 32.0f)};
      const AABB box{c, c + Vec2{rng.Uniform(0.2f, 4.0f), rng.Uniform(0.2f, 4.0f)}};
      // Half the rays through a mover (a refiled id), half anywhere.
      const AABB& mover = boxes[static_cast<size_t>(first_mover + rng.Int(200))];
      const Vec2 from = q % 2 == 0 ? Center(mover) - Vec2{2.0f, 0.1f} : c;
      const RayCastInput ray{from, Vec2{rng.Uniform(3.0f, 6.0f), rng.Uniform(-1.0f, 1.0f)}, 1.0f};
      ExpectSameAnswers(&bvh, &oracle, box, ray, "step " + std::to_string(step));
    }
  };
  check_all(-1);
  const int64_t builds_at_start = bvh.static_builds();
  for (int32_t step = 0; step < 80; ++step) {
    // Awake movers drift; three fall asleep and one wakes (moved a little:
    // a woken body is pushed).
    for (int32_t i = 0; i < 200; ++i) {
      const int32_t id = first_mover + i;
      if (asleep[static_cast<size_t>(i)]) continue;
      AABB box = boxes[static_cast<size_t>(id)];
      const Vec2 d{rng.Uniform(-0.3f, 0.3f), rng.Uniform(-0.3f, 0.3f)};
      box = {box.lower + d, box.upper + d};
      for (BroadPhase* p : phases) p->MoveProxy(id, box);
      boxes[static_cast<size_t>(id)] = box;
    }
    for (int32_t k = 0; k < 4; ++k) {
      const int32_t i = rng.Int(200);
      const int32_t id = first_mover + i;
      const bool sleep = k < 3;
      if (asleep[static_cast<size_t>(i)] == sleep) continue;
      for (BroadPhase* p : phases) p->DestroyProxy(id);
      AABB box = boxes[static_cast<size_t>(id)];
      if (!sleep) box = {box.lower + Vec2{0.2f, 0.0f}, box.upper + Vec2{0.2f, 0.0f}};
      create(id, box, sleep);
      asleep[static_cast<size_t>(i)] = sleep;
    }
    // Now and then a static of the level goes and another comes.
    if (step % 10 == 5) {
      const int32_t gone = rng.Int(1600);
      for (BroadPhase* p : phases) p->DestroyProxy(gone);
      const float x = rng.Uniform(0.0f, 108.0f);
      create(gone, {{x, 20.0f}, {x + 2.0f, 20.5f}}, true);
    }
    check_all(step);
    if (step == 20) {
      // About 60 refiles and two level edits: below 1/16 of the statics.
      EXPECT_EQ(bvh.static_builds(), builds_at_start) << "the static tree was rebuilt";
    }
  }
  // Past 1/16 of the statics by now: rebuilt at least once.
  EXPECT_GT(bvh.static_builds(), builds_at_start);
}

}  // namespace
}  // namespace atl
