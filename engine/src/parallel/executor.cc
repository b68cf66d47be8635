#include "atoll/executor.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include "atoll/assert.h"

namespace atl {
namespace {

class Serial final : public Executor {
 public:
  void ParallelFor(int32_t count, int32_t /*grain*/,
                   absl::FunctionRef<void(int32_t, int32_t)> task) override {
    if (count > 0) task(0, count);
  }
  int32_t concurrency() const override { return 1; }
};

class ThreadPool final : public Executor {
 public:
  explicit ThreadPool(int32_t threads) : threads_(threads), arena_(threads) {}

  void ParallelFor(int32_t count, int32_t grain,
                   absl::FunctionRef<void(int32_t, int32_t)> task) override {
    if (count <= 0) return;
    if (threads_ == 1 || count <= grain) {
      task(0, count);
      return;
    }
    arena_.execute([&] {
      // simple_partitioner: ranges of exactly `grain` (up to the end); which
      // thread runs which range does not matter, since tasks write only to
      // their own items.
      tbb::parallel_for(
          tbb::blocked_range<int32_t>(0, count, static_cast<size_t>(Max(grain, 1))),
          [&](const tbb::blocked_range<int32_t>& r) { task(r.begin(), r.end()); },
          tbb::simple_partitioner());
    });
  }

  int32_t concurrency() const override { return threads_; }

 private:
  static int32_t Max(int32_t a, int32_t b) { return a > b ? a : b; }
  const int32_t threads_;
  tbb::task_arena arena_;
};

}  // namespace

Executor* SerialExecutor() {
  static Serial serial;
  return &serial;
}

std::unique_ptr<Executor> MakeThreadPoolExecutor(int32_t threads) {
  ATOLL_ASSERT(threads >= 1);
  return std::make_unique<ThreadPool>(threads);
}

}  // namespace atl
