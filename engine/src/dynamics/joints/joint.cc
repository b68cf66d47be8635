#include "dynamics/joints/joint.h"

#include "atoll/assert.h"
#include "dynamics/constraint_colours.h"
#include "world/world_state.h"

namespace atl {

JointData MakeJointData(JointType type) {
  switch (type) {
    case JointType::kDistance: return DistanceJoint();
    case JointType::kRevolute: return RevoluteJoint();
    case JointType::kPrismatic: return PrismaticJoint();
    case JointType::kWeld: return WeldJoint();
    case JointType::kWheel: return WheelJoint();
    case JointType::kMotor: return MotorJoint();
    case JointType::kTarget: return TargetJoint();
  }
  ATOLL_ASSERT(false && "unknown JointType");
  return DistanceJoint();
}

float JointReferenceAngle(const Joint& joint) {
  switch (joint.type) {
    case JointType::kRevolute: return std::get<RevoluteJoint>(joint.data).reference_angle;
    case JointType::kPrismatic: return std::get<PrismaticJoint>(joint.data).reference_angle;
    case JointType::kWeld: return std::get<WeldJoint>(joint.data).reference_angle;
    case JointType::kMotor: return std::get<MotorJoint>(joint.data).angular_offset;
    case JointType::kDistance:
    case JointType::kWheel:
    case JointType::kTarget:
      break;
  }
  return 0.0f;
}

bool IsPin(const Joint& joint) {
  if (joint.type != JointType::kRevolute) return false;
  const RevoluteJoint& r = std::get<RevoluteJoint>(joint.data);
  return !r.enable_spring && !r.enable_motor && !r.enable_limit;
}

std::string_view JointTypeName(JointType type) {
  switch (type) {
    case JointType::kDistance: return "distance";
    case JointType::kRevolute: return "revolute";
    case JointType::kPrismatic: return "prismatic";
    case JointType::kWeld: return "weld";
    case JointType::kWheel: return "wheel";
    case JointType::kMotor: return "motor";
    case JointType::kTarget: return "target";
  }
  return "unknown";
}

namespace {

// A body's pose and solver slot as a joint sees it; the world frame for a
// missing body.
struct Side {
  bool enabled = true;
  /// A dynamic body in the solver.
  bool moves = false;
  int32_t solver_index = kNullIndex;
  float inv_mass = 0.0f;
  float inv_inertia = 0.0f;
  Vec2 center;
  Vec2 local_center;
  Rot rotation;
};

// Inlined: PrepareJoints reads both sides of every joint, every step.
[[gnu::always_inline]] inline Side SideOf(const WorldState& w, int32_t body) {
  Side side;
  if (body == kNullIndex) return side;
  const Body& b = w.bodies[body];
  side.enabled = b.enabled;
  side.center = b.center;
  side.local_center = b.local_center;
  side.rotation = b.transform.q;
  side.solver_index = b.solver_index;
  side.moves = b.solver_index != kNullIndex && b.type == BodyType::kDynamic;
  if (side.moves) {
    side.inv_mass = b.inv_mass;
    side.inv_inertia = b.inv_inertia;
  }
  return side;
}

// Both bodies enabled, and at least one a dynamic body in the solver.
bool Participates(const Side& a, const Side& b) {
  return a.enabled && b.enabled && (a.moves || b.moves);
}

inline SolverBody Load(const SolverBody* bodies, int32_t index) {
  return index >= 0 ? bodies[index] : kStaticSolverBody;
}
// Writes back only the bodies the joint moves: a kinematic body may be read
// by other constraints of the same colour meanwhile (constraint_colours.h).
inline void Store(SolverBody* bodies, const JointFrame& f, const SolverBody& a,
                  const SolverBody& b) {
  if (ConstraintMoves(f.index_a, f.inv_mass_a, f.inv_inertia_a))
    bodies[f.index_a] = a;
  if (ConstraintMoves(f.index_b, f.inv_mass_b, f.inv_inertia_b))
    bodies[f.index_b] = b;
}

}  // namespace

void PrepareJoints(WorldState* w, const JointContext& ctx, std::vector<int32_t>* joints,
                   std::vector<JointFrame>* frames) {
  joints->clear();
  frames->clear();
  for (int32_t i = 0; i < w->joint_ids.Capacity(); ++i) {
    if (!w->joint_ids.IsAlive(i)) continue;
    Joint& j = w->joints[i];
    const Side a = SideOf(*w, j.body_a);
    const Side b = SideOf(*w, j.body_b);
    if (!Participates(a, b)) continue;
    joints->push_back(i);
    JointFrame& f = frames->emplace_back();
    f.index_a = a.solver_index;
    f.index_b = b.solver_index;
    f.inv_mass_a = a.inv_mass;
    f.inv_inertia_a = a.inv_inertia;
    f.inv_mass_b = b.inv_mass;
    f.inv_inertia_b = b.inv_inertia;
    f.anchor_a = RotateVector(a.rotation, j.local_anchor_a - a.local_center);
    f.anchor_b = RotateVector(b.rotation, j.local_anchor_b - b.local_center);
    f.delta_center = b.center - a.center;
    // The angle costs an Atan2, and a pin does not use it.
    f.pin = IsPin(j);
    f.delta_angle =
        f.pin ? 0.0f
              : UnwindAngle(RelativeAngle(a.rotation, b.rotation) - JointReferenceAngle(j));
    f.rotation_a = a.rotation;
    if (f.pin) f.pin_impulse = std::get<RevoluteJoint>(j.data).linear_impulse;
    std::visit(
        [&](auto& data) {
          using T = std::remove_cvref_t<decltype(data)>;
          if constexpr (std::is_same_v<T, DistanceJoint>) PrepareDistanceJoint(ctx, f, &data);
          if constexpr (std::is_same_v<T, RevoluteJoint>) PrepareRevoluteJoint(ctx, f, &data);
          if constexpr (std::is_same_v<T, PrismaticJoint>) PreparePrismaticJoint(ctx, f, &data);
          if constexpr (std::is_same_v<T, WeldJoint>) PrepareWeldJoint(ctx, f, &data);
          if constexpr (std::is_same_v<T, WheelJoint>) PrepareWheelJoint(ctx, f, &data);
          if constexpr (std::is_same_v<T, MotorJoint>) PrepareMotorJoint(ctx, f, &data);
          if constexpr (std::is_same_v<T, TargetJoint>) PrepareTargetJoint(ctx, f, &data);
        },
        j.data);
  }
}

void WarmStartJoint(WorldState* w, int32_t i, const JointFrame& f, SolverBody* bodies) {
  Joint& j = w->joints[i];
  SolverBody a = Load(bodies, f.index_a);
  SolverBody b = Load(bodies, f.index_b);
  std::visit(
      [&](const auto& data) {
        using T = std::remove_cvref_t<decltype(data)>;
        if constexpr (std::is_same_v<T, DistanceJoint>) WarmStartDistanceJoint(f, data, &a, &b);
        if constexpr (std::is_same_v<T, RevoluteJoint>) WarmStartRevoluteJoint(f, data, &a, &b);
        if constexpr (std::is_same_v<T, PrismaticJoint>) WarmStartPrismaticJoint(f, data, &a, &b);
        if constexpr (std::is_same_v<T, WeldJoint>) WarmStartWeldJoint(f, data, &a, &b);
        if constexpr (std::is_same_v<T, WheelJoint>) WarmStartWheelJoint(f, data, &a, &b);
        if constexpr (std::is_same_v<T, MotorJoint>) WarmStartMotorJoint(f, data, &a, &b);
        if constexpr (std::is_same_v<T, TargetJoint>) WarmStartTargetJoint(f, data, &a, &b);
      },
      j.data);
  Store(bodies, f, a, b);
}

void SolveJoint(WorldState* w, const JointContext& ctx, int32_t i, const JointFrame& f,
                SolverBody* bodies, bool use_bias) {
  Joint& j = w->joints[i];
  SolverBody a = Load(bodies, f.index_a);
  SolverBody b = Load(bodies, f.index_b);
  std::visit(
      [&](auto& data) {
        using T = std::remove_cvref_t<decltype(data)>;
        if constexpr (std::is_same_v<T, DistanceJoint>) {
          SolveDistanceJoint(ctx, f, &data, &a, &b, use_bias);
        }
        if constexpr (std::is_same_v<T, RevoluteJoint>) {
          SolveRevoluteJoint(ctx, f, &data, &a, &b, use_bias);
        }
        if constexpr (std::is_same_v<T, PrismaticJoint>) {
          SolvePrismaticJoint(ctx, f, &data, &a, &b, use_bias);
        }
        if constexpr (std::is_same_v<T, WeldJoint>) SolveWeldJoint(ctx, f, &data, &a, &b, use_bias);
        if constexpr (std::is_same_v<T, WheelJoint>) SolveWheelJoint(ctx, f, &data, &a, &b, use_bias);
        if constexpr (std::is_same_v<T, MotorJoint>) SolveMotorJoint(ctx, f, &data, &a, &b, use_bias);
        if constexpr (std::is_same_v<T, TargetJoint>) {
          SolveTargetJoint(ctx, f, &data, &a, &b, use_bias);
        }
      },
      j.data);
  Store(bodies, f, a, b);
}

JointPose GetJointPose(const WorldState& w, const Joint& j) {
  JointPose pose;
  if (j.body_a == kNullIndex) {
    pose.anchor_a = j.local_anchor_a;
  } else {
    const Transform& xa = w.bodies[j.body_a].transform;
    pose.anchor_a = TransformPoint(xa, j.local_anchor_a);
    pose.rotation_a = xa.q;
  }
  const Transform& xb = w.bodies[j.body_b].transform;
  pose.anchor_b = TransformPoint(xb, j.local_anchor_b);
  pose.rotation_b = xb.q;
  return pose;
}

JointReaction GetJointReaction(const Joint& j, const JointPose& pose) {
  return std::visit(
      [&pose](const auto& data) -> JointReaction {
        using T = std::remove_cvref_t<decltype(data)>;
        if constexpr (std::is_same_v<T, DistanceJoint>) return DistanceReaction(data, pose);
        if constexpr (std::is_same_v<T, RevoluteJoint>) return RevoluteReaction(data, pose);
        if constexpr (std::is_same_v<T, PrismaticJoint>) return PrismaticReaction(data, pose);
        if constexpr (std::is_same_v<T, WeldJoint>) return WeldReaction(data, pose);
        if constexpr (std::is_same_v<T, WheelJoint>) return WheelReaction(data, pose);
        if constexpr (std::is_same_v<T, MotorJoint>) return MotorReaction(data, pose);
        if constexpr (std::is_same_v<T, TargetJoint>) return TargetReaction(data, pose);
      },
      j.data);
}

}  // namespace atl
