#include "query_service.h"

#include <optional>
#include <utility>
#include <vector>

#include "atoll/server/simulation.h"
#include "query_request.h"
#include "status_util.h"

namespace atl::server {
namespace {

grpc::ServerUnaryReactor* Done(grpc::CallbackServerContext* context,
                               const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

// An engine result with the body of its shape, copied out under the lock.
struct Found {
  ShapeId shape;
  std::optional<BodyId> body;
  RayResult ray;
};

std::optional<BodyId> BodyOf(const World& world, ShapeId shape) {
  absl::StatusOr<BodyId> body = world.GetShapeBody(shape);
  if (!body.ok()) return std::nullopt;  // never for a shape a query returned
  return *body;
}

std::vector<Found> WithBodies(const World& world,
                              const std::vector<ShapeId>& shapes) {
  std::vector<Found> out;
  out.reserve(shapes.size());
  for (ShapeId shape : shapes) out.push_back({shape, BodyOf(world, shape), {}});
  return out;
}

Found WithBody(const World& world, const RayResult& ray) {
  return {ray.shape, BodyOf(world, ray.shape), ray};
}

void SetVec(Vec2 v, v1::Vec2* out) {
  out->set_x(v.x);
  out->set_y(v.y);
}

void FillShapeHit(const Found& found, v1::ShapeHit* out) {
  out->set_shape(found.shape.index);
  if (found.body.has_value()) *out->mutable_body() = ToBodyRef(*found.body);
}

void FillRayHit(const Found& found, v1::RayHit* out) {
  out->set_shape(found.shape.index);
  if (found.body.has_value()) *out->mutable_body() = ToBodyRef(*found.body);
  SetVec(found.ray.point, out->mutable_point());
  SetVec(found.ray.normal, out->mutable_normal());
  out->set_fraction(found.ray.fraction);
}

// Looks up the world and runs `query` on its newest state; the tick it ran
// at, or NotFound "world_id" / Unavailable.
absl::StatusOr<uint64_t> RunOnWorld(
    const WorldRegistry& registry, const std::string& world_id,
    absl::FunctionRef<void(const World&)> query) {
  absl::StatusOr<std::shared_ptr<WorldHost>> host = registry.Find(world_id);
  if (!host.ok()) return host.status();
  return (*host)->Query(query);
}

}  // namespace

grpc::ServerUnaryReactor* QueryService::CastRayClosest(
    grpc::CallbackServerContext* context, const v1::CastRayRequest* request,
    v1::CastRayClosestResponse* response) {
  absl::StatusOr<RayQuery> ray = ToRayQuery(*request);
  if (!ray.ok()) return Done(context, ray.status());
  std::optional<Found> found;
  absl::StatusOr<uint64_t> tick =
      RunOnWorld(*registry_, request->world_id(), [&](const World& world) {
        std::optional<RayResult> hit =
            world.CastRayClosest(ray->origin, ray->translation, ray->filter);
        if (hit.has_value()) found = WithBody(world, *hit);
      });
  if (!tick.ok()) return Done(context, tick.status());
  response->set_tick(*tick);
  if (found.has_value()) FillRayHit(*found, response->mutable_hit());
  return Done(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* QueryService::CastRayAll(
    grpc::CallbackServerContext* context, const v1::CastRayRequest* request,
    v1::CastRayAllResponse* response) {
  absl::StatusOr<RayQuery> ray = ToRayQuery(*request);
  if (!ray.ok()) return Done(context, ray.status());
  std::vector<Found> found;
  absl::StatusOr<uint64_t> tick =
      RunOnWorld(*registry_, request->world_id(), [&](const World& world) {
        const std::vector<RayResult> hits =
            world.CastRayAll(ray->origin, ray->translation, ray->filter);
        found.reserve(hits.size());
        for (const RayResult& hit : hits) found.push_back(WithBody(world, hit));
      });
  if (!tick.ok()) return Done(context, tick.status());
  response->set_tick(*tick);
  for (const Found& f : found) FillRayHit(f, response->add_hits());
  return Done(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* QueryService::OverlapAabb(
    grpc::CallbackServerContext* context, const v1::OverlapAabbRequest* request,
    v1::OverlapResponse* response) {
  absl::StatusOr<AabbQuery> aabb = ToAabbQuery(*request);
  if (!aabb.ok()) return Done(context, aabb.status());
  std::vector<Found> found;
  absl::StatusOr<uint64_t> tick =
      RunOnWorld(*registry_, request->world_id(), [&](const World& world) {
        found = WithBodies(world, world.OverlapAabb(aabb->aabb, aabb->filter));
      });
  if (!tick.ok()) return Done(context, tick.status());
  response->set_tick(*tick);
  for (const Found& f : found) FillShapeHit(f, response->add_shapes());
  return Done(context, absl::OkStatus());
}

grpc::ServerUnaryReactor* QueryService::OverlapShape(
    grpc::CallbackServerContext* context,
    const v1::OverlapShapeRequest* request, v1::OverlapResponse* response) {
  absl::StatusOr<ShapeQuery> shape = ToShapeQuery(*request);
  if (!shape.ok()) return Done(context, shape.status());
  std::vector<Found> found;
  absl::StatusOr<uint64_t> tick =
      RunOnWorld(*registry_, request->world_id(), [&](const World& world) {
        found = WithBodies(world,
                           world.OverlapShape(shape->geometry, shape->transform,
                                              shape->filter));
      });
  if (!tick.ok()) return Done(context, tick.status());
  response->set_tick(*tick);
  for (const Found& f : found) FillShapeHit(f, response->add_shapes());
  return Done(context, absl::OkStatus());
}

}  // namespace atl::server
