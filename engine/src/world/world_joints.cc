// World's joint API: creation, destruction, queries and setters.

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "atoll/world.h"
#include "dynamics/contact_manager.h"
#include "dynamics/island.h"
#include "world/world_internal.h"
#include "world/world_state.h"

namespace atl {
namespace {

absl::Status CheckJoint(const WorldState& w, JointId id) {
  if (!id.IsValid()) return absl::InvalidArgumentError("joint id is null");
  if (id.world != w.def.world_id) {
    return absl::InvalidArgumentError(
        absl::StrCat("joint id belongs to world ", id.world, ", not ", w.def.world_id));
  }
  if (!w.joint_ids.Matches(static_cast<int32_t>(id.index), id.generation)) {
    return absl::NotFoundError(
        absl::StrCat("joint id ", id.index, " does not name a live joint of this world"));
  }
  return absl::OkStatus();
}

// Both body ids live, and distinct.
absl::Status CheckBodies(const WorldState& w, const char* def, BodyId a, BodyId b) {
  if (absl::Status s = CheckBody(w, a); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(def, ".body_a: ", s.message()));
  }
  if (absl::Status s = CheckBody(w, b); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(def, ".body_b: ", s.message()));
  }
  if (a.index == b.index) {
    return absl::InvalidArgumentError(
        absl::StrCat(def, ".body_b names the same body as body_a; a joint needs two bodies"));
  }
  return absl::OkStatus();
}

// Ends every contact between bodies a and b (their shapes may no longer
// collide), in contact index order.
void DestroyContactsBetween(WorldState* w, int32_t a, int32_t b) {
  std::vector<int32_t> doomed;
  for (int32_t c : w->bodies[a].contacts) {
    const Contact& contact = w->contacts[c];
    if (contact.body_a == b || contact.body_b == b) doomed.push_back(c);
  }
  std::sort(doomed.begin(), doomed.end());
  for (int32_t c : doomed) DestroyContact(w, c, EndEventTarget::kNextStep, /*wake=*/true);
}

void WakeJointBodies(WorldState* w, const Joint& j) {
  if (j.body_a != kNullIndex) WakeBody(w, j.body_a);
  WakeBody(w, j.body_b);
}

// Everything validated: makes the record, lists it on its bodies, links the
// islands and wakes the bodies.
JointId AddJoint(WorldState* w, JointType type, int32_t body_a, int32_t body_b,
                 Vec2 local_anchor_a, Vec2 local_anchor_b, bool collide_connected,
                 uint64_t user_data, JointData data) {
  const int32_t index = w->joint_ids.Alloc();
  ++w->contact_rule_epoch;
  if (index >= static_cast<int32_t>(w->joints.size())) w->joints.resize(index + 1);
  Joint& j = w->joints[index];
  j = Joint();
  j.type = type;
  j.body_a = body_a;
  j.body_b = body_b;
  j.local_anchor_a = local_anchor_a;
  j.local_anchor_b = local_anchor_b;
  j.collide_connected = collide_connected;
  j.user_data = user_data;
  j.data = std::move(data);
  ATOLL_ASSERT(j.data.index() == static_cast<size_t>(type));
  if (body_a != kNullIndex) w->bodies[body_a].joints.push_back(index);
  w->bodies[body_b].joints.push_back(index);
  if (body_a != kNullIndex && !collide_connected) DestroyContactsBetween(w, body_a, body_b);
  if (IsIslandJoint(*w, index)) LinkJoint(w, index);
  WakeJointBodies(w, j);
  return MakeJointId(*w, index);
}

template <typename Def>
absl::StatusOr<JointId> AddPairJoint(WorldState* w, const char* def_name, JointType type,
                                     const Def& def, Vec2 anchor_a, Vec2 anchor_b,
                                     JointData data) {
  if (absl::Status s = CheckBodies(*w, def_name, def.body_a, def.body_b); !s.ok()) return s;
  return AddJoint(w, type, static_cast<int32_t>(def.body_a.index),
                  static_cast<int32_t>(def.body_b.index), anchor_a, anchor_b,
                  def.collide_connected, def.user_data, std::move(data));
}

absl::Status WrongType(const Joint& j, const char* call, const char* applies_to) {
  return absl::InvalidArgumentError(absl::StrCat(call, " does not apply to a ",
                                                 std::string(JointTypeName(j.type)),
                                                 " joint (only ", applies_to, ")"));
}

// Unlinks, unlists and frees joint `index`, waking its bodies.
void RemoveJoint(WorldState* w, int32_t index) {
  const Joint& joint = w->joints[index];
  UnlinkJoint(w, index);
  for (int32_t b : {joint.body_a, joint.body_b}) {
    if (b == kNullIndex) continue;
    std::vector<int32_t>& list = w->bodies[b].joints;
    list.erase(std::find(list.begin(), list.end(), index));
    WakeBody(w, b);
  }
  w->joints[index] = Joint();
  w->joint_ids.Free(index);
  ++w->contact_rule_epoch;
}

absl::Status CheckNonNegative(const char* what, float v) {
  if (!IsFinite(v) || v < 0.0f) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be finite and >= 0"));
  }
  return absl::OkStatus();
}

}  // namespace

void DestroyJointsOfBody(WorldState* w, int32_t body) {
  std::vector<int32_t> doomed = w->bodies[body].joints;
  std::sort(doomed.begin(), doomed.end());
  for (int32_t j : doomed) RemoveJoint(w, j);
}

absl::StatusOr<JointId> World::CreateDistanceJoint(const DistanceJointDef& def) {
  if (absl::Status s = ValidateDistanceJointDef(def); !s.ok()) return s;
  return AddPairJoint(state_.get(), "DistanceJointDef", JointType::kDistance, def,
                      def.local_anchor_a, def.local_anchor_b, MakeDistanceJoint(def));
}

absl::StatusOr<JointId> World::CreateRevoluteJoint(const RevoluteJointDef& def) {
  if (absl::Status s = ValidateRevoluteJointDef(def); !s.ok()) return s;
  return AddPairJoint(state_.get(), "RevoluteJointDef", JointType::kRevolute, def,
                      def.local_anchor_a, def.local_anchor_b, MakeRevoluteJoint(def));
}

absl::StatusOr<JointId> World::CreatePrismaticJoint(const PrismaticJointDef& def) {
  if (absl::Status s = ValidatePrismaticJointDef(def); !s.ok()) return s;
  return AddPairJoint(state_.get(), "PrismaticJointDef", JointType::kPrismatic, def,
                      def.local_anchor_a, def.local_anchor_b, MakePrismaticJoint(def));
}

absl::StatusOr<JointId> World::CreateWeldJoint(const WeldJointDef& def) {
  if (absl::Status s = ValidateWeldJointDef(def); !s.ok()) return s;
  return AddPairJoint(state_.get(), "WeldJointDef", JointType::kWeld, def, def.local_anchor_a,
                      def.local_anchor_b, MakeWeldJoint(def));
}

absl::StatusOr<JointId> World::CreateWheelJoint(const WheelJointDef& def) {
  if (absl::Status s = ValidateWheelJointDef(def); !s.ok()) return s;
  return AddPairJoint(state_.get(), "WheelJointDef", JointType::kWheel, def, def.local_anchor_a,
                      def.local_anchor_b, MakeWheelJoint(def));
}

absl::StatusOr<JointId> World::CreateMotorJoint(const MotorJointDef& def) {
  if (absl::Status s = ValidateMotorJointDef(def); !s.ok()) return s;
  return AddPairJoint(state_.get(), "MotorJointDef", JointType::kMotor, def, def.linear_offset,
                      Vec2{0.0f, 0.0f}, MakeMotorJoint(def));
}

absl::StatusOr<JointId> World::CreateTargetJoint(const TargetJointDef& def) {
  if (absl::Status s = ValidateTargetJointDef(def); !s.ok()) return s;
  WorldState* w = state_.get();
  if (absl::Status s = CheckBody(*w, def.body); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("TargetJointDef.body: ", s.message()));
  }
  const int32_t body = static_cast<int32_t>(def.body.index);
  // The body point now at the target is the one pulled towards it.
  const Vec2 anchor_b = InvTransformPoint(w->bodies[body].transform, def.target);
  return AddJoint(w, JointType::kTarget, kNullIndex, body, def.target, anchor_b,
                  /*collide_connected=*/true, def.user_data, MakeTargetJoint(def));
}

absl::Status World::DestroyJoint(JointId id) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckJoint(*w, id); !s.ok()) return s;
  RemoveJoint(w, static_cast<int32_t>(id.index));
  return absl::OkStatus();
}

bool World::IsValid(JointId id) const { return CheckJoint(*state_, id).ok(); }

std::vector<JointId> World::GetJointIds() const {
  std::vector<JointId> ids;
  for (int32_t i = 0; i < state_->joint_ids.Capacity(); ++i) {
    if (state_->joint_ids.IsAlive(i)) ids.push_back(MakeJointId(*state_, i));
  }
  return ids;
}

absl::StatusOr<JointType> World::GetJointType(JointId id) const {
  if (absl::Status s = CheckJoint(*state_, id); !s.ok()) return s;
  return state_->joints[id.index].type;
}

absl::StatusOr<BodyId> World::GetJointBodyA(JointId id) const {
  if (absl::Status s = CheckJoint(*state_, id); !s.ok()) return s;
  const int32_t body = state_->joints[id.index].body_a;
  return body == kNullIndex ? BodyId() : MakeBodyId(*state_, body);
}

absl::StatusOr<BodyId> World::GetJointBodyB(JointId id) const {
  if (absl::Status s = CheckJoint(*state_, id); !s.ok()) return s;
  return MakeBodyId(*state_, state_->joints[id.index].body_b);
}

absl::StatusOr<uint64_t> World::GetJointUserData(JointId id) const {
  if (absl::Status s = CheckJoint(*state_, id); !s.ok()) return s;
  return state_->joints[id.index].user_data;
}

namespace {

// 1 / substep of the last step, or 0 before the first.
float LastInverseSubstep(const WorldState& w) {
  if (w.last_time_step <= 0.0f) return 0.0f;
  return static_cast<float>(w.def.substep_count) / w.last_time_step;
}

}  // namespace

absl::StatusOr<Vec2> World::GetJointReactionForce(JointId id) const {
  if (absl::Status s = CheckJoint(*state_, id); !s.ok()) return s;
  const Joint& j = state_->joints[id.index];
  const JointReaction r = GetJointReaction(j, GetJointPose(*state_, j));
  return LastInverseSubstep(*state_) * r.linear;
}

absl::StatusOr<float> World::GetJointReactionTorque(JointId id) const {
  if (absl::Status s = CheckJoint(*state_, id); !s.ok()) return s;
  const Joint& j = state_->joints[id.index];
  const JointReaction r = GetJointReaction(j, GetJointPose(*state_, j));
  return LastInverseSubstep(*state_) * r.angular;
}

absl::Status World::SetJointBreakThresholds(JointId id, float force, float torque) {
  if (absl::Status s = CheckJoint(*state_, id); !s.ok()) return s;
  for (const auto& [name, v] : {std::pair{"break force", force}, std::pair{"break torque", torque}}) {
    if (std::isnan(v) || v < 0.0f) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, " must be >= 0 (infinity: never), got ", v));
    }
  }
  Joint& j = state_->joints[id.index];
  j.break_force = force;
  j.break_torque = torque;
  return absl::OkStatus();
}

absl::StatusOr<std::pair<float, float>> World::GetJointBreakThresholds(JointId id) const {
  if (absl::Status s = CheckJoint(*state_, id); !s.ok()) return s;
  const Joint& j = state_->joints[id.index];
  return std::pair{j.break_force, j.break_torque};
}

void BreakOverloadedJoints(WorldState* w, std::span<const int32_t> solved, float time_step) {
  // The reaction as GetJointReactionForce will report it after the step.
  const float inv_h = static_cast<float>(w->def.substep_count) / time_step;
  std::vector<int32_t> broken;
  for (int32_t index : solved) {
    const Joint& j = w->joints[index];
    if (j.break_force == kInfinity && j.break_torque == kInfinity) continue;
    const JointReaction r = GetJointReaction(j, GetJointPose(*w, j));
    const Vec2 force = inv_h * r.linear;
    const float torque = inv_h * r.angular;
    if (Length(force) <= j.break_force && std::abs(torque) <= j.break_torque) continue;
    w->events.joint_break.push_back(
        {MakeJointId(*w, index),
         j.body_a == kNullIndex ? BodyId() : MakeBodyId(*w, j.body_a),
         MakeBodyId(*w, j.body_b), force, torque, j.user_data});
    broken.push_back(index);
  }
  // Removed after the loop: the solve's list stays valid while it is read.
  for (int32_t index : broken) RemoveJoint(w, index);
}

absl::StatusOr<float> World::GetJointAngle(JointId id) const {
  if (absl::Status s = CheckJoint(*state_, id); !s.ok()) return s;
  const Joint& j = state_->joints[id.index];
  if (j.type != JointType::kRevolute && j.type != JointType::kWeld) {
    return WrongType(j, "GetJointAngle", "revolute and weld");
  }
  const JointPose pose = GetJointPose(*state_, j);
  return UnwindAngle(RelativeAngle(pose.rotation_a, pose.rotation_b) - JointReferenceAngle(j));
}

absl::StatusOr<float> World::GetJointTranslation(JointId id) const {
  if (absl::Status s = CheckJoint(*state_, id); !s.ok()) return s;
  const Joint& j = state_->joints[id.index];
  const JointPose pose = GetJointPose(*state_, j);
  if (const auto* p = std::get_if<PrismaticJoint>(&j.data)) return PrismaticTranslation(*p, pose);
  if (const auto* wh = std::get_if<WheelJoint>(&j.data)) return WheelTranslation(*wh, pose);
  return WrongType(j, "GetJointTranslation", "prismatic and wheel");
}

absl::Status World::EnableMotor(JointId id, bool enable) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckJoint(*w, id); !s.ok()) return s;
  Joint& j = w->joints[id.index];
  if (auto* r = std::get_if<RevoluteJoint>(&j.data)) {
    r->enable_motor = enable;
  } else if (auto* p = std::get_if<PrismaticJoint>(&j.data)) {
    p->enable_motor = enable;
  } else if (auto* wh = std::get_if<WheelJoint>(&j.data)) {
    wh->enable_motor = enable;
  } else {
    return WrongType(j, "EnableMotor", "revolute, prismatic and wheel");
  }
  WakeJointBodies(w, j);
  return absl::OkStatus();
}

absl::Status World::SetMotorSpeed(JointId id, float speed) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckJoint(*w, id); !s.ok()) return s;
  if (!IsFinite(speed)) return absl::InvalidArgumentError("motor speed must be finite");
  Joint& j = w->joints[id.index];
  if (auto* r = std::get_if<RevoluteJoint>(&j.data)) {
    r->motor_speed = speed;
  } else if (auto* p = std::get_if<PrismaticJoint>(&j.data)) {
    p->motor_speed = speed;
  } else if (auto* wh = std::get_if<WheelJoint>(&j.data)) {
    wh->motor_speed = speed;
  } else {
    return WrongType(j, "SetMotorSpeed", "revolute, prismatic and wheel");
  }
  WakeJointBodies(w, j);
  return absl::OkStatus();
}

absl::Status World::SetMaxMotorTorque(JointId id, float torque) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckJoint(*w, id); !s.ok()) return s;
  if (absl::Status s = CheckNonNegative("max motor torque", torque); !s.ok()) return s;
  Joint& j = w->joints[id.index];
  if (auto* r = std::get_if<RevoluteJoint>(&j.data)) {
    r->max_motor_torque = torque;
  } else if (auto* wh = std::get_if<WheelJoint>(&j.data)) {
    wh->max_motor_torque = torque;
  } else if (auto* m = std::get_if<MotorJoint>(&j.data)) {
    m->max_torque = torque;
  } else {
    return WrongType(j, "SetMaxMotorTorque", "revolute, wheel and motor");
  }
  WakeJointBodies(w, j);
  return absl::OkStatus();
}

absl::Status World::SetMaxMotorForce(JointId id, float force) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckJoint(*w, id); !s.ok()) return s;
  if (absl::Status s = CheckNonNegative("max motor force", force); !s.ok()) return s;
  Joint& j = w->joints[id.index];
  if (auto* p = std::get_if<PrismaticJoint>(&j.data)) {
    p->max_motor_force = force;
  } else if (auto* m = std::get_if<MotorJoint>(&j.data)) {
    m->max_force = force;
  } else if (auto* t = std::get_if<TargetJoint>(&j.data)) {
    t->max_force = force;
  } else {
    return WrongType(j, "SetMaxMotorForce", "prismatic, motor and target");
  }
  WakeJointBodies(w, j);
  return absl::OkStatus();
}

absl::Status World::EnableLimit(JointId id, bool enable) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckJoint(*w, id); !s.ok()) return s;
  Joint& j = w->joints[id.index];
  if (auto* d = std::get_if<DistanceJoint>(&j.data)) {
    d->enable_limit = enable;
  } else if (auto* r = std::get_if<RevoluteJoint>(&j.data)) {
    r->enable_limit = enable;
  } else if (auto* p = std::get_if<PrismaticJoint>(&j.data)) {
    p->enable_limit = enable;
  } else if (auto* wh = std::get_if<WheelJoint>(&j.data)) {
    wh->enable_limit = enable;
  } else {
    return WrongType(j, "EnableLimit", "distance, revolute, prismatic and wheel");
  }
  WakeJointBodies(w, j);
  return absl::OkStatus();
}

absl::Status World::SetLimits(JointId id, float lower, float upper) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckJoint(*w, id); !s.ok()) return s;
  if (!IsFinite(lower) || !IsFinite(upper)) {
    return absl::InvalidArgumentError("limits must be finite");
  }
  if (lower > upper) return absl::InvalidArgumentError("lower limit must not exceed upper limit");
  Joint& j = w->joints[id.index];
  if (auto* d = std::get_if<DistanceJoint>(&j.data)) {
    if (lower < 0.0f || upper > kJointHugeLength) {
      return absl::InvalidArgumentError("distance limits must lie in [0, kJointHugeLength]");
    }
    d->min_length = lower;
    d->max_length = upper;
  } else if (auto* r = std::get_if<RevoluteJoint>(&j.data)) {
    if (lower < -kPi || upper > kPi) {
      return absl::InvalidArgumentError("revolute limits must lie in [-pi, pi]");
    }
    r->lower_angle = lower;
    r->upper_angle = upper;
  } else if (auto* p = std::get_if<PrismaticJoint>(&j.data)) {
    p->lower_translation = lower;
    p->upper_translation = upper;
  } else if (auto* wh = std::get_if<WheelJoint>(&j.data)) {
    wh->lower_translation = lower;
    wh->upper_translation = upper;
  } else {
    return WrongType(j, "SetLimits", "distance, revolute, prismatic and wheel");
  }
  WakeJointBodies(w, j);
  return absl::OkStatus();
}

absl::Status World::EnableSpring(JointId id, bool enable) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckJoint(*w, id); !s.ok()) return s;
  Joint& j = w->joints[id.index];
  if (auto* d = std::get_if<DistanceJoint>(&j.data)) {
    d->enable_spring = enable;
  } else if (auto* r = std::get_if<RevoluteJoint>(&j.data)) {
    r->enable_spring = enable;
  } else if (auto* p = std::get_if<PrismaticJoint>(&j.data)) {
    p->enable_spring = enable;
  } else if (auto* wh = std::get_if<WheelJoint>(&j.data)) {
    wh->enable_spring = enable;
  } else {
    return WrongType(j, "EnableSpring", "distance, revolute, prismatic and wheel");
  }
  WakeJointBodies(w, j);
  return absl::OkStatus();
}

absl::Status World::SetSpring(JointId id, float hertz, float damping_ratio) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckJoint(*w, id); !s.ok()) return s;
  if (absl::Status s = CheckNonNegative("spring hertz", hertz); !s.ok()) return s;
  if (absl::Status s = CheckNonNegative("spring damping ratio", damping_ratio); !s.ok()) return s;
  if (hertz > kMaxSpringHertz || damping_ratio > kMaxDampingRatio) {
    return absl::InvalidArgumentError(
        "spring hertz and damping ratio must not exceed kMaxSpringHertz and kMaxDampingRatio "
        "(1e6 each)");
  }
  Joint& j = w->joints[id.index];
  if (auto* d = std::get_if<DistanceJoint>(&j.data)) {
    d->hertz = hertz;
    d->damping_ratio = damping_ratio;
  } else if (auto* r = std::get_if<RevoluteJoint>(&j.data)) {
    r->hertz = hertz;
    r->damping_ratio = damping_ratio;
  } else if (auto* p = std::get_if<PrismaticJoint>(&j.data)) {
    p->hertz = hertz;
    p->damping_ratio = damping_ratio;
  } else if (auto* wh = std::get_if<WheelJoint>(&j.data)) {
    wh->hertz = hertz;
    wh->damping_ratio = damping_ratio;
  } else if (auto* we = std::get_if<WeldJoint>(&j.data)) {
    we->linear_hertz = we->angular_hertz = hertz;
    we->linear_damping_ratio = we->angular_damping_ratio = damping_ratio;
  } else if (auto* t = std::get_if<TargetJoint>(&j.data)) {
    if (hertz <= 0.0f) return absl::InvalidArgumentError("target joint hertz must be > 0");
    t->hertz = hertz;
    t->damping_ratio = damping_ratio;
  } else {
    return WrongType(j, "SetSpring", "distance, revolute, prismatic, wheel, weld and target");
  }
  WakeJointBodies(w, j);
  return absl::OkStatus();
}

absl::Status World::SetDistanceLength(JointId id, float length) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckJoint(*w, id); !s.ok()) return s;
  Joint& j = w->joints[id.index];
  auto* d = std::get_if<DistanceJoint>(&j.data);
  if (d == nullptr) return WrongType(j, "SetDistanceLength", "distance");
  if (!IsFinite(length) || length < kLinearSlop || length > kJointHugeLength) {
    return absl::InvalidArgumentError("length must be finite and in [kLinearSlop, kJointHugeLength]");
  }
  d->length = length;
  WakeJointBodies(w, j);
  return absl::OkStatus();
}

absl::Status World::SetMotorJointOffsets(JointId id, Vec2 linear_offset, float angular_offset) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckJoint(*w, id); !s.ok()) return s;
  Joint& j = w->joints[id.index];
  auto* m = std::get_if<MotorJoint>(&j.data);
  if (m == nullptr) return WrongType(j, "SetMotorJointOffsets", "motor");
  if (!atl::IsValid(linear_offset) || Abs(linear_offset.x) > kWorldBound ||
      Abs(linear_offset.y) > kWorldBound || !IsFinite(angular_offset)) {
    return absl::InvalidArgumentError("offsets must be finite and within the world bound");
  }
  j.local_anchor_a = linear_offset;
  m->angular_offset = angular_offset;
  WakeJointBodies(w, j);
  return absl::OkStatus();
}

absl::Status World::SetTarget(JointId id, Vec2 target) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckJoint(*w, id); !s.ok()) return s;
  Joint& j = w->joints[id.index];
  if (j.type != JointType::kTarget) return WrongType(j, "SetTarget", "target");
  if (!atl::IsValid(target) || Abs(target.x) > kWorldBound || Abs(target.y) > kWorldBound) {
    return absl::InvalidArgumentError("target must be finite and within the world bound");
  }
  j.local_anchor_a = target;
  WakeJointBodies(w, j);
  return absl::OkStatus();
}

}  // namespace atl
