#include "replay.h"

#include <cstring>
#include <memory>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "atoll/server/simulation.h"
#include "atoll/sim/recording_check.h"
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
  absl::StatusOr<std::unique_ptr<sim::RecordingCheck>> check =
      sim::RecordingCheck::Start(recording);
  if (!check.ok()) return check.status();
  if (absl::Status s = (*check)->Advance(recording.ticks_size()); !s.ok()) return s;
  v1::VerifyResponse response;
  response.set_ok((*check)->ok());
  response.set_ticks_verified((*check)->ticks_verified());
  if (response.ok()) return response;
  response.set_first_divergent_tick((*check)->first_divergent_tick());
  response.set_expected_hash((*check)->expected_hash());
  response.set_actual_hash((*check)->actual_hash());
  response.set_events_diverged((*check)->events_diverged());
  if (response.events_diverged()) return response;
  // A per-body diff at the first recorded checkpoint at or after the
  // divergence.
  absl::StatusOr<int> target = (*check)->StepToDiffCheckpoint();
  if (!target.ok()) return target.status();
  if (*target < 0) return response;
  const v1::Checkpoint& cp = recording.checkpoints(*target);
  absl::StatusOr<std::unique_ptr<World>> recorded = LoadSnapshot(cp.snapshot());
  if (!recorded.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("recording.checkpoints (tick ", cp.tick(),
                                                   ").snapshot: ",
                                                   std::string(recorded.status().message())));
  }
  response.set_diff_tick(cp.tick());
  DiffBodies((*check)->simulation().world(), **recorded, &response);
  return response;
}

}  // namespace atl::server
