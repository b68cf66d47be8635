// Golden hashes: the state hash after a fixed number of steps of every
// built-in scene, committed in tests/golden/hashes.txt. A change that alters
// any of them changes the simulation for every user and replay; update the
// file on purpose (ATOLL_UPDATE_GOLDEN=1) and say why in the commit message.

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "absl/strings/str_format.h"
#include "atoll/scene.h"
#include "atoll/snapshot.h"

namespace atl {
namespace {

constexpr int kSteps = 120;
// Small sizes keep the test fast; every scene's code path still runs.
const std::map<std::string, int32_t> kSizes = {
    {"add_pair", 200},        {"big_mobile", 6},     {"compounds", 100},
    {"diagonal", 100},        {"falling_circles", 200}, {"falling_squares", 200},
    {"junkyard", 400},        {"large_pyramid", 30}, {"many_pyramids", 4},
    {"mild_n2", 40},          {"mixed_static_dynamic", 200}, {"mostly_static", 400},
    {"mostly_static_single", 400}, {"multi_fixture", 40}, {"n2", 40},
    {"pyramid", 20},          {"rain", 2},           {"slow_explosion", 200},
    {"smash", 400},           {"spinner", 300},      {"tumbler", 12},
    {"vertical_stack", 15},   {"washer", 20}};

std::string GoldenPath() { return std::string(ATOLL_SOURCE_DIR) + "/tests/golden/hashes.txt"; }

std::string ComputeLine(const std::string& name) {
  SceneParams params;
  const auto it = kSizes.find(name);
  params.size = it == kSizes.end() ? 0 : it->second;
  SceneDesc desc = MakeScene(name, params).value();
  auto world = BuildWorld(desc).value();
  for (int i = 0; i < kSteps; ++i) {
    EXPECT_TRUE(ApplySceneWaves(world.get(), desc, i).ok());
    EXPECT_TRUE(world->Step(desc.time_step).ok());
  }
  return absl::StrFormat("%s size=%d steps=%d %016x", name, params.size, kSteps, HashWorld(*world));
}

TEST(GoldenHashTest, EveryBuiltInSceneMatchesTheCommittedHash) {
  std::map<std::string, std::string> expected;
  std::ifstream in(GoldenPath());
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    expected[line.substr(0, line.find(' '))] = line;
  }
  std::string fresh = "# Atoll golden hashes: scene size=N steps=N hash (XXH3 of the snapshot body).\n"
                      "# Regenerate: ATOLL_UPDATE_GOLDEN=1 build/release/bin/atoll_engine_tests "
                      "--gtest_filter=GoldenHash*\n";
  for (const SceneInfo& info : ListScenes()) {
    const std::string name(info.name);
    const std::string line = ComputeLine(name);
    fresh += line + "\n";
    EXPECT_EQ(expected[name], line) << "scene " << name << " changed its hash";
  }
  if (std::getenv("ATOLL_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(GoldenPath()) << fresh;
    std::printf("wrote %s\n", GoldenPath().c_str());
  }
}

}  // namespace
}  // namespace atl
