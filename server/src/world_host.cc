#include "world_host.h"

#include <algorithm>
#include <cstdio>
#include <random>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "atoll/delta.h"
#include "atoll/sim/frame_events.h"
#include "atoll/version.h"

namespace atl::server {
namespace {

std::string NewToken() {
  std::random_device rd;
  std::string token;
  constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 8; ++i) {
    const uint32_t r = rd();
    for (int j = 0; j < 4; ++j) token.push_back(kHex[(r >> (4 * j)) & 0xf]);
  }
  return token;
}

v1::ServerMessage SnapshotMessage(const v1::Checkpoint& cp) {
  v1::ServerMessage m;
  v1::Snapshot* s = m.mutable_snapshot();
  s->set_tick(cp.tick());
  s->set_full(true);
  s->set_data(cp.snapshot());
  *s->mutable_owners() = cp.owners();
  *s->mutable_joint_owners() = cp.joint_owners();
  s->set_state_hash(cp.state_hash());
  return m;
}

// A delta snapshot message of `cp` against the snapshot of `base_tick`.
v1::ServerMessage DeltaMessage(const v1::Checkpoint& cp, uint64_t base_tick, std::string delta) {
  v1::ServerMessage m;
  v1::Snapshot* s = m.mutable_snapshot();
  s->set_tick(cp.tick());
  s->set_full(false);
  s->set_base_tick(base_tick);
  s->set_data(std::move(delta));
  *s->mutable_owners() = cp.owners();
  *s->mutable_joint_owners() = cp.joint_owners();
  s->set_state_hash(cp.state_hash());
  return m;
}

v1::ServerMessage FrameMessage(const v1::Frame& frame) {
  v1::ServerMessage m;
  *m.mutable_frame() = frame;
  return m;
}

v1::ServerMessage ErrorMessage(const absl::Status& status, const std::string& field,
                               uint64_t sequence) {
  v1::ServerMessage m;
  v1::Error* e = m.mutable_error();
  e->set_code(static_cast<int32_t>(status.code()));
  e->set_field(field);
  e->set_message(std::string(status.message()));
  e->set_input_sequence(sequence);
  return m;
}

void SortInputs(std::vector<v1::ConfirmedInput>* inputs) {
  std::sort(inputs->begin(), inputs->end(),
            [](const v1::ConfirmedInput& a, const v1::ConfirmedInput& b) {
              return a.slot() != b.slot() ? a.slot() < b.slot() : a.sequence() < b.sequence();
            });
}

}  // namespace

absl::StatusOr<std::shared_ptr<WorldHost>> WorldHost::Create(
    const std::string& id, const v1::SceneSpec& spec, const v1::WorldConfig& config,
    const std::string& recording_path, const WorldHostOptions& options,
    std::vector<v1::SlotToken>* tokens) {
  absl::StatusOr<std::unique_ptr<Simulation>> sim = Simulation::Create(spec, config);
  if (!sim.ok()) return sim.status();
  std::shared_ptr<WorldHost> host(new WorldHost(id, config, options));
  PiMutexLock lock(&host->mu_);
  v1::RecordingHeader header;
  header.set_format_version(1);
  header.set_world_id(id);
  *header.mutable_config() = config;
  *header.mutable_scene() = spec;
  header.set_engine_version(std::string(EngineVersion()));
  header.set_created_unix_ms(absl::ToUnixMillis(absl::Now()));
  tokens->clear();
  for (uint32_t slot = 1; slot <= config.player_slots(); ++slot) {
    v1::SlotToken t;
    t.set_slot(slot);
    t.set_token(NewToken());
    host->tokens_.push_back(t.token());
    *header.add_tokens() = t;
    tokens->push_back(std::move(t));
  }
  host->accepted_sequence_.assign(config.player_slots(), 0);
  host->applied_sequence_.assign(config.player_slots(), 0);
  v1::Checkpoint initial = (*sim)->SaveCheckpoint(host->applied_sequence_);
  absl::StatusOr<std::unique_ptr<RecordingWriter>> writer =
      RecordingWriter::Create(recording_path, header, initial);
  if (!writer.ok()) return writer.status();
  if (options.sync_thread != nullptr) {
    if (absl::Status s = (*writer)->SyncOn(options.sync_thread); !s.ok()) {
      (void)(*writer)->Remove();  // no world, no recording
      return s;
    }
  }
  host->recording_ = *std::move(writer);
  host->sim_ = *std::move(sim);
  host->checkpoints_.push_back(std::move(initial));
  host->public_header_ = std::move(header);
  host->public_header_.clear_tokens();
  host->PublishBodiesLocked();
  host->PublishInfoLocked();
  return host;
}

absl::StatusOr<std::shared_ptr<WorldHost>> WorldHost::Recover(const std::string& path,
                                                              const WorldHostOptions& options) {
  absl::StatusOr<sim::ParsedRecording> read = sim::ReadRecording(path);
  if (!read.ok()) return read.status();
  const v1::Recording& rec = read->recording;
  const v1::Checkpoint& cp = rec.checkpoints(rec.checkpoints_size() - 1);
  absl::StatusOr<std::unique_ptr<Simulation>> sim =
      Simulation::Restore(rec.header().scene(), rec.header().config(), cp);
  if (!sim.ok()) return sim.status();
  std::shared_ptr<WorldHost> host(
      new WorldHost(rec.header().world_id(), rec.header().config(), options));
  PiMutexLock lock(&host->mu_);
  const uint32_t slots = host->config_.player_slots();
  for (const v1::SlotToken& t : rec.header().tokens()) host->tokens_.push_back(t.token());
  if (host->tokens_.size() != slots) {
    return absl::DataLossError(absl::StrCat(path, ": header.tokens does not match player_slots"));
  }
  host->applied_sequence_.assign(slots, 0);
  for (int i = 0; i < cp.last_sequence_size() && i < static_cast<int>(slots); ++i) {
    host->applied_sequence_[i] = cp.last_sequence(i);
  }
  host->checkpoints_.push_back(cp);
  for (const v1::RecordedTick& t : rec.ticks()) {
    if (t.tick() <= cp.tick()) continue;
    if (t.tick() != (*sim)->tick() + 1) {
      return absl::DataLossError(absl::StrCat(path, ": tick ", t.tick(), " follows tick ",
                                              (*sim)->tick()));
    }
    std::vector<v1::ConfirmedInput> inputs(t.inputs().begin(), t.inputs().end());
    if (absl::Status s = (*sim)->Step(inputs, nullptr); !s.ok()) return s;
    if ((*sim)->hash() != t.state_hash() ||
        (t.events_hash() != 0 && sim::HashStepEvents((*sim)->world()) != t.events_hash())) {
      return absl::DataLossError(absl::StrCat(path, ": re-simulated tick ", t.tick(),
                                              " does not match its recorded hash"));
    }
    for (const v1::ConfirmedInput& in : inputs) {
      if (in.slot() >= 1 && in.slot() <= slots) {
        host->applied_sequence_[in.slot() - 1] =
            std::max(host->applied_sequence_[in.slot() - 1], in.sequence());
      }
    }
    v1::Frame frame;
    frame.set_tick(t.tick());
    *frame.mutable_inputs() = t.inputs();
    frame.set_state_hash(t.state_hash());
    // The frames a restarted server serves carry their events, as live ones.
    sim::AppendStepEvents((*sim)->world(), &frame);
    host->frames_.push_back(std::move(frame));
  }
  host->accepted_sequence_ = host->applied_sequence_;
  absl::StatusOr<std::unique_ptr<RecordingWriter>> writer =
      RecordingWriter::Reopen(path, read->valid_bytes);
  if (!writer.ok()) return writer.status();
  if (options.sync_thread != nullptr) {
    if (absl::Status s = (*writer)->SyncOn(options.sync_thread); !s.ok()) return s;
  }
  host->recording_ = *std::move(writer);
  host->sim_ = *std::move(sim);
  host->public_header_ = rec.header();
  host->public_header_.clear_tokens();
  host->PublishBodiesLocked();
  host->PublishInfoLocked();
  return host;
}

absl::StatusOr<std::shared_ptr<WorldHost>> WorldHost::Import(const v1::WorldExport& world,
                                                             const v1::WorldConfig& config,
                                                             const std::string& recording_path,
                                                             const WorldHostOptions& options) {
  const v1::RecordingHeader& header = world.header();
  if (header.engine_version() != EngineVersion()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "world.header.engine_version: the export was made by engine '", header.engine_version(),
        "', this server runs '", EngineVersion(), "' (replays are bit-exact only with the same)"));
  }
  const uint32_t slots = config.player_slots();
  if (static_cast<uint32_t>(header.tokens_size()) != slots) {
    return absl::InvalidArgumentError(absl::StrCat("world.header.tokens: ", header.tokens_size(),
                                                   " tokens for ", slots, " player slots"));
  }
  for (int i = 0; i < header.tokens_size(); ++i) {
    const v1::SlotToken& t = header.tokens(i);
    if (t.slot() != static_cast<uint32_t>(i + 1) || t.token().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "world.header.tokens[", i, "]: must be slot ", i + 1, " with a non-empty token"));
    }
  }
  const v1::Checkpoint& cp = world.checkpoint();
  if (cp.state_hash() == 0) {
    return absl::InvalidArgumentError("world.checkpoint.state_hash: missing");
  }
  absl::StatusOr<std::unique_ptr<Simulation>> sim = Simulation::Restore(header.scene(), config, cp);
  if (!sim.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("world.", std::string(sim.status().message())));
  }
  const uint64_t tick = cp.tick();
  if ((*sim)->tick() != tick) {
    return absl::InvalidArgumentError(absl::StrCat(
        "world.checkpoint.tick: ", tick, ", but its snapshot is of tick ", (*sim)->tick()));
  }
  if (static_cast<uint32_t>((*sim)->world().GetBodyCount()) > config.max_bodies()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "world.checkpoint: ", (*sim)->world().GetBodyCount(), " bodies, over config.max_bodies ",
        config.max_bodies()));
  }
  if (static_cast<uint32_t>(world.accepted_sequence_size()) != slots) {
    return absl::InvalidArgumentError(absl::StrCat("world.accepted_sequence: ",
                                                   world.accepted_sequence_size(),
                                                   " entries for ", slots, " player slots"));
  }
  std::shared_ptr<WorldHost> host(new WorldHost(header.world_id(), config, options));
  PiMutexLock lock(&host->mu_);
  host->sim_ = *std::move(sim);
  for (const v1::SlotToken& t : header.tokens()) host->tokens_.push_back(t.token());
  host->applied_sequence_.assign(slots, 0);
  for (int i = 0; i < cp.last_sequence_size() && i < static_cast<int>(slots); ++i) {
    host->applied_sequence_[i] = cp.last_sequence(i);
  }
  host->accepted_sequence_.assign(world.accepted_sequence().begin(),
                                  world.accepted_sequence().end());
  for (uint32_t i = 0; i < slots; ++i) {
    if (host->accepted_sequence_[i] < host->applied_sequence_[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "world.accepted_sequence[", i, "]: ", host->accepted_sequence_[i],
          " is below the checkpoint's last applied sequence ", host->applied_sequence_[i]));
    }
  }
  for (int i = 0; i < world.pending_inputs_size(); ++i) {
    const v1::ConfirmedInput& in = world.pending_inputs(i);
    const std::string field = absl::StrCat("world.pending_inputs[", i, "]");
    if (in.slot() < 1 || in.slot() > slots ||
        in.sequence() <= host->applied_sequence_[in.slot() - 1] ||
        in.sequence() > host->accepted_sequence_[in.slot() - 1]) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": slot ", in.slot(), " sequence ", in.sequence(),
          " is not a pending input of a slot (applied < sequence <= accepted)"));
    }
    const uint64_t apply = std::max(in.target_tick(), tick + 1);
    if (apply > tick + kMaxTicksAhead) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".target_tick: ", in.target_tick(),
                                                     " is more than ", kMaxTicksAhead,
                                                     " ticks ahead of tick ", tick));
    }
    std::string command_field;
    if (absl::Status s = host->sim_->CheckCommands(in.slot(), in.commands(),
                                                   host->pending_spawns_, &command_field);
        !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".", std::string(s.message())));
    }
    host->pending_spawns_ += host->sim_->SpawnedBodies(in.commands());
    host->pending_[apply].push_back(in);
  }
  // The oldest state a session can resume from here (WorldExport.checkpoint).
  host->checkpoints_.push_back(cp);
  absl::StatusOr<std::unique_ptr<RecordingWriter>> writer =
      RecordingWriter::Create(recording_path, header, cp);
  if (!writer.ok()) return writer.status();
  if (options.sync_thread != nullptr) {
    if (absl::Status s = (*writer)->SyncOn(options.sync_thread); !s.ok()) {
      (void)(*writer)->Remove();
      return s;
    }
  }
  host->recording_ = *std::move(writer);
  host->public_header_ = header;
  host->public_header_.clear_tokens();
  host->PublishBodiesLocked();
  host->PublishInfoLocked();
  return host;
}

absl::Duration WorldHost::period() const {
  return absl::Seconds(1) / static_cast<int64_t>(config_.tick_rate_hz());
}

uint64_t WorldHost::tick() const {
  PiMutexLock lock(&mu_);
  return sim_->tick();
}

absl::StatusOr<uint64_t> WorldHost::Query(absl::FunctionRef<void(const World&)> query) const {
  // The world is not thread-safe even for reads (a broad phase may rebuild
  // its index lazily inside a query), so a query needs the lock a step
  // takes; the alternatives cost more than the query: a copy of the world
  // per tick for readers, or a hop to the tick thread, where queries would
  // run back to back between ticks and delay the next one by their sum.
  // Held for the query alone, and not taken while a tick waits for it
  // (tick_waiting_): a tick is delayed by at most the one query already
  // running, however many clients query at once. The end of Tick wakes
  // the waiting queries (tick_waiting_ is false by then).
  PiMutexLock lock(&mu_);
  while (tick_waiting_.load()) tick_done_.Wait(&mu_);
  if (stopped_) return absl::UnavailableError("the world is shutting down");
  query(sim_->world());
  return sim_->tick();
}

v1::Frame WorldHost::MakeFrameLocked(std::vector<v1::ConfirmedInput> inputs) const {
  v1::Frame frame;
  frame.set_tick(sim_->tick());
  for (v1::ConfirmedInput& in : inputs) *frame.add_inputs() = std::move(in);
  frame.set_state_hash(sim_->hash());
  sim::AppendStepEvents(sim_->world(), &frame);
  return frame;
}

void WorldHost::RetainLocked(v1::Frame frame, std::optional<v1::Checkpoint> checkpoint) {
  if (checkpoint.has_value()) checkpoints_.push_back(*std::move(checkpoint));
  frames_.push_back(std::move(frame));
  const uint64_t now = sim_->tick();
  while (checkpoints_.size() > 1 &&
         (checkpoints_.size() > options_.retain_checkpoints ||
          checkpoints_[1].tick() + options_.retain_ticks <= now)) {
    checkpoints_.pop_front();
  }
  while (!frames_.empty() && frames_.front().tick() <= checkpoints_.front().tick()) {
    frames_.pop_front();
  }
}

void WorldHost::Tick(absl::Duration lateness) {
  // Announced before locking, so that queries arriving from now on wait
  // behind this tick instead of taking mu_ first (Query).
  tick_waiting_.store(true);
  PiMutexLock lock(&mu_);
  tick_waiting_.store(false);
  // As the tick ends, under mu_: the queries that waited for it go next.
  absl::Cleanup wake_queries = [this] { tick_done_.SignalAll(); };
  if (stopped_ || step_failed_) return;
  if (lateness > period()) ++late_ticks_;
  max_lateness_ = std::max(max_lateness_, lateness);
  const int64_t late_us = std::max<int64_t>(0, absl::ToInt64Microseconds(lateness));
  ++lateness_histogram_[std::min<int64_t>(late_us / kLatenessBucketUs, kLatenessBuckets - 1)];
  if (rate_metrics_ != nullptr) {
    if (lateness > period()) rate_metrics_->late_ticks.fetch_add(1, std::memory_order_relaxed);
    rate_metrics_->lateness.Observe(lateness);
  }

  const uint64_t next = sim_->tick() + 1;
  UpdateSendPolicyLocked(next, lateness);
  std::vector<v1::ConfirmedInput> inputs;
  while (!pending_.empty() && pending_.begin()->first <= next) {
    for (v1::ConfirmedInput& in : pending_.begin()->second) {
      pending_spawns_ -= sim_->SpawnedBodies(in.commands());
      inputs.push_back(std::move(in));
    }
    pending_.erase(pending_.begin());
  }
  SortInputs(&inputs);
  std::vector<CommandFailure> failures;
  const absl::Time step_start = absl::Now();
  const absl::Status stepped = sim_->Step(inputs, &failures);
  if (rate_metrics_ != nullptr && stepped.ok()) {
    rate_metrics_->step_time.Observe(absl::Now() - step_start);
    rate_metrics_->ticks.fetch_add(1, std::memory_order_relaxed);
  }
  if (!stepped.ok()) {
    std::fprintf(stderr, "atoll-server: world %s: step failed, the world stops ticking: %s\n",
                 id_.c_str(), std::string(stepped.message()).c_str());
    step_failed_ = true;
    return;
  }
  for (const v1::ConfirmedInput& in : inputs) {
    uint64_t& seq = applied_sequence_[in.slot() - 1];
    seq = std::max(seq, in.sequence());
  }

  v1::RecordedTick recorded;
  recorded.set_tick(next);
  *recorded.mutable_inputs() = {inputs.begin(), inputs.end()};
  recorded.set_state_hash(sim_->hash());
  recorded.set_events_hash(sim::HashStepEvents(sim_->world()));
  std::optional<v1::Checkpoint> checkpoint;
  if (DueEvery(next, config_.checkpoint_every_ticks())) {
    checkpoint = sim_->SaveCheckpoint(applied_sequence_);
  }
  if (!recording_failed_) {
    absl::Status s = recording_->AppendTick(recorded);
    if (s.ok() && checkpoint.has_value()) s = recording_->AppendCheckpoint(*checkpoint);
    if (!s.ok()) {
      // Keep the world running for its players; the recording is over.
      recording_failed_ = true;
      std::fprintf(stderr, "atoll-server: world %s: recording stopped: %s\n", id_.c_str(),
                   std::string(s.message()).c_str());
    }
  }

  v1::Frame frame = MakeFrameLocked(std::move(inputs));
  const v1::ServerMessage frame_message = FrameMessage(frame);
  // The snapshot of this tick is made at most once, and each delta at most
  // once per distinct base, however many sessions get it.
  std::optional<v1::Checkpoint> current;
  std::shared_ptr<const SentSnapshot> target;
  std::optional<v1::ServerMessage> full_message;
  std::map<const SentSnapshot*, v1::ServerMessage> delta_messages;
  auto snapshot_for = [&](const Session& session)
                          ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) -> const v1::ServerMessage& {
    if (!current.has_value()) {
      current = checkpoint.has_value() ? *checkpoint : sim_->SaveCheckpoint(applied_sequence_);
      target = RememberSentLocked(current->tick(), current->snapshot());
    }
    if (session.base != nullptr) {
      auto it = delta_messages.find(session.base.get());
      if (it != delta_messages.end()) return it->second;
      absl::StatusOr<std::string> delta = MakeDelta(session.base->data, target->data);
      if (delta.ok()) {
        return delta_messages
            .emplace(session.base.get(),
                     DeltaMessage(*current, session.base->tick, *std::move(delta)))
            .first->second;
      }
      // Both are snapshots this server wrote; a failure is a bug, but the
      // session can still be served in full.
      std::fprintf(stderr, "atoll-server: world %s: delta failed: %s\n", id_.c_str(),
                   std::string(delta.status().message()).c_str());
    }
    if (!full_message.has_value()) full_message = SnapshotMessage(*current);
    return *full_message;
  };
  std::erase_if(sessions_, [](const Session& s) { return s.outbox->closed(); });
  // What a metrics scrape reads, published into atomics (gauges()): a
  // scrape never takes mu_, so it cannot delay this tick.
  PublishSessionsLocked();
  if (DueEvery(next, config_.tick_rate_hz())) PublishBodiesLocked();
  auto collapse = [this](Outbox& out, std::vector<v1::ServerMessage> messages) {
    out.Collapse(std::move(messages));
    if (options_.metrics != nullptr) options_.metrics->CountCollapse();
  };
  for (Session& session : sessions_) {
    Outbox& out = *session.outbox;
    if (session.slot != 0) {
      for (const CommandFailure& f : failures) {
        if (f.slot != session.slot) continue;
        const std::string field = absl::StrCat("input.commands[", f.command_index, "]");
        out.Push(ErrorMessage(
            absl::Status(f.status.code(), absl::StrCat("tick ", next, ": ", field, ": ",
                                                       std::string(f.status.message()))),
            field, f.sequence));
      }
    }
    // A client that does not keep up loses its queue and restarts from the
    // newest snapshot: its outbox never holds more than outbox_capacity.
    // The snapshot may be a delta: the client still keeps its acked base.
    if (!out.Push(frame_message)) {
      collapse(out, {snapshot_for(session), frame_message});
    } else if (sends_reduced_ && out.stats().length > out.capacity() / 2) {
      // Under overload a lagging session gets the newest state now rather
      // than a queue to work through.
      collapse(out, {snapshot_for(session), frame_message});
    }
    if (SnapshotDueLocked(session, next)) {
      if (!out.Push(snapshot_for(session))) collapse(out, {snapshot_for(session)});
    }
    if (session.policy_due && out.Push(SendPolicyMessageLocked(session, policy_reason_))) {
      session.policy_due = false;
    }
  }
  RetainLocked(std::move(frame), std::move(checkpoint));
  PublishInfoLocked();
}

void WorldHost::UpdateSendPolicyLocked(uint64_t tick, absl::Duration lateness) {
  const bool late = lateness * kLateFraction > period();
  std::string reason;
  if (late) {
    on_time_ticks_ = 0;
    if (!sends_reduced_) {
      sends_reduced_ = true;
      reason = absl::StrFormat("tick %d started %.1f ms late", tick,
                               absl::ToDoubleMilliseconds(lateness));
    }
  } else if (sends_reduced_ &&
             ++on_time_ticks_ >= uint64_t{kOnTimeSeconds} * config_.tick_rate_hz()) {
    sends_reduced_ = false;
    reason = absl::StrCat("ticks on time again since tick ", tick - on_time_ticks_ + 1);
  }
  if (!reason.empty()) {
    policy_reason_ = std::move(reason);
    for (Session& session : sessions_) session.policy_due = true;
  }
  if (sends_reduced_) {
    ++reduced_send_ticks_;
    if (rate_metrics_ != nullptr) {
      rate_metrics_->reduced_send_ticks.fetch_add(1, std::memory_order_relaxed);
    }
  }
}

v1::ServerMessage WorldHost::SendPolicyMessageLocked(const Session& session,
                                                     const std::string& reason) const {
  v1::ServerMessage m;
  v1::SendPolicy* p = m.mutable_send_policy();
  p->set_reduced(sends_reduced_);
  p->set_snapshot_every_ticks(SnapshotEveryLocked(session));
  p->set_reason(reason);
  return m;
}

std::shared_ptr<const WorldHost::SentSnapshot> WorldHost::RememberSentLocked(
    uint64_t tick, const std::string& data) {
  for (const std::shared_ptr<const SentSnapshot>& s : sent_) {
    if (s->tick == tick) return s;
  }
  auto s = std::make_shared<SentSnapshot>();
  s->tick = tick;
  s->data = data;
  sent_.push_back(s);
  // Sessions that use an evicted snapshot as their base keep it alive.
  while (sent_.size() > kKeptSentSnapshots) sent_.pop_front();
  return s;
}

absl::Status WorldHost::AddSessionLocked(Session session, std::optional<uint64_t> from,
                                         const std::string& from_field) {
  if (stopped_) return absl::UnavailableError("the world is shutting down");
  const uint64_t now = sim_->tick();
  v1::ServerMessage joined;
  joined.mutable_joined()->set_world_id(id_);
  joined.mutable_joined()->set_slot(session.slot);
  *joined.mutable_joined()->mutable_config() = config_;
  joined.mutable_joined()->set_tick(now);
  joined.mutable_joined()->set_snapshot_phase(PhaseTicks(session.snapshot_every));
  if (session.slot >= 1 && session.slot <= accepted_sequence_.size()) {
    joined.mutable_joined()->set_last_sequence(accepted_sequence_[session.slot - 1]);
  }
  if (!from.has_value() || *from >= now) {
    session.outbox->Push(std::move(joined), true);
    const v1::Checkpoint cp = sim_->SaveCheckpoint(applied_sequence_);
    RememberSentLocked(cp.tick(), cp.snapshot());
    session.outbox->Push(SnapshotMessage(cp), true);
  } else {
    const v1::Checkpoint* base = nullptr;
    for (const v1::Checkpoint& cp : checkpoints_) {
      if (cp.tick() <= *from) base = &cp;
    }
    if (base == nullptr) {
      return absl::OutOfRangeError(absl::StrCat(
          from_field, ": tick ", *from, " is older than the oldest checkpoint in memory (tick ",
          checkpoints_.front().tick(), "); fetch WorldService.GetRecording instead"));
    }
    session.outbox->Push(std::move(joined), true);
    RememberSentLocked(base->tick(), base->snapshot());
    session.outbox->Push(SnapshotMessage(*base), true);
    for (const v1::Frame& f : frames_) {
      if (f.tick() > base->tick()) session.outbox->Push(FrameMessage(f), true);
    }
  }
  if (sends_reduced_) {
    session.outbox->Push(SendPolicyMessageLocked(session, "the world's ticks start late"), true);
  }
  sessions_.push_back(std::move(session));
  PublishSessionsLocked();
  PublishInfoLocked();
  return absl::OkStatus();
}

absl::Status WorldHost::Join(const v1::Join& join, std::shared_ptr<Outbox> outbox) {
  PiMutexLock lock(&mu_);
  if (join.spectate()) {
    Session s;
    s.outbox = std::move(outbox);
    s.snapshot_every = join.snapshot_every_ticks() != 0 ? join.snapshot_every_ticks()
                                                        : config_.snapshot_every_ticks();
    std::optional<uint64_t> from;
    if (join.has_resume_from_tick()) from = join.resume_from_tick();
    return AddSessionLocked(std::move(s), from, "join.resume_from_tick");
  }
  if (join.slot() == 0 || join.slot() > config_.player_slots()) {
    return absl::InvalidArgumentError(absl::StrCat("join.slot: must be 1..",
                                                   config_.player_slots(), ", got ", join.slot()));
  }
  if (join.token() != tokens_[join.slot() - 1]) {
    return absl::PermissionDeniedError(
        absl::StrCat("join.token: wrong token for slot ", join.slot()));
  }
  Session s;
  s.outbox = std::move(outbox);
  s.slot = join.slot();
  s.snapshot_every =
      join.snapshot_every_ticks() != 0 ? join.snapshot_every_ticks() : config_.snapshot_every_ticks();
  std::optional<uint64_t> from;
  if (join.has_resume_from_tick()) from = join.resume_from_tick();
  return AddSessionLocked(std::move(s), from, "join.resume_from_tick");
}

absl::Status WorldHost::Watch(const v1::WatchRequest& request, std::shared_ptr<Outbox> outbox) {
  PiMutexLock lock(&mu_);
  Session s;
  s.outbox = std::move(outbox);
  s.snapshot_every = request.snapshot_every_ticks() != 0 ? request.snapshot_every_ticks()
                                                         : config_.snapshot_every_ticks();
  std::optional<uint64_t> from;
  if (request.has_from_tick()) from = request.from_tick();
  return AddSessionLocked(std::move(s), from, "from_tick");
}

void WorldHost::Leave(const Outbox* outbox) {
  PiMutexLock lock(&mu_);
  std::erase_if(sessions_, [&](const Session& s) { return s.outbox.get() == outbox; });
  PublishSessionsLocked();
  PublishInfoLocked();
}

absl::Status WorldHost::SubmitInput(const Outbox* session, const v1::Input& input,
                                    std::string* field) {
  PiMutexLock lock(&mu_);
  auto it = std::find_if(sessions_.begin(), sessions_.end(),
                         [&](const Session& s) { return s.outbox.get() == session; });
  if (it == sessions_.end() || it->slot == 0) {
    *field = "input";
    return absl::PermissionDeniedError("input: this session has not joined as a player");
  }
  const uint32_t slot = it->slot;
  const uint64_t now = sim_->tick();
  if (input.sequence() <= accepted_sequence_[slot - 1]) {
    *field = "input.sequence";
    return absl::InvalidArgumentError(
        absl::StrCat("input.sequence: ", input.sequence(), " is not greater than slot ", slot,
                     "'s last sequence ", accepted_sequence_[slot - 1]));
  }
  const uint64_t target =
      input.target_tick() != 0 ? input.target_tick() : now + 1 + config_.input_delay_ticks();
  if (target > now + kMaxTicksAhead) {
    *field = "input.target_tick";
    return absl::InvalidArgumentError(absl::StrCat("input.target_tick: ", target, " is more than ",
                                                   kMaxTicksAhead, " ticks ahead of tick ", now));
  }
  const bool late = target <= now;
  const uint64_t apply = late ? now + 1 : target;
  size_t queued = 0;
  if (auto p = pending_.find(apply); p != pending_.end()) {
    for (const v1::ConfirmedInput& in : p->second) {
      if (in.slot() == slot) queued += in.commands_size();
    }
  }
  if (queued + input.commands_size() > config_.max_commands_per_tick()) {
    *field = "input.commands";
    return absl::ResourceExhaustedError(absl::StrCat(
        "input.commands: slot ", slot, " would have ", queued + input.commands_size(),
        " commands for tick ", apply, "; the limit is ", config_.max_commands_per_tick(),
        " (config.max_commands_per_tick)"));
  }
  if (absl::Status s = sim_->CheckCommands(
          slot, input.commands(), pending_spawns_, field);
      !s.ok()) {
    return s;
  }
  v1::ConfirmedInput confirmed;
  confirmed.set_slot(slot);
  confirmed.set_sequence(input.sequence());
  confirmed.set_target_tick(target);
  confirmed.set_late(late);
  *confirmed.mutable_commands() = input.commands();
  pending_spawns_ += sim_->SpawnedBodies(confirmed.commands());
  pending_[apply].push_back(std::move(confirmed));
  accepted_sequence_[slot - 1] = input.sequence();
  return absl::OkStatus();
}

void WorldHost::Ack(const Outbox* session, uint64_t snapshot_tick) {
  PiMutexLock lock(&mu_);
  for (Session& s : sessions_) {
    if (s.outbox.get() != session) continue;
    s.acked = std::max(s.acked, snapshot_tick);
    if (s.base != nullptr && s.base->tick >= snapshot_tick) return;
    for (const std::shared_ptr<const SentSnapshot>& sent : sent_) {
      if (sent->tick == snapshot_tick) s.base = sent;
    }
  }
}

void WorldHost::AddSkippedTicks(uint64_t ticks) {
  PiMutexLock lock(&mu_);
  skipped_ticks_ += ticks;
  if (rate_metrics_ != nullptr) {
    rate_metrics_->skipped_ticks.fetch_add(ticks, std::memory_order_relaxed);
  }
  PublishInfoLocked();
}

void WorldHost::PublishBodiesLocked() {
  const WorldCounters counters = sim_->world().GetCounters();
  bodies_gauge_.store(static_cast<uint32_t>(counters.bodies), std::memory_order_relaxed);
  awake_bodies_gauge_.store(static_cast<uint32_t>(counters.awake_bodies),
                            std::memory_order_relaxed);
}

void WorldHost::PublishSessionsLocked() {
  uint32_t players = 0;
  for (const Session& s : sessions_) players += s.slot != 0 ? 1 : 0;
  players_gauge_.store(players, std::memory_order_relaxed);
  spectators_gauge_.store(static_cast<uint32_t>(sessions_.size()) - players,
                          std::memory_order_relaxed);
}

WorldGauges WorldHost::gauges() const {
  WorldGauges g;
  g.bodies = bodies_gauge_.load(std::memory_order_relaxed);
  g.awake_bodies = awake_bodies_gauge_.load(std::memory_order_relaxed);
  g.players = players_gauge_.load(std::memory_order_relaxed);
  g.spectators = spectators_gauge_.load(std::memory_order_relaxed);
  return g;
}

v1::WorldInfo WorldHost::Info() const {
  std::shared_ptr<const v1::WorldInfo> info;
  {
    PiMutexLock lock(&info_mu_);
    info = info_;
  }
  return *info;
}

void WorldHost::PublishInfoLocked() {
  auto published = std::make_shared<v1::WorldInfo>();
  v1::WorldInfo& info = *published;
  info.set_world_id(id_);
  *info.mutable_config() = config_;
  info.set_tick(sim_->tick());
  info.set_state_hash(sim_->hash());
  info.set_body_count(static_cast<uint32_t>(sim_->world().GetBodyCount()));
  for (const Session& s : sessions_) {
    const OutboxStats st = s.outbox->stats();
    v1::SessionStats* out = info.add_sessions();
    out->set_slot(s.slot);
    out->set_outbox_length(st.length);
    out->set_outbox_high_water(st.high_water);
    out->set_collapses(st.collapses);
    out->set_dropped_messages(st.dropped);
    out->set_acked_snapshot_tick(s.acked);
    out->set_delta_base_tick(s.base != nullptr ? s.base->tick : 0);
  }
  info.set_late_ticks(late_ticks_);
  info.set_max_lateness_us(static_cast<uint64_t>(absl::ToInt64Microseconds(max_lateness_)));
  // Without its trailing zeros: most of 201 buckets are empty, and a full
  // histogram for every world made ListWorlds' answer three times larger.
  auto used = lateness_histogram_.end();
  while (used != lateness_histogram_.begin() && *(used - 1) == 0) --used;
  *info.mutable_lateness_histogram_us50() = {lateness_histogram_.begin(), used};
  info.set_skipped_ticks(skipped_ticks_);
  info.set_reduced_send_ticks(reduced_send_ticks_);
  // Counting awake bodies walks every body: as of PublishBodiesLocked.
  info.set_awake_body_count(awake_bodies_gauge_.load(std::memory_order_relaxed));
  PiMutexLock lock(&info_mu_);
  info_ = std::move(published);
}

absl::StatusOr<v1::Recording> WorldHost::GetRecording(bool header_only) const {
  RecordingWriter::Contents contents;
  {
    PiMutexLock lock(&mu_);
    if (header_only) {
      v1::Recording recording;
      *recording.mutable_header() = public_header_;
      return recording;
    }
    contents = recording_->Snapshot();
  }
  // Parsed without the lock: a long recording (tens of MB after minutes of
  // a big world) would hold the world's next tick for as long.
  absl::StatusOr<v1::Recording> recording = RecordingWriter::Parse(contents);
  if (recording.ok()) recording->mutable_header()->clear_tokens();
  return recording;
}

absl::StatusOr<v1::WorldExport> WorldHost::Export(const std::string& redirect_to,
                                                  const std::string& archive_dir) {
  v1::WorldExport out;
  std::vector<Session> sessions;
  {
    PiMutexLock lock(&mu_);
    if (stopped_) return absl::UnavailableError("world_id: the world is shutting down");
    if (step_failed_) {
      return absl::FailedPreconditionError(absl::StrCat(
          "world_id: world ", id_, " diverged at tick ", sim_->tick() + 1,
          " and cannot be continued elsewhere"));
    }
    stopped_.store(true, std::memory_order_release);
    v1::RecordingHeader* header = out.mutable_header();
    *header = public_header_;
    for (size_t i = 0; i < tokens_.size(); ++i) {
      v1::SlotToken* t = header->add_tokens();
      t->set_slot(static_cast<uint32_t>(i + 1));
      t->set_token(tokens_[i]);
    }
    *out.mutable_checkpoint() = sim_->SaveCheckpoint(applied_sequence_);
    for (const auto& [apply, inputs] : pending_) {
      for (const v1::ConfirmedInput& in : inputs) *out.add_pending_inputs() = in;
    }
    *out.mutable_accepted_sequence() = {accepted_sequence_.begin(), accepted_sequence_.end()};
    if (absl::Status s = recording_->Sync(); !s.ok()) {
      std::fprintf(stderr, "atoll-server: %s\n", std::string(s.message()).c_str());
    } else if (!archive_dir.empty()) {
      if (absl::Status m = recording_->MoveTo(
              absl::StrCat(archive_dir, "/", id_, "-", sim_->tick(), ".atrec"));
          !m.ok()) {
        std::fprintf(stderr, "atoll-server: %s\n", std::string(m.message()).c_str());
      }
    }
    sessions.swap(sessions_);
    PublishSessionsLocked();
    PublishInfoLocked();
  }
  v1::ServerMessage redirect;
  redirect.mutable_redirect()->set_world_id(id_);
  redirect.mutable_redirect()->set_address(redirect_to);
  redirect.mutable_redirect()->set_tick(out.checkpoint().tick());
  const grpc::Status moved(grpc::StatusCode::UNAVAILABLE,
                           redirect_to.empty() ? "the world moved to another server"
                                               : absl::StrCat("the world moved to ", redirect_to));
  for (Session& s : sessions) {
    if (!redirect_to.empty()) s.outbox->Push(redirect, true);
    s.outbox->CloseAfterDrain(moved);
  }
  return out;
}

void WorldHost::Stop(const grpc::Status& status, bool drain, bool remove_recording) {
  std::vector<Session> sessions;
  {
    PiMutexLock lock(&mu_);
    if (!stopped_) {
      stopped_.store(true, std::memory_order_release);
      if (remove_recording) {
        if (absl::Status s = recording_->Remove(); !s.ok()) {
          std::fprintf(stderr, "atoll-server: %s\n", std::string(s.message()).c_str());
        }
      } else if (absl::Status s = recording_->Sync(); !s.ok()) {
        std::fprintf(stderr, "atoll-server: %s\n", std::string(s.message()).c_str());
      }
    }
    sessions.swap(sessions_);
    PublishSessionsLocked();
    PublishInfoLocked();
  }
  for (Session& s : sessions) {
    if (drain) {
      s.outbox->CloseAfterDrain(status);
    } else {
      s.outbox->Close(status);
    }
  }
}

}  // namespace atl::server
