// atoll-bench v3: Box2D v3's benchmark set, run the way its benchmark
// program runs it, so the numbers line up with
// shared/baselines/box2d-v3-bench.
//
//   atoll-bench v3 [--scene=a,b] [--threads=1,2] [--runs=3] [--baseline=FILE]
//                  [--contact_lanes=8|4] [--broad_phase=NAME]
//
// The ten scenes are the built-in replicas of v3's shared/benchmarks.c at
// their default sizes (= upstream's), each stepped for its upstream step
// count. CSV, one row per scene and thread count:
//
//   scene,threads,steps,best_ms,median_ms,ms_per_step,bodies,shapes,contacts,
//   joints,broad_phase_ms,contacts_ms,islands_ms,solve_ms,continuous_ms,
//   update_bounds_ms[,v3_ms_per_step,atoll_over_v3]
//
// How each number is taken, after upstream's benchmark/main.c:
// - A run builds a fresh world (not timed), applies the scene's waves and
//   drives (ApplySceneWaves, v3's per-step callback) and steps it once
//   untimed (upstream skips the first step, which finds every pair), then
//   times the remaining steps with a wall clock, waves and drives
//   included. --threads=1 steps on the serial executor, more on a thread
//   pool of that many threads (upstream: workerCount).
// - best_ms is the fastest of --runs runs (upstream's figure), median_ms
//   their median; ms_per_step is best_ms / steps, as box2d-v3-bench
//   divides.
// - bodies, shapes, contacts, joints: counts after the last step of the
//   best run. contacts counts every contact, touching or not, as
//   b2World_GetCounters does (its contact id pool holds every pair whose
//   bounds overlap); Atoll's touching count goes to stderr.
// - The *_ms columns are StepProfile's stages, wall ms per timed step,
//   averaged over the best run.
// - --baseline=FILE reads box2d-v3-bench's CSV and appends its
//   ms_per_step for the same (scene, threads), and Atoll's over it (< 1:
//   Atoll is faster); empty when the baseline has no such row. The count
//   comparison with v3 goes to stderr.
// Bad flags (an unknown scene, a bad thread list or run count, a baseline
// that cannot be read or has another header) are refused by name with exit
// code 2 before anything is printed.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "args.h"
#include "atoll/broad_phase_type.h"
#include "atoll/executor.h"
#include "atoll/scene.h"
#include "command.h"
#include "dynamics/contact_solver.h"
#include "step_stages.h"

namespace atl::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Upstream's order (benchmark/main.c).
const std::vector<std::string>& V3Scenes() {
  static const std::vector<std::string> scenes = {
      "compounds", "joint_grid", "junkyard", "large_pyramid", "many_pyramids",
      "rain",      "smash",      "spinner",  "tumbler",       "washer"};
  return scenes;
}

constexpr char kBaselineHeader[] =
    "scene,threads,steps,best_ms,ms_per_step,bodies,shapes,contacts,joints";

// What box2d-v3-bench measured for one (scene, threads).
struct BaselineRow {
  double ms_per_step = 0.0;
  int64_t bodies = 0, shapes = 0, contacts = 0, joints = 0;
};
using Baseline = std::map<std::pair<std::string, int64_t>, BaselineRow>;

absl::StatusOr<Baseline> ReadBaseline(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read baseline '", path, "'"));
  std::string line;
  if (!std::getline(in, line) || line != kBaselineHeader) {
    return absl::InvalidArgumentError(absl::StrCat("baseline '", path, "' does not start with the header '",
                                                   kBaselineHeader, "'"));
  }
  Baseline rows;
  for (int64_t number = 2; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const std::vector<std::string> f = absl::StrSplit(line, ',');
    BaselineRow row;
    int64_t threads = 0;
    if (f.size() != 9 || !absl::SimpleAtoi(f[1], &threads) ||
        !absl::SimpleAtod(f[4], &row.ms_per_step) || !absl::SimpleAtoi(f[5], &row.bodies) ||
        !absl::SimpleAtoi(f[6], &row.shapes) || !absl::SimpleAtoi(f[7], &row.contacts) ||
        !absl::SimpleAtoi(f[8], &row.joints)) {
      return absl::InvalidArgumentError(
          absl::StrCat("baseline '", path, "' line ", number, " is malformed: '", line, "'"));
    }
    rows[{f[0], threads}] = row;
  }
  return rows;
}

// One timed run of a scene.
struct Run {
  double ms = 0.0;
  StepProfile stages;  // summed over the timed steps
  WorldCounters counters;
};

absl::StatusOr<Run> RunOnce(const SceneDesc& desc, Executor* executor) {
  absl::StatusOr<std::unique_ptr<World>> built = BuildWorld(desc);
  if (!built.ok()) return built.status();
  World* world = built->get();
  world->SetExecutor(executor);
  auto step = [&](int64_t i) -> absl::Status {
    if (absl::StatusOr<int32_t> created = ApplySceneWaves(world, desc, i); !created.ok()) {
      return created.status();
    }
    return world->Step(desc.time_step);
  };
  if (absl::Status s = step(0); !s.ok()) return s;
  Run run;
  const Clock::time_point start = Clock::now();
  for (int64_t i = 1; i < desc.steps; ++i) {
    if (absl::Status s = step(i); !s.ok()) return s;
    AddStages(&run.stages, world->profile());
  }
  run.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  run.counters = world->GetCounters();
  world->SetExecutor(nullptr);
  return run;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int Refuse(const std::string& message) {
  std::fprintf(stderr, "atoll-bench v3: %s\n", message.c_str());
  return 2;
}

// The flags of atoll-bench v3: its help, and what RunV3 parses.
constexpr Flag kV3Flags[] = {
    {"scene",
     "compounds,joint_grid,junkyard,large_pyramid,many_pyramids,rain,smash,spinner,tumbler,washer",
     "comma-separated scenes of the v3 set"},
    {"threads", "1,2",
     "comma-separated thread counts in 1..64 (1: the serial executor, more: a thread pool)"},
    {"runs", "3", "runs per scene and thread count: best_ms is the fastest, median_ms their median"},
    {"baseline", "",
     "box2d-v3-bench's CSV: append its ms_per_step and Atoll's over it (empty: no comparison)"},
    {"contact_lanes", "8",
     "8: the contact passes eight lanes wide where the CPU has AVX (the engine's default); 4: "
     "four lanes, for comparison (the same results)"},
    {"broad_phase", "",
     "the worlds' broad-phase strategy: batch_bvh, kd_sap, dynamic_tree or brute_force "
     "(empty: the engine's default; every strategy gives the same results)"},
};

int RunV3(const std::vector<std::string>& raw) {
  absl::StatusOr<Args> args = Args::Parse(raw, FlagNames(kV3Flags));
  if (!args.ok()) return Refuse(std::string(args.status().message()));

  // Every flag is checked before the first row is printed.
  const std::vector<std::string> scenes = args->GetList("scene", V3Scenes());
  for (const std::string& name : scenes) {
    if (std::find(V3Scenes().begin(), V3Scenes().end(), name) == V3Scenes().end()) {
      return Refuse(absl::StrCat("unknown scene '", name, "' (the v3 set: ",
                                 absl::StrJoin(V3Scenes(), ","), ")"));
    }
  }
  if (scenes.empty()) return Refuse("--scene names no scene");
  absl::StatusOr<std::vector<int64_t>> threads = args->GetIntList("threads", {1, 2});
  if (!threads.ok() || threads->empty() ||
      std::any_of(threads->begin(), threads->end(), [](int64_t t) { return t < 1 || t > 64; })) {
    return Refuse(absl::StrCat("--threads wants a list of thread counts in 1..64, got '",
                               args->Get("threads", ""), "'"));
  }
  absl::StatusOr<int64_t> runs = args->GetInt("runs", 3);
  if (!runs.ok() || *runs < 1) {
    return Refuse(absl::StrCat("--runs wants an integer >= 1, got '", args->Get("runs", ""), "'"));
  }
  const std::string lanes = args->Get("contact_lanes", "8");
  if (lanes != "8" && lanes != "4") {
    return Refuse(absl::StrCat("--contact_lanes wants 8 or 4, got '", lanes, "'"));
  }
  std::optional<BroadPhaseType> broad_phase;
  if (const std::string name = args->Get("broad_phase", ""); !name.empty()) {
    absl::StatusOr<BroadPhaseType> parsed = ParseBroadPhaseType(name);
    if (!parsed.ok()) return Refuse(absl::StrCat("--broad_phase: ", parsed.status().message()));
    broad_phase = *parsed;
  }
  EnableWideContacts(lanes == "8");
  std::fprintf(stderr, "atoll-bench v3: contact passes %s lanes wide\n",
               WideContactsEnabled() ? "eight" : "four");
  Baseline baseline;
  const bool compare = args->Has("baseline");
  if (compare) {
    absl::StatusOr<Baseline> read = ReadBaseline(args->Get("baseline", ""));
    if (!read.ok()) return Refuse(std::string(read.status().message()));
    baseline = *std::move(read);
  }

  std::map<int64_t, std::unique_ptr<Executor>> pools;
  for (int64_t t : *threads) {
    if (t > 1 && pools.count(t) == 0) pools[t] = MakeThreadPoolExecutor(static_cast<int32_t>(t));
  }

  std::printf(
      "scene,threads,steps,best_ms,median_ms,ms_per_step,bodies,shapes,contacts,joints,"
      "broad_phase_ms,contacts_ms,islands_ms,solve_ms,continuous_ms,update_bounds_ms%s\n",
      compare ? ",v3_ms_per_step,atoll_over_v3" : "");
  std::fflush(stdout);
  for (const std::string& name : scenes) {
    SceneDesc desc = MakeScene(name).value();
    if (broad_phase.has_value()) desc.world.broad_phase = *broad_phase;
    for (int64_t t : *threads) {
      Executor* executor = t > 1 ? pools[t].get() : SerialExecutor();
      std::vector<double> times;
      Run best;
      for (int64_t r = 0; r < *runs; ++r) {
        absl::StatusOr<Run> run = RunOnce(desc, executor);
        if (!run.ok()) {
          std::fprintf(stderr, "atoll-bench v3: %s: %s\n", name.c_str(),
                       std::string(run.status().message()).c_str());
          return 1;
        }
        times.push_back(run->ms);
        if (r == 0 || run->ms < best.ms) best = *run;
      }
      const double steps = static_cast<double>(desc.steps);
      const double timed = static_cast<double>(desc.steps - 1);
      const WorldCounters& c = best.counters;
      const StepProfile& s = best.stages;
      std::string row = absl::StrFormat(
          "%s,%d,%d,%.1f,%.1f,%.4f,%d,%d,%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f", name, t, desc.steps,
          best.ms, Median(times), best.ms / steps, c.bodies, c.shapes, c.contacts, c.joints,
          s.broad_phase / timed, s.contacts / timed, s.islands / timed, s.solve / timed,
          s.continuous / timed, s.update_bounds / timed);
      if (compare) {
        const auto it = baseline.find({name, t});
        if (it == baseline.end() || it->second.ms_per_step <= 0.0) {
          absl::StrAppend(&row, ",,");
        } else {
          const BaselineRow& v3 = it->second;
          absl::StrAppendFormat(&row, ",%.4f,%.3f", v3.ms_per_step,
                                best.ms / steps / v3.ms_per_step);
          const double contact_ratio =
              v3.contacts > 0 ? static_cast<double>(c.contacts) / static_cast<double>(v3.contacts) : 0.0;
          std::fprintf(stderr,
                       "# %s threads=%lld counts vs v3: bodies %d/%lld shapes %d/%lld joints %d/%lld "
                       "contacts %d/%lld (%.3f)\n",
                       name.c_str(), static_cast<long long>(t), c.bodies,
                       static_cast<long long>(v3.bodies), c.shapes, static_cast<long long>(v3.shapes),
                       c.joints, static_cast<long long>(v3.joints), c.contacts,
                       static_cast<long long>(v3.contacts), contact_ratio);
        }
      }
      std::printf("%s\n", row.c_str());
      std::fprintf(stderr, "# %s threads=%lld touching_contacts=%d awake_bodies=%d\n", name.c_str(),
                   static_cast<long long>(t), c.touching_contacts, c.awake_bodies);
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace

ATOLL_BENCH_COMMAND("v3", "Box2D v3's ten benchmark scenes, its way (CSV; --baseline: vs box2d-v3-bench)",
                    RunV3,
                    {.usage = "atoll-bench v3 [--scene=A,B] [--threads=1,2] [--runs=N] "
                              "[--baseline=FILE]",
                     .flags = kV3Flags,
                     .example = "atoll-bench v3 --scene=large_pyramid,tumbler --threads=1,2 "
                                "--runs=5"});

}  // namespace atl::bench
