#include "atoll/client/verify.h"

#include <limits>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "atoll/sim/frame_events.h"
#include "atoll/sim/simulation.h"
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
  if (!recording.has_header()) return absl::InvalidArgumentError("recording.header: missing");
  if (recording.checkpoints_size() == 0) {
    return absl::InvalidArgumentError("recording.checkpoints: at least the initial one is needed");
  }
  absl::StatusOr<v1::WorldConfig> config = sim::NormalizeWorldConfig(
      recording.header().config(), std::numeric_limits<uint32_t>::max());
  if (!config.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("recording.header.", std::string(config.status().message())));
  }
  absl::StatusOr<std::unique_ptr<sim::Simulation>> sim =
      sim::Simulation::Restore(recording.header().scene(), *config, recording.checkpoints(0));
  if (!sim.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("recording.checkpoints[0]: ", std::string(sim.status().message())));
  }
  VerifyReport report;
  int i = 0;
  for (; i < recording.ticks_size(); ++i) {
    const v1::RecordedTick& t = recording.ticks(i);
    if (t.tick() != (*sim)->tick() + 1) {
      return absl::InvalidArgumentError(absl::StrCat("recording.ticks[", i, "].tick: expected ",
                                                     (*sim)->tick() + 1, ", got ", t.tick()));
    }
    const std::vector<v1::ConfirmedInput> inputs(t.inputs().begin(), t.inputs().end());
    if (absl::Status s = (*sim)->Step(inputs, nullptr); !s.ok()) return s;
    ++report.ticks_verified;
    if ((*sim)->hash() != t.state_hash()) {
      report.ok = false;
      report.first_divergent_tick = t.tick();
      report.expected_hash = t.state_hash();
      report.actual_hash = (*sim)->hash();
      break;
    }
    if (t.events_hash() != 0) {
      const uint64_t events = sim::HashStepEvents((*sim)->world());
      if (events != t.events_hash()) {
        report.ok = false;
        report.events_diverged = true;
        report.first_divergent_tick = t.tick();
        report.expected_hash = t.events_hash();
        report.actual_hash = events;
        break;
      }
    }
  }
  if (report.ok || report.events_diverged) return report;

  const v1::Checkpoint* target = nullptr;
  for (const v1::Checkpoint& cp : recording.checkpoints()) {
    if (cp.tick() >= report.first_divergent_tick) {
      target = &cp;
      break;
    }
  }
  if (target == nullptr) return report;
  for (++i; i < recording.ticks_size() && (*sim)->tick() < target->tick(); ++i) {
    const v1::RecordedTick& t = recording.ticks(i);
    const std::vector<v1::ConfirmedInput> inputs(t.inputs().begin(), t.inputs().end());
    if (absl::Status s = (*sim)->Step(inputs, nullptr); !s.ok()) return s;
  }
  if ((*sim)->tick() != target->tick()) return report;
  absl::StatusOr<std::unique_ptr<World>> recorded =
      LoadSnapshot(target->snapshot(), (*sim)->world().def().broad_phase);
  if (!recorded.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("recording.checkpoints (tick ", target->tick(),
                                                   ").snapshot: ",
                                                   std::string(recorded.status().message())));
  }
  report.diff_tick = target->tick();
  report.diffs = DiffWorlds((*sim)->world(), **recorded);
  return report;
}

}  // namespace atl::client
