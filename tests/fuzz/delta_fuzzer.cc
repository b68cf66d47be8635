// Fuzz target: applying any bytes as a delta to a real snapshot never
// crashes, and a delta that applies yields exactly the bytes its target
// hash promises (checked inside ApplyDelta).

#include <cstdint>
#include <string>

#include "atoll/delta.h"
#include "fuzz_scenes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto& seeds = atl::fuzz::SeedSnapshots();
  const std::string& base = seeds[data[0] % seeds.size()];
  const std::string delta(reinterpret_cast<const char*>(data + 1), size - 1);
  (void)atl::ApplyDelta(base, delta);
  return 0;
}
