// Helpers for joint tests.

#ifndef ATOLL_TESTS_ENGINE_DYNAMICS_JOINTS_JOINT_TEST_UTIL_H_
#define ATOLL_TESTS_ENGINE_DYNAMICS_JOINTS_JOINT_TEST_UTIL_H_

#include <gtest/gtest.h>

#include "atoll/world.h"
#include "engine/world/world_test_util.h"

namespace atl::testing {

/// A static body with no shapes at `position` (a pivot for joints).
inline BodyId AddStaticAnchor(World* world, Vec2 position = {}) {
  BodyDef def;
  def.position = position;
  return world->CreateBody(def).value();
}

/// A dynamic circle.
inline BodyId AddDynamicCircle(World* world, Vec2 position, float radius, float density = 1.0f) {
  BodyDef def;
  def.type = BodyType::kDynamic;
  def.position = position;
  const BodyId id = world->CreateBody(def).value();
  ShapeDef sd;
  sd.density = density;
  EXPECT_TRUE(world->CreateCircleShape(id, sd, Circle{{0.0f, 0.0f}, radius}).ok());
  return id;
}

/// A dynamic box with half-extents hx, hy.
inline BodyId AddDynamicRect(World* world, Vec2 position, float hx, float hy,
                             float density = 1.0f) {
  BodyDef def;
  def.type = BodyType::kDynamic;
  def.position = position;
  const BodyId id = world->CreateBody(def).value();
  ShapeDef sd;
  sd.density = density;
  EXPECT_TRUE(world->CreatePolygonShape(id, sd, MakeBox(hx, hy).value()).ok());
  return id;
}

/// A body-frame point of `body` now at world point `p`.
inline Vec2 LocalPoint(const World& world, BodyId body, Vec2 p) {
  return InvTransformPoint(world.GetBody(body).value().transform, p);
}

/// World point of the body-frame point `local` of `body`.
inline Vec2 WorldPoint(const World& world, BodyId body, Vec2 local) {
  return TransformPoint(world.GetBody(body).value().transform, local);
}

}  // namespace atl::testing

#endif  // ATOLL_TESTS_ENGINE_DYNAMICS_JOINTS_JOINT_TEST_UTIL_H_
