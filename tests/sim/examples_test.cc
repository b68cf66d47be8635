// Every examples/*.json is a SceneSpec a server builds (the fuzzers seed
// their corpus from them, and scripts/demo creates them); other example
// kinds, such as batch sweeps, live in subfolders.

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "atoll/sim/simulation.h"
#include "atoll/v1/scene.pb.h"

namespace atl::sim {
namespace {

namespace fs = std::filesystem;

TEST(ExamplesTest, EveryTopLevelExampleIsASceneSpecThatBuildsAndSteps) {
  std::vector<fs::path> files;
  for (const fs::directory_entry& e :
       fs::directory_iterator(fs::path(ATOLL_SOURCE_DIR) / "examples")) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 4u);
  absl::StatusOr<v1::WorldConfig> config = NormalizeWorldConfig(v1::WorldConfig(), 100000);
  ASSERT_TRUE(config.ok()) << config.status();
  config->set_player_slots(4);
  for (const fs::path& file : files) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    v1::SceneSpec spec;
    const auto parsed = google::protobuf::util::JsonStringToMessage(text.str(), &spec);
    ASSERT_TRUE(parsed.ok()) << file << ": " << parsed.ToString();
    absl::StatusOr<std::unique_ptr<Simulation>> sim = Simulation::Create(spec, *config);
    ASSERT_TRUE(sim.ok()) << file << ": " << sim.status();
    for (int tick = 0; tick < 10; ++tick) ASSERT_TRUE((*sim)->Step({}, nullptr).ok()) << file;
  }
}

}  // namespace
}  // namespace atl::sim
