// atoll-bench — sums of a world's per-stage step times (StepProfile) over
// the timed steps, shared by the subcommands that print them.

#ifndef ATOLL_BENCH_STEP_STAGES_H_
#define ATOLL_BENCH_STEP_STAGES_H_

#include "atoll/profile.h"

namespace atl::bench {

/// Adds `p`'s stage times (and total) to `sum`; the counts are left alone.
inline void AddStages(StepProfile* sum, const StepProfile& p) {
  sum->total += p.total;
  sum->broad_phase += p.broad_phase;
  sum->contacts += p.contacts;
  sum->islands += p.islands;
  sum->solve += p.solve;
  sum->continuous += p.continuous;
  sum->update_bounds += p.update_bounds;
}

}  // namespace atl::bench

#endif  // ATOLL_BENCH_STEP_STAGES_H_
