// atoll client — QueryService: ray casts and overlaps against a world's
// newest tick on the server.

#ifndef ATOLL_CLIENT_QUERY_H_
#define ATOLL_CLIENT_QUERY_H_

#include <grpcpp/channel.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "atoll/math.h"
#include "atoll/v1/query.grpc.pb.h"

namespace atl::client {

/// QueryService calls over one channel, each with its own deadline. Safe to
/// use from several threads at once (the stub is).
class QueryClient {
 public:
  /// Calls `address` over `channel` (MakeChannel), each call with a deadline
  /// `timeout` from its start.
  QueryClient(std::shared_ptr<grpc::Channel> channel, std::string address,
              absl::Duration timeout = absl::Seconds(2));

  /// QueryService.CastRayClosest. Errors: the server's status (its message,
  /// which starts with the offending field, prefixed with the address), as
  /// FromGrpcStatus.
  absl::StatusOr<v1::CastRayClosestResponse> CastRayClosest(
      const v1::CastRayRequest& request) const;
  /// QueryService.CastRayAll. Errors as CastRayClosest.
  absl::StatusOr<v1::CastRayAllResponse> CastRayAll(
      const v1::CastRayRequest& request) const;
  /// QueryService.OverlapAabb. Errors as CastRayClosest.
  absl::StatusOr<v1::OverlapResponse> OverlapAabb(
      const v1::OverlapAabbRequest& request) const;
  /// QueryService.OverlapShape. Errors as CastRayClosest.
  absl::StatusOr<v1::OverlapResponse> OverlapShape(
      const v1::OverlapShapeRequest& request) const;

 private:
  std::unique_ptr<v1::QueryService::Stub> stub_;
  std::string address_;
  absl::Duration timeout_;
};

/// A CastRayRequest for the segment origin -> origin + translation of
/// world `world_id`, without a filter.
v1::CastRayRequest MakeRayRequest(const std::string& world_id, Vec2 origin,
                                  Vec2 translation);

/// An OverlapAabbRequest for the box lower..upper of world `world_id`,
/// without a filter.
v1::OverlapAabbRequest MakeAabbRequest(const std::string& world_id, Vec2 lower,
                                       Vec2 upper);

}  // namespace atl::client

#endif  // ATOLL_CLIENT_QUERY_H_
