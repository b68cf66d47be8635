#include "atoll/sim/simulation.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>
#include <variant>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "atoll/broad_phase_type.h"
#include "atoll/hull.h"
#include "atoll/snapshot.h"
#include "joint_command.h"

namespace atl::sim {
namespace {

// Worlds on the server all carry this world id inside their BodyIds.
constexpr uint16_t kServerWorldId = 1;

absl::Status Invalid(const std::string& field, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", what));
}

// Prefixes an engine error with the field path that caused it.
absl::Status WithField(const absl::Status& s, const std::string& field) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(field, ": ", std::string(s.message())));
}

Vec2 ToVec2(const v1::Vec2& v) { return {v.x(), v.y()}; }

bool Finite(const v1::Vec2& v) { return std::isfinite(v.x()) && std::isfinite(v.y()); }

absl::Status CheckVec(const v1::Vec2& v, const std::string& field, float bound) {
  if (!Finite(v)) return Invalid(field, "must be finite");
  if (std::fabs(v.x()) > bound || std::fabs(v.y()) > bound) {
    return Invalid(field, absl::StrCat("must be within +-", bound));
  }
  return absl::OkStatus();
}

absl::Status CheckFloat(float x, const std::string& field) {
  if (!std::isfinite(x)) return Invalid(field, "must be finite");
  return absl::OkStatus();
}

absl::Status CheckBounded(float x, const std::string& field, float bound) {
  if (!std::isfinite(x)) return Invalid(field, "must be finite");
  if (std::fabs(x) > bound) return Invalid(field, absl::StrCat("must be within +-", bound));
  return absl::OkStatus();
}

// A chain's edges as chain segments (MakeChainSegments, which checks them,
// an open end's ghost vertex included).
absl::StatusOr<std::vector<ShapeGeometry>> ToChain(const v1::ChainGeometry& chain,
                                                   const std::string& field) {
  std::vector<Vec2> points;
  points.reserve(chain.points_size());
  for (const v1::Vec2& p : chain.points()) points.push_back(ToVec2(p));
  absl::StatusOr<std::vector<ChainSegment>> segments = MakeChainSegments(points, chain.loop());
  if (!segments.ok()) return WithField(segments.status(), field + ".points");
  std::vector<ShapeGeometry> out;
  out.reserve(segments->size());
  for (const ChainSegment& segment : *segments) out.emplace_back(segment);
  return out;
}

// The engine geometries of one ShapeSpec: one, or one per edge of a chain.
absl::StatusOr<std::vector<ShapeGeometry>> ToGeometries(const v1::ShapeSpec& shape,
                                                        const std::string& field) {
  switch (shape.geometry_case()) {
    case v1::ShapeSpec::kCircle: {
      Circle c{ToVec2(shape.circle().center()), shape.circle().radius()};
      if (absl::Status s = ValidateCircle(c); !s.ok()) return WithField(s, field + ".circle");
      return std::vector<ShapeGeometry>{ShapeGeometry(c)};
    }
    case v1::ShapeSpec::kCapsule: {
      Capsule c{ToVec2(shape.capsule().center1()), ToVec2(shape.capsule().center2()),
                shape.capsule().radius()};
      if (absl::Status s = ValidateCapsule(c); !s.ok()) return WithField(s, field + ".capsule");
      return std::vector<ShapeGeometry>{ShapeGeometry(c)};
    }
    case v1::ShapeSpec::kPolygon: {
      std::vector<Vec2> points;
      for (const v1::Vec2& p : shape.polygon().points()) points.push_back(ToVec2(p));
      absl::StatusOr<Hull> hull = ComputeHull(points);
      if (!hull.ok()) return WithField(hull.status(), field + ".polygon.points");
      absl::StatusOr<Polygon> polygon = MakePolygon(*hull, shape.polygon().radius());
      if (!polygon.ok()) return WithField(polygon.status(), field + ".polygon");
      return std::vector<ShapeGeometry>{ShapeGeometry(*polygon)};
    }
    case v1::ShapeSpec::kBox: {
      const v1::BoxGeometry& b = shape.box();
      absl::StatusOr<Polygon> polygon =
          MakeOffsetBox(b.half_width(), b.half_height(), ToVec2(b.center()), b.angle());
      if (!polygon.ok()) return WithField(polygon.status(), field + ".box");
      return std::vector<ShapeGeometry>{ShapeGeometry(*polygon)};
    }
    case v1::ShapeSpec::kSegment: {
      Segment s{ToVec2(shape.segment().point1()), ToVec2(shape.segment().point2())};
      if (absl::Status st = ValidateSegment(s); !st.ok()) return WithField(st, field + ".segment");
      return std::vector<ShapeGeometry>{ShapeGeometry(s)};
    }
    case v1::ShapeSpec::kChain:
      return ToChain(shape.chain(), field + ".chain");
    case v1::ShapeSpec::GEOMETRY_NOT_SET:
      break;
  }
  return Invalid(field, "no geometry (set circle, capsule, polygon, box, segment or chain)");
}

absl::StatusOr<SceneBody> ToSceneBody(const v1::BodySpec& body, const std::string& field,
                                      const std::map<std::string, v1::Material>& materials) {
  SceneBody out;
  BodyDef& def = out.def;
  switch (body.type()) {
    case v1::BODY_TYPE_STATIC: def.type = BodyType::kStatic; break;
    case v1::BODY_TYPE_KINEMATIC: def.type = BodyType::kKinematic; break;
    case v1::BODY_TYPE_DYNAMIC: def.type = BodyType::kDynamic; break;
    default: return Invalid(field + ".type", absl::StrCat("unknown body type ", body.type()));
  }
  def.position = ToVec2(body.position());
  def.angle = body.angle();
  def.linear_velocity = ToVec2(body.linear_velocity());
  def.angular_velocity = body.angular_velocity();
  def.linear_damping = body.linear_damping();
  def.angular_damping = body.angular_damping();
  def.gravity_scale = body.has_gravity_scale() ? body.gravity_scale() : 1.0f;
  def.fixed_rotation = body.fixed_rotation();
  def.is_bullet = body.is_bullet();
  def.allow_sleep = !body.disallow_sleep();
  if (absl::Status s = ValidateBodyDef(def); !s.ok()) return WithField(s, field);
  for (int j = 0; j < body.shapes_size(); ++j) {
    const v1::ShapeSpec& shape = body.shapes(j);
    const std::string shape_field = absl::StrCat(field, ".shapes[", j, "]");
    absl::StatusOr<std::vector<ShapeGeometry>> geometries = ToGeometries(shape, shape_field);
    if (!geometries.ok()) return geometries.status();
    SceneShape scene_shape;
    if (!shape.material().empty()) {
      auto it = materials.find(shape.material());
      if (it == materials.end()) {
        return absl::NotFoundError(absl::StrCat(shape_field, ".material: no material named '",
                                                shape.material(), "'"));
      }
      scene_shape.def.density = it->second.density();
      scene_shape.def.friction = it->second.friction();
      scene_shape.def.restitution = it->second.restitution();
    }
    if (shape.has_filter()) {
      scene_shape.def.filter.category_bits = shape.filter().category_bits();
      scene_shape.def.filter.mask_bits = shape.filter().mask_bits();
      scene_shape.def.filter.group_index = shape.filter().group_index();
    }
    scene_shape.def.is_sensor = shape.is_sensor();
    scene_shape.def.enable_hit_events = shape.enable_hit_events();
    if (absl::Status s = ValidateShapeDef(scene_shape.def); !s.ok()) {
      return WithField(s, shape_field);
    }
    for (const ShapeGeometry& geometry : *geometries) {
      if (absl::Status s = ValidateShapeMass(geometry, scene_shape.def.density); !s.ok()) {
        return WithField(s, shape_field);
      }
      scene_shape.geometry = geometry;
      out.shapes.push_back(scene_shape);
    }
  }
  return out;
}

// Every float and Vec2 field of a joint message that is set must be finite.
// Checked by reflection so each field is named exactly, whatever the joint
// type: the engine's own checks name a limit pair by its lower field.
absl::Status CheckFiniteFields(const google::protobuf::Message& m, const std::string& path) {
  const google::protobuf::Descriptor* d = m.GetDescriptor();
  const google::protobuf::Reflection* r = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const google::protobuf::FieldDescriptor* f = d->field(i);
    if (f->is_repeated() || (f->has_presence() && !r->HasField(m, f))) continue;
    bool finite = true;
    if (f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_FLOAT) {
      finite = std::isfinite(r->GetFloat(m, f));
    } else if (f->message_type() == v1::Vec2::descriptor()) {
      finite = Finite(static_cast<const v1::Vec2&>(r->GetMessage(m, f)));
    }
    if (!finite) return Invalid(absl::StrCat(path, ".", f->name()), "must be finite");
  }
  return absl::OkStatus();
}

// The engine's def checks say "<Def>.<field> <rule>"; this names the spec's
// field instead: "<path>.<field>: <rule>".
absl::Status WithDefField(const absl::Status& s, absl::string_view def, const std::string& path) {
  if (s.ok()) return s;
  absl::string_view m = s.message();
  if (absl::ConsumePrefix(&m, def) && absl::ConsumePrefix(&m, ".")) {
    const size_t space = m.find(' ');
    if (space != absl::string_view::npos) {
      const absl::string_view name = m.substr(0, space);
      const absl::string_view rule = m.substr(space + 1);
      // "lower_angle and upper_angle must ..." reads as a sentence only
      // with its subject.
      const absl::string_view what = absl::StartsWith(rule, "and ") ? m : rule;
      return absl::Status(s.code(), absl::StrCat(path, ".", name, ": ", what));
    }
  }
  return WithField(s, path);
}

// A joint's body index names a body of the scene (built-in bodies first,
// then scene.bodies: the order BuildWorld creates them in).
absl::Status CheckBodyIndex(const SceneDesc& desc, uint32_t index, const std::string& field) {
  if (index < desc.bodies.size()) return absl::OkStatus();
  if (desc.bodies.empty()) {
    return Invalid(field, absl::StrCat("no body ", index, ": the scene has no bodies"));
  }
  return Invalid(field, absl::StrCat("no body ", index, ": the scene's bodies are 0..",
                                     desc.bodies.size() - 1));
}

bool IsStatic(const SceneDesc& desc, uint32_t index) {
  return desc.bodies[index].def.type == BodyType::kStatic;
}

// Checks the joint message `spec` at `path` (its bodies, then every field
// with the engine's rules) and makes the scene joint of `def`.
template <typename Def>
absl::StatusOr<SceneJoint> MakeSceneJoint(const SceneDesc& desc,
                                          const google::protobuf::Message& spec,
                                          const std::string& path, uint32_t body_a,
                                          uint32_t body_b, const Def& def,
                                          absl::Status (*validate)(const Def&),
                                          absl::string_view def_name) {
  if (absl::Status s = CheckBodyIndex(desc, body_a, path + ".body_a"); !s.ok()) return s;
  if (absl::Status s = CheckBodyIndex(desc, body_b, path + ".body_b"); !s.ok()) return s;
  if (body_a == body_b) {
    return Invalid(path + ".body_b", absl::StrCat("names body ", body_b,
                                                  ", as body_a does; a joint joins two bodies"));
  }
  if (IsStatic(desc, body_a) && IsStatic(desc, body_b)) {
    return Invalid(path + ".body_b",
                   absl::StrCat("bodies ", body_a, " and ", body_b,
                                " are both static; a joint needs one that moves"));
  }
  if (absl::Status s = CheckFiniteFields(spec, path); !s.ok()) return s;
  if (absl::Status s = validate(def); !s.ok()) return WithDefField(s, def_name, path);
  return SceneJoint{static_cast<int32_t>(body_a), static_cast<int32_t>(body_b), def};
}

absl::StatusOr<SceneJoint> ToDistanceJoint(const SceneDesc& desc, const v1::DistanceJointSpec& j,
                                           const std::string& path) {
  DistanceJointDef def;
  def.local_anchor_a = ToVec2(j.local_anchor_a());
  def.local_anchor_b = ToVec2(j.local_anchor_b());
  if (j.has_length()) def.length = j.length();
  def.enable_spring = j.enable_spring();
  def.hertz = j.hertz();
  def.damping_ratio = j.damping_ratio();
  def.enable_limit = j.enable_limit();
  def.min_length = j.min_length();
  if (j.has_max_length()) def.max_length = j.max_length();
  def.collide_connected = j.collide_connected();
  def.user_data = j.user_data();
  return MakeSceneJoint(desc, j, path, j.body_a(), j.body_b(), def, &ValidateDistanceJointDef,
                        "DistanceJointDef");
}

absl::StatusOr<SceneJoint> ToRevoluteJoint(const SceneDesc& desc, const v1::RevoluteJointSpec& j,
                                           const std::string& path) {
  RevoluteJointDef def;
  def.local_anchor_a = ToVec2(j.local_anchor_a());
  def.local_anchor_b = ToVec2(j.local_anchor_b());
  def.reference_angle = j.reference_angle();
  def.enable_spring = j.enable_spring();
  def.hertz = j.hertz();
  def.damping_ratio = j.damping_ratio();
  def.enable_limit = j.enable_limit();
  def.lower_angle = j.lower_angle();
  def.upper_angle = j.upper_angle();
  def.enable_motor = j.enable_motor();
  def.motor_speed = j.motor_speed();
  def.max_motor_torque = j.max_motor_torque();
  def.collide_connected = j.collide_connected();
  def.user_data = j.user_data();
  return MakeSceneJoint(desc, j, path, j.body_a(), j.body_b(), def, &ValidateRevoluteJointDef,
                        "RevoluteJointDef");
}

absl::StatusOr<SceneJoint> ToPrismaticJoint(const SceneDesc& desc,
                                            const v1::PrismaticJointSpec& j,
                                            const std::string& path) {
  PrismaticJointDef def;
  def.local_anchor_a = ToVec2(j.local_anchor_a());
  def.local_anchor_b = ToVec2(j.local_anchor_b());
  if (j.has_local_axis_a()) def.local_axis_a = ToVec2(j.local_axis_a());
  def.reference_angle = j.reference_angle();
  def.enable_spring = j.enable_spring();
  def.hertz = j.hertz();
  def.damping_ratio = j.damping_ratio();
  def.enable_limit = j.enable_limit();
  def.lower_translation = j.lower_translation();
  def.upper_translation = j.upper_translation();
  def.enable_motor = j.enable_motor();
  def.motor_speed = j.motor_speed();
  def.max_motor_force = j.max_motor_force();
  def.collide_connected = j.collide_connected();
  def.user_data = j.user_data();
  return MakeSceneJoint(desc, j, path, j.body_a(), j.body_b(), def, &ValidatePrismaticJointDef,
                        "PrismaticJointDef");
}

absl::StatusOr<SceneJoint> ToWeldJoint(const SceneDesc& desc, const v1::WeldJointSpec& j,
                                       const std::string& path) {
  WeldJointDef def;
  def.local_anchor_a = ToVec2(j.local_anchor_a());
  def.local_anchor_b = ToVec2(j.local_anchor_b());
  def.reference_angle = j.reference_angle();
  def.linear_hertz = j.linear_hertz();
  def.linear_damping_ratio = j.linear_damping_ratio();
  def.angular_hertz = j.angular_hertz();
  def.angular_damping_ratio = j.angular_damping_ratio();
  def.collide_connected = j.collide_connected();
  def.user_data = j.user_data();
  return MakeSceneJoint(desc, j, path, j.body_a(), j.body_b(), def, &ValidateWeldJointDef,
                        "WeldJointDef");
}

absl::StatusOr<SceneJoint> ToWheelJoint(const SceneDesc& desc, const v1::WheelJointSpec& j,
                                        const std::string& path) {
  WheelJointDef def;
  def.local_anchor_a = ToVec2(j.local_anchor_a());
  def.local_anchor_b = ToVec2(j.local_anchor_b());
  if (j.has_local_axis_a()) def.local_axis_a = ToVec2(j.local_axis_a());
  if (j.has_enable_spring()) def.enable_spring = j.enable_spring();
  if (j.has_hertz()) def.hertz = j.hertz();
  if (j.has_damping_ratio()) def.damping_ratio = j.damping_ratio();
  def.enable_limit = j.enable_limit();
  def.lower_translation = j.lower_translation();
  def.upper_translation = j.upper_translation();
  def.enable_motor = j.enable_motor();
  def.motor_speed = j.motor_speed();
  def.max_motor_torque = j.max_motor_torque();
  def.collide_connected = j.collide_connected();
  def.user_data = j.user_data();
  return MakeSceneJoint(desc, j, path, j.body_a(), j.body_b(), def, &ValidateWheelJointDef,
                        "WheelJointDef");
}

absl::StatusOr<SceneJoint> ToMotorJoint(const SceneDesc& desc, const v1::MotorJointSpec& j,
                                        const std::string& path) {
  MotorJointDef def;
  def.linear_offset = ToVec2(j.linear_offset());
  def.angular_offset = j.angular_offset();
  if (j.has_max_force()) def.max_force = j.max_force();
  if (j.has_max_torque()) def.max_torque = j.max_torque();
  if (j.has_correction_factor()) def.correction_factor = j.correction_factor();
  def.collide_connected = j.collide_connected();
  def.user_data = j.user_data();
  return MakeSceneJoint(desc, j, path, j.body_a(), j.body_b(), def, &ValidateMotorJointDef,
                        "MotorJointDef");
}

// A target joint holds one body; its other side is the fixed world, so a
// static body would make it a joint between two things that cannot move.
absl::StatusOr<SceneJoint> ToTargetJoint(const SceneDesc& desc, const v1::TargetJointSpec& j,
                                         const std::string& path) {
  TargetJointDef def;
  def.target = ToVec2(j.target());
  if (j.has_hertz()) def.hertz = j.hertz();
  if (j.has_damping_ratio()) def.damping_ratio = j.damping_ratio();
  if (j.has_max_force()) def.max_force = j.max_force();
  def.user_data = j.user_data();
  if (absl::Status s = CheckBodyIndex(desc, j.body(), path + ".body"); !s.ok()) return s;
  if (IsStatic(desc, j.body())) {
    return Invalid(path + ".body", absl::StrCat("body ", j.body(),
                                                " is static; a target joint needs one that moves"));
  }
  if (absl::Status s = CheckFiniteFields(j, path); !s.ok()) return s;
  if (absl::Status s = ValidateTargetJointDef(def); !s.ok()) {
    return WithDefField(s, "TargetJointDef", path);
  }
  // SceneJoint: a target joint uses body_b only.
  return SceneJoint{0, static_cast<int32_t>(j.body()), def};
}

// The joint of a JointSpec's kind as a scene joint between bodies of `desc`.
absl::StatusOr<SceneJoint> ToSceneJointOfKind(const SceneDesc& desc, const v1::JointSpec& joint,
                                              const std::string& field) {
  switch (joint.kind_case()) {
    case v1::JointSpec::kDistance:
      return ToDistanceJoint(desc, joint.distance(), field + ".distance");
    case v1::JointSpec::kRevolute:
      return ToRevoluteJoint(desc, joint.revolute(), field + ".revolute");
    case v1::JointSpec::kPrismatic:
      return ToPrismaticJoint(desc, joint.prismatic(), field + ".prismatic");
    case v1::JointSpec::kWeld: return ToWeldJoint(desc, joint.weld(), field + ".weld");
    case v1::JointSpec::kWheel: return ToWheelJoint(desc, joint.wheel(), field + ".wheel");
    case v1::JointSpec::kMotor: return ToMotorJoint(desc, joint.motor(), field + ".motor");
    case v1::JointSpec::kTarget: return ToTargetJoint(desc, joint.target(), field + ".target");
    case v1::JointSpec::KIND_NOT_SET: break;
  }
  return Invalid(field,
                 "no joint kind (set distance, revolute, prismatic, weld, wheel, motor or target)");
}

// Joint `field` of the spec (its kind and break thresholds) as a scene
// joint between bodies of `desc`.
absl::StatusOr<SceneJoint> ToSceneJoint(const SceneDesc& desc, const v1::JointSpec& js,
                                        const std::string& field) {
  absl::StatusOr<SceneJoint> joint = ToSceneJointOfKind(desc, js, field);
  if (!joint.ok()) return joint.status();
  // NaN fails the comparison; infinity is allowed (never breaks).
  if (js.has_break_force()) {
    if (!(js.break_force() >= 0.0f)) {
      return Invalid(field + ".break_force", "must be >= 0 (unset: never breaks)");
    }
    joint->break_force = js.break_force();
  }
  if (js.has_break_torque()) {
    if (!(js.break_torque() >= 0.0f)) {
      return Invalid(field + ".break_torque", "must be >= 0 (unset: never breaks)");
    }
    joint->break_torque = js.break_torque();
  }
  return joint;
}

// A spawn template: one body, or a group of bodies and the joints between
// them (their body indices count the group's bodies).
absl::StatusOr<SpawnTemplate> ToSpawnTemplate(
    const v1::BodyTemplate& t, const std::string& field,
    const std::map<std::string, v1::Material>& materials) {
  SpawnTemplate out;
  out.group = t.bodies_size() > 0;
  if (out.group == t.has_body()) {
    return Invalid(field, "set exactly one of body (a single body) and bodies (a group)");
  }
  if (!out.group && t.joints_size() > 0) {
    return Invalid(field + ".joints", "joints need a group: list the bodies in bodies");
  }
  SceneDesc group;
  for (int i = 0; i < (out.group ? t.bodies_size() : 1); ++i) {
    const std::string body_field = out.group ? absl::StrCat(field, ".bodies[", i, "]")
                                             : field + ".body";
    absl::StatusOr<SceneBody> body =
        ToSceneBody(out.group ? t.bodies(i) : t.body(), body_field, materials);
    if (!body.ok()) return body.status();
    group.bodies.push_back(*std::move(body));
  }
  for (int i = 0; i < t.joints_size(); ++i) {
    absl::StatusOr<SceneJoint> joint =
        ToSceneJoint(group, t.joints(i), absl::StrCat(field, ".joints[", i, "]"));
    if (!joint.ok()) return joint.status();
    group.joints.push_back(*std::move(joint));
  }
  out.bodies = std::move(group.bodies);
  out.joints = std::move(group.joints);
  return out;
}

// The value checks of a command, which need no state: finite numbers within
// the bounds the engine handles without overflowing (a force or impulse of
// 1e38 makes a velocity infinite). Shared by CheckCommands, at input time,
// and ApplyCommand, which a replay reaches without the former. *sub gets
// the command's field ("apply_force").
absl::Status CheckCommandValues(const v1::Command& c, std::string* sub) {
  absl::Status s;
  switch (c.kind_case()) {
    case v1::Command::kApplyForce:
      *sub = "apply_force";
      s = CheckVec(c.apply_force().force(), "force", kMaxApplied);
      if (s.ok()) s = CheckVec(c.apply_force().point(), "point", kWorldBound);
      break;
    case v1::Command::kApplyImpulse:
      *sub = "apply_impulse";
      s = CheckVec(c.apply_impulse().impulse(), "impulse", kMaxApplied);
      if (s.ok()) s = CheckVec(c.apply_impulse().point(), "point", kWorldBound);
      break;
    case v1::Command::kSetLinearVelocity:
      *sub = "set_linear_velocity";
      s = CheckVec(c.set_linear_velocity().velocity(), "velocity", kMaxBodySpeed);
      break;
    case v1::Command::kSetAngularVelocity:
      *sub = "set_angular_velocity";
      s = CheckBounded(c.set_angular_velocity().velocity(), "velocity", kMaxBodyAngularSpeed);
      break;
    case v1::Command::kApplyTorque:
      *sub = "apply_torque";
      s = CheckBounded(c.apply_torque().torque(), "torque", kMaxApplied);
      break;
    case v1::Command::kApplyAngularImpulse:
      *sub = "apply_angular_impulse";
      s = CheckBounded(c.apply_angular_impulse().impulse(), "impulse", kMaxApplied);
      break;
    case v1::Command::kSetGravityScale:
      *sub = "set_gravity_scale";
      s = CheckBounded(c.set_gravity_scale().scale(), "scale", kMaxGravityScale);
      break;
    case v1::Command::kSetTransform:
      *sub = "set_transform";
      s = CheckVec(c.set_transform().position(), "position", kWorldBound);
      if (s.ok()) s = CheckFloat(c.set_transform().angle(), "angle");
      break;
    case v1::Command::kSpawnBody:
      *sub = "spawn_body";
      s = CheckVec(c.spawn_body().position(), "position", kWorldBound);
      if (s.ok()) s = CheckFloat(c.spawn_body().angle(), "angle");
      if (s.ok()) s = CheckVec(c.spawn_body().linear_velocity(), "linear_velocity", kMaxBodySpeed);
      break;
    default:
      break;
  }
  return s;
}

// Which field of a command names its joint ("joint.joint", ...), and the
// joint; nullptr for commands without one.
const v1::JointRef* CommandJoint(const v1::Command& c, std::string* name) {
  switch (c.kind_case()) {
    case v1::Command::kJoint: *name = "joint.joint"; return &c.joint().joint();
    case v1::Command::kDestroyJoint:
      *name = "destroy_joint.joint";
      return &c.destroy_joint().joint();
    default: return nullptr;
  }
}

// Which field of a command names its body ("apply_force.body", ...), and the
// body; nullptr for commands without one.
const v1::BodyRef* CommandBody(const v1::Command& c, std::string* name) {
  switch (c.kind_case()) {
    case v1::Command::kApplyForce: *name = "apply_force.body"; return &c.apply_force().body();
    case v1::Command::kApplyImpulse: *name = "apply_impulse.body"; return &c.apply_impulse().body();
    case v1::Command::kSetLinearVelocity:
      *name = "set_linear_velocity.body";
      return &c.set_linear_velocity().body();
    case v1::Command::kSetAngularVelocity:
      *name = "set_angular_velocity.body";
      return &c.set_angular_velocity().body();
    case v1::Command::kSetTransform: *name = "set_transform.body"; return &c.set_transform().body();
    case v1::Command::kDestroyBody: *name = "destroy_body.body"; return &c.destroy_body().body();
    case v1::Command::kApplyTorque:
      *name = "apply_torque.body";
      return &c.apply_torque().body();
    case v1::Command::kApplyAngularImpulse:
      *name = "apply_angular_impulse.body";
      return &c.apply_angular_impulse().body();
    case v1::Command::kSetGravityScale:
      *name = "set_gravity_scale.body";
      return &c.set_gravity_scale().body();
    default: return nullptr;
  }
}

}  // namespace

absl::StatusOr<v1::WorldConfig> NormalizeWorldConfig(const v1::WorldConfig& in,
                                                     uint32_t server_max_bodies) {
  v1::WorldConfig c = in;
  if (c.tick_rate_hz() == 0) c.set_tick_rate_hz(60);
  if (c.tick_rate_hz() > 240) {
    return Invalid("config.tick_rate_hz", absl::StrCat("must be 1..240, got ", c.tick_rate_hz()));
  }
  if (c.input_delay_ticks() > 60) {
    return Invalid("config.input_delay_ticks",
                   absl::StrCat("must be 0..60, got ", c.input_delay_ticks()));
  }
  if (c.snapshot_every_ticks() == 0) c.set_snapshot_every_ticks(60);
  if (c.snapshot_every_ticks() > 100000) {
    return Invalid("config.snapshot_every_ticks",
                   absl::StrCat("must be 1..100000, got ", c.snapshot_every_ticks()));
  }
  if (c.broad_phase().empty()) c.set_broad_phase("batch_bvh");
  if (absl::StatusOr<BroadPhaseType> bp = ParseBroadPhaseType(c.broad_phase()); !bp.ok()) {
    return WithField(bp.status(), "config.broad_phase");
  }
  if (c.player_slots() > 64) {
    return Invalid("config.player_slots", absl::StrCat("must be 0..64, got ", c.player_slots()));
  }
  if (c.max_commands_per_tick() == 0) c.set_max_commands_per_tick(64);
  if (c.max_commands_per_tick() > 1024) {
    return Invalid("config.max_commands_per_tick",
                   absl::StrCat("must be 1..1024, got ", c.max_commands_per_tick()));
  }
  if (c.max_bodies() == 0 || c.max_bodies() > server_max_bodies) {
    c.set_max_bodies(server_max_bodies);
  }
  if (c.checkpoint_every_ticks() == 0) c.set_checkpoint_every_ticks(240);
  if (c.checkpoint_every_ticks() > 100000) {
    return Invalid("config.checkpoint_every_ticks",
                   absl::StrCat("must be 1..100000, got ", c.checkpoint_every_ticks()));
  }
  return c;
}

absl::StatusOr<BuiltScene> BuildScene(const v1::SceneSpec& spec, uint32_t player_slots) {
  BuiltScene out;
  std::map<std::string, v1::Material> materials;
  for (int i = 0; i < spec.materials_size(); ++i) {
    const v1::Material& m = spec.materials(i);
    const std::string field = absl::StrCat("scene.materials[", i, "]");
    if (m.name().empty()) return Invalid(field + ".name", "must not be empty");
    if (!materials.emplace(m.name(), m).second) {
      return Invalid(field + ".name", absl::StrCat("duplicate material '", m.name(), "'"));
    }
    if (absl::Status s = ValidateDensity(m.density()); !s.ok()) {
      return WithField(s, field + ".density");
    }
    if (!std::isfinite(m.friction()) || m.friction() < 0) {
      return Invalid(field + ".friction", "must be finite and >= 0");
    }
    if (!std::isfinite(m.restitution()) || m.restitution() < 0 || m.restitution() > 1) {
      return Invalid(field + ".restitution", "must be in [0, 1]");
    }
  }
  if (spec.has_builtin()) {
    SceneParams params;
    params.size = spec.builtin().size();
    params.seed = spec.builtin().seed() == 0 ? 1 : spec.builtin().seed();
    absl::StatusOr<SceneDesc> desc = MakeScene(spec.builtin().name(), params);
    if (!desc.ok()) return WithField(desc.status(), "scene.builtin");
    out.desc = *std::move(desc);
  } else {
    out.desc.name = "custom";
  }
  out.owners.assign(out.desc.bodies.size(), 0);
  for (int i = 0; i < spec.builtin_owners_size(); ++i) {
    const v1::BodyOwner& o = spec.builtin_owners(i);
    const std::string field = absl::StrCat("scene.builtin_owners[", i, "]");
    if (o.body_index() >= out.owners.size()) {
      return Invalid(field + ".body_index",
                     absl::StrCat(o.body_index(), " is not a body of the built-in scene (",
                                  out.owners.size(), " bodies)"));
    }
    if (o.slot() == 0 || o.slot() > player_slots) {
      return Invalid(field + ".slot", absl::StrCat("must be 1..", player_slots, ", got ", o.slot()));
    }
    out.owners[o.body_index()] = o.slot();
  }
  if (spec.has_physics()) {
    const v1::PhysicsSettings& p = spec.physics();
    if (p.has_gravity()) {
      if (!Finite(p.gravity())) return Invalid("scene.physics.gravity", "must be finite");
      out.desc.world.gravity = ToVec2(p.gravity());
    }
    if (p.substep_count() != 0) out.desc.world.substep_count = p.substep_count();
    if (p.disable_sleep()) out.desc.world.enable_sleep = false;
  }
  out.desc.world.world_id = kServerWorldId;
  if (absl::Status s = ValidateWorldDef(out.desc.world); !s.ok()) {
    return WithField(s, "scene.physics");
  }
  for (int i = 0; i < spec.bodies_size(); ++i) {
    const std::string field = absl::StrCat("scene.bodies[", i, "]");
    absl::StatusOr<SceneBody> body = ToSceneBody(spec.bodies(i), field, materials);
    if (!body.ok()) return body.status();
    const uint32_t slot = spec.bodies(i).owner_slot();
    if (slot > player_slots) {
      return Invalid(field + ".owner_slot",
                     absl::StrCat("must be 0..", player_slots, " (config.player_slots), got ", slot));
    }
    out.desc.bodies.push_back(*std::move(body));
    out.owners.push_back(slot);
  }
  // After every body: a joint may name any of them, and BuildWorld makes
  // the joints after the bodies, the built-in scene's own joints first.
  out.joint_owners.assign(out.desc.joints.size(), 0);
  for (int i = 0; i < spec.joints_size(); ++i) {
    const v1::JointSpec& js = spec.joints(i);
    const std::string field = absl::StrCat("scene.joints[", i, "]");
    absl::StatusOr<SceneJoint> joint = ToSceneJoint(out.desc, js, field);
    if (!joint.ok()) return joint.status();
    if (js.owner_slot() > player_slots) {
      return Invalid(field + ".owner_slot", absl::StrCat("must be 0..", player_slots,
                                                         " (config.player_slots), got ",
                                                         js.owner_slot()));
    }
    out.desc.joints.push_back(*std::move(joint));
    out.joint_owners.push_back(js.owner_slot());
  }
  for (int i = 0; i < spec.templates_size(); ++i) {
    const v1::BodyTemplate& t = spec.templates(i);
    const std::string field = absl::StrCat("scene.templates[", i, "]");
    if (t.name().empty()) return Invalid(field + ".name", "must not be empty");
    absl::StatusOr<SpawnTemplate> made = ToSpawnTemplate(t, field, materials);
    if (!made.ok()) return made.status();
    if (!out.templates.emplace(t.name(), *std::move(made)).second) {
      return Invalid(field + ".name", absl::StrCat("duplicate template '", t.name(), "'"));
    }
  }
  return out;
}

BodyId ToBodyId(const v1::BodyRef& ref) {
  BodyId id;
  id.index = ref.index();
  id.world = kServerWorldId;
  id.generation = static_cast<uint16_t>(std::min<uint32_t>(ref.generation(), 0xffff));
  return id;
}

JointId ToJointId(const v1::JointRef& ref) {
  JointId id;
  id.index = ref.index();
  id.world = kServerWorldId;
  id.generation = static_cast<uint16_t>(std::min<uint32_t>(ref.generation(), 0xffff));
  return id;
}

namespace {

JointId JointIdOf(uint32_t index, uint32_t generation) {
  v1::JointRef ref;
  ref.set_index(index);
  ref.set_generation(generation);
  return ToJointId(ref);
}

}  // namespace

v1::JointRef ToJointRef(JointId id) {
  v1::JointRef ref;
  ref.set_index(id.index);
  ref.set_generation(id.generation);
  return ref;
}

v1::BodyRef ToBodyRef(BodyId id) {
  v1::BodyRef ref;
  ref.set_index(id.index);
  ref.set_generation(id.generation);
  return ref;
}

absl::StatusOr<std::unique_ptr<Simulation>> Simulation::Create(const v1::SceneSpec& spec,
                                                               const v1::WorldConfig& config) {
  absl::StatusOr<BuiltScene> scene = BuildScene(spec, config.player_slots());
  if (!scene.ok()) return scene.status();
  if (scene->desc.bodies.size() > config.max_bodies()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "scene: ", scene->desc.bodies.size(), " bodies exceed the world body limit of ",
        config.max_bodies(), " (config.max_bodies / --max_bodies_per_world)"));
  }
  absl::StatusOr<BroadPhaseType> bp = ParseBroadPhaseType(config.broad_phase());
  if (!bp.ok()) return WithField(bp.status(), "config.broad_phase");
  scene->desc.world.broad_phase = *bp;
  absl::StatusOr<std::unique_ptr<World>> world = BuildWorld(scene->desc);
  if (!world.ok()) return WithField(world.status(), "scene");
  std::unique_ptr<Simulation> sim(new Simulation());
  sim->config_ = config;
  sim->time_step_ = 1.0f / static_cast<float>(config.tick_rate_hz());
  sim->world_ = *std::move(world);
  sim->templates_ = std::move(scene->templates);
  const std::vector<BodyId> ids = sim->world_->GetBodyIds();
  for (size_t i = 0; i < ids.size() && i < scene->owners.size(); ++i) {
    if (scene->owners[i] != 0) {
      sim->owners_[ids[i].index] = {ids[i].generation, scene->owners[i]};
    }
  }
  // BuildWorld makes the scene's joints in order into a fresh pool, so
  // joint ids come in creation order, as body ids do.
  const std::vector<JointId> joints = sim->world_->GetJointIds();
  for (size_t i = 0; i < joints.size() && i < scene->joint_owners.size(); ++i) {
    if (scene->joint_owners[i] != 0) {
      sim->joint_owners_[joints[i].index] = {joints[i].generation, scene->joint_owners[i]};
    }
  }
  sim->hash_ = HashWorld(*sim->world_, &sim->scratch_);
  return sim;
}

absl::StatusOr<std::unique_ptr<Simulation>> Simulation::Restore(
    const v1::SceneSpec& spec, const v1::WorldConfig& config, const v1::Checkpoint& checkpoint) {
  absl::StatusOr<BuiltScene> scene = BuildScene(spec, config.player_slots());
  if (!scene.ok()) return scene.status();
  absl::StatusOr<BroadPhaseType> bp = ParseBroadPhaseType(config.broad_phase());
  if (!bp.ok()) return WithField(bp.status(), "config.broad_phase");
  absl::StatusOr<std::unique_ptr<World>> world = LoadSnapshot(checkpoint.snapshot(), *bp);
  if (!world.ok()) return WithField(world.status(), "checkpoint.snapshot");
  std::unique_ptr<Simulation> sim(new Simulation());
  sim->config_ = config;
  sim->time_step_ = 1.0f / static_cast<float>(config.tick_rate_hz());
  sim->world_ = *std::move(world);
  sim->templates_ = std::move(scene->templates);
  sim->SetOwners(checkpoint);
  sim->hash_ = HashWorld(*sim->world_, &sim->scratch_);
  if (checkpoint.state_hash() != 0 && checkpoint.state_hash() != sim->hash_) {
    return absl::DataLossError(absl::StrCat("checkpoint.state_hash: the snapshot of tick ",
                                            checkpoint.tick(), " does not hash to the recorded value"));
  }
  return sim;
}

uint64_t Simulation::tick() const { return static_cast<uint64_t>(world_->step_count()); }

uint32_t Simulation::OwnerOf(BodyId id) const {
  auto it = owners_.find(id.index);
  if (it == owners_.end() || it->second.first != id.generation) return 0;
  return it->second.second;
}

std::vector<v1::OwnedBody> Simulation::Owners() const {
  std::vector<v1::OwnedBody> out;
  for (const auto& [index, gen_slot] : owners_) {
    v1::OwnedBody o;
    o.mutable_body()->set_index(index);
    o.mutable_body()->set_generation(gen_slot.first);
    o.set_slot(gen_slot.second);
    out.push_back(std::move(o));
  }
  return out;
}

uint32_t Simulation::OwnerOf(JointId id) const {
  auto it = joint_owners_.find(id.index);
  if (it == joint_owners_.end() || it->second.first != id.generation) return 0;
  return it->second.second;
}

std::vector<v1::OwnedJoint> Simulation::JointOwners() const {
  std::vector<v1::OwnedJoint> out;
  for (const auto& [index, gen_slot] : joint_owners_) {
    v1::OwnedJoint o;
    o.mutable_joint()->set_index(index);
    o.mutable_joint()->set_generation(gen_slot.first);
    o.set_slot(gen_slot.second);
    out.push_back(std::move(o));
  }
  return out;
}

void Simulation::SetOwners(const v1::Checkpoint& checkpoint) {
  owners_.clear();
  for (const v1::OwnedBody& o : checkpoint.owners()) {
    owners_[o.body().index()] = {o.body().generation(), o.slot()};
  }
  joint_owners_.clear();
  for (const v1::OwnedJoint& o : checkpoint.joint_owners()) {
    joint_owners_[o.joint().index()] = {o.joint().generation(), o.slot()};
  }
}

int Simulation::SpawnedBodies(
    const google::protobuf::RepeatedPtrField<v1::Command>& commands) const {
  int n = 0;
  for (const v1::Command& c : commands) {
    if (!c.has_spawn_body()) continue;
    auto it = templates_.find(c.spawn_body().template_name());
    if (it != templates_.end()) n += static_cast<int>(it->second.bodies.size());
  }
  return n;
}

absl::Status Simulation::CheckCommands(uint32_t slot,
                                       const google::protobuf::RepeatedPtrField<v1::Command>& commands,
                                       int pending_spawns, std::string* field) const {
  int spawns = pending_spawns;
  std::set<uint32_t> destroyed;  // body indices destroyed earlier in this input
  std::set<uint32_t> destroyed_joints;  // joint indices, likewise
  for (int i = 0; i < commands.size(); ++i) {
    const v1::Command& c = commands[i];
    const std::string prefix = absl::StrCat("input.commands[", i, "]");
    auto fail = [&](absl::Status s, const std::string& f) {
      *field = prefix + (f.empty() ? "" : "." + f);
      return absl::Status(s.code(), absl::StrCat(*field, ": ", std::string(s.message())));
    };
    if (c.kind_case() == v1::Command::KIND_NOT_SET) {
      return fail(absl::InvalidArgumentError("no command kind set"), "");
    }
    std::string body_field;
    if (const v1::BodyRef* ref = CommandBody(c, &body_field)) {
      const BodyId id = ToBodyId(*ref);
      if (ref->generation() == 0 || !world_->IsValid(id) || destroyed.count(id.index) != 0) {
        return fail(absl::NotFoundError(absl::StrCat("no live body ", ref->index(), ":",
                                                     ref->generation())),
                    body_field);
      }
      if (OwnerOf(id) != slot) {
        return fail(absl::PermissionDeniedError(absl::StrCat("slot ", slot,
                                                             " does not own body ", ref->index())),
                    body_field);
      }
      if (c.kind_case() == v1::Command::kDestroyBody) destroyed.insert(id.index);
    }
    std::string joint_field;
    if (const v1::JointRef* ref = CommandJoint(c, &joint_field)) {
      const JointId id = ToJointId(*ref);
      if (ref->generation() == 0 || !world_->IsValid(id) ||
          destroyed_joints.count(id.index) != 0) {
        return fail(absl::NotFoundError(absl::StrCat("no live joint ", ref->index(), ":",
                                                     ref->generation())),
                    joint_field);
      }
      if (OwnerOf(id) != slot) {
        return fail(absl::PermissionDeniedError(absl::StrCat("slot ", slot,
                                                             " does not own joint ", ref->index())),
                    joint_field);
      }
      if (c.kind_case() == v1::Command::kDestroyJoint) destroyed_joints.insert(id.index);
      if (c.kind_case() == v1::Command::kJoint) {
        const JointType type = world_->GetJointType(id).value();
        if (absl::Status s = CheckJointChange(type, c.joint()); !s.ok()) {
          const std::string change = JointChangeName(c.joint());
          return fail(s, change.empty() ? "joint" : "joint." + change);
        }
      }
    }
    std::string sub;
    if (absl::Status s = CheckCommandValues(c, &sub); !s.ok()) return fail(s, sub);
    switch (c.kind_case()) {
      case v1::Command::kSetTransform: {
        const absl::StatusOr<BodyInfo> info = world_->GetBody(ToBodyId(c.set_transform().body()));
        if (info.ok() && info->type != BodyType::kKinematic) {
          return fail(absl::InvalidArgumentError("only kinematic bodies can be teleported"),
                      "set_transform.body");
        }
        break;
      }
      case v1::Command::kSpawnBody: {
        const v1::SpawnBody& sp = c.spawn_body();
        if (templates_.count(sp.template_name()) == 0) {
          return fail(absl::NotFoundError(absl::StrCat("no template named '", sp.template_name(),
                                                       "'")),
                      "spawn_body.template_name");
        }
        const int queued = spawns;
        spawns += static_cast<int>(templates_.at(sp.template_name()).bodies.size());
        const int64_t bodies = world_->GetCounters().bodies;
        if (bodies + spawns > static_cast<int64_t>(config_.max_bodies())) {
          return fail(absl::ResourceExhaustedError(absl::StrCat(
                          "the world has ", bodies, " bodies and ", queued,
                          " spawned bodies queued; '", sp.template_name(), "' adds ",
                          spawns - queued, "; limit ", config_.max_bodies(),
                          " (config.max_bodies)")),
                      "spawn_body");
        }
        break;
      }
      default:
        break;
    }
  }
  return absl::OkStatus();
}

absl::Status Simulation::ApplyCommand(uint32_t slot, const v1::Command& c) {
  std::string sub;
  if (absl::Status s = CheckCommandValues(c, &sub); !s.ok()) return WithField(s, sub);
  std::string body_field;
  BodyId id;
  if (const v1::BodyRef* ref = CommandBody(c, &body_field)) {
    id = ToBodyId(*ref);
    if (!world_->IsValid(id)) {
      return absl::NotFoundError(absl::StrCat(body_field, ": body ", ref->index(), " is gone"));
    }
    if (OwnerOf(id) != slot) {
      return absl::PermissionDeniedError(
          absl::StrCat(body_field, ": slot ", slot, " does not own body ", ref->index()));
    }
  }
  switch (c.kind_case()) {
    case v1::Command::kApplyForce:
      if (c.apply_force().has_point()) {
        return world_->ApplyForce(id, ToVec2(c.apply_force().force()),
                                  ToVec2(c.apply_force().point()), true);
      }
      return world_->ApplyForceToCenter(id, ToVec2(c.apply_force().force()), true);
    case v1::Command::kApplyImpulse:
      if (c.apply_impulse().has_point()) {
        return world_->ApplyLinearImpulse(id, ToVec2(c.apply_impulse().impulse()),
                                          ToVec2(c.apply_impulse().point()), true);
      } else {
        const absl::StatusOr<BodyInfo> info = world_->GetBody(id);
        if (!info.ok()) return info.status();
        return world_->ApplyLinearImpulse(id, ToVec2(c.apply_impulse().impulse()),
                                          info->world_center, true);
      }
    case v1::Command::kSetLinearVelocity:
      return world_->SetLinearVelocity(id, ToVec2(c.set_linear_velocity().velocity()));
    case v1::Command::kSetAngularVelocity:
      return world_->SetAngularVelocity(id, c.set_angular_velocity().velocity());
    case v1::Command::kApplyTorque:
      return world_->ApplyTorque(id, c.apply_torque().torque(), true);
    case v1::Command::kApplyAngularImpulse:
      return world_->ApplyAngularImpulse(id, c.apply_angular_impulse().impulse(), true);
    case v1::Command::kSetGravityScale:
      return world_->SetGravityScale(id, c.set_gravity_scale().scale());
    case v1::Command::kSetTransform: {
      const absl::StatusOr<BodyInfo> info = world_->GetBody(id);
      if (!info.ok()) return info.status();
      if (info->type != BodyType::kKinematic) {
        return absl::InvalidArgumentError("set_transform.body: not a kinematic body");
      }
      return world_->SetTransform(id, ToVec2(c.set_transform().position()),
                                  c.set_transform().angle());
    }
    case v1::Command::kSpawnBody: {
      const v1::SpawnBody& sp = c.spawn_body();
      auto it = templates_.find(sp.template_name());
      if (it == templates_.end()) {
        return absl::NotFoundError("spawn_body.template_name: no such template");
      }
      const SpawnTemplate& t = it->second;
      if (world_->GetCounters().bodies + static_cast<int64_t>(t.bodies.size()) >
          static_cast<int64_t>(config_.max_bodies())) {
        return absl::ResourceExhaustedError("spawn_body: the template would pass the body limit");
      }
      // A group is placed rigidly: its bodies' poses are in the frame of
      // the spawn point. A single body takes the spawn pose as is.
      const Transform at{ToVec2(sp.position()), MakeRot(sp.angle())};
      std::vector<BodyId> ids;
      for (const SceneBody& body_template : t.bodies) {
        SceneBody body = body_template;
        body.def.position = t.group ? TransformPoint(at, body.def.position) : at.p;
        body.def.angle = t.group ? sp.angle() + body.def.angle : sp.angle();
        body.def.linear_velocity = ToVec2(sp.linear_velocity());
        absl::StatusOr<BodyId> spawned = AddSceneBody(world_.get(), body);
        if (!spawned.ok()) return WithField(spawned.status(), "spawn_body");
        owners_[spawned->index] = {spawned->generation, slot};
        ids.push_back(*spawned);
      }
      for (const SceneJoint& joint_template : t.joints) {
        SceneJoint joint = joint_template;
        // A target joint's target is a world point: it moves with the group.
        if (auto* target = std::get_if<TargetJointDef>(&joint.def)) {
          target->target = TransformPoint(at, target->target);
        }
        absl::StatusOr<JointId> made = AddSceneJoint(world_.get(), joint, ids);
        if (!made.ok()) return WithField(made.status(), "spawn_body");
        joint_owners_[made->index] = {made->generation, slot};
      }
      return absl::OkStatus();
    }
    case v1::Command::kDestroyBody: {
      absl::Status s = world_->DestroyBody(id);
      if (s.ok()) owners_.erase(id.index);
      return s;
    }
    case v1::Command::kJoint:
    case v1::Command::kDestroyJoint: {
      std::string joint_field;
      const v1::JointRef* ref = CommandJoint(c, &joint_field);
      const JointId joint = ToJointId(*ref);
      if (!world_->IsValid(joint)) {
        return absl::NotFoundError(absl::StrCat(joint_field, ": joint ", ref->index(), " is gone"));
      }
      if (OwnerOf(joint) != slot) {
        return absl::PermissionDeniedError(
            absl::StrCat(joint_field, ": slot ", slot, " does not own joint ", ref->index()));
      }
      if (c.kind_case() == v1::Command::kJoint) {
        const std::string change = JointChangeName(c.joint());
        return WithField(ApplyJointChange(world_.get(), joint, c.joint()),
                         change.empty() ? "joint" : "joint." + change);
      }
      absl::Status s = world_->DestroyJoint(joint);
      if (s.ok()) joint_owners_.erase(joint.index);
      return s;
    }
    case v1::Command::KIND_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError("no command kind set");
}

absl::Status Simulation::Step(std::span<const v1::ConfirmedInput> inputs,
                              std::vector<CommandFailure>* failures) {
  if (absl::Status s = ApplyAndStep(inputs, failures); !s.ok()) return s;
  hash_ = HashWorld(*world_, &scratch_);
  return absl::OkStatus();
}

absl::Status Simulation::StepUnhashed(std::span<const v1::ConfirmedInput> inputs,
                                      std::vector<CommandFailure>* failures) {
  return ApplyAndStep(inputs, failures);
}

absl::Status Simulation::ApplyAndStep(std::span<const v1::ConfirmedInput> inputs,
                                      std::vector<CommandFailure>* failures) {
  for (const v1::ConfirmedInput& input : inputs) {
    for (int i = 0; i < input.commands_size(); ++i) {
      absl::Status s = ApplyCommand(input.slot(), input.commands(i));
      if (!s.ok() && failures != nullptr) {
        failures->push_back({input.slot(), input.sequence(), i, std::move(s)});
      }
    }
  }
  if (absl::Status s = world_->Step(time_step_); !s.ok()) return s;
  // Joints end without a command too (they break, or go with a destroyed
  // body): ownership is kept for live joints only, so checkpoints list no
  // stale entries.
  for (auto it = joint_owners_.begin(); it != joint_owners_.end();) {
    const bool live = world_->IsValid(JointIdOf(it->first, it->second.first));
    it = live ? std::next(it) : joint_owners_.erase(it);
  }
  return absl::OkStatus();
}

absl::Status Simulation::RestoreCheckpoint(const v1::Checkpoint& checkpoint) {
  if (absl::Status s = RestoreSnapshot(checkpoint.snapshot(), world_.get()); !s.ok()) {
    return WithField(s, "checkpoint.snapshot");
  }
  SetOwners(checkpoint);
  hash_ = HashWorld(*world_, &scratch_);
  if (checkpoint.state_hash() != 0 && checkpoint.state_hash() != hash_) {
    return absl::DataLossError(absl::StrCat("checkpoint.state_hash: the snapshot of tick ",
                                            checkpoint.tick(), " does not hash to the recorded value"));
  }
  return absl::OkStatus();
}

absl::Status Simulation::CopyStateFrom(const Simulation& other) {
  atl::SaveSnapshot(*other.world_, &scratch_);
  if (absl::Status s = RestoreSnapshot(scratch_, world_.get()); !s.ok()) return s;
  owners_ = other.owners_;
  joint_owners_ = other.joint_owners_;
  hash_ = other.hash_;
  return absl::OkStatus();
}

v1::Checkpoint Simulation::SaveCheckpoint(const std::vector<uint64_t>& last_sequence) const {
  v1::Checkpoint cp;
  cp.set_tick(tick());
  cp.set_snapshot(atl::SaveSnapshot(*world_));
  for (v1::OwnedBody& o : Owners()) *cp.add_owners() = std::move(o);
  for (v1::OwnedJoint& o : JointOwners()) *cp.add_joint_owners() = std::move(o);
  cp.set_state_hash(hash_);
  for (uint64_t s : last_sequence) cp.add_last_sequence(s);
  return cp;
}

}  // namespace atl::sim
