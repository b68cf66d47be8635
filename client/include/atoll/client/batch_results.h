// atoll client — the merged results of a batch sweep: a CSV table and an
// SVG plot, written by `atoll batch merge`.

#ifndef ATOLL_CLIENT_BATCH_RESULTS_H_
#define ATOLL_CLIENT_BATCH_RESULTS_H_

#include <string>
#include <vector>

#include "atoll/v1/batch_sweep.pb.h"

namespace atl::client {

/// The CSV header line (no newline). The deterministic columns come first,
/// the three timing columns (build_ms, wall_ms, ms_per_step) last.
std::string ResultsCsvHeader();

/// A header line and one row per record, in the order given (the merge
/// sorts by run index). gravity_y is empty when the run kept the scene's,
/// substep_count 0 when it kept the scene's.
std::string ResultsCsv(const std::vector<v1::BatchRunRecord>& records);

/// An SVG plot of milliseconds per step against size, one line per
/// combination of the other parameters (seed, substeps, gravity), titled
/// with `title`.
std::string ResultsSvg(const std::string& title, const std::vector<v1::BatchRunRecord>& records);

}  // namespace atl::client

#endif  // ATOLL_CLIENT_BATCH_RESULTS_H_
