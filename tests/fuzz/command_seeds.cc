#include "command_seeds.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <set>

#include "atoll/sim/simulation.h"
#include "command_world.h"
#include "tick_stream.h"

namespace atl::fuzz {
namespace {

using v1::Command;
using v1::ConfirmedInput;
using v1::JointCommand;
using v1::RecordedTick;

void SetVec(v1::Vec2* v, float x, float y) {
  v->set_x(x);
  v->set_y(y);
}

// Builds a seed tick by tick against a live command world, so that later
// ticks can name what earlier ones spawned, with the ids every replica
// would give them.
class SeedBuilder {
 public:
  SeedBuilder()
      : sim_(NewCommandWorld()),
        bodies_(sim_->world().GetBodyIds()),
        joints_(sim_->world().GetJointIds()) {}

  // Body and joint `index` of the command world as created (still named
  // so once they are gone).
  v1::BodyRef Body(int index) const { return sim::ToBodyRef(bodies_.at(index)); }
  v1::JointRef Joint(int index) const { return sim::ToJointRef(joints_.at(index)); }

  // A command of `slot` in the tick being built (one input per slot).
  Command* Add(uint32_t slot) {
    for (ConfirmedInput& in : *tick_.mutable_inputs()) {
      if (in.slot() == slot) return in.add_commands();
    }
    ConfirmedInput* in = tick_.add_inputs();
    in->set_slot(slot);
    in->set_sequence(++sequence_);
    return in->add_commands();
  }

  JointCommand* JointChange(uint32_t slot, int joint) {
    JointCommand* j = Add(slot)->mutable_joint();
    *j->mutable_joint() = Joint(joint);
    return j;
  }

  // Ends the tick: steps the world with it and notes the bodies and
  // joints it spawned (owned by a slot, not owned before).
  void EndTick() {
    const std::set<uint32_t> bodies_before = OwnedBodies();
    const std::set<uint32_t> joints_before = OwnedJoints();
    tick_.set_tick(sim_->tick() + 1);
    std::vector<sim::CommandFailure> failures;
    const std::vector<ConfirmedInput> inputs(tick_.inputs().begin(), tick_.inputs().end());
    if (!sim_->Step(inputs, &failures).ok()) {
      std::fprintf(stderr, "command seeds: step failed\n");
      std::abort();
    }
    spawned_bodies_.clear();
    for (const v1::OwnedBody& o : sim_->Owners()) {
      if (bodies_before.count(o.body().index()) == 0) spawned_bodies_.push_back(o.body());
    }
    spawned_joints_.clear();
    for (const v1::OwnedJoint& o : sim_->JointOwners()) {
      if (joints_before.count(o.joint().index()) == 0) spawned_joints_.push_back(o.joint());
    }
    ticks_.push_back(std::move(tick_));
    tick_.Clear();
  }

  const std::vector<v1::BodyRef>& spawned_bodies() const { return spawned_bodies_; }
  const std::vector<v1::JointRef>& spawned_joints() const { return spawned_joints_; }

  std::string Finish() {
    if (tick_.inputs_size() > 0) EndTick();
    return EncodeTicks(ticks_);
  }

 private:
  std::set<uint32_t> OwnedBodies() const {
    std::set<uint32_t> out;
    for (const v1::OwnedBody& o : sim_->Owners()) out.insert(o.body().index());
    return out;
  }
  std::set<uint32_t> OwnedJoints() const {
    std::set<uint32_t> out;
    for (const v1::OwnedJoint& o : sim_->JointOwners()) out.insert(o.joint().index());
    return out;
  }

  std::unique_ptr<sim::Simulation> sim_;
  const std::vector<BodyId> bodies_;
  const std::vector<JointId> joints_;
  RecordedTick tick_;
  std::vector<RecordedTick> ticks_;
  uint64_t sequence_ = 0;
  std::vector<v1::BodyRef> spawned_bodies_;
  std::vector<v1::JointRef> spawned_joints_;
};

// Every body command, by the slots that own the bodies.
std::string BodyCommands() {
  SeedBuilder b;
  Command* c = b.Add(1);
  *c->mutable_apply_force()->mutable_body() = b.Body(kBox);
  SetVec(c->mutable_apply_force()->mutable_force(), 50, 0);
  SetVec(c->mutable_apply_force()->mutable_point(), -2, 1);
  c = b.Add(1);
  *c->mutable_apply_force()->mutable_body() = b.Body(kBob);
  SetVec(c->mutable_apply_force()->mutable_force(), 0, 20);
  c = b.Add(1);
  *c->mutable_apply_impulse()->mutable_body() = b.Body(kWeight);
  SetVec(c->mutable_apply_impulse()->mutable_impulse(), 5, 0);
  c = b.Add(2);
  *c->mutable_apply_impulse()->mutable_body() = b.Body(kBall);
  SetVec(c->mutable_apply_impulse()->mutable_impulse(), -2, 3);
  SetVec(c->mutable_apply_impulse()->mutable_point(), 2, 1);
  c = b.Add(2);
  *c->mutable_set_linear_velocity()->mutable_body() = b.Body(kChassis);
  SetVec(c->mutable_set_linear_velocity()->mutable_velocity(), 3, 0);
  c = b.Add(2);
  *c->mutable_set_angular_velocity()->mutable_body() = b.Body(kWheel);
  c->mutable_set_angular_velocity()->set_velocity(-8);
  b.EndTick();
  c = b.Add(1);
  *c->mutable_set_transform()->mutable_body() = b.Body(kPlatform);
  SetVec(c->mutable_set_transform()->mutable_position(), 1, 3.5f);
  c->mutable_set_transform()->set_angle(0.2f);
  c = b.Add(1);
  *c->mutable_set_linear_velocity()->mutable_body() = b.Body(kPlatform);
  SetVec(c->mutable_set_linear_velocity()->mutable_velocity(), -1, 0);
  c = b.Add(2);
  *c->mutable_destroy_body()->mutable_body() = b.Body(kAntenna);  // and its weld with it
  b.EndTick();
  c = b.Add(1);
  *c->mutable_destroy_body()->mutable_body() = b.Body(kSlider);  // and the rail
  return b.Finish();
}

// Both templates spawned, then commands on what they made.
std::string Spawns() {
  SeedBuilder b;
  Command* c = b.Add(1);
  c->mutable_spawn_body()->set_template_name("ball");
  SetVec(c->mutable_spawn_body()->mutable_position(), -4, 3);
  c = b.Add(2);
  c->mutable_spawn_body()->set_template_name("cart");
  SetVec(c->mutable_spawn_body()->mutable_position(), 4, 5);
  c->mutable_spawn_body()->set_angle(0.3f);
  SetVec(c->mutable_spawn_body()->mutable_linear_velocity(), 1, 0);
  b.EndTick();
  const std::vector<v1::BodyRef> bodies = b.spawned_bodies();  // ball, then the cart's
  const std::vector<v1::JointRef> joints = b.spawned_joints();  // the cart's
  if (bodies.size() != 4 || joints.size() != 3) {
    std::fprintf(stderr, "command seeds: spawned %zu bodies, %zu joints\n", bodies.size(),
                 joints.size());
    std::abort();
  }
  c = b.Add(1);
  *c->mutable_apply_impulse()->mutable_body() = bodies[0];
  SetVec(c->mutable_apply_impulse()->mutable_impulse(), 1, 1);
  c = b.Add(2);
  *c->mutable_joint()->mutable_joint() = joints[0];
  c->mutable_joint()->set_motor_speed(-6);
  c = b.Add(2);
  *c->mutable_joint()->mutable_joint() = joints[2];
  SetVec(c->mutable_joint()->mutable_target(), 6, 2);
  c = b.Add(2);
  *c->mutable_set_angular_velocity()->mutable_body() = bodies[2];
  c->mutable_set_angular_velocity()->set_velocity(4);
  b.EndTick();
  c = b.Add(2);
  *c->mutable_destroy_joint()->mutable_joint() = joints[2];
  c = b.Add(2);
  *c->mutable_destroy_body()->mutable_body() = bodies[1];  // the chassis: its wheels stay
  c = b.Add(1);
  *c->mutable_destroy_body()->mutable_body() = bodies[0];
  b.EndTick();
  c = b.Add(1);
  c->mutable_spawn_body()->set_template_name("cart");  // reuses freed slots
  return b.Finish();
}

// Every change on each joint type that takes it, one joint per tick.
std::string JointChanges() {
  SeedBuilder b;
  JointCommand* j = b.JointChange(1, kPendulum);
  j->set_enable_motor(true);
  b.JointChange(1, kPendulum)->set_motor_speed(2);
  b.JointChange(1, kPendulum)->set_max_motor_torque(50);
  b.JointChange(1, kPendulum)->set_enable_limit(false);
  j = b.JointChange(1, kPendulum);
  j->mutable_limits()->set_lower(-0.5f);
  j->mutable_limits()->set_upper(0.5f);
  b.JointChange(1, kPendulum)->set_enable_spring(true);
  j = b.JointChange(1, kPendulum);
  j->mutable_spring()->set_hertz(2);
  j->mutable_spring()->set_damping_ratio(0.3f);
  b.EndTick();
  b.JointChange(2, kAxle)->set_motor_speed(-5);
  b.JointChange(2, kAxle)->set_max_motor_torque(30);
  j = b.JointChange(2, kAxle);
  j->mutable_limits()->set_lower(-0.1f);
  j->mutable_limits()->set_upper(0.1f);
  b.JointChange(2, kAxle)->set_enable_limit(true);
  b.JointChange(2, kAxle)->set_enable_spring(false);
  j = b.JointChange(2, kAxle);
  j->mutable_spring()->set_hertz(4);
  j->mutable_spring()->set_damping_ratio(0.7f);
  b.JointChange(1, kRail)->set_max_motor_force(100);
  b.JointChange(1, kRail)->set_motor_speed(1);
  j = b.JointChange(1, kRail);
  j->mutable_limits()->set_lower(-1);
  j->mutable_limits()->set_upper(3);
  b.JointChange(1, kRail)->set_enable_spring(true);
  b.EndTick();
  b.JointChange(2, kSpring)->set_distance_length(2.5f);
  j = b.JointChange(2, kSpring);
  j->mutable_limits()->set_lower(1.5f);
  j->mutable_limits()->set_upper(3.5f);
  b.JointChange(2, kSpring)->set_enable_spring(false);
  j = b.JointChange(2, kSpring);
  j->mutable_spring()->set_hertz(1);
  j->mutable_spring()->set_damping_ratio(0.1f);
  j = b.JointChange(2, kDrive);
  SetVec(j->mutable_motor_offsets()->mutable_linear(), 3, 3);
  j->mutable_motor_offsets()->set_angular(0.5f);
  b.JointChange(2, kDrive)->set_max_motor_torque(10);
  b.JointChange(2, kDrive)->set_max_motor_force(40);
  b.EndTick();
  SetVec(b.JointChange(2, kGrab)->mutable_target(), 1, 3);
  j = b.JointChange(2, kGrab);
  j->mutable_spring()->set_hertz(5);
  j->mutable_spring()->set_damping_ratio(0.5f);
  b.JointChange(2, kGrab)->set_max_motor_force(200);
  b.JointChange(1, kRope)->set_distance_length(2);
  return b.Finish();
}

// Destroying joints, and the rope breaking under a pull on its weight.
std::string JointEnds() {
  SeedBuilder b;
  Command* c = b.Add(2);
  *c->mutable_destroy_joint()->mutable_joint() = b.Joint(kSpring);
  c = b.Add(1);
  *c->mutable_destroy_joint()->mutable_joint() = b.Joint(kPendulum);
  c = b.Add(1);
  // A force, not an impulse: the break test reads the reaction of the
  // step's last substep, by when an impulse has been absorbed.
  *c->mutable_apply_force()->mutable_body() = b.Body(kWeight);
  SetVec(c->mutable_apply_force()->mutable_force(), 0, -5000);
  b.EndTick();
  b.EndTick();
  c = b.Add(1);
  *c->mutable_joint()->mutable_joint() = b.Joint(kRope);  // gone if it broke
  c->mutable_joint()->set_distance_length(4);
  c = b.Add(1);
  *c->mutable_destroy_joint()->mutable_joint() = b.Joint(kPendulum);  // gone
  return b.Finish();
}

// One refusal of each kind CheckCommands gives, several slots in a tick.
std::string Refusals() {
  SeedBuilder b;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Command* c = b.Add(2);
  *c->mutable_apply_force()->mutable_body() = b.Body(kBox);  // slot 1's
  SetVec(c->mutable_apply_force()->mutable_force(), 1, 0);
  c = b.Add(1);
  *c->mutable_set_transform()->mutable_body() = b.Body(kBox);  // not kinematic
  c = b.Add(3);  // owns nothing
  *c->mutable_set_angular_velocity()->mutable_body() = b.Body(kCrate);
  c = b.Add(1);
  v1::BodyRef stale = b.Body(kBob);
  stale.set_generation(stale.generation() + 1);
  *c->mutable_apply_impulse()->mutable_body() = stale;
  b.EndTick();
  c = b.Add(1);
  c->mutable_spawn_body()->set_template_name("no such template");
  c = b.Add(2);
  *c->mutable_apply_force()->mutable_body() = b.Body(kBall);
  SetVec(c->mutable_apply_force()->mutable_force(), nan, 0);
  c = b.Add(4);
  c->Clear();  // no kind
  b.EndTick();
  b.JointChange(1, kPendulum)->set_max_motor_force(1);  // revolute has none
  b.JointChange(2, kMast)->set_enable_spring(true);     // nobody's joint
  b.JointChange(2, kAxle);                              // no change
  JointCommand* j = b.JointChange(1, kRail);
  j->mutable_limits()->set_lower(2);
  j->mutable_limits()->set_upper(1);
  b.EndTick();
  for (int i = 0; i < 12; ++i) {  // past the body limit
    c = b.Add(2);
    c->mutable_spawn_body()->set_template_name("cart");
    SetVec(c->mutable_spawn_body()->mutable_position(), static_cast<float>(i) * 2 - 12, 8);
  }
  c = b.Add(1);
  c->mutable_spawn_body()->set_template_name("ball");
  return b.Finish();
}

}  // namespace

std::vector<std::pair<std::string, std::string>> CommandSeeds() {
  return {{"body_commands", BodyCommands()},
          {"spawns", Spawns()},
          {"joint_changes", JointChanges()},
          {"joint_ends", JointEnds()},
          {"refusals", Refusals()}};
}

}  // namespace atl::fuzz
