// The eight-lane contact passes (contact_solver_avx.cc) against the
// four-lane ones: the same hash after every step, at one thread and at two,
// and the same bits on two groups made to differ in their points.

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "atoll/executor.h"
#include "atoll/scene.h"
#include "atoll/snapshot.h"
#include "dynamics/contact_solver.h"

namespace atl {
namespace {

std::vector<uint64_t> HashChain(const std::string& name, int32_t size, int steps,
                                Executor* executor) {
  SceneParams params;
  params.size = size;
  const SceneDesc desc = MakeScene(name, params).value();
  auto world = BuildWorld(desc).value();
  world->SetExecutor(executor);
  std::vector<uint64_t> chain;
  std::string scratch;
  for (int i = 0; i < steps; ++i) {
    EXPECT_TRUE(ApplySceneWaves(world.get(), desc, i).ok());
    EXPECT_TRUE(world->Step(desc.time_step).ok());
    chain.push_back(HashWorld(*world, &scratch));
  }
  return chain;
}

// Restores the default when a test ends, however it ends.
class WideContactsTest : public ::testing::Test {
 protected:
  void TearDown() override { EnableWideContacts(true); }
};

TEST_F(WideContactsTest, EightLanesGiveTheFourLaneHashChains) {
  if (!WideContactsEnabled()) GTEST_SKIP() << "no AVX on this CPU (or not an x86-64 build)";
  struct Case {
    const char* scene;
    int32_t size;
    int steps;
  };
  // Two-point box stacks; circles and boxes mixed (one- and two-point
  // manifolds, so groups whose points differ: the masked kernels);
  // capsules, circles and boxes hit by a spinning bar; piles created inside
  // each other (push-out contacts; an overflow packed in many colours, each
  // eight lanes wide); an impact; kinematic bodies shared by
  // the contacts of a colour; compounds.
  const Case cases[] = {{"large_pyramid", 40, 60},        {"falling_squares", 400, 150},
                        {"mixed_static_dynamic", 400, 90}, {"spinner", 300, 90},
                        {"n2", 100, 40},                   {"smash", 400, 90},
                        {"washer", 20, 60},                {"compounds", 100, 60}};
  auto pool = MakeThreadPoolExecutor(2);
  for (const Case& c : cases) {
    for (Executor* executor : {SerialExecutor(), pool.get()}) {
      EnableWideContacts(true);
      ASSERT_TRUE(WideContactsEnabled());
      const std::vector<uint64_t> wide = HashChain(c.scene, c.size, c.steps, executor);
      EnableWideContacts(false);
      ASSERT_FALSE(WideContactsEnabled());
      const std::vector<uint64_t> narrow = HashChain(c.scene, c.size, c.steps, executor);
      EXPECT_EQ(wide, narrow) << c.scene << " at " << executor->concurrency() << " thread(s)";
    }
  }
}

// Two groups of one colour whose lanes differ in which manifold points
// they have: every lane of the first has point 0 and some have point 1,
// no lane of the second has point 1. Velocities, anchors and impulses are
// drawn from small sets that hold +0 and -0, so that solving the second
// group's missing point with zeroes would turn some -0 into +0 (a zero
// impulse added to -0): the eight-lane passes must undo its writes there.
struct Draw {
  uint32_t state;
  uint32_t Next() {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  }
  float Pick(std::initializer_list<float> values) {
    return values.begin()[Next() % values.size()];
  }
};

constexpr int32_t kStaticSlot = 16;

void MakeUnpairedGroups(uint32_t seed, ContactGroup groups[2], SolverBody bodies[17]) {
  Draw draw{seed};
  for (int32_t i = 0; i < 17; ++i) {
    bodies[i] = SolverBody{};
    if (i == kStaticSlot) continue;
    bodies[i].linear_velocity = {draw.Pick({-0.0f, 0.0f, 0.5f}), draw.Pick({-0.0f, 0.0f, -1.0f})};
    bodies[i].angular_velocity = draw.Pick({-0.0f, 0.0f, 0.25f});
  }
  for (int32_t g = 0; g < 2; ++g) {
    ContactGroup& group = groups[g];
    group = ContactGroup{};
    for (int32_t lane = 0; lane < 4; ++lane) {
      group.index_a[lane] = 8 * g + 2 * lane;
      group.index_b[lane] = draw.Next() % 4 == 0 ? kStaticSlot : 8 * g + 2 * lane + 1;
      group.contact[lane] = 4 * g + lane;
      group.moves_a[lane] = 1;
      group.moves_b[lane] = group.index_b[lane] != kStaticSlot;
      const float n = draw.Pick({-1.0f, 1.0f});
      const bool along_x = draw.Next() % 2 == 0;
      group.normal_x[lane] = along_x ? n : 0.0f;
      group.normal_y[lane] = along_x ? 0.0f : n;
      group.friction[lane] = draw.Pick({0.0f, 0.6f});
      group.max_push[lane] = 3.0f;
      group.inv_mass_a[lane] = 1.0f;
      group.inv_inertia_a[lane] = 2.0f;
      group.inv_mass_b[lane] = group.moves_b[lane] ? 0.5f : 0.0f;
      group.inv_inertia_b[lane] = group.moves_b[lane] ? 1.0f : 0.0f;
      for (int32_t j = 0; j < 2; ++j) {
        const bool has = j == 0 || (g == 0 && draw.Next() % 2 == 0);
        if (!has) continue;  // PrepareContact leaves a missing point all zero
        group.has_point[j][lane] = 1;
        ContactGroup::Points& p = group.points[j];
        p.anchor_ax[lane] = draw.Pick({-0.0f, 0.0f, 0.5f});
        p.anchor_ay[lane] = draw.Pick({-0.0f, 0.0f, -0.5f});
        p.anchor_bx[lane] = draw.Pick({-0.0f, 0.0f, 0.25f});
        p.anchor_by[lane] = draw.Pick({-0.0f, 0.0f, -0.25f});
        p.base_separation[lane] = draw.Pick({-0.02f, 0.0f, 0.01f});
        p.normal_impulse[lane] = draw.Pick({0.0f, 0.75f});
        p.tangent_impulse[lane] = draw.Pick({-0.0f, 0.0f, 0.125f});
        p.normal_mass[lane] = draw.Pick({0.0f, 0.4f});
        p.tangent_mass[lane] = draw.Pick({0.0f, 0.3f});
      }
    }
  }
  groups[0].has_point[1][0] = 1;  // some lane of the first group has point 1
}

TEST_F(WideContactsTest, GroupsWithDifferentPointsMatchTheFourLanePasses) {
  if (!WideContactsEnabled()) GTEST_SKIP() << "no AVX on this CPU (or not an x86-64 build)";
  const Softness softness = MakeSoftness(30.0f, 10.0f, 1.0f / 240.0f);
  for (uint32_t seed = 1; seed <= 2000; ++seed) {
    ContactGroup wide[2], narrow[2];
    SolverBody wide_bodies[17], narrow_bodies[17];
    MakeUnpairedGroups(seed, wide, wide_bodies);
    MakeUnpairedGroups(seed, narrow, narrow_bodies);
    WarmStartContactRange(wide, 0, 2, wide_bodies);
    for (int32_t g = 0; g < 2; ++g) WarmStartContacts(narrow[g], narrow_bodies);
    for (bool use_bias : {true, false}) {
      SolveContactRange(wide, 0, 2, wide_bodies, softness, 240.0f, use_bias);
      for (int32_t g = 0; g < 2; ++g) {
        SolveContacts(&narrow[g], narrow_bodies, softness, 240.0f, use_bias);
      }
    }
    ASSERT_EQ(std::memcmp(wide_bodies, narrow_bodies, sizeof(wide_bodies)), 0) << "seed " << seed;
    ASSERT_EQ(std::memcmp(wide, narrow, sizeof(wide)), 0) << "seed " << seed;
  }
}

TEST_F(WideContactsTest, SwitchingOnIsRefusedWithoutAvx) {
  EnableWideContacts(true);
  EXPECT_EQ(WideContactsEnabled(), CompiledWithAvx() && __builtin_cpu_supports("avx"));
}

}  // namespace
}  // namespace atl
