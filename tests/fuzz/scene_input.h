// Fuzzing support: the input format of scene_spec_fuzzer and the work
// budget that keeps a run short.
//
// Byte 0 chooses the encoding (bit 0 set: protobuf binary; clear: JSON, the
// canonical mapping CreateWorld clients write) and the broad phase (bits 1
// and 2), so every encoding and broad phase is fuzzed from any spec. The
// rest is the SceneSpec.

#ifndef ATOLL_TESTS_FUZZ_SCENE_INPUT_H_
#define ATOLL_TESTS_FUZZ_SCENE_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "atoll/v1/common.pb.h"
#include "atoll/v1/scene.pb.h"

namespace atl::fuzz {

/// Player slots and body limit of the worlds scene_spec_fuzzer builds: the
/// body limit admits examples/pyramid_ram.json (212 bodies).
inline constexpr uint32_t kScenePlayerSlots = 4;
inline constexpr uint32_t kSceneMaxBodies = 256;

/// Byte 0 bit 0: the spec is protobuf binary rather than JSON.
inline constexpr uint8_t kBinarySpec = 1;

struct SceneInput {
  v1::SceneSpec spec;
  /// The world config, not yet normalized (its broad phase from byte 0).
  v1::WorldConfig config;
};

/// The spec and config of a fuzz input; nullopt when the spec does not
/// parse.
std::optional<SceneInput> DecodeSceneInput(const uint8_t* data, size_t size);

/// A fuzz input holding `spec_bytes` (JSON text, or binary when `binary`)
/// with the default broad phase.
std::string EncodeSceneInput(bool binary, std::string_view spec_bytes);

/// False when building and stepping `spec` could take long however its
/// fields are checked: see the caps in scene_input.cc.
bool WithinFuzzBudget(const v1::SceneSpec& spec);

}  // namespace atl::fuzz

#endif  // ATOLL_TESTS_FUZZ_SCENE_INPUT_H_
