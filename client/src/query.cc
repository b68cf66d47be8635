#include "atoll/client/query.h"

#include <grpcpp/grpcpp.h>

#include <utility>

#include "atoll/client/connection.h"

namespace atl::client {
namespace {

void SetVec(Vec2 v, v1::Vec2* out) {
  out->set_x(v.x);
  out->set_y(v.y);
}

// One unary call of `method` with the client's deadline.
template <typename Response, typename Request, typename Method>
absl::StatusOr<Response> Call(v1::QueryService::Stub* stub, Method method,
                              const Request& request,
                              const std::string& address,
                              absl::Duration timeout) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  Response response;
  const grpc::Status status = (stub->*method)(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status, address);
  return response;
}

}  // namespace

QueryClient::QueryClient(std::shared_ptr<grpc::Channel> channel,
                         std::string address, absl::Duration timeout)
    : stub_(v1::QueryService::NewStub(std::move(channel))),
      address_(std::move(address)),
      timeout_(timeout) {}

absl::StatusOr<v1::CastRayClosestResponse> QueryClient::CastRayClosest(
    const v1::CastRayRequest& request) const {
  return Call<v1::CastRayClosestResponse>(
      stub_.get(), &v1::QueryService::Stub::CastRayClosest, request, address_,
      timeout_);
}

absl::StatusOr<v1::CastRayAllResponse> QueryClient::CastRayAll(
    const v1::CastRayRequest& request) const {
  return Call<v1::CastRayAllResponse>(stub_.get(),
                                      &v1::QueryService::Stub::CastRayAll,
                                      request, address_, timeout_);
}

absl::StatusOr<v1::OverlapResponse> QueryClient::OverlapAabb(
    const v1::OverlapAabbRequest& request) const {
  return Call<v1::OverlapResponse>(stub_.get(),
                                   &v1::QueryService::Stub::OverlapAabb,
                                   request, address_, timeout_);
}

absl::StatusOr<v1::OverlapResponse> QueryClient::OverlapShape(
    const v1::OverlapShapeRequest& request) const {
  return Call<v1::OverlapResponse>(stub_.get(),
                                   &v1::QueryService::Stub::OverlapShape,
                                   request, address_, timeout_);
}

v1::CastRayRequest MakeRayRequest(const std::string& world_id, Vec2 origin,
                                  Vec2 translation) {
  v1::CastRayRequest request;
  request.set_world_id(world_id);
  SetVec(origin, request.mutable_ray()->mutable_origin());
  SetVec(translation, request.mutable_ray()->mutable_translation());
  return request;
}

v1::OverlapAabbRequest MakeAabbRequest(const std::string& world_id, Vec2 lower,
                                       Vec2 upper) {
  v1::OverlapAabbRequest request;
  request.set_world_id(world_id);
  SetVec(lower, request.mutable_aabb()->mutable_lower());
  SetVec(upper, request.mutable_aabb()->mutable_upper());
  return request;
}

}  // namespace atl::client
