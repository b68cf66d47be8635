// atoll-bench rollback: what a rollback-netcode client pays per frame.
//
// CSV: scene,bodies,awake,save_ms,hash_ms,load_ms,restore_resim8_ms,
//      save_and_hash_ms_per_1000_bodies
// HashWorld serializes the snapshot and hashes it, so hash_ms is the whole
// per-tick cost of a state hash. Medians over repetitions of: SaveSnapshot,
// HashWorld, LoadSnapshot into a
// fresh world, and RestoreSnapshot of the state 8 ticks back followed by 8
// re-simulated steps (the cost of one 8-tick rollback).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "args.h"
#include "atoll/scene.h"
#include "atoll/snapshot.h"
#include "command.h"

namespace atl::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Case {
  const char* label;
  const char* scene;
  int32_t size;
  int32_t warmup_steps;
};

int RunRollback(const std::vector<std::string>& raw) {
  auto args = Args::Parse(raw, {"repeats"});
  if (!args.ok()) {
    std::fprintf(stderr, "atoll-bench rollback: %s\n", std::string(args.status().message()).c_str());
    return 2;
  }
  const int64_t repeats = args->GetInt("repeats", 30).value_or(30);
  // A 1 000-body world in full motion (falling, colliding) and Box2D v3's
  // large pyramid (5 050 boxes, one island) before it settles.
  const Case cases[] = {{"active_1000", "falling_squares", 1000, 60},
                        {"large_pyramid", "large_pyramid", 100, 30}};
  std::printf(
      "scene,bodies,awake,save_ms,hash_ms,load_ms,restore_resim8_ms,save_and_hash_ms_per_1000_bodies\n");
  for (const Case& c : cases) {
    SceneDesc desc = MakeScene(c.scene, {.size = c.size}).value();
    auto world = BuildWorld(desc).value();
    for (int i = 0; i < c.warmup_steps; ++i) (void)world->Step(desc.time_step);
    std::vector<double> save, hash, load, rollback;
    std::string bytes, scratch;
    uint64_t sink = 0;
    auto probe = World::Create(desc.world).value();
    for (int64_t r = 0; r < repeats; ++r) {
      auto t0 = Clock::now();
      SaveSnapshot(*world, &bytes);
      save.push_back(Ms(t0));
      t0 = Clock::now();
      sink ^= HashWorld(*world, &scratch);
      hash.push_back(Ms(t0));
      t0 = Clock::now();
      auto loaded = LoadSnapshot(bytes);
      load.push_back(Ms(t0));
      sink ^= static_cast<uint64_t>(loaded.ok());
      // Advance 8 ticks, then roll back to `bytes` and re-simulate them.
      for (int k = 0; k < 8; ++k) (void)world->Step(desc.time_step);
      t0 = Clock::now();
      (void)RestoreSnapshot(bytes, probe.get());
      for (int k = 0; k < 8; ++k) (void)probe->Step(desc.time_step);
      rollback.push_back(Ms(t0));
    }
    const WorldCounters counters = world->GetCounters();
    std::printf("%s,%d,%d,%.4f,%.4f,%.4f,%.3f,%.4f\n", c.label, counters.bodies,
                counters.awake_bodies, Median(save), Median(hash), Median(load), Median(rollback),
                Median(hash) * 1000.0 / counters.bodies);
    std::fflush(stdout);
    if (sink == 42) std::printf("#\n");
  }
  return 0;
}

}  // namespace

ATOLL_BENCH_COMMAND("rollback", "snapshot save/load/hash and 8-tick rollback cost (CSV)", RunRollback);

}  // namespace atl::bench
