#include "atoll/client/bot.h"

#include <cmath>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "atoll/client/session.h"
#include "atoll/random.h"

namespace atl::client {
namespace {

// Waits for the stream's first Snapshot, acknowledging it.
absl::StatusOr<v1::Snapshot> FirstSnapshot(Session* session) {
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (absl::Now() < deadline) {
    absl::StatusOr<std::optional<v1::ServerMessage>> m = session->Next(absl::Milliseconds(100));
    if (!m.ok()) return m.status();
    if (m->has_value() && (*m)->has_snapshot()) return (*m)->snapshot();
  }
  return absl::DeadlineExceededError("no snapshot within 10 s of joining");
}

absl::StatusOr<BotReport> RunPlayer(const BotOptions& options, uint32_t slot) {
  BotReport report;
  report.slot = slot;
  SessionOptions so;
  so.address = options.address;
  so.world_id = options.world_id;
  so.slot = slot;
  so.token = options.tokens[slot - 1];
  so.snapshot_every_ticks = options.snapshot_every_ticks;
  so.injected_latency = options.injected_latency;
  absl::StatusOr<std::unique_ptr<Session>> session = Session::Connect(so);
  if (!session.ok()) return session.status();
  const v1::WorldConfig config = (*session)->joined().config();
  absl::StatusOr<v1::Snapshot> snapshot = FirstSnapshot(session->get());
  if (!snapshot.ok()) return snapshot.status();
  PredictionOptions po = options.prediction;
  po.local_slot = slot;
  absl::StatusOr<std::unique_ptr<PredictedWorld>> world =
      PredictedWorld::Create(options.scene, config, *snapshot, po);
  if (!world.ok()) return world.status();
  PredictedWorld& pw = **world;
  // Sequence numbers grow per slot across sessions: continue after the
  // last one the server accepted from this slot.
  pw.set_next_sequence((*session)->joined().last_sequence() + 1);
  (void)(*session)->Ack(snapshot->tick());

  // Inputs must reach the server before it steps their tick: schedule them
  // a round trip (in ticks) ahead of the newest confirmed tick.
  const absl::Duration period = absl::Seconds(1) / std::max<uint32_t>(1, config.tick_rate_hz());
  const uint64_t rtt_ticks =
      static_cast<uint64_t>(std::ceil(absl::FDivDuration(options.injected_latency * 2, period)));
  const uint64_t lead = rtt_ticks + 1 + static_cast<uint64_t>(po.input_delay);

  double rtt_total = 0;
  int rtt_samples = 0;
  auto sample_rtt = [&] {
    absl::StatusOr<absl::Duration> rtt = (*session)->MeasureRtt();
    if (rtt.ok()) {
      rtt_total += absl::ToDoubleMilliseconds(*rtt);
      ++rtt_samples;
    }
  };
  sample_rtt();

  Random random(options.seed + slot);
  report.first_tick = pw.confirmed_tick();
  const uint64_t end_tick = report.first_tick + options.ticks;
  uint64_t last_input_for = pw.confirmed_tick();
  bool dropped = false;
  const absl::Time give_up = absl::Now() + period * static_cast<double>(options.ticks) * 4 +
                             absl::Seconds(20);
  while (pw.confirmed_tick() < end_tick) {
    if (absl::Now() > give_up) {
      return absl::DeadlineExceededError(absl::StrCat("slot ", slot, ": stuck at tick ",
                                                      pw.confirmed_tick()));
    }
    absl::StatusOr<std::optional<v1::ServerMessage>> m = (*session)->Next(period);
    if (!m.ok()) {
      if (absl::IsNotFound(m.status()) || absl::IsAborted(m.status())) return m.status();
      // A lost stream: come back where we were; the server replays the
      // frames since its checkpoint before that tick.
      absl::SleepFor(absl::Milliseconds(20));
      if (absl::Status s = (*session)->Reconnect(pw.confirmed_tick()); !s.ok()) return s;
      ++report.reconnects;
      continue;
    }
    // Apply everything that has arrived, then predict once.
    std::optional<v1::Redirect> redirect;
    while (m.ok() && m->has_value()) {
      const v1::ServerMessage& msg = **m;
      if (absl::Status s = pw.OnServerMessage(msg); !s.ok()) return s;
      if (msg.has_snapshot()) (void)(*session)->Ack(msg.snapshot().tick());
      if (msg.has_error()) ++report.server_errors;
      if (msg.has_redirect()) redirect = msg.redirect();
      m = (*session)->Next(absl::ZeroDuration());
    }
    if (redirect.has_value()) {
      // The world moved: go on where it went, from the newest confirmed
      // tick (the stream ends after the Redirect).
      if (absl::Status s = (*session)->Follow(*redirect, pw.confirmed_tick()); !s.ok()) return s;
      ++report.redirects;
      continue;
    }
    while (last_input_for < pw.confirmed_tick()) {
      ++last_input_for;
      std::vector<v1::Command> commands;
      for (const v1::OwnedBody& owned : pw.confirmed().Owners()) {
        if (owned.slot() != slot) continue;
        v1::Command c;
        v1::ApplyImpulse* impulse = c.mutable_apply_impulse();
        *impulse->mutable_body() = owned.body();
        impulse->mutable_impulse()->set_x(random.Uniform(-options.max_impulse, options.max_impulse));
        impulse->mutable_impulse()->set_y(random.Uniform(-options.max_impulse, options.max_impulse));
        commands.push_back(std::move(c));
      }
      if (commands.empty()) continue;
      const v1::Input input = pw.MakeLocalInput(pw.confirmed_tick() + lead, std::move(commands));
      if ((*session)->SendInput(input).ok()) ++report.inputs_sent;
    }
    if (absl::Status s = pw.PredictTo(pw.confirmed_tick() + lead); !s.ok()) return s;
    for (DesyncReport& d : pw.TakeDesyncs()) report.desyncs.push_back(std::move(d));
    if (slot == 1 && options.drop_stream_at_tick != 0 && !dropped &&
        pw.confirmed_tick() >= options.drop_stream_at_tick) {
      dropped = true;
      (*session)->Drop();
    }
  }
  sample_rtt();
  report.rtt_ms = rtt_samples == 0 ? 0 : rtt_total / rtt_samples;
  report.stats = pw.stats();
  report.last_tick = pw.confirmed_tick();
  report.hashes = pw.confirmed_hashes();
  return report;
}

}  // namespace

absl::StatusOr<std::vector<BotReport>> RunBots(const BotOptions& options) {
  if (options.players < 1 || static_cast<size_t>(options.players) > options.tokens.size()) {
    return absl::InvalidArgumentError(absl::StrCat("players: must be 1..", options.tokens.size(),
                                                   " (the slots with tokens), got ",
                                                   options.players));
  }
  std::vector<std::optional<absl::StatusOr<BotReport>>> results(options.players);
  std::vector<std::thread> threads;
  for (int i = 0; i < options.players; ++i) {
    threads.emplace_back([&, i] { results[i] = RunPlayer(options, static_cast<uint32_t>(i + 1)); });
  }
  for (std::thread& t : threads) t.join();
  std::vector<BotReport> out;
  for (auto& r : results) {
    if (!r->ok()) return r->status();
    out.push_back(**std::move(r));
  }
  return out;
}

}  // namespace atl::client
