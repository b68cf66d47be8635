// atoll synctest SCENE --ticks=N --rollback=K [--size=N] [--seed=S]

#include "client/cli/synctest_command.h"

#include <cinttypes>
#include <cstdio>

#include "absl/flags/flag.h"
#include "atoll/scene.h"
#include "atoll/sync_test.h"

ABSL_FLAG(int32_t, ticks, 600,
          "ticks to simulate (synctest), to follow (watch) or to play (bot)");
ABSL_FLAG(int32_t, rollback, 8, "synctest: ticks rolled back and re-simulated every tick");
ABSL_FLAG(int32_t, size, 0, "scene size parameter (0 = the scene's default)");
ABSL_FLAG(uint64_t, seed, 1, "seed of the scene and of the random inputs");

namespace atl::cli {

int RunSyncTestCommand(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    std::fprintf(stderr, "atoll: synctest needs one scene name (see atoll-render for the list)\n");
    return 2;
  }
  SceneParams params;
  params.size = absl::GetFlag(FLAGS_size);
  params.seed = absl::GetFlag(FLAGS_seed);
  auto scene = MakeScene(args[0], params);
  if (!scene.ok()) {
    std::fprintf(stderr, "atoll: %s\n", std::string(scene.status().message()).c_str());
    return 1;
  }
  SyncTestOptions options;
  options.ticks = absl::GetFlag(FLAGS_ticks);
  options.rollback = absl::GetFlag(FLAGS_rollback);
  options.seed = params.seed;
  auto result = RunSyncTest(*scene, options);
  if (!result.ok()) {
    std::fprintf(stderr, "atoll: %s\n", std::string(result.status().message()).c_str());
    return 1;
  }
  if (result->divergent_tick < 0) {
    std::printf("synctest %s: %" PRId64 " ticks, %" PRId64
                " re-simulated with rollback %d, no divergence\n",
                args[0].c_str(), result->ticks, result->resimulated, options.rollback);
    return 0;
  }
  std::printf("synctest %s: DIVERGED at tick %" PRId64 ": expected hash %016" PRIx64
              ", re-simulation gave %016" PRIx64 "\n%s",
              args[0].c_str(), result->divergent_tick, result->expected_hash, result->actual_hash,
              FormatDiffs(result->diffs).c_str());
  return 1;
}

}  // namespace atl::cli
