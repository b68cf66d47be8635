// Atoll — the world: bodies, shapes and the step that moves them.

#ifndef ATOLL_WORLD_H_
#define ATOLL_WORLD_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "atoll/body.h"
#include "atoll/events.h"
#include "atoll/filter.h"
#include "atoll/geometry.h"
#include "atoll/id.h"
#include "atoll/joint.h"
#include "atoll/math.h"
#include "atoll/profile.h"
#include "atoll/shape.h"
#include "atoll/world_def.h"

namespace atl {

struct WorldState;
class DebugDraw;
class Executor;
struct DebugDrawOptions;

/// A shape hit by a ray.
struct RayResult {
  ShapeId shape;
  /// World hit point and surface normal.
  Vec2 point;
  Vec2 normal;
  /// Where along the ray: point = origin + fraction * translation.
  float fraction = 0.0f;
};

/// Sizes of the world's contents, for monitoring and tests.
struct WorldCounters {
  int32_t bodies = 0;
  int32_t awake_bodies = 0;
  int32_t shapes = 0;
  int32_t contacts = 0;
  int32_t joints = 0;
  int32_t touching_contacts = 0;
  int32_t islands = 0;
  int32_t awake_islands = 0;
};

/// A physics world. Deterministic: the same calls in the same order give
/// bit-identical results on every machine. Not thread-safe; one thread at a
/// time (the step itself may use worker threads).
///
/// Every call that names a body, shape or joint checks the id: a null id,
/// one from another world, or one whose object was destroyed is rejected
/// with InvalidArgument / NotFound and nothing changes.
class World {
 public:
  /// A new, empty world. InvalidArgument (naming the field) for a bad def.
  static absl::StatusOr<std::unique_ptr<World>> Create(const WorldDef& def);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  const WorldDef& def() const;

  /// Advances the world by `time_step` seconds (typically 1/60) with
  /// def().substep_count substeps. InvalidArgument when time_step is not
  /// finite or not in (0, 1]; then nothing changes. Internal when the
  /// solve left a body's position or velocity not finite (the world
  /// diverged: a badly conditioned constraint); the world is then left
  /// mid-step, and every later Step fails with FailedPrecondition and the
  /// same message until a snapshot is restored into it.
  absl::Status Step(float time_step);

  /// Steps completed so far.
  int64_t step_count() const;

  /// Time per stage of the last step.
  const StepProfile& profile() const;

  /// Runs the step's parallel stages on `executor` (not owned; it must
  /// outlive the world or be replaced first). nullptr restores the serial
  /// default. Results are bit-identical for every executor and thread count.
  void SetExecutor(Executor* executor);

  /// Events of the last step (cleared at the start of each step). End
  /// events caused by destroying things between steps arrive with the next
  /// step's events.
  const StepEvents& events() const;

  // --- Bodies ---------------------------------------------------------------

  /// Creates a body. InvalidArgument naming the bad field of `def`.
  absl::StatusOr<BodyId> CreateBody(const BodyDef& def);

  /// Destroys a body with its shapes and joints; its contacts end (with end
  /// events in the next step's events) and the bodies it touched or was
  /// jointed to wake up.
  absl::Status DestroyBody(BodyId id);

  /// True when `id` names a live body of this world.
  bool IsValid(BodyId id) const;

  /// The body's current state.
  absl::StatusOr<BodyInfo> GetBody(BodyId id) const;

  /// Teleports the body origin to `position` with `angle` and wakes it.
  /// InvalidArgument for non-finite or out-of-bounds values.
  absl::Status SetTransform(BodyId id, Vec2 position, float angle);
  /// Sets the velocity of the center of mass (ignored for static bodies);
  /// wakes the body when nonzero.
  absl::Status SetLinearVelocity(BodyId id, Vec2 velocity);
  absl::Status SetAngularVelocity(BodyId id, float velocity);
  /// A force (N) at a world point, acting during the next step only.
  absl::Status ApplyForce(BodyId id, Vec2 force, Vec2 point, bool wake);
  absl::Status ApplyForceToCenter(BodyId id, Vec2 force, bool wake);
  absl::Status ApplyTorque(BodyId id, float torque, bool wake);
  /// An impulse (N s) at a world point: changes velocity at once.
  absl::Status ApplyLinearImpulse(BodyId id, Vec2 impulse, Vec2 point, bool wake);
  absl::Status ApplyAngularImpulse(BodyId id, float impulse, bool wake);
  /// Wakes the body's island, or puts it to sleep.
  absl::Status SetAwake(BodyId id, bool awake);
  /// A disabled body keeps its shapes but has no contacts and does not move.
  absl::Status SetEnabled(BodyId id, bool enabled);
  absl::Status SetBullet(BodyId id, bool is_bullet);
  absl::Status SetGravityScale(BodyId id, float scale);

  // --- Shapes -----------------------------------------------------------

  /// Attaches a shape to a body and updates the body's mass; does not wake
  /// the body. Errors:
  /// InvalidArgument for a bad def or geometry, NotFound for a stale body.
  absl::StatusOr<ShapeId> CreateCircleShape(BodyId body, const ShapeDef& def,
                                            const Circle& circle);
  absl::StatusOr<ShapeId> CreateCapsuleShape(BodyId body, const ShapeDef& def,
                                             const Capsule& capsule);
  absl::StatusOr<ShapeId> CreatePolygonShape(BodyId body, const ShapeDef& def,
                                             const Polygon& polygon);
  absl::StatusOr<ShapeId> CreateSegmentShape(BodyId body, const ShapeDef& def,
                                             const Segment& segment);
  /// A single chain segment (one-sided, with ghost vertices); usually made
  /// by CreateChain.
  absl::StatusOr<ShapeId> CreateChainSegmentShape(BodyId body, const ShapeDef& def,
                                                  const ChainSegment& segment);
  /// One shape per chain segment (see MakeChainSegments), returned in order.
  absl::StatusOr<std::vector<ShapeId>> CreateChain(
      BodyId body, const ShapeDef& def, std::span<const Vec2> points, bool loop);
  /// Detaches and destroys a shape; its contacts end.
  absl::Status DestroyShape(ShapeId id);
  bool IsValid(ShapeId id) const;
  /// The body a shape is attached to.
  absl::StatusOr<BodyId> GetShapeBody(ShapeId id) const;
  absl::StatusOr<ShapeGeometry> GetShapeGeometry(ShapeId id) const;
  /// The shape's bounds as the broad phase sees them (tight + margin).
  absl::StatusOr<AABB> GetShapeAabb(ShapeId id) const;

  // --- Joints -------------------------------------------------------------
  // Creating a joint wakes both bodies; when the def's collide_connected is
  // false, contacts between the two bodies end at once and none form while
  // the joint exists. Errors: InvalidArgument naming the bad def field (or
  // "body_b" when both ids name the same body), InvalidArgument / NotFound
  // for a null, foreign or stale body id. On error nothing changes.

  absl::StatusOr<JointId> CreateDistanceJoint(const DistanceJointDef& def);
  absl::StatusOr<JointId> CreateRevoluteJoint(const RevoluteJointDef& def);
  absl::StatusOr<JointId> CreatePrismaticJoint(const PrismaticJointDef& def);
  absl::StatusOr<JointId> CreateWeldJoint(const WeldJointDef& def);
  absl::StatusOr<JointId> CreateWheelJoint(const WheelJointDef& def);
  absl::StatusOr<JointId> CreateMotorJoint(const MotorJointDef& def);
  absl::StatusOr<JointId> CreateTargetJoint(const TargetJointDef& def);

  /// Destroys a joint and wakes both bodies. Contacts between them may form
  /// again from the next step.
  absl::Status DestroyJoint(JointId id);
  /// True when `id` names a live joint of this world.
  bool IsValid(JointId id) const;
  /// Ids of every live joint, in index order.
  std::vector<JointId> GetJointIds() const;
  absl::StatusOr<JointType> GetJointType(JointId id) const;
  /// The joint's bodies; body A of a target joint is the null id.
  absl::StatusOr<BodyId> GetJointBodyA(JointId id) const;
  absl::StatusOr<BodyId> GetJointBodyB(JointId id) const;
  absl::StatusOr<uint64_t> GetJointUserData(JointId id) const;

  /// The force (N, world frame) and torque (N m) the joint applied to body
  /// B during the last step (body A got the opposite): the accumulated
  /// constraint impulse divided by the substep it acts over. Zero before
  /// the first step. Use them to break joints under load.
  absl::StatusOr<Vec2> GetJointReactionForce(JointId id) const;
  absl::StatusOr<float> GetJointReactionTorque(JointId id) const;

  /// Makes the joint breakable: at the end of each step's solve, a joint
  /// whose reaction force (GetJointReactionForce, its length) exceeds
  /// `force` or whose reaction torque (its magnitude) exceeds `torque` is
  /// destroyed, in joint index order, and reported in events().joint_break.
  /// Both in N / N m, >= 0 and not NaN; infinity (a new joint's default)
  /// never breaks. InvalidArgument (joint unchanged) for a bad value. Part
  /// of the snapshot.
  absl::Status SetJointBreakThresholds(JointId id, float force, float torque);
  /// The joint's break thresholds (force, torque); infinity for never.
  absl::StatusOr<std::pair<float, float>> GetJointBreakThresholds(JointId id) const;

  /// The joint angle (revolute, weld: B relative to A minus the reference
  /// angle, in (-pi, pi]) and translation (prismatic, wheel: B's anchor
  /// from A's along the axis, m) at the bodies' current poses.
  /// InvalidArgument for other joint types.
  absl::StatusOr<float> GetJointAngle(JointId id) const;
  absl::StatusOr<float> GetJointTranslation(JointId id) const;

  // Setters. Each wakes both bodies and returns InvalidArgument (world
  // unchanged) for a joint type without that feature or a bad value.

  /// Revolute, prismatic, wheel.
  absl::Status EnableMotor(JointId id, bool enable);
  absl::Status SetMotorSpeed(JointId id, float speed);
  /// Revolute and wheel motors; the motor joint's max_torque. >= 0.
  absl::Status SetMaxMotorTorque(JointId id, float torque);
  /// Prismatic motor; the motor and target joints' max_force. >= 0.
  absl::Status SetMaxMotorForce(JointId id, float force);
  /// Distance (length range), revolute, prismatic, wheel.
  absl::Status EnableLimit(JointId id, bool enable);
  /// Lower <= upper; distance: min/max length; revolute: angles in
  /// [-pi, pi]; prismatic and wheel: translations.
  absl::Status SetLimits(JointId id, float lower, float upper);
  /// Distance, revolute, prismatic, wheel.
  absl::Status EnableSpring(JointId id, bool enable);
  /// Spring frequency (Hz) and damping ratio, both >= 0, of the distance,
  /// revolute, prismatic and wheel springs and the target joint (hertz >
  /// 0 there); for a weld, both its linear and angular parts.
  absl::Status SetSpring(JointId id, float hertz, float damping_ratio);
  /// Distance joint rest length, in [kLinearSlop, kJointHugeLength].
  absl::Status SetDistanceLength(JointId id, float length);
  /// Motor joint target pose of B in A's frame.
  absl::Status SetMotorJointOffsets(JointId id, Vec2 linear_offset, float angular_offset);
  /// Target joint's world target.
  absl::Status SetTarget(JointId id, Vec2 target);

  // --- Queries ----------------------------------------------------------
  // Results come in a deterministic order and respect `filter` (a shape is
  // reported when ShouldCollide(filter, shape filter)). Sensors are skipped.

  /// Shapes whose bounds overlap `aabb`, in shape index order.
  std::vector<ShapeId> OverlapAabb(const AABB& aabb, const Filter& filter = {}) const;
  /// Shapes whose geometry overlaps `geometry` placed at `transform`.
  std::vector<ShapeId> OverlapShape(const ShapeGeometry& geometry,
                                    const Transform& transform,
                                    const Filter& filter = {}) const;
  /// The first shape along origin -> origin + translation, if any.
  std::optional<RayResult> CastRayClosest(Vec2 origin, Vec2 translation,
                                          const Filter& filter = {}) const;
  /// Every shape along the ray, nearest first.
  std::vector<RayResult> CastRayAll(Vec2 origin, Vec2 translation,
                                    const Filter& filter = {}) const;

  // --- Introspection ------------------------------------------------------

  /// Walks every body, contact and island: O(n).
  WorldCounters GetCounters() const;
  /// Live bodies, in constant time.
  int32_t GetBodyCount() const;

  /// The union of every shape's bounds; a unit box at the origin when the
  /// world has no shapes.
  AABB GetBounds() const;

  /// Calls `draw` for shapes, joints, contacts, AABBs and islands per
  /// `options`.
  void Draw(DebugDraw* draw, const DebugDrawOptions& options) const;

  /// Ids of every live body, in index order.
  std::vector<BodyId> GetBodyIds() const;

  /// Internal state, for the engine's own modules (snapshots, tests).
  WorldState& state() { return *state_; }
  const WorldState& state() const { return *state_; }

 private:
  explicit World(std::unique_ptr<WorldState> state);
  std::unique_ptr<WorldState> state_;
};

}  // namespace atl

#endif  // ATOLL_WORLD_H_
