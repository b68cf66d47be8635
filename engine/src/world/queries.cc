// World queries: AABB overlap, shape overlap and ray casts. Each goes
// through the broad phase (ids in ascending order) and refines with exact
// geometry, so results are deterministic and strategy-independent.

#include <algorithm>

#include "atoll/cast.h"
#include "atoll/distance.h"
#include "atoll/world.h"
#include "world/world_state.h"

namespace atl {
namespace {

bool Accepts(const Shape& shape, const Filter& filter) {
  return !shape.is_sensor && ShouldCollide(filter, shape.filter);
}

}  // namespace

std::vector<ShapeId> World::OverlapAabb(const AABB& aabb, const Filter& filter) const {
  std::vector<ShapeId> out;
  if (!atl::IsValid(aabb)) return out;
  const WorldState& w = *state_;
  w.broad_phase->QueryAabb(aabb, [&](int32_t id) {
    if (Accepts(w.shapes[id], filter)) out.push_back(MakeShapeId(w, id));
    return true;
  });
  return out;
}

std::vector<ShapeId> World::OverlapShape(const ShapeGeometry& geometry,
                                         const Transform& transform,
                                         const Filter& filter) const {
  std::vector<ShapeId> out;
  if (!ValidateShape(geometry).ok() || !atl::IsValid(transform.p) || !atl::IsValid(transform.q)) {
    return out;
  }
  const WorldState& w = *state_;
  const AABB bounds = ComputeShapeAABB(geometry, transform);
  DistanceInput input;
  input.proxy_a = MakeShapeProxy(geometry);
  input.transform_a = transform;
  input.use_radii = true;
  w.broad_phase->QueryAabb(bounds, [&](int32_t id) {
    const Shape& shape = w.shapes[id];
    if (!Accepts(shape, filter)) return true;
    input.proxy_b = MakeShapeProxy(shape.geometry);
    input.transform_b = w.bodies[shape.body].transform;
    // Overlap means the rounded surfaces meet (distance reaches zero).
    if (ShapeDistance(input, nullptr).distance <= 0.0f) out.push_back(MakeShapeId(w, id));
    return true;
  });
  return out;
}

std::optional<RayResult> World::CastRayClosest(Vec2 origin, Vec2 translation,
                                               const Filter& filter) const {
  if (!atl::IsValid(origin) || !atl::IsValid(translation)) return std::nullopt;
  const WorldState& w = *state_;
  RayCastInput input{origin, translation, 1.0f};
  RayHit hit;
  const bool found = w.broad_phase->RayCastClosest(
      input,
      [&](int32_t id, const RayCastInput& ray) -> float {
        const Shape& shape = w.shapes[id];
        if (!Accepts(shape, filter)) return -1.0f;
        const CastOutput out = RayCastShape(ray, shape.geometry, w.bodies[shape.body].transform);
        return out.hit ? out.fraction : -1.0f;
      },
      &hit);
  if (!found) return std::nullopt;
  // Recast against the full ray: the broad phase may have shortened it.
  const Shape& shape = w.shapes[hit.proxy_id];
  const CastOutput out = RayCastShape(input, shape.geometry, w.bodies[shape.body].transform);
  return RayResult{MakeShapeId(w, hit.proxy_id), out.point, out.normal, out.fraction};
}

std::vector<RayResult> World::CastRayAll(Vec2 origin, Vec2 translation,
                                         const Filter& filter) const {
  std::vector<RayResult> results;
  if (!atl::IsValid(origin) || !atl::IsValid(translation)) return results;
  const WorldState& w = *state_;
  RayCastInput input{origin, translation, 1.0f};
  std::vector<RayHit> hits;
  w.broad_phase->RayCastAll(
      input,
      [&](int32_t id, const RayCastInput& ray) -> float {
        const Shape& shape = w.shapes[id];
        if (!Accepts(shape, filter)) return -1.0f;
        const CastOutput out = RayCastShape(ray, shape.geometry, w.bodies[shape.body].transform);
        return out.hit ? out.fraction : -1.0f;
      },
      &hits);
  for (const RayHit& hit : hits) {
    const Shape& shape = w.shapes[hit.proxy_id];
    const CastOutput out = RayCastShape(input, shape.geometry, w.bodies[shape.body].transform);
    results.push_back({MakeShapeId(w, hit.proxy_id), out.point, out.normal, out.fraction});
  }
  return results;
}

}  // namespace atl
