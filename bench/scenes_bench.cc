// atoll-bench scenes: built-in scenes stepped by Atoll and by Box2D 2.4.1
// from the same SceneDesc, in the same process. Without --ccd it runs the
// scene suite (scene_suite.cc); this file is the --ccd comparison:
//
//   atoll-bench scenes --ccd [--scene=a,b] [--size=N] [--steps=N]
//                      [--reps=N] [--seeds=N] [--engines=atoll,box2d]
//
// One CSV row per scene, engine and continuous-collision setting:
//
//   scene,fixtures,engine,ccd,seeds,steps,total_ms,ms_per_step,vs_ccd_off,
//   vs_ccd_off_min,vs_ccd_off_max,ccd_bodies_per_step,ccd_stage_ms_per_step
//
// Every scene is built with seeds 1..--seeds (default 5) and each seed is
// run --reps times (default 3): a seed's time is the median of its runs of
// the CPU time the stepping thread spent stepping the scene --steps times
// (world construction not timed; CPU rather than wall-clock time, so other
// processes on a shared machine do not count), and total_ms is the median
// over the seeds. Runs of the different configurations are interleaved so
// that cache and frequency effects hit them alike. Every scene runs with
// continuous collision on and off (Atoll: WorldDef::enable_continuous;
// Box2D: b2World::SetContinuousPhysics); vs_ccd_off is the median over the
// seeds of on / off of the same engine and seed, and _min/_max its range:
// with and without continuous collision a scene tumbles differently, and
// how much contact work that leaves differs from seed to seed by several
// per cent. Box2D steps with 8 velocity and 3 position iterations.
// ccd_bodies_per_step is Atoll's mean count of fast bodies and
// ccd_stage_ms_per_step its mean time in the continuous stage itself (the
// rest of the difference between on and off is that different simulation:
// bodies that no longer tunnel keep colliding; the stage time is
// wall-clock, from StepProfile).
// The default scenes are seed 000 §6.4's continuous-collision set.

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "args.h"
#include "atoll/scene.h"
#include "box2d_scene.h"
#include "command.h"
#include "scene_suite.h"

namespace atl::bench {
namespace {

// CPU time of the calling thread, ms: on a shared machine wall-clock time
// also counts the time other processes held the core.
double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return 1e3 * static_cast<double>(ts.tv_sec) + 1e-6 * static_cast<double>(ts.tv_nsec);
}

struct Config {
  bool box2d = false;
  bool ccd = true;
};

struct Result {
  double fast_bodies = 0.0;  // summed over all steps of all runs
  double ccd_ms = 0.0;       // Atoll's stage-7 time, summed likewise
  double checksum = 0.0;
};

int32_t CountFixtures(const SceneDesc& desc) {
  int32_t n = 0;
  for (const SceneBody& b : desc.bodies) n += static_cast<int32_t>(b.shapes.size());
  return n;
}

// Steps one fresh world; returns the milliseconds spent stepping.
double RunOnce(const SceneDesc& base, const Config& config, int64_t steps, Result* result) {
  SceneDesc desc = base;
  desc.world.enable_continuous = config.ccd;
  if (config.box2d) {
    std::unique_ptr<b2World> world = BuildBox2DWorld(desc);
    const double start = ThreadCpuMs();
    for (int64_t i = 0; i < steps; ++i) world->Step(desc.time_step, 8, 3);
    const double ms = ThreadCpuMs() - start;
    for (const b2Body* b = world->GetBodyList(); b != nullptr; b = b->GetNext()) {
      result->checksum += static_cast<double>(b->GetPosition().x + b->GetPosition().y);
    }
    return ms;
  }
  absl::StatusOr<std::unique_ptr<World>> world = BuildWorld(desc);
  if (!world.ok()) {
    std::fprintf(stderr, "atoll-bench scenes: %s\n", std::string(world.status().message()).c_str());
    return -1.0;
  }
  const double start = ThreadCpuMs();
  for (int64_t i = 0; i < steps; ++i) {
    if (!(*world)->Step(desc.time_step).ok()) return -1.0;
    result->fast_bodies += (*world)->profile().continuous_bodies;
    result->ccd_ms += (*world)->profile().continuous;
  }
  const double ms = ThreadCpuMs() - start;
  for (BodyId id : (*world)->GetBodyIds()) {
    const Vec2 p = (*world)->GetBody(id)->transform.p;
    result->checksum += static_cast<double>(p.x + p.y);
  }
  return ms;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The flags of atoll-bench scenes, both modes (scene_suite.cc reads the
// suite's): its help, and what it parses.
constexpr Flag kScenesFlags[] = {
    {"ccd", nullptr, "compare continuous collision on and off instead of running the suite"},
    {"scene", "(every suite scene)",
     "comma-separated scenes (--ccd: add_pair,mixed_static_dynamic,diagonal,falling_squares)"},
    {"size", "0", "one scene size instead of each scene's sweep (0: the sweep; --ccd: the "
                  "scene's default)"},
    {"small", nullptr, "each scene at its small size only (not with --size)"},
    {"steps", "0", "steps per run (0: the scene's own count)"},
    {"reps", "1", "runs per measurement, the median kept (--ccd: 3 per seed)"},
    {"seeds", "5", "--ccd: scene seeds 1..N"},
    {"engines", "atoll,box2d", "comma-separated engines"},
    {"broad_phase", "", "Atoll's broad-phase strategy (batch_bvh, kd_sap, dynamic_tree, "
                        "brute_force; empty: the scene's)"},
    {"push_speed", "", "Atoll's push limit in m/s (WorldDef::contact_push_max_velocity; "
                       "empty: the scene's, 3 by default)"},
    {"plot", "", "write DIR/<scene>.png per scene (gnuplot)"},
    {"markdown", "", "write the per-scene tables and the summary to this file"},
    {"from-csv", "", "re-plot / re-tabulate this saved CSV instead of running"},
};

int RunScenes(const std::vector<std::string>& raw) {
  auto args = Args::Parse(raw, FlagNames(kScenesFlags));
  if (!args.ok()) {
    std::fprintf(stderr, "atoll-bench scenes: %s\n", std::string(args.status().message()).c_str());
    return 2;
  }
  if (!args->Has("ccd")) return RunSceneSuite(*args);
  const std::vector<std::string> scenes = args->GetList(
      "scene", {"add_pair", "mixed_static_dynamic", "diagonal", "falling_squares"});
  const std::vector<std::string> engines = args->GetList("engines", {"atoll", "box2d"});
  auto size = args->GetInt("size", 0);
  auto steps = args->GetInt("steps", 0);
  auto reps = args->GetInt("reps", 3);
  auto seeds = args->GetInt("seeds", 5);
  if (!size.ok() || !steps.ok() || !reps.ok() || !seeds.ok() || *size < 0 || *steps < 0 ||
      *reps <= 0 || *seeds <= 0) {
    std::fprintf(stderr,
                 "atoll-bench scenes: --size, --steps >= 0 and --reps, --seeds > 0 must be "
                 "integers\n");
    return 2;
  }
  // Each engine runs with continuous collision on, then off: configs
  // 2k (on) and 2k + 1 (off).
  std::vector<Config> configs;
  for (const std::string& engine : engines) {
    if (engine != "atoll" && engine != "box2d") {
      std::fprintf(stderr, "atoll-bench scenes: unknown engine '%s'\n", engine.c_str());
      return 2;
    }
    configs.push_back({engine == "box2d", true});
    configs.push_back({engine == "box2d", false});
  }

  std::printf(
      "scene,fixtures,engine,ccd,seeds,steps,total_ms,ms_per_step,vs_ccd_off,vs_ccd_off_min,"
      "vs_ccd_off_max,ccd_bodies_per_step,ccd_stage_ms_per_step\n");
  for (const std::string& name : scenes) {
    const int64_t seed_count = *seeds;
    // Per config: the median over --reps of each seed, and the sums behind
    // the per-step means.
    std::vector<std::vector<double>> per_seed(configs.size());
    std::vector<Result> results(configs.size());
    int32_t fixtures = 0;
    int64_t n = 0;
    for (int64_t seed = 1; seed <= seed_count; ++seed) {
      absl::StatusOr<SceneDesc> desc = MakeScene(
          name, {.size = static_cast<int32_t>(*size), .seed = static_cast<uint64_t>(seed)});
      if (!desc.ok()) {
        std::fprintf(stderr, "atoll-bench scenes: %s\n",
                     std::string(desc.status().message()).c_str());
        return 2;
      }
      fixtures = CountFixtures(*desc);
      n = *steps > 0 ? *steps : desc->steps;
      std::vector<std::vector<double>> runs(configs.size());
      for (int64_t rep = 0; rep < *reps; ++rep) {
        for (size_t c = 0; c < configs.size(); ++c) {
          const double ms = RunOnce(*desc, configs[c], n, &results[c]);
          if (ms < 0.0) return 1;
          runs[c].push_back(ms);
        }
      }
      for (size_t c = 0; c < configs.size(); ++c) per_seed[c].push_back(Median(runs[c]));
    }
    for (size_t c = 0; c < configs.size(); ++c) {
      const double total = Median(per_seed[c]);
      std::string vs_off, vs_min, vs_max;
      if (configs[c].ccd) {
        // On / off of the same seed: a scene that tumbles differently with
        // and without continuous collision costs differently by chance,
        // and the seeds show how much.
        std::vector<double> ratios;
        for (size_t k = 0; k < per_seed[c].size(); ++k) {
          ratios.push_back(per_seed[c][k] / per_seed[c + 1][k]);
        }
        vs_off = absl::StrFormat("%.3f", Median(ratios));
        vs_min = absl::StrFormat("%.3f", *std::min_element(ratios.begin(), ratios.end()));
        vs_max = absl::StrFormat("%.3f", *std::max_element(ratios.begin(), ratios.end()));
      }
      std::string fast, stage;
      if (!configs[c].box2d) {
        const double runs = static_cast<double>(n * *reps * seed_count);
        fast = absl::StrFormat("%.1f", results[c].fast_bodies / runs);
        stage = absl::StrFormat("%.4f", results[c].ccd_ms / runs);
      }
      std::printf("%s,%d,%s,%s,%lld,%lld,%.1f,%.4f,%s,%s,%s,%s,%s\n", name.c_str(), fixtures,
                  configs[c].box2d ? "box2d-2.4.1" : "atoll", configs[c].ccd ? "on" : "off",
                  static_cast<long long>(seed_count), static_cast<long long>(n), total,
                  total / static_cast<double>(n), vs_off.c_str(), vs_min.c_str(), vs_max.c_str(),
                  fast.c_str(), stage.c_str());
      std::fprintf(stderr, "# %s %s ccd=%d checksum %.3f\n", name.c_str(),
                   configs[c].box2d ? "box2d" : "atoll", configs[c].ccd ? 1 : 0,
                   results[c].checksum);
    }
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

ATOLL_BENCH_COMMAND("scenes", "scene suite, Atoll vs Box2D 2.4.1 (CSV, --plot); --ccd: continuous on/off",
                    RunScenes,
                    {.usage = "atoll-bench scenes [--scene=A,B] [--size=N | --small] [--steps=N] "
                              "[--reps=N] [--engines=A,B] [--broad_phase=NAME] [--plot=DIR] "
                              "[--markdown=FILE] [--from-csv=FILE] | --ccd [--scene=A,B] "
                              "[--size=N] [--steps=N] [--reps=N] [--seeds=N] [--engines=A,B]",
                     .flags = kScenesFlags,
                     .example = "atoll-bench scenes --small --engines=atoll "
                                "--scene=falling_squares,tumbler"});

}  // namespace atl::bench
