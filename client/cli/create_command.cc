// atoll create — creates a world from a scene file or a built-in scene.

#include <grpcpp/grpcpp.h>

#include <cstdio>

#include "absl/flags/flag.h"
#include "atoll/client/connection.h"
#include "atoll/v1/world.grpc.pb.h"
#include "client/cli/cli_util.h"
#include "client/cli/commands.h"

ABSL_FLAG(std::string, id, "", "create: the world id (empty: the server picks one)");
ABSL_FLAG(uint32_t, slots, 0, "create: player slots (0..64)");
ABSL_FLAG(uint32_t, tick_rate, 0, "create/batch/view: steps per second, 1..240 (0: 60)");
ABSL_FLAG(uint32_t, input_delay, 0, "create: the world's input delay in ticks; bot: the client's");

namespace atl::cli {

int RunCreateCommand(const std::vector<std::string>& args) {
  if (args.size() != 1) return Usage("create needs one scene: a .json SceneSpec file or a built-in name");
  absl::StatusOr<std::string> address = ServerAddress();
  if (!address.ok()) return Fail(address.status());
  absl::StatusOr<v1::SceneSpec> scene = LoadScene(args[0]);
  if (!scene.ok()) return Fail(scene.status());
  v1::CreateWorldRequest request;
  request.set_world_id(absl::GetFlag(FLAGS_id));
  *request.mutable_scene() = *scene;
  request.mutable_config()->set_player_slots(absl::GetFlag(FLAGS_slots));
  request.mutable_config()->set_tick_rate_hz(absl::GetFlag(FLAGS_tick_rate));
  request.mutable_config()->set_input_delay_ticks(absl::GetFlag(FLAGS_input_delay));
  auto stub = v1::WorldService::NewStub(client::MakeChannel(*address));
  grpc::ClientContext context;
  context.set_deadline(Deadline());
  v1::CreateWorldResponse response;
  const grpc::Status status = stub->CreateWorld(&context, request, &response);
  if (!status.ok()) return Fail(client::FromGrpcStatus(status, *address));
  std::printf("created %s: %u bodies, %u Hz, %u slots\n", response.world().world_id().c_str(),
              response.world().body_count(), response.world().config().tick_rate_hz(),
              response.world().config().player_slots());
  for (const v1::SlotToken& t : response.tokens()) {
    std::printf("slot %u token %s\n", t.slot(), t.token().c_str());
  }
  return 0;
}

}  // namespace atl::cli
