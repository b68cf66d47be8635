// atoll CLI — the commands that talk to an atoll-server or read its
// recordings, one file each. `args` are the positional arguments after the
// command name. Each returns the process exit code: 0 on success, 1 on a
// failure (one line on stderr), 2 on a usage error.

#ifndef ATOLL_CLIENT_CLI_COMMANDS_H_
#define ATOLL_CLIENT_CLI_COMMANDS_H_

#include <string>
#include <vector>

namespace atl::cli {

/// atoll worlds: the server's worlds, one line each.
int RunWorldsCommand(const std::vector<std::string>& args);
/// atoll create SCENE: a world from a scene file or built-in name; prints
/// its id and the slot tokens.
int RunCreateCommand(const std::vector<std::string>& args);
/// atoll destroy WORLD.
int RunDestroyCommand(const std::vector<std::string>& args);
/// atoll watch WORLD: ticks, awake bodies and events; --svg DIR frames.
int RunWatchCommand(const std::vector<std::string>& args);
/// atoll bot WORLD --players N: simulated players with prediction.
int RunBotCommand(const std::vector<std::string>& args);
/// atoll verify RECORDING [MORE...]: local re-simulation against the hash
/// chain (recordings of a world that moved between servers, joined in
/// order); exit 1 on a divergence.
int RunVerifyCommand(const std::vector<std::string>& args);
/// atoll batch SCENE --steps N: BatchService.Run with a progress bar;
/// `atoll batch run ...` and `atoll batch merge ...` (args[0] "run" or
/// "merge") go to the two functions below.
int RunBatchCommand(const std::vector<std::string>& args);
/// atoll batch run SPEC --out=DIR [--shard=N --shards=M]: shard N's runs
/// of a sweep, in process, one record each in DIR (batch_sweep_command.cc).
int RunBatchRunCommand(const std::vector<std::string>& args);
/// atoll batch merge DIR: checks that each run of DIR's sweep is recorded
/// once; writes DIR/results.csv and DIR/results.svg.
int RunBatchMergeCommand(const std::vector<std::string>& args);
/// atoll migrate WORLD --from=HOST:PORT --to=HOST:PORT: moves a live
/// world; its players are redirected.
int RunMigrateCommand(const std::vector<std::string>& args);
/// atoll view SCENE_OR_RECORDING: the web viewer on a local world (a scene
/// stepped at its tick rate, or a recording played back); serves until
/// SIGINT / SIGTERM.
int RunViewCommand(const std::vector<std::string>& args);
/// atoll query WORLD --ray=... | --aabb=... | --circle=... | --box=... |
/// --polygon=...: one QueryService call; prints the tick and the shapes.
int RunQueryCommand(const std::vector<std::string>& args);
/// atoll probe --server=HOST:PORT: ListWorlds, GetWorld and CreateWorld
/// every --interval for --seconds (0: until stdin closes); prints each
/// call's count, failures, p50, p99 and max as CSV; exit 1 on a failure.
int RunProbeCommand(const std::vector<std::string>& args);

}  // namespace atl::cli

#endif  // ATOLL_CLIENT_CLI_COMMANDS_H_
