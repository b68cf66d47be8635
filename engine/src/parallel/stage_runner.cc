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
  claim_stride_.resize(stages_.size());
  int32_t claims = 0;
  for (size_t k = 0; k < stages_.size(); ++k) {
    // The largest part a participant starts with: ceil(blocks / threads).
    const int32_t part = (stages_[k].block_count() + threads - 1) / threads;
    const int32_t stride = (part + kFlagsPerLine - 1) / kFlagsPerLine * kFlagsPerLine;
    first_claim_[k] = claims;
    claim_stride_[k] = stride;
    claims += stride * threads;
    done_[k].blocks.store(0, std::memory_order_relaxed);
  }
  const size_t lines = static_cast<size_t>(claims / kFlagsPerLine);
  if (claim_lines_ < lines) {
    claim_lines_ = lines + lines / 2;
    claims_ = std::make_unique<ClaimLine[]>(claim_lines_);
  }
  for (size_t line = 0; line < lines; ++line) {
    for (std::atomic<int32_t>& flag : claims_[line].flags) flag.store(0, std::memory_order_relaxed);
  }
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
    const int32_t first_claim = first_claim_[static_cast<size_t>(k)];
    const int32_t stride = claim_stride_[static_cast<size_t>(k)];
    const int32_t blocks = stage.block_count();
    auto part_start = [blocks, participants](int32_t p) {
      return static_cast<int32_t>(static_cast<int64_t>(p) * blocks / participants);
    };
    // Walk the parts from this participant's own on, round the circle.
    int32_t finished = 0;
    for (int32_t i = 0; i < participants; ++i) {
      const int32_t p = participant + i < participants ? participant + i
                                                       : participant + i - participants;
      const int32_t first = part_start(p);
      const int32_t last = part_start(p + 1);
      // The part's flags start a line (first_claim and stride are whole
      // lines).
      ClaimLine* lines = &claims_[static_cast<size_t>((first_claim + p * stride) / kFlagsPerLine)];
      for (int32_t b = first; b < last; ++b) {
        const int32_t f = b - first;
        std::atomic<int32_t>& flag = lines[f / kFlagsPerLine].flags[f % kFlagsPerLine];
        if (flag.load(std::memory_order_relaxed) != 0 ||
            flag.exchange(1, std::memory_order_relaxed) != 0) {
          continue;
        }
        const int32_t begin = stage.begin + b * stage.block;
        work(stage, begin, std::min(begin + stage.block, stage.begin + stage.count));
        ++finished;
      }
    }
    // Every block is claimed. acq_rel: whoever brings the count to the
    // total sees every block's writes and passes them on when it opens the
    // next stage (release).
    if (finished > 0 &&
        done_[k].blocks.fetch_add(finished, std::memory_order_acq_rel) + finished == blocks) {
      open_.store(k + 1, std::memory_order_release);
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
