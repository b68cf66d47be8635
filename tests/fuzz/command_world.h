// Fuzzing support: the fixed world client_messages_fuzzer applies commands
// to, with something for every command kind to touch.

#ifndef ATOLL_TESTS_FUZZ_COMMAND_WORLD_H_
#define ATOLL_TESTS_FUZZ_COMMAND_WORLD_H_

#include <memory>

#include "atoll/sim/simulation.h"
#include "atoll/v1/common.pb.h"
#include "atoll/v1/scene.pb.h"

namespace atl::fuzz {

/// Body creation indices of the command world (kBall: slot 2's ball, ...).
enum CommandWorldBody : int {
  kGround = 0,
  kSensor = 1,
  kBox = 2,       // dynamic, slot 1
  kBall = 3,      // dynamic, slot 2
  kPlatform = 4,  // kinematic, slot 1
  kChassis = 5,   // dynamic, slot 2
  kWheel = 6,     // dynamic, slot 2
  kBob = 7,       // dynamic, slot 1
  kSlider = 8,    // dynamic, slot 1
  kCrate = 9,     // dynamic, nobody's
  kWeight = 10,   // dynamic, slot 1
  kAntenna = 11,  // dynamic, slot 2
  kPuck = 12,     // dynamic, slot 2, no gravity
  kCommandWorldBodies = 13,
};

/// Joint creation indices of the command world, one of each engine type.
enum CommandWorldJoint : int {
  kPendulum = 0,   // revolute ground-bob, slot 1
  kAxle = 1,       // wheel chassis-wheel, slot 2
  kRail = 2,       // prismatic ground-slider, slot 1
  kSpring = 3,     // distance box-crate, slot 2
  kRope = 4,       // distance ground-weight, slot 1, breaks above 1500 N
  kDrive = 5,      // motor ground-puck, slot 2
  kGrab = 6,       // target on the ball, slot 2
  kMast = 7,       // weld chassis-antenna, nobody's, breaks above 50 N m
  kCommandWorldJoints = 8,
};

/// The command world's scene: bodies owned by slots 1 and 2 and by nobody,
/// a kinematic body, a static sensor, one joint of each type (owned by
/// slot 1, slot 2 or nobody; two breakable), a single-body template
/// "ball" and a group template "cart" (three bodies, two wheel joints, one
/// of them breakable, and a target joint).
const v1::SceneSpec& CommandWorldSpec();

/// Its normalized config: 4 player slots and a body limit of 40, low
/// enough for a few spawns to reach it.
const v1::WorldConfig& CommandWorldConfig();

/// A new simulation of the command world at tick 0. Aborts if the spec is
/// refused (it is fixed, so that is a bug in this file).
std::unique_ptr<sim::Simulation> NewCommandWorld();

}  // namespace atl::fuzz

#endif  // ATOLL_TESTS_FUZZ_COMMAND_WORLD_H_
