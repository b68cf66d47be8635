#include "atoll/sim/recording_check.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "atoll/sim/frame_events.h"

namespace atl::sim {

absl::StatusOr<std::unique_ptr<RecordingCheck>> RecordingCheck::Start(
    const v1::Recording& recording) {
  if (!recording.has_header()) return absl::InvalidArgumentError("recording.header: missing");
  if (recording.checkpoints_size() == 0) {
    return absl::InvalidArgumentError("recording.checkpoints: at least the initial one is needed");
  }
  absl::StatusOr<v1::WorldConfig> config = NormalizeWorldConfig(
      recording.header().config(), std::numeric_limits<uint32_t>::max());
  if (!config.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("recording.header.", std::string(config.status().message())));
  }
  absl::StatusOr<std::unique_ptr<Simulation>> sim =
      Simulation::Restore(recording.header().scene(), *config, recording.checkpoints(0));
  if (!sim.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("recording.checkpoints[0]: ", std::string(sim.status().message())));
  }
  return std::unique_ptr<RecordingCheck>(new RecordingCheck(recording, *std::move(sim)));
}

absl::Status RecordingCheck::StepRecorded(int index) {
  const v1::RecordedTick& t = recording_.ticks(index);
  if (t.tick() != sim_->tick() + 1) {
    return absl::InvalidArgumentError(absl::StrCat("recording.ticks[", index, "].tick: expected ",
                                                   sim_->tick() + 1, ", got ", t.tick()));
  }
  const std::vector<v1::ConfirmedInput> inputs(t.inputs().begin(), t.inputs().end());
  return sim_->Step(inputs, nullptr);
}

absl::Status RecordingCheck::Advance(int64_t max_ticks) {
  for (int64_t n = 0; n < max_ticks && !done_; ++n) {
    if (next_ >= recording_.ticks_size()) {
      done_ = true;
      break;
    }
    const v1::RecordedTick& t = recording_.ticks(next_);
    if (absl::Status s = StepRecorded(next_++); !s.ok()) return s;
    ++ticks_verified_;
    uint64_t expected = t.state_hash();
    uint64_t actual = sim_->hash();
    if (expected == actual && t.events_hash() != 0) {
      expected = t.events_hash();
      actual = HashStepEvents(sim_->world());
      events_diverged_ = expected != actual;
    }
    if (expected != actual) {
      diverged_ = true;
      done_ = true;
      divergent_tick_ = t.tick();
      expected_hash_ = expected;
      actual_hash_ = actual;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int> RecordingCheck::StepToDiffCheckpoint() {
  int target = -1;
  for (int i = 0; i < recording_.checkpoints_size(); ++i) {
    if (recording_.checkpoints(i).tick() >= divergent_tick_) {
      target = i;
      break;
    }
  }
  if (target < 0) return -1;
  const uint64_t tick = recording_.checkpoints(target).tick();
  for (; next_ < recording_.ticks_size() && sim_->tick() < tick; ++next_) {
    if (absl::Status s = StepRecorded(next_); !s.ok()) return s;
  }
  return sim_->tick() == tick ? target : -1;
}

}  // namespace atl::sim
