#include "scene_input.h"

#include <google/protobuf/util/json_util.h>

#include <array>

#include "atoll/scene.h"

namespace atl::fuzz {
namespace {

// Built-in scenes. MakeScene builds a scene's whole description before
// Create compares its body count with max_bodies, and what the size counts
// differs per scene: bodies, a pyramid's bottom row (size²/2 bodies), a
// grid's side (size²), big_mobile's tree depth (2^size bodies). The
// engine bounds each scene's size (SceneInfo::max_size) at about a million
// bodies, far too many for one fuzzing iteration, so sizes (and a size of
// 0, the scene's default) above 20 are skipped: every scene then stays
// under ~1100 bodies, except big_mobile, held to depth 10 (1024 bodies).
constexpr int32_t kMaxBuiltinSize = 20;
constexpr int32_t kMaxBigMobileDepth = 10;

// The caps below count what Create builds into the world (spec.bodies and
// spec.joints); templates are only converted, at a cost linear in the
// input. Measured under ASan+UBSan, the worst input within them (64
// circles at one point, 64 joints, 64 substeps) takes 0.4 s to build and
// step: slow, but never a hang, whatever -max_len is.

// Shapes other than chains: no world limit bounds them as max_bodies bounds
// bodies, and shapes piled at one point make contacts quadratic (256 circles
// at one point take 0.7 s to step 4 ticks, 64 take 0.04 s).
constexpr int kMaxShapes = 64;

// Chain points (a segment per edge). Chain edges collide neither with each
// other nor with segments, so they cannot pile up quadratically; they only
// cost broad-phase work.
constexpr int kMaxChainPoints = 256;

// Joints: each costs solver work every substep (up to 64 per step).
constexpr int kMaxJoints = 64;

constexpr std::array<const char*, 4> kBroadPhases = {"batch_bvh", "kd_sap", "dynamic_tree",
                                                     "brute_force"};

bool BuiltinWithinBudget(const v1::BuiltinScene& builtin) {
  for (const SceneInfo& info : ListScenes()) {
    if (info.name != builtin.name()) continue;
    const int32_t size = builtin.size() == 0 ? info.default_size : builtin.size();
    return size <= (info.name == "big_mobile" ? kMaxBigMobileDepth : kMaxBuiltinSize);
  }
  return true;  // an unknown name: Create refuses it without building anything
}

}  // namespace

std::optional<SceneInput> DecodeSceneInput(const uint8_t* data, size_t size) {
  if (size < 1) return std::nullopt;
  SceneInput out;
  const char* spec = reinterpret_cast<const char*>(data + 1);
  if ((data[0] & kBinarySpec) != 0) {
    if (!out.spec.ParseFromArray(spec, static_cast<int>(size - 1))) return std::nullopt;
  } else {
    const auto status =
        google::protobuf::util::JsonStringToMessage(std::string_view(spec, size - 1), &out.spec);
    if (!status.ok()) return std::nullopt;
  }
  out.config.set_player_slots(kScenePlayerSlots);
  out.config.set_max_bodies(kSceneMaxBodies);
  out.config.set_broad_phase(kBroadPhases[(data[0] >> 1) % kBroadPhases.size()]);
  return out;
}

std::string EncodeSceneInput(bool binary, std::string_view spec_bytes) {
  std::string out(1, static_cast<char>(binary ? kBinarySpec : 0));
  out += spec_bytes;
  return out;
}

bool WithinFuzzBudget(const v1::SceneSpec& spec) {
  if (spec.has_builtin() && !BuiltinWithinBudget(spec.builtin())) return false;
  int shapes = 0;
  int chain_points = 0;
  for (const v1::BodySpec& body : spec.bodies()) {
    for (const v1::ShapeSpec& shape : body.shapes()) {
      if (shape.has_chain()) {
        chain_points += shape.chain().points_size();
      } else {
        ++shapes;
      }
    }
  }
  return shapes <= kMaxShapes && chain_points <= kMaxChainPoints &&
         spec.joints_size() <= kMaxJoints;
}

}  // namespace atl::fuzz
