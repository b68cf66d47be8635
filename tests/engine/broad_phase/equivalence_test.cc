// Every strategy must report exactly the brute-force pairs, in the same
// canonical order, frame after frame of a changing scene.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "broad_phase/broad_phase.h"
#include "scene_driver.h"

namespace atl {
namespace {

using test::SceneDriver;
using test::SceneKind;

constexpr int32_t kFrames = 200;

std::string Describe(const std::vector<ProxyPair>& expected,
                     const std::vector<ProxyPair>& actual) {
  size_t i = 0;
  while (i < expected.size() && i < actual.size() && expected[i] == actual[i])
    ++i;
  std::string out = "sizes " + std::to_string(expected.size()) + " vs " +
                    std::to_string(actual.size()) + ", first difference at " +
                    std::to_string(i);
  if (i < expected.size()) {
    out += ": expected (" + std::to_string(expected[i].a) + "," +
           std::to_string(expected[i].b) + ")";
  }
  if (i < actual.size()) {
    out += " got (" + std::to_string(actual[i].a) + "," +
           std::to_string(actual[i].b) + ")";
  }
  return out;
}

int32_t SceneSize(SceneKind kind) {
  switch (kind) {
    case SceneKind::kOneSpot:
      return 250;  // every pair overlaps: 31k pairs
    case SceneKind::kDiagonal:
      return 700;
    default:
      return 1200;
  }
}

const std::vector<BroadPhaseType> kStrategies = {
    BroadPhaseType::kBruteForce, BroadPhaseType::kBatchBvh,
    BroadPhaseType::kKdSap, BroadPhaseType::kDynamicTree};

// One scene drives all strategies at once, so the O(n^2) oracle runs once.
class MatchesBruteForceTest : public ::testing::TestWithParam<SceneKind> {};

TEST_P(MatchesBruteForceTest, EveryStrategyReportsSamePairsInSameOrder) {
  const SceneKind kind = GetParam();
  SceneDriver scene(kind, SceneSize(kind),
                    /*seed=*/1234 + static_cast<int>(kind), kStrategies);
  std::vector<ProxyPair> expected;
  std::vector<ProxyPair> actual;
  int64_t total_pairs = 0;
  for (int32_t frame = 0; frame < kFrames; ++frame) {
    scene.phase(0).UpdatePairs(&expected);
    for (int32_t p = 1; p < scene.size(); ++p) {
      scene.phase(p).UpdatePairs(&actual);
      ASSERT_TRUE(expected == actual)
          << BroadPhaseTypeName(scene.phase(p).type()) << ", frame " << frame
          << ": " << Describe(expected, actual);
    }
    total_pairs += static_cast<int64_t>(expected.size());
    scene.Step();
  }
  // The scenes are meant to have contacts; an empty scene proves nothing.
  EXPECT_GT(total_pairs, kFrames);
}

INSTANTIATE_TEST_SUITE_P(
    Scenes, MatchesBruteForceTest,
    ::testing::Values(SceneKind::kUniform, SceneKind::kClustered,
                      SceneKind::kOneSpot, SceneKind::kHugeAndTiny,
                      SceneKind::kDiagonal, SceneKind::kMostlyStatic),
    [](const ::testing::TestParamInfo<SceneKind>& info) {
      return test::SceneName(info.param);
    });

}  // namespace
}  // namespace atl
