// Fuzz target: loading a snapshot never crashes, and whatever loads saves
// back to the same bytes (the format is canonical).

#include <cstdint>
#include <cstdlib>
#include <string>

#include "atoll/snapshot.h"
#include "fuzz_scenes.h"

namespace {

void Check(const std::string& bytes) {
  auto world = atl::LoadSnapshot(bytes);
  if (!world.ok()) return;
  if (atl::SaveSnapshot(**world) != bytes) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  // As is: exercises the frame checks (magic, version, length, checksum).
  Check(input);
  // Re-framed: the checksum is made valid, so the record parser sees it.
  if (size > 16 + 8) Check(atl::fuzz::FrameSnapshotBody(input.substr(16, size - 24)));
  return 0;
}
