// Shared pieces of the service tests: a two-player scene (loaded from JSON
// the way users write them), world creation, command builders and the local
// re-simulation that checks a stream's hash chain.

#ifndef ATOLL_TESTS_SERVER_SERVICE_TEST_UTIL_H_
#define ATOLL_TESTS_SERVER_SERVICE_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <string>
#include <vector>

#include "atoll/v1/common.pb.h"
#include "atoll/v1/scene.pb.h"
#include "atoll/v1/session.pb.h"
#include "atoll/v1/world.grpc.pb.h"

namespace atl::testing {

/// Ground (body 0), slot 1's box (1), slot 2's circle (2), slot 1's
/// kinematic capsule (3), an unowned triangle (4); template "ball".
v1::SceneSpec DuelScene();

/// CreateWorld through a fresh channel; fails the test on error.
v1::CreateWorldResponse CreateWorld(const std::string& address, const v1::CreateWorldRequest& request);
grpc::Status TryCreateWorld(const std::string& address, const v1::CreateWorldRequest& request,
                            v1::CreateWorldResponse* response);
v1::WorldInfo GetWorld(const std::string& address, const std::string& world_id);
// DestroyWorld, expecting it to succeed.
void DestroyWorld(const std::string& address, const std::string& world_id);
v1::Recording GetRecording(const std::string& address, const std::string& world_id,
                           bool header_only = false);

/// A new empty directory under the test's temporary directory.
std::string MakeTempDir();

/// The Join of player `slot` of a world just created, from tick 0.
v1::Join JoinFor(const v1::CreateWorldResponse& world, uint32_t slot);

v1::BodyRef Body(uint32_t index, uint32_t generation = 1);
v1::Command Impulse(const v1::BodyRef& body, float x, float y);
v1::ClientMessage InputMessage(uint64_t sequence, uint64_t target_tick,
                               std::vector<v1::Command> commands);

/// Re-simulates a session's stream locally: from the SceneSpec when the
/// stream starts at tick 0 (checking the snapshot's hash), from its first
/// snapshot otherwise; applies each Frame's confirmed inputs with
/// Simulation::Step and compares every hash and every event list (contact,
/// sensor, joint break). Frames must be contiguous.
/// *last_tick receives the last verified tick.
::testing::AssertionResult ResimulateStream(const std::vector<v1::ServerMessage>& messages,
                                            const v1::SceneSpec& spec,
                                            const v1::WorldConfig& config, uint64_t* last_tick);

/// Tick -> hash of every Frame in the stream.
std::vector<std::pair<uint64_t, uint64_t>> FrameHashes(const std::vector<v1::ServerMessage>& messages);

}  // namespace atl::testing

#endif  // ATOLL_TESTS_SERVER_SERVICE_TEST_UTIL_H_
