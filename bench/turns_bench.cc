// atoll-bench turns: what a step costs when worlds are stepped in turn, as a
// server's tick thread steps the worlds it hosts (issue #23), against the
// same worlds stepped one at a time.
//
// CSV: scene,size,bodies,worlds,from_step,steps,round,order,total_ms,
//      broad_phase_ms,contacts_ms,islands_ms,solve_ms,update_bounds_ms,
//      continuous_ms
//
// Each round builds --worlds worlds of the scene (seeds 1..N) twice and
// steps them --steps times: "in_turn" steps every world once per tick, round
// after round, so each finds its own data out of the cache (the other
// worlds' steps came in between); "one_at_a_time" steps one world all the
// way, then the next. Times are the world's own StepProfile (one thread),
// per step, averaged over the worlds and the steps from --from_step on.
// Both orders must end each world on the same state hash (a failure
// otherwise): the order is a matter of the cache, never of the results.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "args.h"
#include "atoll/profile.h"
#include "atoll/scene.h"
#include "atoll/snapshot.h"
#include "command.h"
#include "step_stages.h"

namespace atl::bench {
namespace {

constexpr Flag kTurnsFlags[] = {
    {"scene", "falling_squares", "the built-in scene"},
    {"size", "497", "scene size (497: the load test's 500 bodies)"},
    {"worlds", "16", "worlds per round (a tick thread's share of the load test's 32)"},
    {"steps", "330", "steps of each world"},
    {"from_step", "60", "the first step timed (falling_squares lands from about 60 on)"},
    {"rounds", "3", "rounds, each printing both orders"},
};

int RunTurns(const std::vector<std::string>& raw) {
  auto args = Args::Parse(raw, FlagNames(kTurnsFlags));
  if (!args.ok()) {
    std::fprintf(stderr, "atoll-bench turns: %s\n", std::string(args.status().message()).c_str());
    return 2;
  }
  const std::string scene = args->Get("scene", "falling_squares");
  auto size = args->GetInt("size", 497);
  auto worlds = args->GetInt("worlds", 16);
  auto steps = args->GetInt("steps", 330);
  auto from = args->GetInt("from_step", 60);
  auto rounds = args->GetInt("rounds", 3);
  if (!size.ok() || !worlds.ok() || !steps.ok() || !from.ok() || !rounds.ok() || *size < 0 ||
      *worlds < 1 || *worlds > 1024 || *rounds < 1 || *from < 0 || *steps <= *from) {
    std::fprintf(stderr,
                 "atoll-bench turns: want integers --size >= 0, --worlds 1..1024, --rounds >= 1 "
                 "and 0 <= --from_step < --steps\n");
    return 2;
  }
  std::vector<SceneDesc> descs;
  for (int64_t w = 0; w < *worlds; ++w) {
    absl::StatusOr<SceneDesc> desc = MakeScene(
        scene, {.size = static_cast<int32_t>(*size), .seed = static_cast<uint64_t>(w + 1)});
    if (!desc.ok()) {
      std::fprintf(stderr, "atoll-bench turns: %s\n", std::string(desc.status().message()).c_str());
      return 2;
    }
    descs.push_back(*std::move(desc));
  }
  std::printf(
      "scene,size,bodies,worlds,from_step,steps,round,order,total_ms,broad_phase_ms,contacts_ms,"
      "islands_ms,solve_ms,update_bounds_ms,continuous_ms\n");
  for (int64_t round = 1; round <= *rounds; ++round) {
    // Each world's state hash after its last step, in turn; one at a time
    // must end every world on the same hash (worlds share nothing).
    std::vector<uint64_t> in_turn_hashes;
    for (const bool in_turn : {true, false}) {
      std::vector<std::unique_ptr<World>> built;
      for (const SceneDesc& desc : descs) {
        absl::StatusOr<std::unique_ptr<World>> world = BuildWorld(desc);
        if (!world.ok()) {
          std::fprintf(stderr, "atoll-bench turns: %s\n",
                       std::string(world.status().message()).c_str());
          return 1;
        }
        built.push_back(*std::move(world));
      }
      StepProfile sums;
      auto step = [&](size_t w, int64_t s) {
        if (!ApplySceneWaves(built[w].get(), descs[w], static_cast<int32_t>(s)).ok()) return false;
        if (!built[w]->Step(descs[w].time_step).ok()) return false;
        if (s >= *from) AddStages(&sums, built[w]->profile());
        return true;
      };
      bool ok = true;
      if (in_turn) {
        for (int64_t s = 0; s < *steps && ok; ++s) {
          for (size_t w = 0; w < built.size() && ok; ++w) ok = step(w, s);
        }
      } else {
        for (size_t w = 0; w < built.size() && ok; ++w) {
          for (int64_t s = 0; s < *steps && ok; ++s) ok = step(w, s);
        }
      }
      if (!ok) {
        std::fprintf(stderr, "atoll-bench turns: a step failed\n");
        return 1;
      }
      for (size_t w = 0; w < built.size(); ++w) {
        const uint64_t hash = HashWorld(*built[w]);
        if (in_turn) {
          in_turn_hashes.push_back(hash);
        } else if (hash != in_turn_hashes[w]) {
          std::fprintf(stderr,
                       "atoll-bench turns: world %zu ends on another state stepped one at a time "
                       "than in turn\n",
                       w);
          return 1;
        }
      }
      const double n = static_cast<double>(*worlds) * static_cast<double>(*steps - *from);
      std::printf("%s,%lld,%zu,%lld,%lld,%lld,%lld,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f\n",
                  scene.c_str(), static_cast<long long>(*size), descs.front().bodies.size(),
                  static_cast<long long>(*worlds), static_cast<long long>(*from),
                  static_cast<long long>(*steps), static_cast<long long>(round),
                  in_turn ? "in_turn" : "one_at_a_time", sums.total / n, sums.broad_phase / n,
                  sums.contacts / n, sums.islands / n, sums.solve / n, sums.update_bounds / n,
                  sums.continuous / n);
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace

ATOLL_BENCH_COMMAND("turns",
                    "per-stage step times of worlds stepped in turn, as a tick thread does, "
                    "and one at a time (CSV)",
                    RunTurns,
                    {.usage = "atoll-bench turns [--scene=NAME] [--size=N] [--worlds=N] "
                              "[--steps=N] [--from_step=N] [--rounds=N]",
                     .flags = kTurnsFlags,
                     .example = "atoll-bench turns --worlds=16 --rounds=3"});

}  // namespace atl::bench
