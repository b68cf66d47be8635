// atl.v1.QueryService: ray casts and overlaps against a hosted world's
// newest tick.
//
// A request is checked (query_request.h) before its world is looked up, so
// a bad one never touches a world. The engine query runs on the gRPC thread
// under the world's lock (WorldHost::Query), which it holds for the engine
// call and each result's body lookup only: the response is built after the
// lock is released.

#ifndef ATOLL_SERVER_QUERY_SERVICE_H_
#define ATOLL_SERVER_QUERY_SERVICE_H_

#include "atoll/v1/query.grpc.pb.h"
#include "world_registry.h"

namespace atl::server {

class QueryService final : public v1::QueryService::CallbackService {
 public:
  /// Queries the worlds of `registry`, which must outlive the service.
  explicit QueryService(WorldRegistry* registry) : registry_(registry) {}

  /// The first shape along request.ray; response.hit unset when none.
  grpc::ServerUnaryReactor* CastRayClosest(
      grpc::CallbackServerContext* context, const v1::CastRayRequest* request,
      v1::CastRayClosestResponse* response) override;
  /// Every shape along request.ray, nearest first.
  grpc::ServerUnaryReactor* CastRayAll(
      grpc::CallbackServerContext* context, const v1::CastRayRequest* request,
      v1::CastRayAllResponse* response) override;
  /// Shapes whose bounds overlap request.aabb, in shape index order.
  grpc::ServerUnaryReactor* OverlapAabb(grpc::CallbackServerContext* context,
                                        const v1::OverlapAabbRequest* request,
                                        v1::OverlapResponse* response) override;
  /// Shapes overlapping request.shape, in shape index order.
  grpc::ServerUnaryReactor* OverlapShape(
      grpc::CallbackServerContext* context,
      const v1::OverlapShapeRequest* request,
      v1::OverlapResponse* response) override;

 private:
  WorldRegistry* const registry_;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_QUERY_SERVICE_H_
