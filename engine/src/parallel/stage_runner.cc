#include "parallel/stage_runner.h"

#include <algorithm>
#include <thread>

#include "atoll/assert.h"

namespace atl {
namespace {

// A hint to the core that this is a spin loop (frees pipeline resources for
// the sibling hyperthread, saves power).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins this long before yielding the core: a stage's last block rarely
// takes longer, and a descheduled peer must not keep a whole core busy.
constexpr int32_t kSpinsBeforeYield = 4096;

}  // namespace

void StageRunner::Add(int32_t tag, int32_t begin, int32_t count, int32_t grain,
                      int32_t concurrency, int32_t blocks_per_thread) {
  if (count <= 0) return;
  Stage stage;
  stage.tag = tag;
  stage.begin = begin;
  stage.count = count;
  const int32_t per_block = count / std::max(1, blocks_per_thread * concurrency);
  stage.block = std::max({grain, per_block, 1});
  stages_.push_back(stage);
}

void StageRunner::Run(Executor* executor, bool serial, WorkFn work) {
  const int32_t threads = executor->concurrency();
  if (serial || threads <= 1) {
    for (const Stage& stage : stages_) work(stage, stage.begin, stage.begin + stage.count);
    return;
  }
  if (stages_.empty()) return;
  // Reset the flags and counters (the executor's launch orders these plain
  // stores before every participant).
  if (done_size_ < stages_.size()) {
    done_size_ = stages_.size() + stages_.size() / 2;
    done_ = std::make_unique<Done[]>(done_size_);
  }
  first_claim_.resize(stages_.size());
  int32_t claims = 0;
  for (size_t k = 0; k < stages_.size(); ++k) {
    first_claim_[k] = claims;
    claims += stages_[k].block_count();
    done_[k].blocks.store(0, std::memory_order_relaxed);
  }
  if (claims_size_ < static_cast<size_t>(claims)) {
    claims_size_ = static_cast<size_t>(claims) + static_cast<size_t>(claims) / 2;
    claims_ = std::make_unique<std::atomic<int32_t>[]>(claims_size_);
  }
  for (int32_t i = 0; i < claims; ++i) claims_[i].store(0, std::memory_order_relaxed);
  open_.store(0, std::memory_order_relaxed);
  executor->ParallelFor(threads, 1, [this, threads, work](int32_t begin, int32_t end) {
    for (int32_t p = begin; p < end; ++p) Participate(p, threads, work);
  });
  ATOLL_ASSERT(open_.load(std::memory_order_relaxed) == static_cast<int32_t>(stages_.size()));
}

void StageRunner::Participate(int32_t participant, int32_t participants, WorkFn work) {
  const int32_t stage_count = static_cast<int32_t>(stages_.size());
  // Acquire: the blocks of this stage read what the previous stages wrote.
  int32_t k = open_.load(std::memory_order_acquire);
  while (k < stage_count) {
    const Stage& stage = stages_[static_cast<size_t>(k)];
    std::atomic<int32_t>* claims = claims_.get() + first_claim_[static_cast<size_t>(k)];
    const int32_t blocks = stage.block_count();
    const int32_t start = static_cast<int32_t>(
        static_cast<int64_t>(participant) * blocks / participants);
    for (int32_t i = 0; i < blocks; ++i) {
      const int32_t b = start + i < blocks ? start + i : start + i - blocks;
      if (claims[b].load(std::memory_order_relaxed) != 0 ||
          claims[b].exchange(1, std::memory_order_relaxed) != 0) {
        continue;
      }
      const int32_t first = stage.begin + b * stage.block;
      work(stage, first, std::min(first + stage.block, stage.begin + stage.count));
      // acq_rel: the last finisher sees every block's writes and passes
      // them on when it opens the next stage (release).
      if (done_[k].blocks.fetch_add(1, std::memory_order_acq_rel) + 1 == blocks) {
        open_.store(k + 1, std::memory_order_release);
      }
    }
    int32_t spins = 0;
    int32_t next = open_.load(std::memory_order_acquire);
    while (next == k) {
      if (++spins < kSpinsBeforeYield) {
        CpuRelax();
      } else {
        std::this_thread::yield();
      }
      next = open_.load(std::memory_order_acquire);
    }
    k = next;
  }
}

}  // namespace atl
