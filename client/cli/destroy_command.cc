// atoll destroy — stops a world and deletes its recording.

#include <grpcpp/grpcpp.h>

#include <cstdio>

#include "atoll/client/connection.h"
#include "atoll/v1/world.grpc.pb.h"
#include "client/cli/cli_util.h"
#include "client/cli/commands.h"

namespace atl::cli {

int RunDestroyCommand(const std::vector<std::string>& args) {
  if (args.size() != 1) return Usage("destroy needs one world id");
  absl::StatusOr<std::string> address = ServerAddress();
  if (!address.ok()) return Fail(address.status());
  auto stub = v1::WorldService::NewStub(client::MakeChannel(*address));
  grpc::ClientContext context;
  context.set_deadline(Deadline());
  v1::DestroyWorldRequest request;
  request.set_world_id(args[0]);
  v1::DestroyWorldResponse response;
  const grpc::Status status = stub->DestroyWorld(&context, request, &response);
  if (!status.ok()) return Fail(client::FromGrpcStatus(status, *address));
  std::printf("destroyed %s\n", args[0].c_str());
  return 0;
}

}  // namespace atl::cli
