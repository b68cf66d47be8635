#include "atoll/client/migrate.h"

#include <grpcpp/grpcpp.h>

#include <chrono>

#include "absl/strings/str_cat.h"
#include "atoll/client/connection.h"
#include "atoll/v1/world.grpc.pb.h"

namespace atl::client {
namespace {

absl::StatusOr<v1::WorldInfo> Import(v1::WorldService::Stub* stub, const std::string& address,
                                     const v1::WorldExport& world, absl::Duration timeout) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  v1::ImportWorldRequest request;
  *request.mutable_world() = world;
  v1::WorldInfo info;
  const grpc::Status status = stub->ImportWorld(&context, request, &info);
  if (!status.ok()) return FromGrpcStatus(status, address);
  return info;
}

}  // namespace

absl::StatusOr<MigrateReport> MigrateWorld(const MigrateOptions& options) {
  if (options.from == options.to) {
    return absl::InvalidArgumentError(
        absl::StrCat("to: the world is already on ", options.from));
  }
  auto from = v1::WorldService::NewStub(MakeChannel(options.from));
  auto to = v1::WorldService::NewStub(MakeChannel(options.to));
  // The target must answer before the world stops anywhere: a typo in --to
  // must not strand a match.
  {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + options.timeout));
    v1::GetWorldRequest request;
    request.set_world_id(options.world_id);
    v1::WorldInfo info;
    const grpc::Status status = to->GetWorld(&context, request, &info);
    if (status.ok()) {
      return absl::AlreadyExistsError(absl::StrCat(options.to, ": world_id: '", options.world_id,
                                                   "' already exists there"));
    }
    if (status.error_code() != grpc::StatusCode::NOT_FOUND) {
      return FromGrpcStatus(status, options.to);
    }
  }
  MigrateReport report;
  const absl::Time start = absl::Now();
  v1::WorldExport world;
  {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + options.timeout));
    v1::ExportWorldRequest request;
    request.set_world_id(options.world_id);
    request.set_redirect_to(options.redirect_to.empty() ? options.to : options.redirect_to);
    const grpc::Status status = from->ExportWorld(&context, request, &world);
    if (!status.ok()) return FromGrpcStatus(status, options.from);
  }
  const absl::Time exported = absl::Now();
  report.export_time = exported - start;
  report.tick = world.checkpoint().tick();
  report.state_hash = world.checkpoint().state_hash();
  report.export_bytes = world.ByteSizeLong();
  absl::StatusOr<v1::WorldInfo> imported = Import(to.get(), options.to, world, options.timeout);
  if (!imported.ok()) {
    absl::StatusOr<v1::WorldInfo> back =
        Import(from.get(), options.from, world, options.timeout);
    return absl::Status(
        imported.status().code(),
        absl::StrCat(imported.status().message(),
                     back.ok() ? absl::StrCat("; the world is back on ", options.from,
                                              " at tick ", report.tick)
                               : absl::StrCat("; putting it back failed too: ",
                                              back.status().message())));
  }
  const absl::Time done = absl::Now();
  report.import_time = done - exported;
  report.paused = done - start;
  const uint32_t hz = imported->config().tick_rate_hz();
  report.paused_ticks = absl::ToDoubleSeconds(report.paused) * (hz == 0 ? 60 : hz);
  return report;
}

}  // namespace atl::client
