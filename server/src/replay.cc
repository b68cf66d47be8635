#include "replay.h"

#include <cstring>
#include <limits>
#include <memory>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "atoll/server/simulation.h"
#include "atoll/sim/frame_events.h"
#include "atoll/snapshot.h"

namespace atl::server {
namespace {

constexpr int kMaxDiffs = 1000;

bool SameBits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

v1::Vec2 Delta(Vec2 a, Vec2 b) {
  v1::Vec2 d;
  d.set_x(a.x - b.x);
  d.set_y(a.y - b.y);
  return d;
}

void DiffBodies(const World& replay, const World& recorded, v1::VerifyResponse* out) {
  std::set<uint32_t> indices;
  std::vector<BodyId> a = replay.GetBodyIds();
  std::vector<BodyId> b = recorded.GetBodyIds();
  for (BodyId id : a) indices.insert(id.index);
  for (BodyId id : b) indices.insert(id.index);
  auto find = [](const std::vector<BodyId>& ids, uint32_t index) -> const BodyId* {
    for (const BodyId& id : ids) {
      if (id.index == index) return &id;
    }
    return nullptr;
  };
  for (uint32_t index : indices) {
    if (out->diffs_size() >= kMaxDiffs) return;
    const BodyId* ia = find(a, index);
    const BodyId* ib = find(b, index);
    v1::BodyDiff diff;
    diff.set_in_replay(ia != nullptr);
    diff.set_in_recording(ib != nullptr);
    *diff.mutable_body() = ToBodyRef(ia != nullptr ? *ia : *ib);
    if (ia != nullptr && ib != nullptr) {
      const BodyInfo x = *replay.GetBody(*ia);
      const BodyInfo y = *recorded.GetBody(*ib);
      const bool same = ia->generation == ib->generation &&
                        SameBits(x.transform.p.x, y.transform.p.x) &&
                        SameBits(x.transform.p.y, y.transform.p.y) && SameBits(x.angle, y.angle) &&
                        SameBits(x.linear_velocity.x, y.linear_velocity.x) &&
                        SameBits(x.linear_velocity.y, y.linear_velocity.y) &&
                        SameBits(x.angular_velocity, y.angular_velocity) &&
                        x.is_awake == y.is_awake;
      if (same) continue;
      *diff.mutable_position_delta() = Delta(x.transform.p, y.transform.p);
      diff.set_angle_delta(x.angle - y.angle);
      *diff.mutable_linear_velocity_delta() = Delta(x.linear_velocity, y.linear_velocity);
      diff.set_angular_velocity_delta(x.angular_velocity - y.angular_velocity);
    }
    *out->add_diffs() = std::move(diff);
  }
}

}  // namespace

absl::StatusOr<v1::VerifyResponse> VerifyRecording(const v1::Recording& recording) {
  if (!recording.has_header()) {
    return absl::InvalidArgumentError("recording.header: missing");
  }
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
  v1::VerifyResponse response;
  response.set_ok(true);
  int i = 0;
  for (; i < recording.ticks_size(); ++i) {
    const v1::RecordedTick& t = recording.ticks(i);
    if (t.tick() != (*sim)->tick() + 1) {
      return absl::InvalidArgumentError(absl::StrCat("recording.ticks[", i, "].tick: expected ",
                                                     (*sim)->tick() + 1, ", got ", t.tick()));
    }
    std::vector<v1::ConfirmedInput> inputs(t.inputs().begin(), t.inputs().end());
    if (absl::Status s = (*sim)->Step(inputs, nullptr); !s.ok()) return s;
    response.set_ticks_verified(response.ticks_verified() + 1);
    if ((*sim)->hash() != t.state_hash()) {
      response.set_ok(false);
      response.set_first_divergent_tick(t.tick());
      response.set_expected_hash(t.state_hash());
      response.set_actual_hash((*sim)->hash());
      break;
    }
    if (t.events_hash() != 0) {
      const uint64_t events = sim::HashStepEvents((*sim)->world());
      if (events != t.events_hash()) {
        response.set_ok(false);
        response.set_events_diverged(true);
        response.set_first_divergent_tick(t.tick());
        response.set_expected_hash(t.events_hash());
        response.set_actual_hash(events);
        return response;
      }
    }
  }
  if (response.ok()) return response;

  // Find the first recorded checkpoint at or after the divergence and
  // replay up to it for a per-body diff.
  const v1::Checkpoint* target = nullptr;
  for (const v1::Checkpoint& cp : recording.checkpoints()) {
    if (cp.tick() >= response.first_divergent_tick()) {
      target = &cp;
      break;
    }
  }
  if (target == nullptr) return response;
  for (++i; i < recording.ticks_size() && (*sim)->tick() < target->tick(); ++i) {
    const v1::RecordedTick& t = recording.ticks(i);
    std::vector<v1::ConfirmedInput> inputs(t.inputs().begin(), t.inputs().end());
    if (absl::Status s = (*sim)->Step(inputs, nullptr); !s.ok()) return s;
  }
  if ((*sim)->tick() != target->tick()) return response;
  absl::StatusOr<std::unique_ptr<World>> recorded = LoadSnapshot(target->snapshot());
  if (!recorded.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("recording.checkpoints (tick ", target->tick(),
                                                   ").snapshot: ",
                                                   std::string(recorded.status().message())));
  }
  response.set_diff_tick(target->tick());
  DiffBodies((*sim)->world(), **recorded, &response);
  return response;
}

}  // namespace atl::server
