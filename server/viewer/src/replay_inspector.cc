#include "replay_inspector.h"

#include <chrono>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "atoll/sim/frame_events.h"
#include "atoll/world_diff.h"
#include "json_writer.h"

namespace atl::viewer {
namespace {

void WriteBodyFields(const BodyInfo& b, JsonWriter* out) {
  out->BeginObject();
  out->Key("type");
  out->Int(static_cast<int>(b.type));
  out->Key("position");
  out->BeginArray();
  out->Number(b.transform.p.x, 6);
  out->Number(b.transform.p.y, 6);
  out->EndArray();
  out->Key("angle");
  out->Number(b.angle, 6);
  out->Key("velocity");
  out->BeginArray();
  out->Number(b.linear_velocity.x, 6);
  out->Number(b.linear_velocity.y, 6);
  out->EndArray();
  out->Key("angular_velocity");
  out->Number(b.angular_velocity, 6);
  out->Key("awake");
  out->Bool(b.is_awake);
  out->EndObject();
}

}  // namespace

absl::StatusOr<std::unique_ptr<ReplayInspector>> ReplayInspector::Create(
    std::string id, v1::Recording recording) {
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
  const uint64_t first = recording.checkpoints(0).tick();
  for (int i = 0; i < recording.ticks_size(); ++i) {
    if (recording.ticks(i).tick() != first + 1 + static_cast<uint64_t>(i)) {
      return absl::InvalidArgumentError(absl::StrCat("recording.ticks[", i, "].tick: expected ",
                                                     first + 1 + i, ", got ",
                                                     recording.ticks(i).tick()));
    }
  }
  for (int i = 1; i < recording.checkpoints_size(); ++i) {
    if (recording.checkpoints(i).tick() <= recording.checkpoints(i - 1).tick()) {
      return absl::InvalidArgumentError(
          absl::StrCat("recording.checkpoints[", i, "].tick: not after the one before"));
    }
  }
  auto shared = std::make_shared<const v1::Recording>(std::move(recording));
  std::unique_ptr<ReplayInspector> inspector(
      new ReplayInspector(std::move(id), std::move(shared), *std::move(config)));
  inspector->first_tick_ = first;
  absl::StatusOr<std::unique_ptr<sim::Simulation>> sim = inspector->RestoreCheckpoint(0);
  if (!sim.ok()) return sim.status();
  absl::MutexLock lock(&inspector->mu_);
  inspector->cursor_ = *std::move(sim);
  return inspector;
}

uint64_t ReplayInspector::RecordedHash(uint64_t tick) const {
  if (tick <= first_tick_) return recording_->checkpoints(0).state_hash();
  return recording_->ticks(static_cast<int>(tick - first_tick_ - 1)).state_hash();
}

std::string ReplayInspector::SummaryJson() const {
  JsonWriter out;
  out.BeginObject();
  out.Key("id");
  out.String(id_);
  out.Key("world");
  out.String(recording_->header().world_id());
  out.Key("first_tick");
  out.Uint(first_tick());
  out.Key("last_tick");
  out.Uint(last_tick());
  out.Key("tick_rate");
  out.Uint(config_.tick_rate_hz());
  out.Key("checkpoints");
  out.BeginArray();
  for (const v1::Checkpoint& cp : recording_->checkpoints()) out.Uint(cp.tick());
  out.EndArray();
  out.EndObject();
  return out.Take();
}

absl::StatusOr<std::unique_ptr<sim::Simulation>> ReplayInspector::RestoreCheckpoint(
    int index) const {
  absl::StatusOr<std::unique_ptr<sim::Simulation>> sim = sim::Simulation::Restore(
      recording_->header().scene(), config_, recording_->checkpoints(index));
  if (!sim.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("recording.checkpoints[", index, "] (tick ",
                                                   recording_->checkpoints(index).tick(),
                                                   "): ", std::string(sim.status().message())));
  }
  return sim;
}

int ReplayInspector::CheckpointBefore(uint64_t tick) const {
  int best = 0;
  for (int i = 1; i < recording_->checkpoints_size(); ++i) {
    if (recording_->checkpoints(i).tick() > tick) break;
    best = i;
  }
  return best;
}

absl::Status ReplayInspector::StepTo(sim::Simulation* sim, uint64_t tick) const {
  while (sim->tick() < tick) {
    const v1::RecordedTick& t = recording_->ticks(static_cast<int>(sim->tick() - first_tick_));
    const std::vector<v1::ConfirmedInput> inputs(t.inputs().begin(), t.inputs().end());
    if (absl::Status s = sim->Step(inputs, nullptr); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReplayInspector::FrameAt(uint64_t tick,
                                                     const DrawFrameOptions& options) {
  if (tick < first_tick() || tick > last_tick()) {
    return absl::OutOfRangeError(absl::StrCat("tick ", tick, " is outside the recording (",
                                              first_tick(), "..", last_tick(), ")"));
  }
  absl::MutexLock lock(&mu_);
  const int checkpoint = CheckpointBefore(tick);
  // Step on from the cursor when it is at or before the tick and no nearer
  // checkpoint lies between; restore otherwise (going back, or jumping far).
  if (cursor_ == nullptr || cursor_->tick() > tick ||
      recording_->checkpoints(checkpoint).tick() > cursor_->tick()) {
    absl::StatusOr<std::unique_ptr<sim::Simulation>> sim = RestoreCheckpoint(checkpoint);
    if (!sim.ok()) return sim.status();
    cursor_ = *std::move(sim);
  }
  if (cursor_->tick() < tick) {
    if (absl::Status s = StepTo(cursor_.get(), tick - 1); !s.ok()) return s;
    const auto start = std::chrono::steady_clock::now();
    if (absl::Status s = StepTo(cursor_.get(), tick); !s.ok()) return s;
    step_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                   .count();
  }
  DrawFrameInfo info;
  info.world_id = id_;
  info.tick_rate_hz = config_.tick_rate_hz();
  info.step_ms = step_ms_;
  const uint64_t recorded = RecordedHash(tick);
  if (cursor_->hash() != recorded) {
    info.hash_matches = false;
    info.expected_hash = recorded;
  }
  return DrawFrameJson(*cursor_, info, options);
}

absl::StatusOr<std::unique_ptr<ReplayInspector::Verification>> ReplayInspector::Verify() const {
  absl::StatusOr<std::unique_ptr<sim::RecordingCheck>> check =
      sim::RecordingCheck::Start(*recording_);
  if (!check.ok()) return check.status();
  return std::unique_ptr<Verification>(new Verification(this, *std::move(check)));
}

absl::StatusOr<std::string> ReplayInspector::Verification::ResultJson() {
  const sim::RecordingCheck& check = *check_;
  const bool diverged = !check.ok();
  const uint64_t divergent_tick = check.first_divergent_tick();
  JsonWriter out;
  out.BeginObject();
  out.Key("ok");
  out.Bool(!diverged);
  out.Key("ticks_verified");
  out.Uint(check.ticks_verified());
  out.Key("total_ticks");
  out.Uint(check.total_ticks());
  if (!diverged) {
    out.Key("message");
    out.String(absl::StrCat("ok: ", check.ticks_verified(), " ticks verified"));
    out.EndObject();
    return out.Take();
  }
  out.Key("kind");
  out.String(check.events_diverged() ? "events" : "state");
  out.Key("tick");
  out.Uint(divergent_tick);
  out.Key("expected_hash");
  out.Hex64(check.expected_hash());
  out.Key("actual_hash");
  out.Hex64(check.actual_hash());
  if (check.events_diverged()) {
    out.Key("message");
    out.String(absl::StrFormat(
        "events diverged at tick %d: the states match but the step's events do not "
        "(recorded events hash %016x, re-simulated %016x)",
        divergent_tick, check.expected_hash(), check.actual_hash()));
    out.EndObject();
    return out.Take();
  }
  std::string message =
      absl::StrFormat("diverged at tick %d: recorded hash %016x, re-simulated hash %016x",
                      divergent_tick, check.expected_hash(), check.actual_hash());

  // The recorded state is the first checkpoint at or after the divergent
  // tick; the re-simulation steps on to it.
  absl::StatusOr<int> target = check_->StepToDiffCheckpoint();
  if (!target.ok()) return target.status();
  if (*target < 0) {
    out.Key("diff_tick");
    out.Uint(0);
    out.Key("message");
    out.String(absl::StrCat(message, " (no checkpoint at or after it to compare against)"));
    out.EndObject();
    return out.Take();
  }
  const uint64_t diff_tick = inspector_->recording().checkpoints(*target).tick();
  const sim::Simulation& replayed = check.simulation();
  absl::StatusOr<std::unique_ptr<sim::Simulation>> recorded =
      inspector_->RestoreCheckpoint(*target);
  if (!recorded.ok()) return recorded.status();
  const std::vector<BodyDiff> diffs = DiffWorlds(replayed.world(), (*recorded)->world());
  if (diff_tick == divergent_tick) {
    absl::StrAppend(&message, "; states compared at that tick (a checkpoint)");
  } else {
    absl::StrAppend(&message, "; tick ", divergent_tick,
                    " has no checkpoint: states compared at checkpoint tick ", diff_tick,
                    ", the first after it");
  }
  if (diffs.empty()) {
    absl::StrAppend(&message, "; no body differs there");
  } else {
    absl::StrAppend(&message, "; ", diffs.size(),
                    diffs.size() == 1 ? " body differs" : " bodies differ");
  }
  out.Key("diff_tick");
  out.Uint(diff_tick);
  out.Key("diff_at_divergent_tick");
  out.Bool(diff_tick == divergent_tick);
  out.Key("message");
  out.String(message);
  out.Key("bodies");
  out.BeginArray();
  for (const BodyDiff& d : diffs) {
    out.BeginObject();
    out.Key("index");
    out.Uint(d.index);
    out.Key("what");
    out.String(d.what);
    out.Key("recorded");
    WriteBodyFields(d.b, &out);
    out.Key("replayed");
    WriteBodyFields(d.a, &out);
    out.EndObject();
  }
  out.EndArray();
  DrawFrameInfo info;
  info.world_id = inspector_->id();
  info.tick_rate_hz = inspector_->config_.tick_rate_hz();
  DrawFrameOptions options;
  info.note = absl::StrCat("recorded (checkpoint at tick ", diff_tick, ")");
  out.Key("recorded_frame");
  out.Raw(DrawFrameJson(**recorded, info, options));
  info.note = absl::StrCat("re-simulated to tick ", diff_tick);
  info.hash_matches = replayed.hash() == (*recorded)->hash();
  info.expected_hash = (*recorded)->hash();
  out.Key("replayed_frame");
  out.Raw(DrawFrameJson(replayed, info, options));
  out.EndObject();
  return out.Take();
}

}  // namespace atl::viewer
