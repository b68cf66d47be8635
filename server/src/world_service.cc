#include "world_service.h"

#include "status_util.h"

namespace atl::server {
namespace {

grpc::ServerUnaryReactor* Done(grpc::CallbackServerContext* context, const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

}  // namespace

grpc::ServerUnaryReactor* WorldService::CreateWorld(grpc::CallbackServerContext* context,
                                                    const v1::CreateWorldRequest* request,
                                                    v1::CreateWorldResponse* response) {
  absl::StatusOr<v1::CreateWorldResponse> created = registry_->CreateWorld(*request);
  if (created.ok()) *response = *std::move(created);
  return Done(context, created.status());
}

grpc::ServerUnaryReactor* WorldService::DestroyWorld(grpc::CallbackServerContext* context,
                                                     const v1::DestroyWorldRequest* request,
                                                     v1::DestroyWorldResponse* /*response*/) {
  return Done(context, registry_->DestroyWorld(request->world_id()));
}

grpc::ServerUnaryReactor* WorldService::ListWorlds(grpc::CallbackServerContext* context,
                                                   const v1::ListWorldsRequest* /*request*/,
                                                   v1::ListWorldsResponse* response) {
  for (const auto& host : registry_->List()) *response->add_worlds() = host->Info();
  return Done(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* WorldService::GetWorld(grpc::CallbackServerContext* context,
                                                 const v1::GetWorldRequest* request,
                                                 v1::WorldInfo* response) {
  absl::StatusOr<std::shared_ptr<WorldHost>> host = registry_->Find(request->world_id());
  if (host.ok()) *response = (*host)->Info();
  return Done(context, host.status());
}

grpc::ServerUnaryReactor* WorldService::GetRecording(grpc::CallbackServerContext* context,
                                                     const v1::GetRecordingRequest* request,
                                                     v1::Recording* response) {
  absl::StatusOr<std::shared_ptr<WorldHost>> host = registry_->Find(request->world_id());
  if (!host.ok()) return Done(context, host.status());
  absl::StatusOr<v1::Recording> recording = (*host)->GetRecording(request->header_only());
  if (recording.ok()) *response = *std::move(recording);
  return Done(context, recording.status());
}

grpc::ServerUnaryReactor* WorldService::ExportWorld(grpc::CallbackServerContext* context,
                                                    const v1::ExportWorldRequest* request,
                                                    v1::WorldExport* response) {
  absl::StatusOr<v1::WorldExport> exported = registry_->ExportWorld(*request);
  if (exported.ok()) *response = *std::move(exported);
  return Done(context, exported.status());
}

grpc::ServerUnaryReactor* WorldService::ImportWorld(grpc::CallbackServerContext* context,
                                                    const v1::ImportWorldRequest* request,
                                                    v1::WorldInfo* response) {
  absl::StatusOr<v1::WorldInfo> imported = registry_->ImportWorld(*request);
  if (imported.ok()) *response = *std::move(imported);
  return Done(context, imported.status());
}

}  // namespace atl::server
