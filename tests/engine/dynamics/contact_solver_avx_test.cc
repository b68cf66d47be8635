// The eight-lane contact passes (contact_solver_avx.cc) against the
// four-lane ones: the same hash after every step, at one thread and at two.

#include <cstdint>
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
  // manifolds, so groups that cannot pair); piles created inside each
  // other (push-out contacts); an impact; kinematic bodies shared by the
  // contacts of a colour; compounds.
  const Case cases[] = {{"large_pyramid", 40, 60},        {"falling_squares", 400, 150},
                        {"mixed_static_dynamic", 400, 90}, {"n2", 100, 40},
                        {"smash", 400, 90},                {"washer", 20, 60},
                        {"compounds", 100, 60}};
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

TEST_F(WideContactsTest, SwitchingOnIsRefusedWithoutAvx) {
  EnableWideContacts(true);
  EXPECT_EQ(WideContactsEnabled(), CompiledWithAvx() && __builtin_cpu_supports("avx"));
}

}  // namespace
}  // namespace atl
