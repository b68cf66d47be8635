// Results must not depend on the executor or the number of threads.

#include <gtest/gtest.h>

#include "atoll/executor.h"
#include "atoll/scene.h"
#include "atoll/snapshot.h"

namespace atl {
namespace {

std::vector<uint64_t> HashChain(const SceneDesc& desc, Executor* executor, int steps) {
  auto world = BuildWorld(desc).value();
  world->SetExecutor(executor);
  std::vector<uint64_t> chain;
  std::string scratch;
  for (int i = 0; i < steps; ++i) {
    EXPECT_TRUE(world->Step(desc.time_step).ok());
    chain.push_back(HashWorld(*world, &scratch));
  }
  return chain;
}

TEST(ThreadInvarianceTest, HashChainsEqualAtOneToEightThreads) {
  for (const char* name : {"mixed_static_dynamic", "tumbler", "smash"}) {
    SceneParams params;
    params.size = std::string(name) == "tumbler" ? 15 : 400;
    const SceneDesc desc = MakeScene(name, params).value();
    const std::vector<uint64_t> serial = HashChain(desc, SerialExecutor(), 90);
    for (int32_t threads : {1, 2, 3, 4, 8}) {
      auto pool = MakeThreadPoolExecutor(threads);
      EXPECT_EQ(HashChain(desc, pool.get(), 90), serial) << name << " at " << threads << " threads";
    }
  }
}

TEST(ThreadInvarianceTest, ParallelForCoversEveryItemOnce) {
  auto pool = MakeThreadPoolExecutor(4);
  for (int32_t count : {0, 1, 63, 64, 65, 1000, 4097}) {
    std::vector<int> hits(static_cast<size_t>(count), 0);
    pool->ParallelFor(count, 64, [&](int32_t begin, int32_t end) {
      for (int32_t i = begin; i < end; ++i) ++hits[static_cast<size_t>(i)];
    });
    for (int h : hits) ASSERT_EQ(h, 1) << count;
  }
  EXPECT_EQ(pool->concurrency(), 4);
  EXPECT_EQ(SerialExecutor()->concurrency(), 1);
}

}  // namespace
}  // namespace atl
