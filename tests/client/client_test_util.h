// Client test support: the arena scene and creating worlds on a real server.

#ifndef ATOLL_TESTS_CLIENT_CLIENT_TEST_UTIL_H_
#define ATOLL_TESTS_CLIENT_CLIENT_TEST_UTIL_H_

#include <string>
#include <vector>

#include "atoll/v1/world.pb.h"

namespace atl::testing {

/// tests/client/testdata/arena.json: zero gravity, four walls (bodies 0-3),
/// one circle per player slot 1..4 (bodies 4-7), twelve loose boxes;
/// template "ball".
/// The SceneSpec of a JSON file (protobuf's JSON mapping); a parse
/// failure fails the calling test.
v1::SceneSpec LoadSceneSpec(const std::string& path);
v1::SceneSpec ArenaScene();
std::string ArenaScenePath();

/// A world created on `address`, with its tokens in slot order.
struct TestWorld {
  std::string id;
  v1::SceneSpec scene;
  v1::WorldConfig config;
  std::vector<std::string> tokens;
};

/// Creates an arena world with `slots` (at least 4) slots at `tick_rate_hz`; fails the
/// test on error.
TestWorld CreateArena(const std::string& address, const std::string& id, uint32_t slots,
                      uint32_t tick_rate_hz);

}  // namespace atl::testing

#endif  // ATOLL_TESTS_CLIENT_CLIENT_TEST_UTIL_H_
