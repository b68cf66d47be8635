// Fuzz target: any SceneSpec, JSON or binary (scene_input.h), either builds
// a world that then steps, or is refused with a status naming the scene or
// config field, never a crash or a sanitizer report. This is what
// CreateWorld (and a replay's recording header) does with a client's spec.

#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>

#include "absl/strings/match.h"
#include "atoll/sim/simulation.h"
#include "scene_input.h"

namespace {

// Steps after Create: enough for contacts, sensors, joint breaks and
// sleeping to start, few enough to keep runs short.
constexpr int kTicks = 4;

// Simulation::Create's contract: a refusal has one of the codes it
// documents and starts with the field it names ("scene.bodies[2]...",
// "config.broad_phase: ...").
void CheckRefusal(const absl::Status& s) {
  bool documented = false;
  switch (s.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kResourceExhausted:
      documented = true;
      break;
    default:
      break;
  }
  if (!documented || !(absl::StartsWith(s.message(), "scene") ||
                       absl::StartsWith(s.message(), "config"))) {
    std::fprintf(stderr, "scene_spec_fuzzer: Create refused with %s\n", s.ToString().c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  // A string field with invalid UTF-8 fails the parse, as it should, and
  // protobuf would also log each one to stderr.
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::optional<atl::fuzz::SceneInput> input = atl::fuzz::DecodeSceneInput(data, size);
  if (!input.has_value() || !atl::fuzz::WithinFuzzBudget(input->spec)) return 0;
  const absl::StatusOr<atl::v1::WorldConfig> config =
      atl::sim::NormalizeWorldConfig(input->config, atl::fuzz::kSceneMaxBodies);
  if (!config.ok()) std::abort();  // the fuzzer's own config; always valid
  absl::StatusOr<std::unique_ptr<atl::sim::Simulation>> sim =
      atl::sim::Simulation::Create(input->spec, *config);
  if (!sim.ok()) {
    CheckRefusal(sim.status());
    return 0;
  }
  for (int tick = 0; tick < kTicks; ++tick) {
    if (!(*sim)->Step({}, nullptr).ok()) break;
  }
  return 0;
}
