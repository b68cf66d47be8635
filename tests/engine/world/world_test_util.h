// Test helpers for world-level tests.

#ifndef ATOLL_TESTS_ENGINE_WORLD_WORLD_TEST_UTIL_H_
#define ATOLL_TESTS_ENGINE_WORLD_WORLD_TEST_UTIL_H_

#include <memory>

#include <gtest/gtest.h>

#include "atoll/world.h"

namespace atl::testing {

inline std::unique_ptr<World> MakeWorld(const WorldDef& def = {}) {
  auto world = World::Create(def);
  EXPECT_TRUE(world.ok()) << world.status();
  return std::move(world).value();
}

inline Polygon BoxOrDie(float hx, float hy) { return MakeBox(hx, hy).value(); }

/// A static ground box with its top face at y = 0.
inline BodyId AddGround(World* world, float half_width = 50.0f, float friction = 0.6f) {
  BodyDef def;
  def.position = {0.0f, -1.0f};
  const BodyId ground = world->CreateBody(def).value();
  ShapeDef sd;
  sd.friction = friction;
  EXPECT_TRUE(world->CreatePolygonShape(ground, sd, BoxOrDie(half_width, 1.0f)).ok());
  return ground;
}

inline BodyId AddDynamicBox(World* world, Vec2 position, float h, float angle = 0.0f,
                            const ShapeDef& sd = {}) {
  BodyDef def;
  def.type = BodyType::kDynamic;
  def.position = position;
  def.angle = angle;
  const BodyId id = world->CreateBody(def).value();
  EXPECT_TRUE(world->CreatePolygonShape(id, sd, BoxOrDie(h, h)).ok());
  return id;
}

inline void StepN(World* world, int n, float dt = 1.0f / 60.0f) {
  for (int i = 0; i < n; ++i) ASSERT_TRUE(world->Step(dt).ok());
}

}  // namespace atl::testing

#endif  // ATOLL_TESTS_ENGINE_WORLD_WORLD_TEST_UTIL_H_
