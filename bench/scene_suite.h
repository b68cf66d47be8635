// atoll-bench — the scene suite (atoll-bench scenes without --ccd): every
// suite scene over its size sweep in Atoll and Box2D 2.4.1, with per-step
// percentiles, peak memory, contacts and a plausibility check; plots.

#ifndef ATOLL_BENCH_SCENE_SUITE_H_
#define ATOLL_BENCH_SCENE_SUITE_H_

#include "args.h"

namespace atl::bench {

/// Runs the suite as `args` asks and prints its CSV to stdout; see
/// scene_suite.cc for the columns and how each is measured. Returns the
/// process exit code (2 for bad flags).
int RunSceneSuite(const Args& args);

}  // namespace atl::bench

#endif  // ATOLL_BENCH_SCENE_SUITE_H_
