#include "client/client_test_util.h"

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "server/service_test_util.h"

namespace atl::testing {

std::string ArenaScenePath() { return ATOLL_SOURCE_DIR "/tests/client/testdata/arena.json"; }

v1::SceneSpec LoadSceneSpec(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  v1::SceneSpec spec;
  const auto status = google::protobuf::util::JsonStringToMessage(text.str(), &spec);
  EXPECT_TRUE(status.ok()) << path << ": " << status.ToString();
  return spec;
}

v1::SceneSpec ArenaScene() { return LoadSceneSpec(ArenaScenePath()); }

TestWorld CreateArena(const std::string& address, const std::string& id, uint32_t slots,
                      uint32_t tick_rate_hz) {
  v1::CreateWorldRequest request;
  request.set_world_id(id);
  *request.mutable_scene() = ArenaScene();
  request.mutable_config()->set_player_slots(std::max<uint32_t>(slots, 4));  // the scene owns 4 bodies
  request.mutable_config()->set_tick_rate_hz(tick_rate_hz);
  request.mutable_config()->set_snapshot_every_ticks(60);
  request.mutable_config()->set_checkpoint_every_ticks(60);
  const v1::CreateWorldResponse response = CreateWorld(address, request);
  TestWorld world;
  world.id = response.world().world_id();
  world.scene = request.scene();
  world.config = response.world().config();
  for (const v1::SlotToken& t : response.tokens()) world.tokens.push_back(t.token());
  return world;
}

}  // namespace atl::testing
