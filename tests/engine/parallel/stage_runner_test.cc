// The stage runner (parallel/stage_runner.h): every item of every stage runs
// exactly once, no block of a stage starts before the previous stage is
// complete, and no executor can make it deadlock.

#include "parallel/stage_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <vector>

#include "atoll/executor.h"
#include "engine/parallel/std_thread_executor.h"

namespace atl {
namespace {

// Claims `threads` of concurrency but runs the ranges one after the other
// on the calling thread, last range first: a participant never overlaps
// another, and the first to run is not the caller's usual first range.
class OneAfterAnother final : public Executor {
 public:
  explicit OneAfterAnother(int32_t threads) : threads_(threads) {}
  void ParallelFor(int32_t count, int32_t grain,
                   absl::FunctionRef<void(int32_t, int32_t)> task) override {
    const int32_t g = grain < 1 ? 1 : grain;
    for (int32_t begin = ((count - 1) / g) * g; begin >= 0; begin -= g) {
      task(begin, begin + g < count ? begin + g : count);
    }
  }
  int32_t concurrency() const override { return threads_; }

 private:
  int32_t threads_;
};

struct Executors {
  std::vector<std::unique_ptr<Executor>> owned;
  std::vector<Executor*> all;
};

Executors AllExecutors() {
  Executors e;
  e.all.push_back(SerialExecutor());
  for (int32_t threads : {2, 3, 4, 8}) {
    e.owned.push_back(testing::MakeStdThreadExecutor(threads));
    if (!testing::kThreadSanitizer) e.owned.push_back(MakeThreadPoolExecutor(threads));
    e.owned.push_back(std::make_unique<OneAfterAnother>(threads));
  }
  for (auto& owned : e.owned) e.all.push_back(owned.get());
  return e;
}

TEST(StageRunnerTest, EveryItemRunsOnceAfterThePreviousStageCompleted) {
  const std::vector<int32_t> counts = {1, 700, 3, 64, 65, 4096, 1, 1, 250, 9000, 17};
  for (Executor* executor : AllExecutors().all) {
    for (int repeat = 0; repeat < 3; ++repeat) {  // reuse of the counters
      StageRunner run;
      int32_t offset = 0;
      for (size_t k = 0; k < counts.size(); ++k) {
        run.Add(static_cast<int32_t>(k), offset, counts[k], /*grain=*/16,
                executor->concurrency());
        offset += counts[k];
      }
      ASSERT_EQ(run.stages().size(), counts.size());
      std::vector<std::atomic<int32_t>> hits(static_cast<size_t>(offset));
      std::vector<std::atomic<int32_t>> finished(counts.size());
      std::atomic<int32_t> early{0};
      run.Run(executor, /*serial=*/false,
              [&](const StageRunner::Stage& stage, int32_t begin, int32_t end) {
                const size_t k = static_cast<size_t>(stage.tag);
                if (k > 0 && finished[k - 1].load() != counts[k - 1]) early.fetch_add(1);
                for (int32_t i = begin; i < end; ++i) hits[static_cast<size_t>(i)].fetch_add(1);
                finished[k].fetch_add(end - begin);
              });
      EXPECT_EQ(early.load(), 0) << "a block started before its previous stage finished";
      for (size_t i = 0; i < hits.size(); ++i) {
        ASSERT_EQ(hits[i].load(), 1) << "item " << i << " at concurrency "
                                     << executor->concurrency();
      }
    }
  }
}

// Stages laid out for more threads than the executor has: a participant's
// part of a stage then spans several lines of claim flags.
TEST(StageRunnerTest, EveryItemRunsOnceWhenAPartHasManyBlocks) {
  for (Executor* executor : AllExecutors().all) {
    StageRunner run;
    run.Add(0, 0, 5000, /*grain=*/1, /*concurrency=*/64);  // 264 blocks of 19
    run.Add(1, 5000, 37, /*grain=*/1, /*concurrency=*/64);
    ASSERT_GT(run.stages()[0].block_count(), 16 * executor->concurrency());
    std::vector<std::atomic<int32_t>> hits(5037);
    run.Run(executor, /*serial=*/false,
            [&](const StageRunner::Stage&, int32_t begin, int32_t end) {
              for (int32_t i = begin; i < end; ++i) hits[static_cast<size_t>(i)].fetch_add(1);
            });
    for (size_t i = 0; i < hits.size(); ++i) {
      ASSERT_EQ(hits[i].load(), 1) << "item " << i << " at concurrency "
                                   << executor->concurrency();
    }
  }
}

TEST(StageRunnerTest, SerialRunIsOneCallPerStageInOrder) {
  auto pool = testing::MakeStdThreadExecutor(4);
  StageRunner run;
  run.Add(7, 10, 1000, 8, 4);
  run.Add(8, 0, 5, 8, 4);
  std::vector<std::pair<int32_t, int32_t>> calls;
  run.Run(pool.get(), /*serial=*/true,
          [&](const StageRunner::Stage& stage, int32_t begin, int32_t end) {
            calls.push_back({stage.tag, end - begin});
            EXPECT_EQ(begin, stage.begin);
          });
  const std::vector<std::pair<int32_t, int32_t>> expected = {{7, 1000}, {8, 5}};
  EXPECT_EQ(calls, expected);
}

TEST(StageRunnerTest, EmptyStagesAreDroppedAndBlocksHoldAtLeastTheGrain) {
  StageRunner run;
  run.Add(0, 0, 0, 64, 2);
  EXPECT_TRUE(run.stages().empty());
  run.Add(1, 0, 100, 64, 2);
  run.Add(2, 0, 100000, 64, 2, /*blocks_per_thread=*/4);
  ASSERT_EQ(run.stages().size(), 2u);
  EXPECT_EQ(run.stages()[0].block, 64);
  EXPECT_EQ(run.stages()[0].block_count(), 2);
  EXPECT_EQ(run.stages()[1].block, 100000 / 8);
  EXPECT_EQ(run.stages()[1].block_count(), 8);
  // Nothing to run: returns at once on any executor.
  run.Clear();
  auto pool = testing::MakeStdThreadExecutor(2);
  run.Run(pool.get(), false, [](const StageRunner::Stage&, int32_t, int32_t) { FAIL(); });
}

}  // namespace
}  // namespace atl
