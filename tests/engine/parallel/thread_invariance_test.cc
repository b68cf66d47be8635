// Results must not depend on the executor or the number of threads.

#include <gtest/gtest.h>

#include "atoll/executor.h"
#include "atoll/scene.h"
#include "atoll/snapshot.h"
#include "engine/parallel/std_thread_executor.h"

namespace atl {
namespace {

struct ChainRun {
  std::vector<uint64_t> chain;
  int32_t awake_at_end = 0;
};

ChainRun HashChain(const SceneDesc& desc, Executor* executor, int steps) {
  auto world = BuildWorld(desc).value();
  world->SetExecutor(executor);
  ChainRun run;
  std::string scratch;
  for (int i = 0; i < steps; ++i) {
    EXPECT_TRUE(ApplySceneWaves(world.get(), desc, i).ok());
    EXPECT_TRUE(world->Step(desc.time_step).ok());
    run.chain.push_back(HashWorld(*world, &scratch));
  }
  run.awake_at_end = world->GetCounters().awake_bodies;
  return run;
}

// The oneTBB pool, except under ThreadSanitizer, which cannot see oneTBB's
// synchronisation (std_thread_executor.h).
std::unique_ptr<Executor> MakePool(int32_t threads) {
  return testing::kThreadSanitizer ? testing::MakeStdThreadExecutor(threads)
                                   : MakeThreadPoolExecutor(threads);
}

void ExpectSameAtOneToEightThreads(const char* name, int32_t size, int steps,
                                   int32_t* awake_at_end = nullptr) {
  SceneParams params;
  params.size = size;
  const SceneDesc desc = MakeScene(name, params).value();
  const ChainRun serial = HashChain(desc, SerialExecutor(), steps);
  for (int32_t threads : {1, 2, 3, 4, 8}) {
    auto pool = MakePool(threads);
    EXPECT_EQ(HashChain(desc, pool.get(), steps).chain, serial.chain)
        << name << " at " << threads << " threads";
  }
  if (awake_at_end != nullptr) *awake_at_end = serial.awake_at_end;
}

TEST(ThreadInvarianceTest, HashChainsEqualAtOneToEightThreads) {
  ExpectSameAtOneToEightThreads("mixed_static_dynamic", 400, 90);
  // A motor-driven drum.
  ExpectSameAtOneToEightThreads("tumbler", 15, 90);
  ExpectSameAtOneToEightThreads("smash", 400, 90);
  // A kinematic ring: kinematic bodies are shared by constraints of a colour.
  ExpectSameAtOneToEightThreads("washer", 20, 60);
}

TEST(ThreadInvarianceTest, HashChainsEqualInTheOtherV3Scenes) {
  // A chain ring and a motor of unbounded torque; two-polygon compounds; a
  // kinematic pusher steered by a drive; rain's waves removing ragdolls.
  ExpectSameAtOneToEightThreads("spinner", 300, 60);
  ExpectSameAtOneToEightThreads("compounds", 100, 60);
  ExpectSameAtOneToEightThreads("junkyard", 400, 60);
  ExpectSameAtOneToEightThreads("rain", 1, 40);
}

TEST(ThreadInvarianceTest, HashChainsEqualWithJoints) {
  ExpectSameAtOneToEightThreads("ragdolls", 12, 120);
  ExpectSameAtOneToEightThreads("bridge", 40, 120);
  // Large enough that every joint colour is split into blocks (a small
  // solve runs on one thread, see solver.cc), and GatherBodies walks its
  // 2 304 bodies in three blocks.
  ExpectSameAtOneToEightThreads("joint_grid", 48, 40);
}

TEST(ThreadInvarianceTest, HashChainsEqualWithManyContacts) {
  // Many colours of thousands of contacts each.
  ExpectSameAtOneToEightThreads("large_pyramid", 40, 40);
  ExpectSameAtOneToEightThreads("many_pyramids", 12, 90);
}

TEST(ThreadInvarianceTest, HashChainsEqualWhileAPileIsPushedOut) {
  // Boxes created inside each other: the push-out passes (over the listed
  // groups, colour by colour) and the overflow's lane-by-lane groups.
  ExpectSameAtOneToEightThreads("n2", 200, 30);
}

TEST(ThreadInvarianceTest, HashChainsEqualThroughSleep) {
  int32_t awake = -1;
  ExpectSameAtOneToEightThreads("pyramid", 10, 300, &awake);
  EXPECT_EQ(awake, 0) << "the pyramid should have fallen asleep within the run";
}

// The std::thread executor the TSan run uses gives the same chains too.
TEST(ThreadInvarianceTest, StdThreadExecutorGivesTheSameChains) {
  const SceneDesc desc = MakeScene("tumbler", {.size = 15}).value();
  const ChainRun serial = HashChain(desc, SerialExecutor(), 60);
  for (int32_t threads : {2, 4}) {
    auto pool = testing::MakeStdThreadExecutor(threads);
    EXPECT_EQ(HashChain(desc, pool.get(), 60).chain, serial.chain) << threads << " threads";
  }
}

TEST(ThreadInvarianceTest, ParallelForCoversEveryItemOnce) {
  auto tbb_pool = testing::kThreadSanitizer ? nullptr : MakeThreadPoolExecutor(4);
  auto std_pool = testing::MakeStdThreadExecutor(4);
  for (Executor* pool : {tbb_pool.get(), std_pool.get()}) {
    if (pool == nullptr) continue;
    for (int32_t count : {0, 1, 63, 64, 65, 1000, 4097}) {
      std::vector<int> hits(static_cast<size_t>(count), 0);
      pool->ParallelFor(count, 64, [&](int32_t begin, int32_t end) {
        for (int32_t i = begin; i < end; ++i) ++hits[static_cast<size_t>(i)];
      });
      for (int h : hits) ASSERT_EQ(h, 1) << count;
    }
    EXPECT_EQ(pool->concurrency(), 4);
  }
  EXPECT_EQ(SerialExecutor()->concurrency(), 1);
}

}  // namespace
}  // namespace atl
