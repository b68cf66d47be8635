// atoll-bench rollback: what a rollback-netcode client pays per frame, and
// how the step scales with threads.
//
// First table, CSV: scene,bodies,awake,threads,save_ms,hash_ms,load_ms,
//   restore_resim8_ms,save_and_hash_ms_per_1000_bodies
// HashWorld serializes the snapshot and hashes it, so hash_ms is the whole
// per-tick cost of a state hash. Medians over repetitions of: SaveSnapshot,
// HashWorld, LoadSnapshot into a fresh world, and RestoreSnapshot of the
// state 8 ticks back followed by 8 re-simulated steps (the cost of one
// 8-tick rollback) on an executor of --threads threads (default 1).
// Single-threaded work is timed in thread CPU time (CLOCK_THREAD_CPUTIME_ID),
// which a machine shared with other jobs disturbs far less than wall time;
// the rollback with --threads above 1 can only be timed in wall time.
//
// Second table, after a blank line, CSV:
//   cold_scene,worlds,bodies,awake,snapshot_bytes,hash_ms_per_world
// HashWorld of 32 settled 500-body worlds in turn, as a server's tick thread
// hashes its worlds: each state is out of the cache when it is hashed.
// Thread CPU time per world, median over repetitions of the round.
//
// Third table, after a blank line, CSV:
//   delta_scene,state,tick,snapshot_bytes,delta_bytes,make_ms,apply_ms
// MakeDelta (what the server pays for each snapshot it sends as a delta)
// and ApplyDelta (what each client pays to read it) between consecutive
// ticks of one 500-body falling_squares world (atoll loadtest's), while its
// heap lands (tick 200) and once it sleeps (tick 600). Thread CPU time,
// medians over repetitions.
//
// Fourth table, after a blank line (--scaling=false drops it), CSV:
//   scaling_scene,threads,step_wall_ms,speedup
// Wall time per step of large_pyramid at 1 and 2 threads, the two thread
// counts interleaved so both see the same machine load; speedup is the
// 1-thread median over this row's median.

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "args.h"
#include "atoll/delta.h"
#include "atoll/executor.h"
#include "atoll/scene.h"
#include "atoll/snapshot.h"
#include "command.h"

namespace atl::bench {
namespace {

using Clock = std::chrono::steady_clock;

double WallMs(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 +
         static_cast<double>(ts.tv_nsec) * 1e-6;
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

void RunRollbackTable(int64_t repeats, int32_t threads) {
  // A 1 000-body world in full motion (falling, colliding) and Box2D v3's
  // large pyramid (5 050 boxes, one island) before it settles.
  const Case cases[] = {{"active_1000", "falling_squares", 1000, 60},
                        {"large_pyramid", "large_pyramid", 100, 30}};
  std::printf(
      "scene,bodies,awake,threads,save_ms,hash_ms,load_ms,restore_resim8_ms,"
      "save_and_hash_ms_per_1000_bodies\n");
  std::unique_ptr<Executor> pool;
  if (threads > 1) pool = MakeThreadPoolExecutor(threads);
  for (const Case& c : cases) {
    SceneDesc desc = MakeScene(c.scene, {.size = c.size}).value();
    auto world = BuildWorld(desc).value();
    for (int i = 0; i < c.warmup_steps; ++i) (void)world->Step(desc.time_step);
    std::vector<double> save, hash, load, rollback;
    std::string bytes, scratch;
    uint64_t sink = 0;
    auto probe = World::Create(desc.world).value();
    if (pool != nullptr) probe->SetExecutor(pool.get());
    for (int64_t r = 0; r < repeats; ++r) {
      double t0 = ThreadCpuMs();
      SaveSnapshot(*world, &bytes);
      save.push_back(ThreadCpuMs() - t0);
      t0 = ThreadCpuMs();
      sink ^= HashWorld(*world, &scratch);
      hash.push_back(ThreadCpuMs() - t0);
      t0 = ThreadCpuMs();
      auto loaded = LoadSnapshot(bytes);
      load.push_back(ThreadCpuMs() - t0);
      sink ^= static_cast<uint64_t>(loaded.ok());
      // Advance 8 ticks, then roll back to `bytes` and re-simulate them.
      for (int k = 0; k < 8; ++k) (void)world->Step(desc.time_step);
      const Clock::time_point wall0 = Clock::now();
      t0 = ThreadCpuMs();
      (void)RestoreSnapshot(bytes, probe.get());
      for (int k = 0; k < 8; ++k) (void)probe->Step(desc.time_step);
      rollback.push_back(pool != nullptr ? WallMs(wall0) : ThreadCpuMs() - t0);
    }
    const WorldCounters counters = world->GetCounters();
    std::printf("%s,%d,%d,%d,%.4f,%.4f,%.4f,%.3f,%.4f\n", c.label,
                counters.bodies, counters.awake_bodies, threads, Median(save),
                Median(hash), Median(load), Median(rollback),
                Median(hash) * 1000.0 / counters.bodies);
    std::fflush(stdout);
    if (sink == 42) std::printf("#\n");
  }
}

// A server's tick thread goes round many worlds, so each world's state is
// out of the cache when it is hashed: 32 settled falling_squares worlds of
// 500 bodies (atoll loadtest's), hashed one after another.
void RunColdHashTable(int64_t repeats) {
  constexpr int kWorlds = 32;
  std::vector<std::unique_ptr<World>> worlds;
  for (int i = 0; i < kWorlds; ++i) {
    const SceneDesc desc =
        MakeScene("falling_squares", {.size = 497, .seed = static_cast<uint64_t>(i + 1)}).value();
    worlds.push_back(BuildWorld(desc).value());
    for (int k = 0; k < 600; ++k) (void)worlds.back()->Step(desc.time_step);
  }
  std::vector<std::string> scratch(kWorlds);
  std::vector<double> hash;
  uint64_t sink = 0;
  for (int64_t r = 0; r < repeats; ++r) {
    const double t0 = ThreadCpuMs();
    for (int i = 0; i < kWorlds; ++i) sink ^= HashWorld(*worlds[i], &scratch[i]);
    hash.push_back((ThreadCpuMs() - t0) / kWorlds);
  }
  std::printf("\ncold_scene,worlds,bodies,awake,snapshot_bytes,hash_ms_per_world\n");
  const WorldCounters counters = worlds[0]->GetCounters();
  std::printf("falling_squares,%d,%d,%d,%zu,%.4f\n", kWorlds, counters.bodies,
              counters.awake_bodies, SaveSnapshot(*worlds[0]).size(), Median(hash));
  std::fflush(stdout);
  if (sink == 42) std::printf("#\n");
}

void RunDeltaTable(int64_t repeats) {
  const SceneDesc desc = MakeScene("falling_squares", {.size = 497, .seed = 1}).value();
  auto world = BuildWorld(desc).value();
  std::printf("\ndelta_scene,state,tick,snapshot_bytes,delta_bytes,make_ms,apply_ms\n");
  int tick = 0;
  size_t sink = 0;
  for (const auto& [state, at] : {std::pair{"landing", 200}, std::pair{"asleep", 600}}) {
    for (; tick < at - 1; ++tick) (void)world->Step(desc.time_step);
    const std::string base = SaveSnapshot(*world);
    (void)world->Step(desc.time_step);
    ++tick;
    const std::string target = SaveSnapshot(*world);
    std::vector<double> make, apply;
    std::string delta;
    for (int64_t r = 0; r < repeats; ++r) {
      double t0 = ThreadCpuMs();
      delta = MakeDelta(base, target).value();
      make.push_back(ThreadCpuMs() - t0);
      t0 = ThreadCpuMs();
      sink += ApplyDelta(base, delta).value().size();
      apply.push_back(ThreadCpuMs() - t0);
    }
    std::printf("falling_squares,%s,%d,%zu,%zu,%.4f,%.4f\n", state, tick, target.size(),
                delta.size(), Median(make), Median(apply));
  }
  std::fflush(stdout);
  if (sink == 42) std::printf("#\n");
}

void RunScalingTable(int64_t repeats) {
  SceneDesc desc = MakeScene("large_pyramid", {.size = 100}).value();
  auto world = BuildWorld(desc).value();
  for (int i = 0; i < 30; ++i) (void)world->Step(desc.time_step);
  const std::string start = SaveSnapshot(*world);
  auto two = MakeThreadPoolExecutor(2);
  Executor* executors[2] = {SerialExecutor(), two.get()};
  std::vector<double> step_ms[2];
  auto probe = World::Create(desc.world).value();
  constexpr int kSteps = 4;
  for (int64_t r = 0; r < repeats; ++r) {
    for (int e = 0; e < 2; ++e) {
      (void)RestoreSnapshot(start, probe.get());
      probe->SetExecutor(executors[e]);
      const Clock::time_point t0 = Clock::now();
      for (int k = 0; k < kSteps; ++k) (void)probe->Step(desc.time_step);
      step_ms[e].push_back(WallMs(t0) / kSteps);
    }
  }
  std::printf("\nscaling_scene,threads,step_wall_ms,speedup\n");
  const double one = Median(step_ms[0]);
  for (int e = 0; e < 2; ++e) {
    const double ms = Median(step_ms[e]);
    std::printf("large_pyramid,%d,%.3f,%.3f\n", e + 1, ms, one / ms);
  }
}

// The flags of atoll-bench rollback: its help, and what it parses.
constexpr Flag kRollbackFlags[] = {
    {"repeats", "30", "repetitions of every measurement; figures are their medians"},
    {"threads", "1", "threads (1..64) of the executor the rollback re-simulates on"},
    {"scaling", "true", "false drops the last table (large_pyramid at 1 and 2 threads)"},
};

int RunRollback(const std::vector<std::string>& raw) {
  auto args = Args::Parse(raw, FlagNames(kRollbackFlags));
  if (!args.ok()) {
    std::fprintf(stderr, "atoll-bench rollback: %s\n",
                 std::string(args.status().message()).c_str());
    return 2;
  }
  const int64_t repeats = args->GetInt("repeats", 30).value_or(30);
  const int64_t threads = args->GetInt("threads", 1).value_or(1);
  if (repeats < 1 || threads < 1 || threads > 64) {
    std::fprintf(
        stderr, "atoll-bench rollback: --repeats >= 1, --threads in [1, 64]\n");
    return 2;
  }
  RunRollbackTable(repeats, static_cast<int32_t>(threads));
  RunColdHashTable(repeats);
  RunDeltaTable(repeats);
  if (args->Get("scaling", "true") != "false") RunScalingTable(repeats);
  return 0;
}

}  // namespace

ATOLL_BENCH_COMMAND(
    "rollback",
    "snapshot save/load/hash, 8-tick rollback cost and large_pyramid thread "
    "scaling (CSV)",
    RunRollback,
    {.usage = "atoll-bench rollback [--repeats=N] [--threads=N] [--scaling=false]",
     .flags = kRollbackFlags,
     .example = "atoll-bench rollback --repeats=10 --threads=2 --scaling=false"});

}  // namespace atl::bench
