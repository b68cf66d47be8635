#include "atoll/client/verify.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "atoll/sim/recording_check.h"
#include "atoll/snapshot.h"

namespace atl::client {

std::string VerifyReport::ToString() const {
  if (ok) return absl::StrCat("ok: ", ticks_verified, " ticks verified");
  if (events_diverged) {
    return absl::StrFormat(
        "events diverged at tick %d: the states match but the step's events do not "
        "(recorded events hash %016x, replayed %016x)",
        first_divergent_tick, expected_hash, actual_hash);
  }
  std::string out =
      absl::StrFormat("diverged at tick %d: recorded hash %016x, replayed hash %016x",
                      first_divergent_tick, expected_hash, actual_hash);
  if (diff_tick == 0) return out + " (no later checkpoint to diff against)";
  if (diffs.empty()) {
    return absl::StrCat(out, "; no body differs at checkpoint tick ", diff_tick);
  }
  return absl::StrCat(out, "; bodies differing at checkpoint tick ", diff_tick,
                      " (replay vs recording):\n", FormatDiffs(diffs));
}

absl::StatusOr<VerifyReport> VerifyRecordingLocally(const v1::Recording& recording) {
  absl::StatusOr<std::unique_ptr<sim::RecordingCheck>> check =
      sim::RecordingCheck::Start(recording);
  if (!check.ok()) return check.status();
  if (absl::Status s = (*check)->Advance(recording.ticks_size()); !s.ok()) return s;
  VerifyReport report;
  report.ok = (*check)->ok();
  report.ticks_verified = (*check)->ticks_verified();
  if (report.ok) return report;
  report.first_divergent_tick = (*check)->first_divergent_tick();
  report.expected_hash = (*check)->expected_hash();
  report.actual_hash = (*check)->actual_hash();
  report.events_diverged = (*check)->events_diverged();
  if (report.events_diverged) return report;
  absl::StatusOr<int> target = (*check)->StepToDiffCheckpoint();
  if (!target.ok()) return target.status();
  if (*target < 0) return report;
  const World& replayed = (*check)->simulation().world();
  const v1::Checkpoint& cp = recording.checkpoints(*target);
  absl::StatusOr<std::unique_ptr<World>> recorded =
      LoadSnapshot(cp.snapshot(), replayed.def().broad_phase);
  if (!recorded.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("recording.checkpoints (tick ", cp.tick(),
                                                   ").snapshot: ",
                                                   std::string(recorded.status().message())));
  }
  report.diff_tick = cp.tick();
  report.diffs = DiffWorlds(replayed, **recorded);
  return report;
}

}  // namespace atl::client
