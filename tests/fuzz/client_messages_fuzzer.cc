// Fuzz target: any stream of player commands applied to a world that has
// something for every command kind to touch (command_world.h) never
// crashes or hangs, and every refusal is a status.
//
// The input is a stream of ticks (tick_stream.h), each a RecordedTick whose
// ConfirmedInputs carry a slot and commands, rather than ClientMessages:
// ConfirmedInput is what reaches the deterministic core. The server makes
// one from each Input a player sends (adding the slot it joined as), and a
// replay (ReplayService.Verify, `atoll verify`) hands a recording's
// ConfirmedInputs to Step as they are, with any slot and with commands no
// CheckCommands has seen. Join and Ack never reach atoll::sim; fuzzing them
// here would only waste mutations.
//
// Each tick does what the server does with the inputs that arrive for it,
// then what a replay of a tampered recording does with them: CheckCommands
// on each input (spawns queued by inputs accepted earlier in the tick count
// against the body limit, as WorldHost counts them), then one Step applying
// every input, accepted or not.

#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "atoll/sim/simulation.h"
#include "command_world.h"
#include "tick_stream.h"

namespace {

using atl::sim::CommandFailure;
using atl::sim::Simulation;

// Bounds one run: a step of the command world is cheap, but without a cap
// an input of empty records would step thousands of times. Commands per
// tick need no cap: each costs bytes of input, and spawns stop at the
// world's body limit.
constexpr size_t kMaxTicks = 32;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "client_messages_fuzzer: %s\n", what.c_str());
  std::abort();
}

// SpawnBody commands of an input: the server's count of queued spawns
// (world_host.cc CountSpawns).
int CountSpawns(const atl::v1::ConfirmedInput& input) {
  int n = 0;
  for (const atl::v1::Command& c : input.commands()) n += c.has_spawn_body() ? 1 : 0;
  return n;
}

// CheckCommands' contract: a refusal says which field, with one of the
// codes it documents.
void CheckRefusal(const absl::Status& s, const std::string& field) {
  if (s.ok()) return;
  switch (s.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kResourceExhausted:
      break;
    default:
      Fail("CheckCommands returned an undocumented code: " + s.ToString());
  }
  if (field.empty() || !absl::StartsWith(s.message(), field)) {
    Fail("CheckCommands refusal does not start with its field '" + field + "': " + s.ToString());
  }
}

// What Simulation documents about ownership: it lists live bodies and
// joints only.
void CheckOwners(const Simulation& sim) {
  for (const atl::v1::OwnedBody& o : sim.Owners()) {
    if (!sim.world().IsValid(atl::sim::ToBodyId(o.body()))) {
      Fail("Owners() lists dead body " + o.body().ShortDebugString());
    }
  }
  for (const atl::v1::OwnedJoint& o : sim.JointOwners()) {
    if (!sim.world().IsValid(atl::sim::ToJointId(o.joint()))) {
      Fail("JointOwners() lists dead joint " + o.joint().ShortDebugString());
    }
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
  const std::vector<atl::v1::RecordedTick> ticks = atl::fuzz::DecodeTicks(data, size, kMaxTicks);
  std::unique_ptr<Simulation> sim = atl::fuzz::NewCommandWorld();
  std::vector<CommandFailure> failures;
  for (const atl::v1::RecordedTick& tick : ticks) {
    int pending_spawns = 0;
    for (const atl::v1::ConfirmedInput& input : tick.inputs()) {
      std::string field;
      const absl::Status s =
          sim->CheckCommands(input.slot(), input.commands(), pending_spawns, &field);
      CheckRefusal(s, field);
      if (s.ok()) pending_spawns += CountSpawns(input);
    }
    failures.clear();
    // A step error is a status too (the server logs it, a replay stops
    // there); so does this run.
    const std::vector<atl::v1::ConfirmedInput> inputs(tick.inputs().begin(), tick.inputs().end());
    if (!sim->Step(inputs, &failures).ok()) break;
    for (const CommandFailure& f : failures) {
      if (f.status.ok()) Fail("Step reported a failure with an OK status");
    }
    CheckOwners(*sim);
  }
  return 0;
}
