#include "command_world.h"

#include <google/protobuf/util/json_util.h>

#include <cstdio>
#include <cstdlib>

namespace atl::fuzz {
namespace {

// Body and joint order must match the enums in command_world.h. Anchors on
// the ground (body 0, at the origin) are world points.
constexpr char kCommandWorldJson[] = R"json({
  "materials": [{"name": "iron", "density": 10, "friction": 0.5}],
  "bodies": [
    {"type": "BODY_TYPE_STATIC",
     "shapes": [{"box": {"halfWidth": 30, "halfHeight": 0.5, "center": {"y": -0.5}}}]},
    {"type": "BODY_TYPE_STATIC", "position": {"x": -4, "y": 1},
     "shapes": [{"box": {"halfWidth": 1, "halfHeight": 1}, "isSensor": true}]},
    {"type": "BODY_TYPE_DYNAMIC", "position": {"x": -2, "y": 0.5}, "ownerSlot": 1,
     "shapes": [{"box": {"halfWidth": 0.5, "halfHeight": 0.5}}]},
    {"type": "BODY_TYPE_DYNAMIC", "position": {"x": 2, "y": 0.5}, "ownerSlot": 2,
     "shapes": [{"circle": {"radius": 0.5}, "enableHitEvents": true}]},
    {"type": "BODY_TYPE_KINEMATIC", "position": {"y": 4}, "linearVelocity": {"x": 0.5},
     "ownerSlot": 1, "shapes": [{"box": {"halfWidth": 1.5, "halfHeight": 0.2}}]},
    {"type": "BODY_TYPE_DYNAMIC", "position": {"x": 8, "y": 1.2}, "ownerSlot": 2,
     "shapes": [{"box": {"halfWidth": 1, "halfHeight": 0.25}}]},
    {"type": "BODY_TYPE_DYNAMIC", "position": {"x": 8.7, "y": 0.5}, "ownerSlot": 2,
     "shapes": [{"circle": {"radius": 0.4}}]},
    {"type": "BODY_TYPE_DYNAMIC", "position": {"x": -8, "y": 3}, "ownerSlot": 1,
     "shapes": [{"circle": {"radius": 0.3}}]},
    {"type": "BODY_TYPE_DYNAMIC", "position": {"x": -12, "y": 1}, "ownerSlot": 1,
     "shapes": [{"box": {"halfWidth": 0.4, "halfHeight": 0.4}}]},
    {"type": "BODY_TYPE_DYNAMIC", "position": {"y": 1},
     "shapes": [{"box": {"halfWidth": 0.5, "halfHeight": 0.5}}]},
    {"type": "BODY_TYPE_DYNAMIC", "position": {"x": 12, "y": 3}, "ownerSlot": 1,
     "shapes": [{"box": {"halfWidth": 0.5, "halfHeight": 0.5}, "material": "iron"}]},
    {"type": "BODY_TYPE_DYNAMIC", "position": {"x": 8, "y": 1.8}, "ownerSlot": 2,
     "shapes": [{"box": {"halfWidth": 0.05, "halfHeight": 0.3}}]},
    {"type": "BODY_TYPE_DYNAMIC", "position": {"x": 4, "y": 3}, "gravityScale": 0,
     "ownerSlot": 2, "shapes": [{"circle": {"radius": 0.3}}]}
  ],
  "joints": [
    {"revolute": {"bodyA": 0, "bodyB": 7, "localAnchorA": {"x": -8, "y": 5},
                  "localAnchorB": {"y": 2}, "enableLimit": true, "lowerAngle": -1,
                  "upperAngle": 1, "enableMotor": true, "maxMotorTorque": 10},
     "ownerSlot": 1},
    {"wheel": {"bodyA": 5, "bodyB": 6, "localAnchorA": {"x": 0.7, "y": -0.7},
               "localAxisA": {"y": 1}, "enableMotor": true, "maxMotorTorque": 20},
     "ownerSlot": 2},
    {"prismatic": {"bodyA": 0, "bodyB": 8, "localAnchorA": {"x": -12, "y": 1},
                   "localAxisA": {"x": 1}, "enableLimit": true, "lowerTranslation": -2,
                   "upperTranslation": 2, "enableMotor": true, "maxMotorForce": 50},
     "ownerSlot": 1},
    {"distance": {"bodyA": 2, "bodyB": 9, "length": 2, "enableSpring": true, "hertz": 2,
                  "dampingRatio": 0.5, "enableLimit": true, "minLength": 1, "maxLength": 3},
     "ownerSlot": 2},
    {"distance": {"bodyA": 0, "bodyB": 10, "localAnchorA": {"x": 12, "y": 6}, "length": 3},
     "breakForce": 1500, "ownerSlot": 1},
    {"motor": {"bodyA": 0, "bodyB": 12, "linearOffset": {"x": 4, "y": 3}, "maxForce": 20,
               "maxTorque": 5},
     "ownerSlot": 2},
    {"target": {"body": 3, "target": {"x": 2, "y": 2}, "hertz": 3, "maxForce": 100},
     "ownerSlot": 2},
    {"weld": {"bodyA": 5, "bodyB": 11, "localAnchorA": {"y": 0.6}, "angularHertz": 5},
     "breakTorque": 50}
  ],
  "templates": [
    {"name": "ball",
     "body": {"type": "BODY_TYPE_DYNAMIC", "shapes": [{"circle": {"radius": 0.3}}]}},
    {"name": "cart",
     "bodies": [
       {"type": "BODY_TYPE_DYNAMIC", "position": {"y": 0.6},
        "shapes": [{"box": {"halfWidth": 0.8, "halfHeight": 0.2}}]},
       {"type": "BODY_TYPE_DYNAMIC", "position": {"x": -0.5, "y": 0.3},
        "shapes": [{"circle": {"radius": 0.3}}]},
       {"type": "BODY_TYPE_DYNAMIC", "position": {"x": 0.5, "y": 0.3},
        "shapes": [{"circle": {"radius": 0.3}}]}
     ],
     "joints": [
       {"wheel": {"bodyA": 0, "bodyB": 1, "localAnchorA": {"x": -0.5, "y": -0.3},
                  "localAxisA": {"y": 1}, "enableMotor": true, "maxMotorTorque": 10}},
       {"wheel": {"bodyA": 0, "bodyB": 2, "localAnchorA": {"x": 0.5, "y": -0.3},
                  "localAxisA": {"y": 1}, "enableMotor": true, "maxMotorTorque": 10},
        "breakForce": 800},
       {"target": {"body": 0, "target": {"y": 1.5}, "hertz": 2, "maxForce": 30}}
     ]}
  ]
})json";

[[noreturn]] void Die(const char* what, const std::string& why) {
  std::fprintf(stderr, "command world: %s: %s\n", what, why.c_str());
  std::abort();
}

}  // namespace

const v1::SceneSpec& CommandWorldSpec() {
  static const v1::SceneSpec* spec = [] {
    auto* out = new v1::SceneSpec();
    const auto status = google::protobuf::util::JsonStringToMessage(kCommandWorldJson, out);
    if (!status.ok()) Die("bad JSON", status.ToString());
    return out;
  }();
  return *spec;
}

const v1::WorldConfig& CommandWorldConfig() {
  static const v1::WorldConfig* config = [] {
    v1::WorldConfig in;
    in.set_player_slots(4);
    in.set_max_bodies(40);
    absl::StatusOr<v1::WorldConfig> normalized = sim::NormalizeWorldConfig(in, 40);
    if (!normalized.ok()) Die("bad config", normalized.status().ToString());
    return new v1::WorldConfig(*std::move(normalized));
  }();
  return *config;
}

std::unique_ptr<sim::Simulation> NewCommandWorld() {
  absl::StatusOr<std::unique_ptr<sim::Simulation>> sim =
      sim::Simulation::Create(CommandWorldSpec(), CommandWorldConfig());
  if (!sim.ok()) Die("refused", sim.status().ToString());
  return *std::move(sim);
}

}  // namespace atl::fuzz
