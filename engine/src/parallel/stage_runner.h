// Atoll — a fixed sequence of parallel stages run with one executor launch.
//
// The solver is a long chain of short parallel loops: every substep
// integrates, then walks the constraint colours three times, and each colour
// must finish before the next starts. Launching one Executor::ParallelFor per
// colour (several hundred a step) cost more than the work of most colours:
// every launch wakes the pool and joins it again. Here the whole chain is one
// launch. Every participant (one per executor thread) runs the same loop:
// claim a block of the open stage, run it, count it done; the participant that completes a stage's last block opens
// the next stage, and those that find no block left spin until it does
// (seed 003: the shared state is two counters per stage, nothing else).
//
// Participant p of P starts at block p * n / P of every stage and walks on
// from there, claiming each block with an atomic exchange on its own flag;
// so as long as nobody is late, the same participant runs the same part of
// every stage (and, the solver's constraints being in index order within a
// colour, touches much the same bodies) and the bodies' cache lines stay on
// one core instead of moving with every colour (Box2D v3 does the same).
//
// The shared state is laid out so that a participant working through its
// own part writes only its own cache lines: the claim flags of the blocks
// participant p starts with are on lines of their own, and a participant
// adds the blocks it finished to the stage's count once, when no block of
// the stage is left to claim, not once per block. (Several hundred stages a
// step, a few blocks each: with the flags of a stage on one line and a
// count per block, every claim and every finished block moved a line
// between the cores.)
//
// No participant ever waits for a particular other one: a participant that
// starts late joins at the open stage, and one that never starts leaves its
// share to the others. So the runner cannot deadlock on an executor that runs
// its tasks one after the other, and a serial executor simply runs every
// stage in order on the calling thread.
//
// Results cannot depend on the thread count as long as the blocks of one
// stage write disjoint data (the solver's colours guarantee it): which
// participant runs which block changes nothing, and the stage order is fixed.

#ifndef ATOLL_PARALLEL_STAGE_RUNNER_H_
#define ATOLL_PARALLEL_STAGE_RUNNER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/functional/function_ref.h"
#include "atoll/executor.h"

namespace atl {

class StageRunner {
 public:
  /// One stage: items [begin, begin + count) in blocks of `block` items.
  /// `tag` tells the work function what to do with them.
  struct Stage {
    int32_t tag = 0;
    int32_t begin = 0;
    int32_t count = 0;
    int32_t block = 0;
    int32_t block_count() const { return (count + block - 1) / block; }
  };

  /// Work on items [begin, end) of `stage`.
  using WorkFn = absl::FunctionRef<void(const Stage& stage, int32_t begin, int32_t end)>;

  /// Forgets the stages of the last run (keeps the memory).
  void Clear() { stages_.clear(); }

  /// Appends a stage of `count` items; blocks hold at least `grain` items and
  /// there are about `blocks_per_thread` per thread of `concurrency`. An
  /// empty stage is dropped.
  void Add(int32_t tag, int32_t begin, int32_t count, int32_t grain, int32_t concurrency,
           int32_t blocks_per_thread = 4);

  const std::vector<Stage>& stages() const { return stages_; }

  /// Runs every stage in order on `executor`: all blocks of a stage return
  /// before any block of the next one starts. With concurrency 1 (or when
  /// `serial`) each stage is one call on this thread.
  void Run(Executor* executor, bool serial, WorkFn work);

 private:
  // A stage's count of finished blocks, on a cache line of its own so that
  // neighbouring stages do not contend.
  struct alignas(64) Done {
    std::atomic<int32_t> blocks{0};
  };

  // Sixteen claim flags, a cache line.
  static constexpr int32_t kFlagsPerLine = 16;
  struct alignas(64) ClaimLine {
    std::atomic<int32_t> flags[kFlagsPerLine];
  };

  void Participate(int32_t participant, int32_t participants, WorkFn work);

  std::vector<Stage> stages_;
  // Per stage: the index in claims_ of its first flag, and the flags each
  // participant's part takes (a multiple of kFlagsPerLine); block b of the
  // part that starts at block s of participant p has flag
  // first_claim_ + p * claim_stride_ + (b - s).
  std::vector<int32_t> first_claim_;
  std::vector<int32_t> claim_stride_;
  std::unique_ptr<Done[]> done_;
  size_t done_size_ = 0;
  // The claim flags of every stage: 0 free, 1 claimed.
  std::unique_ptr<ClaimLine[]> claims_;
  size_t claim_lines_ = 0;
  // Index of the open stage; stages_.size() once all are done.
  std::atomic<int32_t> open_{0};
};

}  // namespace atl

#endif  // ATOLL_PARALLEL_STAGE_RUNNER_H_
