// Persistent islands against a DFS of the constraint graph, sleep and wake.

#include "dynamics/island.h"

#include <gtest/gtest.h>

#include "atoll/random.h"
#include "atoll/world.h"
#include "world/world_state.h"
#include "engine/world/world_test_util.h"

namespace atl {
namespace {

using testing::AddDynamicBox;
using testing::AddGround;
using testing::MakeWorld;

TEST(IslandTest, PartitionMatchesConnectedComponentsEveryStep) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    auto world = MakeWorld();
    AddGround(world.get(), 30.0f);
    Random rng(seed);
    std::vector<BodyId> bodies;
    for (int i = 0; i < 120; ++i) {
      bodies.push_back(AddDynamicBox(world.get(), {rng.Uniform(-10.0f, 10.0f), rng.Uniform(1.0f, 30.0f)},
                                     rng.Uniform(0.2f, 0.6f), rng.Uniform(-1.0f, 1.0f)));
    }
    for (int step = 0; step < 400; ++step) {
      ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
      // Churn: destroy and create bodies, kick some awake.
      if (step % 37 == 5) {
        const size_t k = rng.Below(static_cast<uint32_t>(bodies.size()));
        ASSERT_TRUE(world->DestroyBody(bodies[k]).ok());
        bodies.erase(bodies.begin() + static_cast<long>(k));
      }
      if (step % 53 == 7) {
        bodies.push_back(AddDynamicBox(world.get(), {rng.Uniform(-5.0f, 5.0f), 20.0f}, 0.4f));
      }
      if (step % 91 == 50) {
        ASSERT_TRUE(world->ApplyLinearImpulse(bodies[0], {0.0f, 5.0f},
                                              world->GetBody(bodies[0])->world_center, true).ok());
      }
      const std::string problem = ValidateIslands(world->state());
      ASSERT_EQ(problem, "") << "seed " << seed << " step " << step;
    }
  }
}

TEST(IslandTest, SeparatedPartsSplitSoTheySleepAndWakeIndependently) {
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  auto world = MakeWorld(def);
  // Two boxes pushed together, then pulled apart and stopped.
  const BodyId a = AddDynamicBox(world.get(), {-0.5f, 0.0f}, 0.5f);
  const BodyId b = AddDynamicBox(world.get(), {0.5f, 0.0f}, 0.5f);
  testing::StepN(world.get(), 2);
  EXPECT_EQ(world->GetCounters().islands, 1);
  ASSERT_TRUE(world->SetLinearVelocity(a, {-5.0f, 0.0f}).ok());
  ASSERT_TRUE(world->SetLinearVelocity(b, {5.0f, 0.0f}).ok());
  testing::StepN(world.get(), 20);
  // Apart but still awake: one island, flagged for splitting (an awake
  // island is solved the same whether split or not).
  EXPECT_EQ(ValidateIslands(world->state()), "");
  ASSERT_TRUE(world->SetLinearVelocity(a, {0.0f, 0.0f}).ok());
  ASSERT_TRUE(world->SetLinearVelocity(b, {0.0f, 0.0f}).ok());
  testing::StepN(world.get(), 60);  // rest for time_to_sleep, split, sleep
  EXPECT_EQ(world->GetCounters().islands, 2);
  EXPECT_FALSE(world->GetBody(a)->is_awake);
  EXPECT_FALSE(world->GetBody(b)->is_awake);
  ASSERT_TRUE(world->SetAwake(a, true).ok());
  EXPECT_FALSE(world->GetBody(b)->is_awake) << "parts must wake independently";
  EXPECT_EQ(ValidateIslands(world->state()), "");
}

TEST(IslandTest, SleepingBodiesHaveZeroVelocityAndWakeTogether) {
  auto world = MakeWorld();
  AddGround(world.get());
  std::vector<BodyId> stack;
  for (int i = 0; i < 5; ++i) {
    stack.push_back(AddDynamicBox(world.get(), {0.0f, 0.5f + static_cast<float>(i)}, 0.5f));
  }
  testing::StepN(world.get(), 300);
  for (BodyId id : stack) {
    const BodyInfo b = world->GetBody(id).value();
    ASSERT_FALSE(b.is_awake);
    EXPECT_EQ(b.linear_velocity.x, 0.0f);
    EXPECT_EQ(b.linear_velocity.y, 0.0f);
    EXPECT_EQ(b.angular_velocity, 0.0f);
  }
  // Waking the top box wakes the whole touching stack at once.
  ASSERT_TRUE(world->SetAwake(stack.back(), true).ok());
  for (BodyId id : stack) EXPECT_TRUE(world->GetBody(id)->is_awake);
}

TEST(IslandTest, FallingBodyWakesTheSleepingStackItLandsOn) {
  auto world = MakeWorld();
  AddGround(world.get());
  std::vector<BodyId> stack;
  for (int i = 0; i < 3; ++i) {
    stack.push_back(AddDynamicBox(world.get(), {0.0f, 0.5f + static_cast<float>(i)}, 0.5f));
  }
  testing::StepN(world.get(), 300);
  ASSERT_FALSE(world->GetBody(stack[0])->is_awake);
  AddDynamicBox(world.get(), {0.0f, 8.0f}, 0.5f);
  bool bottom_woke = false;
  for (int i = 0; i < 120 && !bottom_woke; ++i) {
    ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
    bottom_woke = world->GetBody(stack[0])->is_awake;
  }
  EXPECT_TRUE(bottom_woke);
}

}  // namespace
}  // namespace atl
