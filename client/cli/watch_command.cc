// atoll watch — follows a world as a spectator: one line per tick (hash,
// awake bodies, contact events), one per sensor event and joint break,
// optionally SVG frames drawn from the local
// replica, which is stepped with the confirmed inputs and restored from the
// server's snapshots.

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "atoll/client/predicted_world.h"
#include "atoll/client/session.h"
#include "atoll/svg_draw.h"
#include "client/cli/cli_util.h"
#include "client/cli/commands.h"

ABSL_FLAG(std::string, svg, "",
          "watch: write an SVG frame of the local replica into this directory");
ABSL_FLAG(uint32_t, svg_every, 10, "watch: ticks between SVG frames");
ABSL_DECLARE_FLAG(int32_t, ticks);
ABSL_FLAG(bool, forever, false,
          "watch: ignore --ticks and follow the world until it ends");
ABSL_FLAG(uint32_t, every, 1,
          "watch: print one line per this many ticks (event counts summed "
          "since the last line)");

namespace atl::cli {
namespace {

void WriteFrame(const std::string& dir, const World& world, uint64_t tick) {
  SvgDebugDraw draw(world.GetBounds(), 800);
  draw.SetTitle(absl::StrCat("tick ", tick));
  DebugDrawOptions options;
  world.Draw(&draw, options);
  const std::string path = absl::StrFormat("%s/frame_%06d.svg", dir, tick);
  if (absl::Status s = draw.WriteFile(path); !s.ok()) Fail(s);
}

}  // namespace

int RunWatchCommand(const std::vector<std::string>& args) {
  if (args.size() != 1) return Usage("watch needs one world id");
  absl::StatusOr<std::string> address = ServerAddress();
  if (!address.ok()) return Fail(address.status());
  // The scene's templates are needed to re-simulate spawns.
  absl::StatusOr<v1::RecordingHeader> setup =
      FetchWorldSetup(*address, args[0]);
  if (!setup.ok()) return Fail(setup.status());
  const std::string svg_dir = absl::GetFlag(FLAGS_svg);
  if (!svg_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(svg_dir, ec);
    if (ec) return Fail(absl::StrCat(svg_dir, ": ", ec.message()));
  }
  client::SessionOptions options;
  options.address = *address;
  options.world_id = args[0];
  options.connect_timeout = Timeout();
  absl::StatusOr<std::unique_ptr<client::Session>> session =
      client::Session::Connect(options);
  if (!session.ok()) return Fail(session.status());
  const v1::WorldConfig config = (*session)->joined().config();
  std::unique_ptr<client::PredictedWorld> world;
  const int64_t limit =
      absl::GetFlag(FLAGS_forever) ? -1 : absl::GetFlag(FLAGS_ticks);
  int64_t shown = 0;
  const uint32_t svg_every =
      std::max<uint32_t>(1, absl::GetFlag(FLAGS_svg_every));
  const uint32_t every = std::max<uint32_t>(1, absl::GetFlag(FLAGS_every));
  int begins = 0, ends = 0, hits = 0;  // since the last printed line
  absl::Time last_frame_arrival = absl::Now();
  // The Redirect's tick, while waiting for the new server's first frame.
  bool moving = false;
  uint64_t moved_after = 0;
  while (limit < 0 || shown < limit) {
    absl::StatusOr<std::optional<v1::ServerMessage>> m =
        (*session)->Next(absl::Seconds(5));
    if (!m.ok()) return Fail(m.status());
    if (!m->has_value()) continue;
    const v1::ServerMessage& msg = **m;
    if (world == nullptr) {
      if (!msg.has_snapshot()) continue;
      client::PredictionOptions po;  // a spectator: confirmed state only
      absl::StatusOr<std::unique_ptr<client::PredictedWorld>> made =
          client::PredictedWorld::Create(setup->scene(), config, msg.snapshot(),
                                         po);
      if (!made.ok()) return Fail(made.status());
      world = *std::move(made);
      std::printf("watching %s from tick %llu (%u Hz)\n", args[0].c_str(),
                  static_cast<unsigned long long>(msg.snapshot().tick()),
                  config.tick_rate_hz());
      continue;
    }
    if (absl::Status s = world->OnServerMessage(msg); !s.ok()) return Fail(s);
    for (const client::DesyncReport& d : world->TakeDesyncs()) {
      std::printf("%s\n", d.ToString().c_str());
    }
    if (msg.has_redirect()) {
      // The world moved to another server: follow it from the last tick
      // shown.
      std::printf("world moved to %s after tick %llu\n", msg.redirect().address().c_str(),
                  static_cast<unsigned long long>(msg.redirect().tick()));
      if (absl::Status s = (*session)->Follow(msg.redirect(), world->confirmed_tick()); !s.ok()) {
        return Fail(s);
      }
      moving = true;
      moved_after = msg.redirect().tick();
      continue;
    }
    if (!msg.has_frame()) continue;
    const v1::Frame& f = msg.frame();
    const absl::Time arrival = absl::Now();
    if (moving && f.tick() == moved_after + 1) {
      // How long the stream stood still: the last frame from the old
      // server to the first from the new one.
      const absl::Duration gap = arrival - last_frame_arrival;
      std::printf("stream paused %.1f ms (%.2f ticks) by the move\n",
                  absl::ToDoubleMilliseconds(gap),
                  absl::ToDoubleSeconds(gap) * config.tick_rate_hz());
      moving = false;
    }
    // (Frames the new server replays from its checkpoint do not count.)
    if (!moving) last_frame_arrival = arrival;
    for (const v1::ContactEvent& e : f.events()) {
      if (e.kind() == v1::ContactEvent::KIND_BEGIN) ++begins;
      if (e.kind() == v1::ContactEvent::KIND_END) ++ends;
      if (e.kind() == v1::ContactEvent::KIND_HIT) ++hits;
    }
    // Sensor and joint-break events are rare and each one matters to a
    // game: a line each, as they come.
    for (const v1::SensorEvent& e : f.sensor_events()) {
      std::printf("tick %llu sensor %s: shape %u (body %u) %s sensor shape %u (body %u)\n",
                  static_cast<unsigned long long>(f.tick()),
                  e.kind() == v1::SensorEvent::KIND_BEGIN ? "begin" : "end", e.visitor_shape(),
                  e.visitor_body().index(),
                  e.kind() == v1::SensorEvent::KIND_BEGIN ? "entered" : "left", e.sensor_shape(),
                  e.sensor_body().index());
    }
    for (const v1::JointBreakEvent& e : f.joint_breaks()) {
      std::printf("tick %llu joint %u:%u broke: force (%.2f, %.2f) N, torque %.2f N m\n",
                  static_cast<unsigned long long>(f.tick()), e.joint().index(),
                  e.joint().generation(), e.force().x(), e.force().y(), e.torque());
    }
    const bool in_sync = world->confirmed_tick() == f.tick() &&
                         world->confirmed().hash() == f.state_hash();
    ++shown;
    if (!in_sync || shown % every == 0) {
      const WorldCounters counters = world->confirmed().world().GetCounters();
      std::printf(
          "tick %llu hash %016llx awake %d/%d inputs %d events begin %d end %d "
          "hit %d%s\n",
          static_cast<unsigned long long>(f.tick()),
          static_cast<unsigned long long>(f.state_hash()),
          counters.awake_bodies, counters.bodies, f.inputs_size(), begins, ends,
          hits, in_sync ? "" : " (local replica differs)");
      begins = ends = hits = 0;
    }
    if (!svg_dir.empty() && f.tick() % svg_every == 0 &&
        world->confirmed_tick() == f.tick()) {
      WriteFrame(svg_dir, world->confirmed().world(), f.tick());
    }
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace atl::cli
