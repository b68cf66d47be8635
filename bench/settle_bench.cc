// atoll-bench settle: how long a built-in scene's heap takes to fall asleep
// after its last body lands (issue #19: falling_squares at every suite size
// asleep within 10 s of the last landing, at the default substep count).
//
// CSV: scene,size,seed,bodies,landed_step,asleep_step,seconds_after_landing
//
// landed_step is the last step at which some dynamic body moved faster than
// --landed_speed (default 1 m/s): after it nothing is still falling.
// asleep_step is the first step from which every body stays asleep to the
// end of the run, -1 when they never all do within --steps.

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "args.h"
#include "atoll/scene.h"
#include "command.h"

namespace atl::bench {
namespace {

// The flags of atoll-bench settle: its help, and what it parses.
constexpr Flag kSettleFlags[] = {
    {"scene", "falling_squares", "the built-in scene"},
    {"sizes", "1000,2000,4000,8000", "comma-separated scene sizes"},
    {"seeds", "1,2,3", "comma-separated scene seeds"},
    {"steps", "1500", "steps per run"},
    {"landed_speed", "1", "m/s: a dynamic body faster than this has not landed yet"},
};

int RunSettle(const std::vector<std::string>& raw) {
  auto args = Args::Parse(raw, FlagNames(kSettleFlags));
  if (!args.ok()) {
    std::fprintf(stderr, "atoll-bench settle: %s\n", std::string(args.status().message()).c_str());
    return 2;
  }
  const std::string scene = args->Get("scene", "falling_squares");
  auto sizes = args->GetIntList("sizes", {1000, 2000, 4000, 8000});
  auto seeds = args->GetIntList("seeds", {1, 2, 3});
  auto steps = args->GetInt("steps", 1500);
  bool positive = sizes.ok() && seeds.ok() && steps.ok() && *steps > 0 && !sizes->empty() &&
                  !seeds->empty();
  for (int64_t v : sizes.ok() ? *sizes : std::vector<int64_t>{}) positive = positive && v > 0;
  for (int64_t v : seeds.ok() ? *seeds : std::vector<int64_t>{}) positive = positive && v > 0;
  if (!positive) {
    std::fprintf(stderr, "atoll-bench settle: --sizes, --seeds and --steps take integers > 0\n");
    return 2;
  }
  float landed_speed = 0.0f;
  if (!absl::SimpleAtof(args->Get("landed_speed", "1"), &landed_speed) || !(landed_speed > 0.0f)) {
    std::fprintf(stderr, "atoll-bench settle: --landed_speed takes a speed > 0 in m/s\n");
    return 2;
  }
  SceneParams first;
  first.size = static_cast<int32_t>(sizes->front());
  if (absl::StatusOr<SceneDesc> desc = MakeScene(scene, first); !desc.ok()) {
    std::fprintf(stderr, "atoll-bench settle: %s\n", std::string(desc.status().message()).c_str());
    return 2;
  }
  std::printf("scene,size,seed,bodies,landed_step,asleep_step,seconds_after_landing\n");
  for (int64_t size : *sizes) {
    for (int64_t seed : *seeds) {
      SceneParams params;
      params.size = static_cast<int32_t>(size);
      params.seed = static_cast<uint64_t>(seed);
      absl::StatusOr<SceneDesc> desc = MakeScene(scene, params);
      if (!desc.ok()) {
        std::fprintf(stderr, "atoll-bench settle: %s\n",
                     std::string(desc.status().message()).c_str());
        return 2;
      }
      absl::StatusOr<std::unique_ptr<World>> world = BuildWorld(*desc);
      if (!world.ok()) {
        std::fprintf(stderr, "atoll-bench settle: %s\n",
                     std::string(world.status().message()).c_str());
        return 1;
      }
      int64_t landed = -1, asleep = -1;
      int32_t bodies = 0;
      for (int64_t s = 0; s < *steps; ++s) {
        (void)ApplySceneWaves(world->get(), *desc, static_cast<int32_t>(s));
        if (!(*world)->Step(desc->time_step).ok()) return 1;
        bool all_asleep = true;
        bodies = 0;
        for (BodyId id : (*world)->GetBodyIds()) {
          const BodyInfo b = (*world)->GetBody(id).value();
          if (b.type != BodyType::kDynamic) continue;
          ++bodies;
          if (Length(b.linear_velocity) > landed_speed) landed = s;
          all_asleep = all_asleep && !b.is_awake;
        }
        if (!all_asleep) {
          asleep = -1;
        } else if (asleep < 0) {
          asleep = s;
        }
      }
      const double after = asleep < 0 ? -1.0 : static_cast<double>(asleep - landed) * desc->time_step;
      std::printf("%s,%lld,%lld,%d,%lld,%lld,%.2f\n", scene.c_str(), static_cast<long long>(size),
                  static_cast<long long>(seed), bodies, static_cast<long long>(landed),
                  static_cast<long long>(asleep), after);
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace

ATOLL_BENCH_COMMAND("settle",
                    "steps until a scene's heap is all asleep after its last landing (CSV)",
                    RunSettle,
                    {.usage = "atoll-bench settle [--scene=NAME] [--sizes=N,N] [--seeds=S,S] "
                              "[--steps=N] [--landed_speed=V]",
                     .flags = kSettleFlags,
                     .example = "atoll-bench settle --sizes=1000 --seeds=1 --steps=900"});

}  // namespace atl::bench
