#include "client/cli/cli_util.h"

#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "atoll/client/connection.h"
#include "atoll/v1/world.grpc.pb.h"

ABSL_DECLARE_FLAG(std::string, server);
ABSL_DECLARE_FLAG(absl::Duration, timeout);
ABSL_DECLARE_FLAG(int32_t, size);
ABSL_DECLARE_FLAG(uint64_t, seed);

namespace atl::cli {

int Fail(const std::string& message) {
  std::fprintf(stderr, "atoll: %s\n", message.c_str());
  return 1;
}

int Usage(const std::string& message) {
  Fail(message);
  return 2;
}

int Fail(const absl::Status& status) { return Fail(std::string(status.message())); }

absl::StatusOr<std::string> ServerAddress() {
  std::string server = absl::GetFlag(FLAGS_server);
  if (server.empty()) return absl::FailedPreconditionError("this command needs --server=HOST:PORT");
  return server;
}

absl::Duration Timeout() { return absl::GetFlag(FLAGS_timeout); }

std::chrono::system_clock::time_point Deadline() {
  return std::chrono::system_clock::now() + absl::ToChronoMilliseconds(Timeout());
}

absl::StatusOr<v1::SceneSpec> LoadScene(const std::string& arg) {
  v1::SceneSpec spec;
  if (std::filesystem::exists(arg) || absl::EndsWith(arg, ".json")) {
    std::ifstream in(arg);
    if (!in) return absl::NotFoundError(absl::StrCat(arg, ": cannot open"));
    std::stringstream text;
    text << in.rdbuf();
    const auto status = google::protobuf::util::JsonStringToMessage(text.str(), &spec);
    if (!status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(arg, ": not an atl.v1.SceneSpec: ", std::string(status.message())));
    }
    return spec;
  }
  spec.mutable_builtin()->set_name(arg);
  spec.mutable_builtin()->set_size(absl::GetFlag(FLAGS_size));
  spec.mutable_builtin()->set_seed(absl::GetFlag(FLAGS_seed));
  return spec;
}

absl::StatusOr<v1::RecordingHeader> FetchWorldSetup(const std::string& address,
                                                    const std::string& world_id) {
  auto stub = v1::WorldService::NewStub(client::MakeChannel(address));
  grpc::ClientContext context;
  context.set_deadline(Deadline());
  v1::GetRecordingRequest request;
  request.set_world_id(world_id);
  request.set_header_only(true);
  v1::Recording recording;
  const grpc::Status status = stub->GetRecording(&context, request, &recording);
  if (!status.ok()) return client::FromGrpcStatus(status, address);
  return recording.header();
}

}  // namespace atl::cli
