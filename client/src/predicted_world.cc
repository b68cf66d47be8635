#include "atoll/client/predicted_world.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "atoll/snapshot.h"

namespace atl::client {
namespace {

constexpr int kMaxWindow = 60;
constexpr size_t kKeptHashes = 4096;
constexpr uint64_t kLostInputTicks = 60;

v1::Checkpoint ToCheckpoint(const v1::Snapshot& snapshot, const std::string& bytes) {
  v1::Checkpoint cp;
  cp.set_tick(snapshot.tick());
  cp.set_snapshot(bytes);
  *cp.mutable_owners() = snapshot.owners();
  *cp.mutable_joint_owners() = snapshot.joint_owners();
  cp.set_state_hash(snapshot.state_hash());
  return cp;
}

// Two input lists drive a step identically when they have the same slots and
// commands in the same order (sequence numbers and tick bookkeeping do not
// reach the engine).
bool SameCommands(const std::vector<v1::ConfirmedInput>& predicted,
                  const google::protobuf::RepeatedPtrField<v1::ConfirmedInput>& confirmed) {
  auto with_commands = [](const v1::ConfirmedInput& in) { return in.commands_size() > 0; };
  std::vector<const v1::ConfirmedInput*> a, b;
  for (const v1::ConfirmedInput& in : predicted) {
    if (with_commands(in)) a.push_back(&in);
  }
  for (const v1::ConfirmedInput& in : confirmed) {
    if (with_commands(in)) b.push_back(&in);
  }
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i]->slot() != b[i]->slot() || a[i]->commands_size() != b[i]->commands_size()) {
      return false;
    }
    for (int c = 0; c < a[i]->commands_size(); ++c) {
      if (a[i]->commands(c).SerializeAsString() != b[i]->commands(c).SerializeAsString()) {
        return false;
      }
    }
  }
  return true;
}

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

std::string DesyncReport::ToString() const {
  std::string out = absl::StrFormat("desync at tick %d: server hash %016x, local hash %016x",
                                    tick, server_hash, local_hash);
  if (diff_tick == 0) return out + " (no server snapshot to diff against)";
  absl::StrAppend(&out, "; bodies differing at tick ", diff_tick, " (local vs server):\n",
                  FormatDiffs(diffs));
  return out;
}

absl::StatusOr<std::unique_ptr<PredictedWorld>> PredictedWorld::Create(
    const v1::SceneSpec& spec, const v1::WorldConfig& config, const v1::Snapshot& snapshot,
    const PredictionOptions& options) {
  if (options.prediction_window < 0 || options.prediction_window > kMaxWindow) {
    return absl::InvalidArgumentError(absl::StrCat("prediction_window: must be 0..", kMaxWindow,
                                                   ", got ", options.prediction_window));
  }
  if (options.input_delay < 0 || options.input_delay > kMaxWindow) {
    return absl::InvalidArgumentError(
        absl::StrCat("input_delay: must be 0..", kMaxWindow, ", got ", options.input_delay));
  }
  if (!snapshot.full()) {
    return absl::InvalidArgumentError("snapshot: the first snapshot must be full");
  }
  const v1::Checkpoint cp = ToCheckpoint(snapshot, snapshot.data());
  std::unique_ptr<PredictedWorld> w(new PredictedWorld());
  w->options_ = options;
  absl::StatusOr<std::unique_ptr<sim::Simulation>> confirmed =
      sim::Simulation::Restore(spec, config, cp);
  if (!confirmed.ok()) return confirmed.status();
  w->confirmed_ = *std::move(confirmed);
  if (options.local_slot != 0) {
    absl::StatusOr<std::unique_ptr<sim::Simulation>> predicted =
        sim::Simulation::Restore(spec, config, cp);
    if (!predicted.ok()) return predicted.status();
    w->predicted_ = *std::move(predicted);
  }
  w->bases_.Keep(snapshot.tick(), snapshot.data());
  w->RecordHash(snapshot.tick(), w->confirmed_->hash());
  return w;
}

absl::Status PredictedWorld::OnServerMessage(const v1::ServerMessage& message) {
  switch (message.kind_case()) {
    case v1::ServerMessage::kFrame: return OnFrame(message.frame());
    case v1::ServerMessage::kSnapshot: return OnSnapshot(message.snapshot());
    case v1::ServerMessage::kError: {
      // A refused Input never reaches a frame: stop predicting it. (Errors
      // of commands that failed when applied start with "tick N:"; their
      // input is confirmed in the frame as usual.)
      const v1::Error& e = message.error();
      if (e.input_sequence() != 0 && !absl::StartsWith(e.message(), "tick ")) {
        local_inputs_.erase(e.input_sequence());
      }
      return absl::OkStatus();
    }
    default: return absl::OkStatus();
  }
}

void PredictedWorld::RecordHash(uint64_t tick, uint64_t hash) {
  hashes_[tick] = hash;
  while (hashes_.size() > kKeptHashes) hashes_.erase(hashes_.begin());
}

absl::Status PredictedWorld::OnFrame(const v1::Frame& frame) {
  const uint64_t c = confirmed_->tick();
  if (frame.tick() <= c) return absl::OkStatus();  // replayed on a resume, or already restored
  if (awaiting_snapshot_ && !pending_desync_.has_value()) return absl::OkStatus();
  if (frame.tick() != c + 1) {
    // A gap: the frames in between are lost for good; only a snapshot helps.
    awaiting_snapshot_ = true;
    return absl::OkStatus();
  }
  const std::vector<v1::ConfirmedInput> inputs(frame.inputs().begin(), frame.inputs().end());
  if (absl::Status s = confirmed_->Step(inputs, nullptr); !s.ok()) return s;
  ++stats_.confirmed_frames;
  RecordHash(frame.tick(), confirmed_->hash());
  if (confirmed_->hash() != frame.state_hash() && !pending_desync_.has_value()) {
    // Keep stepping with the server's frames; the next snapshot at the
    // confirmed tick shows which bodies differ, then replaces our state.
    ++stats_.desyncs;
    DesyncReport report;
    report.tick = frame.tick();
    report.server_hash = frame.state_hash();
    report.local_hash = confirmed_->hash();
    pending_desync_ = std::move(report);
    awaiting_snapshot_ = true;
  }

  if (predicted_ == nullptr) return absl::OkStatus();  // a spectator
  // Was the prediction for this tick right?
  auto predicted = predicted_inputs_.find(frame.tick());
  if (predicted == predicted_inputs_.end() || !SameCommands(predicted->second, frame.inputs())) {
    if (predicted_->tick() >= frame.tick()) rollback_needed_ = true;
  }
  if (predicted != predicted_inputs_.end()) predicted_inputs_.erase(predicted);
  if (predicted_->tick() < frame.tick()) rollback_needed_ = true;  // prediction fell behind

  // Learn: the local inputs now confirmed, everybody's latest commands.
  std::map<uint32_t, std::vector<v1::ConfirmedInput>> latest;
  for (const v1::ConfirmedInput& in : frame.inputs()) {
    if (in.slot() == options_.local_slot) {
      local_inputs_.erase(in.sequence());
      next_sequence_ = std::max(next_sequence_, in.sequence() + 1);
    } else {
      latest[in.slot()].push_back(in);
    }
  }
  for (auto& [slot, ins] : latest) last_inputs_[slot] = std::move(ins);
  // A local input this far behind was lost (a dropped stream): stop
  // predicting it.
  std::erase_if(local_inputs_, [&](const auto& entry) {
    return entry.second.target_tick() + kLostInputTicks < frame.tick();
  });
  return absl::OkStatus();
}

absl::Status PredictedWorld::OnSnapshot(const v1::Snapshot& snapshot) {
  absl::StatusOr<std::string> accepted = bases_.Accept(snapshot);
  if (!accepted.ok()) return accepted.status();
  const std::string bytes = *std::move(accepted);
  const uint64_t c = confirmed_->tick();
  if (snapshot.tick() < c) return absl::OkStatus();  // the start of a resumed stream
  if (snapshot.tick() == c && snapshot.state_hash() == confirmed_->hash() &&
      !pending_desync_.has_value()) {
    awaiting_snapshot_ = false;
    return absl::OkStatus();
  }
  if (snapshot.tick() == c) {
    // A desync: say which bodies differ before taking the server's state.
    if (!pending_desync_.has_value()) {
      ++stats_.desyncs;
      DesyncReport report;
      report.tick = c;
      report.server_hash = snapshot.state_hash();
      report.local_hash = confirmed_->hash();
      pending_desync_ = std::move(report);
    }
    absl::StatusOr<std::unique_ptr<World>> server =
        LoadSnapshot(bytes, confirmed_->world().def().broad_phase);
    if (!server.ok()) return server.status();
    pending_desync_->diff_tick = c;
    pending_desync_->diffs = DiffWorlds(confirmed_->world(), **server);
  }
  return ResyncFrom(snapshot, bytes);
}

absl::Status PredictedWorld::ResyncFrom(const v1::Snapshot& snapshot, const std::string& bytes) {
  if (absl::Status s = confirmed_->RestoreCheckpoint(ToCheckpoint(snapshot, bytes)); !s.ok()) {
    return s;
  }
  ++stats_.resyncs;
  RecordHash(snapshot.tick(), confirmed_->hash());
  if (pending_desync_.has_value()) {
    desyncs_.push_back(*std::move(pending_desync_));
    pending_desync_.reset();
  }
  awaiting_snapshot_ = false;
  rollback_needed_ = true;
  predicted_inputs_.clear();
  return absl::OkStatus();
}

std::vector<DesyncReport> PredictedWorld::TakeDesyncs() {
  std::vector<DesyncReport> out;
  out.swap(desyncs_);
  return out;
}

void PredictedWorld::AddLocalInput(const v1::Input& input) {
  local_inputs_[input.sequence()] = input;
  next_sequence_ = std::max(next_sequence_, input.sequence() + 1);
}

v1::Input PredictedWorld::MakeLocalInput(uint64_t target_tick, std::vector<v1::Command> commands) {
  v1::Input input;
  input.set_target_tick(target_tick != 0 ? target_tick
                                         : predicted_tick() + 1 +
                                               static_cast<uint64_t>(options_.input_delay));
  input.set_sequence(next_sequence_);
  for (v1::Command& c : commands) *input.add_commands() = std::move(c);
  AddLocalInput(input);
  return input;
}

std::vector<v1::ConfirmedInput> PredictedWorld::PredictInputs(uint64_t tick) const {
  // The server applies inputs sorted by (slot, sequence): so do we.
  std::vector<v1::ConfirmedInput> out;
  const uint64_t first_unconfirmed = confirmed_->tick() + 1;
  for (const auto& [slot, ins] : last_inputs_) {
    if (slot == options_.local_slot) continue;
    out.insert(out.end(), ins.begin(), ins.end());
  }
  for (const auto& [sequence, input] : local_inputs_) {
    // An input whose tick has passed unconfirmed will land late, at the
    // server's next step: our best guess is the first unconfirmed tick.
    const uint64_t at = std::max(input.target_tick(), first_unconfirmed);
    if (at != tick) continue;
    v1::ConfirmedInput in;
    in.set_slot(options_.local_slot);
    in.set_sequence(sequence);
    in.set_target_tick(input.target_tick());
    *in.mutable_commands() = input.commands();
    out.push_back(std::move(in));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const v1::ConfirmedInput& a, const v1::ConfirmedInput& b) {
                     return a.slot() != b.slot() ? a.slot() < b.slot()
                                                 : a.sequence() < b.sequence();
                   });
  return out;
}

absl::Status PredictedWorld::StepPredicted(uint64_t tick) {
  std::vector<v1::ConfirmedInput> inputs = PredictInputs(tick);
  // The predicted state is never compared: skip the hash.
  if (absl::Status s = predicted_->StepUnhashed(inputs, nullptr); !s.ok()) return s;
  predicted_inputs_[tick] = std::move(inputs);
  return absl::OkStatus();
}

absl::Status PredictedWorld::PredictTo(uint64_t tick) {
  if (predicted_ == nullptr) return absl::OkStatus();  // a spectator
  const uint64_t c = confirmed_->tick();
  const uint64_t limit = c + static_cast<uint64_t>(options_.prediction_window);
  const uint64_t target = std::min(tick, limit);
  if (rollback_needed_ || predicted_->tick() < c) {
    const auto start = std::chrono::steady_clock::now();
    const uint64_t redo_to = std::min(std::max(predicted_->tick(), c), target);
    if (absl::Status s = predicted_->CopyStateFrom(*confirmed_); !s.ok()) return s;
    predicted_inputs_.clear();
    for (uint64_t t = c + 1; t <= redo_to; ++t) {
      if (absl::Status s = StepPredicted(t); !s.ok()) return s;
    }
    if (redo_to > c) {
      const double ms = MillisSince(start);
      ++stats_.rollbacks;
      stats_.frames_resimulated += redo_to - c;
      stats_.total_rollback_ms += ms;
      stats_.max_rollback_ms = std::max(stats_.max_rollback_ms, ms);
    }
    rollback_needed_ = false;
  }
  while (predicted_->tick() < target) {
    if (absl::Status s = StepPredicted(predicted_->tick() + 1); !s.ok()) return s;
    ++stats_.frames_predicted;
  }
  stats_.prediction_depth = static_cast<int>(predicted_->tick() - c);
  stats_.max_prediction_depth = std::max(stats_.max_prediction_depth, stats_.prediction_depth);
  return absl::OkStatus();
}

}  // namespace atl::client
