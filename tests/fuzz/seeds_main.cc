// atoll_fuzz_seeds DIR [EXAMPLES_DIR]: writes starting corpora for the fuzz
// targets, so fuzzing starts deep:
//   DIR/snapshot/*         real snapshots
//   DIR/delta/*            real deltas, prefixed with their base's index
//   DIR/scene_spec/*       every EXAMPLES_DIR/*.json scene (default: the
//                          source tree's examples/) as JSON and as binary,
//                          the command world, each built-in scene at size 4
//   DIR/client_messages/*  hand-made command streams (command_seeds.h)

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "atoll/delta.h"
#include "atoll/scene.h"
#include "command_seeds.h"
#include "command_world.h"
#include "fuzz_scenes.h"
#include "scene_input.h"

namespace {

namespace fs = std::filesystem;

void Write(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

void WriteSnapshotSeeds(const fs::path& dir) {
  fs::create_directories(dir / "snapshot");
  fs::create_directories(dir / "delta");
  const auto& seeds = atl::fuzz::SeedSnapshots();
  for (size_t i = 0; i < seeds.size(); ++i) {
    Write(dir / "snapshot" / ("seed" + std::to_string(i)), seeds[i]);
    if (i + 1 < seeds.size()) {
      auto delta = atl::MakeDelta(seeds[i], seeds[i + 1]);
      if (!delta.ok()) continue;
      Write(dir / "delta" / ("seed" + std::to_string(i)), static_cast<char>(i) + *delta);
    }
  }
}

// Writes `spec` as a JSON and a binary scene_spec_fuzzer input named `name`.
void WriteSpec(const fs::path& dir, const std::string& name, const std::string& json,
               const atl::v1::SceneSpec& spec) {
  Write(dir / (name + ".json"), atl::fuzz::EncodeSceneInput(false, json));
  Write(dir / (name + ".binpb"), atl::fuzz::EncodeSceneInput(true, spec.SerializeAsString()));
}

// False (after saying why) when an example does not parse.
bool WriteSceneSeeds(const fs::path& dir, const fs::path& examples) {
  const fs::path out = dir / "scene_spec";
  fs::create_directories(out);
  std::vector<fs::path> files;
  for (const fs::directory_entry& e : fs::directory_iterator(examples)) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    std::stringstream text;
    text << std::ifstream(file).rdbuf();
    atl::v1::SceneSpec spec;
    const auto status = google::protobuf::util::JsonStringToMessage(text.str(), &spec);
    if (!status.ok()) {
      std::fprintf(stderr, "atoll_fuzz_seeds: %s: %s\n", file.c_str(), status.ToString().c_str());
      return false;
    }
    WriteSpec(out, "example_" + file.stem().string(), text.str(), spec);
  }
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(atl::fuzz::CommandWorldSpec(), &json);
  WriteSpec(out, "command_world", json, atl::fuzz::CommandWorldSpec());
  for (const atl::SceneInfo& info : atl::ListScenes()) {
    atl::v1::SceneSpec spec;
    spec.mutable_builtin()->set_name(std::string(info.name));
    spec.mutable_builtin()->set_size(4);
    json.clear();
    (void)google::protobuf::util::MessageToJsonString(spec, &json);
    Write(out / ("builtin_" + std::string(info.name)), atl::fuzz::EncodeSceneInput(false, json));
  }
  std::printf("wrote %zu example scenes to %s\n", files.size(), out.c_str());
  return true;
}

void WriteCommandSeeds(const fs::path& dir) {
  const fs::path out = dir / "client_messages";
  fs::create_directories(out);
  for (const auto& [name, bytes] : atl::fuzz::CommandSeeds()) Write(out / name, bytes);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: atoll_fuzz_seeds DIR [EXAMPLES_DIR]\n");
    return 2;
  }
  const fs::path dir(argv[1]);
  WriteSnapshotSeeds(dir);
  if (!WriteSceneSeeds(dir, argc == 3 ? fs::path(argv[2]) : fs::path(ATOLL_EXAMPLES_DIR))) {
    return 1;
  }
  WriteCommandSeeds(dir);
  std::printf("wrote seed corpora to %s\n", argv[1]);
  return 0;
}
