#include "atoll/sync_test.h"

#include <deque>

#include "absl/strings/str_cat.h"
#include "atoll/random.h"
#include "atoll/snapshot.h"

namespace atl {
namespace {

// The inputs of one tick: an impulse on one dynamic body (or none).
struct TickInput {
  int32_t body = -1;
  Vec2 impulse;
};

TickInput MakeInput(const std::vector<BodyId>& dynamic, uint64_t seed, int64_t tick) {
  Random rng(seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(tick));
  TickInput in;
  if (dynamic.empty() || rng.Below(4) != 0) return in;
  in.body = static_cast<int32_t>(rng.Below(static_cast<uint32_t>(dynamic.size())));
  in.impulse = {rng.Uniform(-2.0f, 2.0f), rng.Uniform(0.0f, 4.0f)};
  return in;
}

absl::Status Apply(World* world, const std::vector<BodyId>& dynamic, const TickInput& in) {
  if (in.body < 0) return absl::OkStatus();
  const BodyId id = dynamic[in.body];
  if (!world->IsValid(id)) return absl::OkStatus();
  const Vec2 center = world->GetBody(id)->world_center;
  return world->ApplyLinearImpulse(id, in.impulse, center, true);
}

}  // namespace

absl::StatusOr<SyncTestResult> RunSyncTest(const SceneDesc& scene, const SyncTestOptions& options) {
  if (options.ticks < 1) return absl::InvalidArgumentError("ticks must be >= 1");
  if (options.rollback < 1 || options.rollback > options.ticks) {
    return absl::InvalidArgumentError(
        absl::StrCat("rollback must be in 1..ticks (", options.ticks, "), got ", options.rollback));
  }
  absl::StatusOr<std::unique_ptr<World>> built = BuildWorld(scene);
  if (!built.ok()) return built.status();
  World& world = **built;
  std::vector<BodyId> dynamic;
  for (BodyId id : world.GetBodyIds()) {
    if (world.GetBody(id)->type == BodyType::kDynamic) dynamic.push_back(id);
  }

  SyncTestResult result;
  // Snapshots and hashes of the last rollback + 1 ticks, oldest first;
  // hashes[i] is the hash after stepping from snapshots[i].
  std::deque<std::string> snapshots;
  std::deque<uint64_t> hashes;
  std::deque<TickInput> inputs;
  auto resim = World::Create(scene.world);
  if (!resim.ok()) return resim.status();
  std::string scratch;
  for (int64_t tick = 0; tick < options.ticks; ++tick) {
    snapshots.push_back(SaveSnapshot(world));
    inputs.push_back(MakeInput(dynamic, options.seed, tick));
    if (absl::Status s = Apply(&world, dynamic, inputs.back()); !s.ok()) return s;
    if (absl::Status s = world.Step(scene.time_step); !s.ok()) return s;
    hashes.push_back(HashWorld(world, &scratch));
    ++result.ticks;
    if (static_cast<int32_t>(snapshots.size()) > options.rollback) {
      snapshots.pop_front();
      hashes.pop_front();
      inputs.pop_front();
    }
    // Roll back as far as we can and re-simulate to the present.
    if (absl::Status s = RestoreSnapshot(snapshots.front(), resim->get()); !s.ok()) return s;
    const int64_t first = tick + 1 - static_cast<int64_t>(snapshots.size());
    for (size_t k = 0; k < snapshots.size(); ++k) {
      if (absl::Status s = Apply(resim->get(), dynamic, inputs[k]); !s.ok()) return s;
      if (absl::Status s = (*resim)->Step(scene.time_step); !s.ok()) return s;
      ++result.resimulated;
      const uint64_t h = HashWorld(**resim, &scratch);
      if (h != hashes[k]) {
        result.divergent_tick = first + static_cast<int64_t>(k) + 1;
        result.expected_hash = hashes[k];
        result.actual_hash = h;
        // The original run's state after that tick: the next saved
        // snapshot, or the live world for the newest tick.
        if (k + 1 < snapshots.size()) {
          auto original = LoadSnapshot(snapshots[k + 1], scene.world.broad_phase);
          if (original.ok()) result.diffs = DiffWorlds(**original, **resim);
        } else {
          result.diffs = DiffWorlds(world, **resim);
        }
        return result;
      }
    }
  }
  return result;
}

}  // namespace atl
