// Atoll — the task system the step runs its parallel stages on.
//
// The world never creates threads itself: it runs parallel stages through an
// Executor, which the application may supply (like Box2D v3's user task
// system). Atoll ships a serial executor (the default) and a thread pool on
// oneTBB. Results never depend on the executor: every parallel stage writes
// to per-item slots and anything order-dependent runs afterwards in index
// order, so 1, 2 or 8 threads give bit-identical worlds.

#ifndef ATOLL_EXECUTOR_H_
#define ATOLL_EXECUTOR_H_

#include <cstdint>
#include <memory>

#include "absl/functional/function_ref.h"

namespace atl {

class Executor {
 public:
  virtual ~Executor() = default;

  /// Calls task(begin, end) on disjoint ranges that together cover
  /// [0, count), possibly concurrently, and returns when all have finished.
  /// Ranges hold at least `grain` items (the last may hold fewer).
  virtual void ParallelFor(int32_t count, int32_t grain,
                           absl::FunctionRef<void(int32_t begin, int32_t end)> task) = 0;

  /// How many threads may run tasks at once (1 for a serial executor).
  virtual int32_t concurrency() const = 0;
};

/// The executor that runs every task on the calling thread.
Executor* SerialExecutor();

/// A pool of `threads` threads (>= 1) on oneTBB, in its own task arena so
/// worlds with different pools do not share workers.
std::unique_ptr<Executor> MakeThreadPoolExecutor(int32_t threads);

}  // namespace atl

#endif  // ATOLL_EXECUTOR_H_
