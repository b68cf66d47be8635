// atl.v1.WorldService over a WorldRegistry.

#ifndef ATOLL_SERVER_WORLD_SERVICE_H_
#define ATOLL_SERVER_WORLD_SERVICE_H_

#include "atoll/v1/world.grpc.pb.h"
#include "world_registry.h"

namespace atl::server {

class WorldService final : public v1::WorldService::CallbackService {
 public:
  explicit WorldService(WorldRegistry* registry) : registry_(registry) {}

  grpc::ServerUnaryReactor* CreateWorld(grpc::CallbackServerContext* context,
                                        const v1::CreateWorldRequest* request,
                                        v1::CreateWorldResponse* response) override;
  grpc::ServerUnaryReactor* DestroyWorld(grpc::CallbackServerContext* context,
                                         const v1::DestroyWorldRequest* request,
                                         v1::DestroyWorldResponse* response) override;
  grpc::ServerUnaryReactor* ListWorlds(grpc::CallbackServerContext* context,
                                       const v1::ListWorldsRequest* request,
                                       v1::ListWorldsResponse* response) override;
  grpc::ServerUnaryReactor* GetWorld(grpc::CallbackServerContext* context,
                                     const v1::GetWorldRequest* request,
                                     v1::WorldInfo* response) override;
  grpc::ServerUnaryReactor* GetRecording(grpc::CallbackServerContext* context,
                                         const v1::GetRecordingRequest* request,
                                         v1::Recording* response) override;
  grpc::ServerUnaryReactor* ExportWorld(grpc::CallbackServerContext* context,
                                        const v1::ExportWorldRequest* request,
                                        v1::WorldExport* response) override;
  grpc::ServerUnaryReactor* ImportWorld(grpc::CallbackServerContext* context,
                                        const v1::ImportWorldRequest* request,
                                        v1::WorldInfo* response) override;

 private:
  WorldRegistry* const registry_;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_WORLD_SERVICE_H_
