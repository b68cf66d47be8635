// Atoll — what happened during a step.

#ifndef ATOLL_EVENTS_H_
#define ATOLL_EVENTS_H_

#include <cstdint>
#include <vector>

#include "atoll/id.h"
#include "atoll/math.h"

namespace atl {

/// Two shapes started touching (their manifold gained a point).
struct ContactBeginEvent {
  ShapeId shape_a;
  ShapeId shape_b;
  /// World normal from A to B at the time of the event.
  Vec2 normal;
};

/// Two shapes stopped touching, or one of them was destroyed or disabled.
struct ContactEndEvent {
  ShapeId shape_a;
  ShapeId shape_b;
};

/// Two shapes collided faster than WorldDef::hit_event_threshold.
struct ContactHitEvent {
  ShapeId shape_a;
  ShapeId shape_b;
  /// World point of the fastest-approaching manifold point.
  Vec2 point;
  /// World normal from A to B.
  Vec2 normal;
  /// Speed at which the shapes approached along the normal, m/s (> 0).
  float approach_speed = 0.0f;
};

/// A shape began overlapping a sensor shape.
struct SensorBeginEvent {
  ShapeId sensor;
  ShapeId visitor;
};

/// A shape stopped overlapping a sensor shape (or one was destroyed).
struct SensorEndEvent {
  ShapeId sensor;
  ShapeId visitor;
};

/// A joint broke under load (World::SetJointBreakThresholds) and was
/// destroyed at the end of the step's solve; `joint` no longer names a live
/// joint.
struct JointBreakEvent {
  JointId joint;
  /// The joint's bodies; body_a is null for a target joint.
  BodyId body_a;
  BodyId body_b;
  /// The reaction on body B that broke it, N and N m.
  Vec2 force;
  float torque = 0.0f;
  uint64_t user_data = 0;
};

/// A body moved during the step (reported for every awake dynamic or
/// kinematic body, and once more on the step it falls asleep).
struct BodyMoveEvent {
  BodyId body;
  Transform transform;
  bool fell_asleep = false;
};

/// All events of the last step, each list in a deterministic order (contact
/// index order for contact and sensor events, joint index order for joint
/// breaks, body index order for moves).
struct StepEvents {
  std::vector<ContactBeginEvent> contact_begin;
  std::vector<ContactEndEvent> contact_end;
  std::vector<ContactHitEvent> contact_hit;
  std::vector<SensorBeginEvent> sensor_begin;
  std::vector<SensorEndEvent> sensor_end;
  std::vector<JointBreakEvent> joint_break;
  std::vector<BodyMoveEvent> body_moves;

  void Clear() {
    contact_begin.clear();
    contact_end.clear();
    contact_hit.clear();
    sensor_begin.clear();
    sensor_end.clear();
    joint_break.clear();
    body_moves.clear();
  }
};

}  // namespace atl

#endif  // ATOLL_EVENTS_H_
