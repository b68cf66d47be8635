#include "atoll/sim/frame_events.h"

#include <xxhash.h>

#include <string>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "atoll/events.h"
#include "atoll/sim/simulation.h"

namespace atl::sim {
namespace {

void SetVec(v1::Vec2* out, Vec2 v) {
  out->set_x(v.x);
  out->set_y(v.y);
}

// The body of `shape` into *ref, unless the shape is gone.
void SetShapeBody(const World& world, ShapeId shape, v1::BodyRef* ref) {
  if (absl::StatusOr<BodyId> body = world.GetShapeBody(shape); body.ok()) {
    *ref = ToBodyRef(*body);
  }
}

v1::ContactEvent* AddContact(const World& world, v1::ContactEvent::Kind kind,
                             ShapeId a, ShapeId b, v1::Frame* frame) {
  v1::ContactEvent* e = frame->add_events();
  e->set_kind(kind);
  e->set_shape_a(a.index);
  e->set_shape_b(b.index);
  SetShapeBody(world, a, e->mutable_body_a());
  SetShapeBody(world, b, e->mutable_body_b());
  return e;
}

void AddSensor(const World& world, v1::SensorEvent::Kind kind, ShapeId sensor,
               ShapeId visitor, v1::Frame* frame) {
  v1::SensorEvent* e = frame->add_sensor_events();
  e->set_kind(kind);
  e->set_sensor_shape(sensor.index);
  e->set_visitor_shape(visitor.index);
  SetShapeBody(world, sensor, e->mutable_sensor_body());
  SetShapeBody(world, visitor, e->mutable_visitor_body());
}

}  // namespace

void AppendStepEvents(const World& world, v1::Frame* frame) {
  const StepEvents& events = world.events();
  for (const ContactBeginEvent& b : events.contact_begin) {
    v1::ContactEvent* e = AddContact(world, v1::ContactEvent::KIND_BEGIN,
                                     b.shape_a, b.shape_b, frame);
    SetVec(e->mutable_normal(), b.normal);
  }
  for (const ContactEndEvent& end : events.contact_end) {
    AddContact(world, v1::ContactEvent::KIND_END, end.shape_a, end.shape_b,
               frame);
  }
  for (const ContactHitEvent& h : events.contact_hit) {
    v1::ContactEvent* e = AddContact(world, v1::ContactEvent::KIND_HIT,
                                     h.shape_a, h.shape_b, frame);
    SetVec(e->mutable_normal(), h.normal);
    SetVec(e->mutable_point(), h.point);
    e->set_approach_speed(h.approach_speed);
  }
  for (const SensorBeginEvent& b : events.sensor_begin) {
    AddSensor(world, v1::SensorEvent::KIND_BEGIN, b.sensor, b.visitor, frame);
  }
  for (const SensorEndEvent& end : events.sensor_end) {
    AddSensor(world, v1::SensorEvent::KIND_END, end.sensor, end.visitor, frame);
  }
  for (const JointBreakEvent& b : events.joint_break) {
    v1::JointBreakEvent* e = frame->add_joint_breaks();
    *e->mutable_joint() = ToJointRef(b.joint);
    if (b.body_a.IsValid()) *e->mutable_body_a() = ToBodyRef(b.body_a);
    *e->mutable_body_b() = ToBodyRef(b.body_b);
    SetVec(e->mutable_force(), b.force);
    e->set_torque(b.torque);
    e->set_user_data(b.user_data);
  }
}

uint64_t HashStepEvents(const World& world) {
  v1::Frame events;
  AppendStepEvents(world, &events);
  std::string bytes;
  {
    // Destroyed before the hash: they trim `bytes` to what was written.
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    out.SetSerializationDeterministic(true);
    events.SerializeToCodedStream(&out);
  }
  return XXH3_64bits(bytes.data(), bytes.size());
}

}  // namespace atl::sim
