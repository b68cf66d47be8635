// atoll worlds — lists the server's worlds.

#include <grpcpp/grpcpp.h>

#include <cstdio>

#include "atoll/client/connection.h"
#include "atoll/v1/world.grpc.pb.h"
#include "client/cli/cli_util.h"
#include "client/cli/commands.h"

namespace atl::cli {

int RunWorldsCommand(const std::vector<std::string>& args) {
  if (!args.empty()) return Usage("worlds takes no arguments");
  absl::StatusOr<std::string> address = ServerAddress();
  if (!address.ok()) return Fail(address.status());
  auto stub = v1::WorldService::NewStub(client::MakeChannel(*address));
  grpc::ClientContext context;
  context.set_deadline(Deadline());
  v1::ListWorldsResponse response;
  const grpc::Status status = stub->ListWorlds(&context, v1::ListWorldsRequest(), &response);
  if (!status.ok()) return Fail(client::FromGrpcStatus(status, *address));
  std::printf("%-24s %10s %8s %6s %6s %9s %s\n", "WORLD", "TICK", "BODIES", "HZ", "SLOTS",
              "SESSIONS", "HASH");
  for (const v1::WorldInfo& w : response.worlds()) {
    std::printf("%-24s %10llu %8u %6u %6u %9d %016llx\n", w.world_id().c_str(),
                static_cast<unsigned long long>(w.tick()), w.body_count(),
                w.config().tick_rate_hz(), w.config().player_slots(), w.sessions_size(),
                static_cast<unsigned long long>(w.state_hash()));
  }
  return 0;
}

}  // namespace atl::cli
