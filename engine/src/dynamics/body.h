// Atoll — internal body record.

#ifndef ATOLL_DYNAMICS_BODY_H_
#define ATOLL_DYNAMICS_BODY_H_

#include <cstdint>
#include <vector>

#include "atoll/body.h"
#include "atoll/math.h"

namespace atl {

inline constexpr int32_t kNullIndex = -1;

/// A body as the world stores it. One record per pool slot, indexed by
/// BodyId::index; the solver copies the hot part of awake bodies into dense
/// arrays for the duration of a step.
struct Body {
  BodyType type = BodyType::kStatic;
  bool awake = true;
  bool enabled = true;
  bool is_bullet = false;
  bool fixed_rotation = false;
  bool allow_sleep = true;
  /// Set while the solver runs: index into the step's dense body arrays.
  int32_t solver_index = kNullIndex;

  /// Pose of the body origin and of the center of mass.
  Transform transform = kTransformIdentity;
  Vec2 center;
  Vec2 local_center;
  /// Center and rotation at the start of the step, the center moved by the
  /// step's push-out (contact_solver.h): continuous collision sweeps the
  /// motion from there, and the narrow phase tells overlap the bodies
  /// moved into by it.
  Vec2 center0;
  Rot rotation0;

  Vec2 linear_velocity;
  float angular_velocity = 0.0f;
  /// Accumulated by ApplyForce* until the next step, then cleared.
  Vec2 force;
  float torque = 0.0f;

  float inv_mass = 0.0f;
  float inertia = 0.0f, inv_inertia = 0.0f;
  /// Largest distance from the center of mass to any shape point: turns
  /// angular speed into a surface speed for the sleep test.
  float max_extent = 0.0f;
  /// Largest distance from the center of mass to a point of a shape's core
  /// (ComputeShapeCoreExtent): how far a turn can carry its shapes' region,
  /// for continuous collision. Derived from the shapes, so not in the
  /// snapshot: a restore recomputes it (ComputeBodyCoreExtent).
  float core_extent = 0.0f;
  /// Smallest half-thickness of its shapes (ComputeShapeMinExtent); 0
  /// without shapes. A body moving further than a share of it in a step
  /// gets continuous collision.
  float min_extent = 0.0f;
  float linear_damping = 0.0f, angular_damping = 0.0f;
  float gravity_scale = 1.0f;
  float sleep_threshold = 0.05f;
  /// Seconds this body has been slower than sleep_threshold.
  float sleep_time = 0.0f;

  /// Shapes of this body, in creation order (shape indices).
  std::vector<int32_t> shapes;
  /// Contacts involving this body (contact indices); order is the order of
  /// creation, compacted by the batch removal pass (seed 000 §4.2.3).
  std::vector<int32_t> contacts;
  /// Joints attached to this body (joint indices).
  std::vector<int32_t> joints;

  /// Persistent island (dynamic bodies only) and the intrusive list of the
  /// island's bodies.
  int32_t island = kNullIndex;
  int32_t island_prev = kNullIndex;
  int32_t island_next = kNullIndex;

  /// Read by the API and mass updates only: kept out of the cache lines
  /// every step reads (the four bytes fill the padding before user_data).
  float mass = 0.0f;

  uint64_t user_data = 0;
};

}  // namespace atl

#endif  // ATOLL_DYNAMICS_BODY_H_
