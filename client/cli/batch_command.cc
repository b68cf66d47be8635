// atoll batch — runs a scene headless on the server (BatchService.Run) with a
// progress bar. `atoll batch run` and `atoll batch merge` (sharded sweeps)
// are in batch_sweep_command.cc.

#include <grpcpp/grpcpp.h>

#include <cstdio>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "atoll/client/connection.h"
#include "atoll/v1/batch.grpc.pb.h"
#include "client/cli/cli_util.h"
#include "client/cli/commands.h"

ABSL_FLAG(uint32_t, steps, 600, "batch: steps to run");
ABSL_DECLARE_FLAG(uint32_t, tick_rate);

namespace atl::cli {
namespace {

void DrawProgress(uint32_t done, uint32_t total) {
  constexpr int kWidth = 40;
  const int filled = total == 0 ? kWidth : static_cast<int>(uint64_t{done} * kWidth / total);
  std::fprintf(stderr, "\r[%.*s%*s] %u/%u", filled, "########################################",
               kWidth - filled, "", done, total);
  std::fflush(stderr);
}

}  // namespace

int RunBatchCommand(const std::vector<std::string>& args) {
  if (!args.empty() && (args[0] == "run" || args[0] == "merge")) {
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    return args[0] == "run" ? RunBatchRunCommand(rest) : RunBatchMergeCommand(rest);
  }
  if (args.size() != 1) return Usage("batch needs one scene: a .json SceneSpec file or a built-in name");
  absl::StatusOr<std::string> address = ServerAddress();
  if (!address.ok()) return Fail(address.status());
  absl::StatusOr<v1::SceneSpec> scene = LoadScene(args[0]);
  if (!scene.ok()) return Fail(scene.status());
  v1::RunBatchRequest request;
  *request.mutable_scene() = *scene;
  request.set_steps(absl::GetFlag(FLAGS_steps));
  request.set_tick_rate_hz(absl::GetFlag(FLAGS_tick_rate));
  request.set_progress_every(std::max<uint32_t>(1, request.steps() / 40));
  auto stub = v1::BatchService::NewStub(client::MakeChannel(*address));
  grpc::ClientContext context;
  auto reader = stub->Run(&context, request);
  v1::BatchUpdate update;
  std::optional<v1::BatchResult> result;
  bool drew = false;
  while (reader->Read(&update)) {
    if (update.has_progress()) {
      drew = true;
      DrawProgress(update.progress().steps_done(), update.progress().steps_total());
    } else if (update.has_result()) {
      result = update.result();
    }
  }
  const grpc::Status status = reader->Finish();
  if (!status.ok()) {
    if (drew) std::fputc('\n', stderr);
    return Fail(client::FromGrpcStatus(status, *address));
  }
  DrawProgress(request.steps(), request.steps());
  std::fputc('\n', stderr);
  if (!result.has_value()) return Fail(*address + ": the batch ended without a result");
  std::printf("%u steps, %u bodies: initial hash %016llx, final hash %016llx\n", request.steps(),
              result->body_count(), static_cast<unsigned long long>(result->initial_hash()),
              static_cast<unsigned long long>(result->final_hash()));
  std::printf("build %.1f ms, total %.1f ms, mean step %llu us, max step %llu us\n",
              result->timings().build_us() / 1000.0, result->timings().total_us() / 1000.0,
              static_cast<unsigned long long>(result->timings().mean_step_us()),
              static_cast<unsigned long long>(result->timings().max_step_us()));
  return 0;
}

}  // namespace atl::cli
