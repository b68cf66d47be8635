#include "fuzz_scenes.h"

#include <xxhash.h>

#include <cstring>

#include "atoll/scene.h"
#include "atoll/snapshot.h"

namespace atl::fuzz {

const std::vector<std::string>& SeedSnapshots() {
  static const std::vector<std::string>* seeds = [] {
    auto* out = new std::vector<std::string>();
    for (const char* name : {"pyramid", "mixed_static_dynamic", "smash"}) {
      SceneParams params;
      params.size = std::string(name) == "pyramid" ? 4 : 40;
      SceneDesc desc = MakeScene(name, params).value();
      auto world = BuildWorld(desc).value();
      for (int tick = 0; tick <= 60; ++tick) {
        if (tick % 30 == 0) out->push_back(SaveSnapshot(*world));
        (void)world->Step(desc.time_step);
      }
    }
    return out;
  }();
  return *seeds;
}

std::string FrameSnapshotBody(const std::string& body) {
  std::string out = SeedSnapshots()[0].substr(0, 12);  // magic + version
  const uint32_t size = static_cast<uint32_t>(body.size());
  out.append(reinterpret_cast<const char*>(&size), 4);
  out += body;
  const uint64_t checksum = XXH3_64bits(body.data(), body.size());
  out.append(reinterpret_cast<const char*>(&checksum), 8);
  return out;
}

}  // namespace atl::fuzz
