// atoll_fuzz_seeds DIR: writes DIR/snapshot/* (real snapshots) and
// DIR/delta/* (real deltas, prefixed with their base's index) as starting
// corpora for the fuzz targets.

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "atoll/delta.h"
#include "fuzz_scenes.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: atoll_fuzz_seeds DIR\n");
    return 2;
  }
  const std::filesystem::path dir(argv[1]);
  std::filesystem::create_directories(dir / "snapshot");
  std::filesystem::create_directories(dir / "delta");
  const auto& seeds = atl::fuzz::SeedSnapshots();
  for (size_t i = 0; i < seeds.size(); ++i) {
    std::ofstream(dir / "snapshot" / ("seed" + std::to_string(i)), std::ios::binary) << seeds[i];
    if (i + 1 < seeds.size()) {
      auto delta = atl::MakeDelta(seeds[i], seeds[i + 1]);
      if (!delta.ok()) continue;
      std::ofstream out(dir / "delta" / ("seed" + std::to_string(i)), std::ios::binary);
      out << static_cast<char>(i) << *delta;
    }
  }
  std::printf("wrote %zu snapshot seeds to %s\n", seeds.size(), argv[1]);
  return 0;
}
